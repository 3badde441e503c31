"""Optimizers (SGD, Adam, AdamW, RMSprop, Adagrad) and learning-rate schedulers (StepLR,
CosineAnnealingLR, LinearLR) against torch.optim, computed here: parameters and state step for
step on Values and on float64 and float32 Tensors, the schedulers' rates to the last bit, and
the refusals.

Why the optimizers compare within a few ulps, not bit for bit, against the PyTorch of this
process: its AVX2 kernels fuse a multiply and an add into one rounding (lerp, addcmul, addcdiv,
add with alpha), where Python floats and NumPy round twice, and its sqrt is one ulp off for
about 1 % of float64 inputs (15 % of float32), where NumPy's is correctly rounded (measured,
torch 2.13 CPU). Run on its portable kernels (ATEN_CPU_CAPABILITY=default), PyTorch does the
very operations topograd does: there the float64 runs of the table below are held to 2 ulps.
Each step's update then differs at most by the last bit of a square root, an ulp of the update,
which moves the parameter it is added to by at most one rounding; they were equal to the bit on
the machine this was written on and one ulp apart (AdamW with amsgrad) on another, whose
portable kernels round a square root otherwise: no test pins the bits of a kernel that differs
between CPUs.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import topograd as tg

START = [0.5, -1.5, 2.0, 0.0, 0.25, -0.75, 1.0, 3.0, -2.0]
STEPS = 20

# Each optimizer in the settings that take its every branch (betas under 1/2: lerp from the
# other end; amsgrad; decoupled decay; centered; momentum; lr_decay; maximize).
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("Adam", {}),
    ("Adam", {"lr": 0.1, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.01}),
    ("Adam", {"lr": 0.05, "amsgrad": True, "weight_decay": 0.1, "maximize": True}),
    ("Adam", {"lr": 0.05, "betas": (0.3, 0.6), "decoupled_weight_decay": True}),
    ("AdamW", {}),
    ("AdamW", {"lr": 0.1, "weight_decay": 0.1, "amsgrad": True}),
    ("AdamW", {"lr": 0.05, "betas": (0.3, 0.9), "weight_decay": 0.5, "maximize": True}),
    ("RMSprop", {}),
    ("RMSprop", {"lr": 0.05, "alpha": 0.9, "weight_decay": 0.1}),
    ("RMSprop", {"momentum": 0.9, "centered": True}),
    ("RMSprop", {"centered": True, "alpha": 0.3, "maximize": True}),
    ("RMSprop", {"momentum": 0.5, "eps": 1e-3}),
    ("Adagrad", {}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.1}),
    ("Adagrad", {"initial_accumulator_value": 0.5, "eps": 1e-3, "maximize": True}),
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
    ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.3, "maximize": True}),
]
IDS = [f"{name}-{i}" for i, (name, _) in enumerate(CONFIGS)]


def gradients(step: int) -> list[float]:
    """The same made-up gradients for both libraries, different at every step."""
    return [math.sin(step + i) * (i + 1) for i in range(len(START))]


def run_ours(name: str, kwargs: dict[str, Any], start: np.ndarray, grads: np.ndarray) -> Any:
    """topograd on Values (a list ``start``) or a Tensor (an array ``start``)."""
    params: list[Any]
    if isinstance(start, list):
        params = [tg.Value(x) for x in start]
    else:
        params = [tg.Tensor(start.copy(), requires_grad=True)]
    opt = getattr(tg.optim, name)(params, **kwargs)
    for g in grads:
        if isinstance(start, list):
            for p, x in zip(params, g.tolist()):
                p.grad = x
        else:
            params[0].grad = g.copy()
        opt.step()
    data = np.array([p.data for p in params]) if isinstance(start, list) else params[0].data
    return data, opt


def run_theirs(name: str, kwargs: dict[str, Any], start: np.ndarray, grads: np.ndarray) -> Any:
    """torch.optim from the same start with the same gradients."""
    p = torch.tensor(np.asarray(start), requires_grad=True)
    opt = getattr(torch.optim, name)([p], **kwargs)
    for g in grads:
        p.grad = torch.tensor(g)
        opt.step()
    return p.detach().numpy(), opt.state[p]


def table(dtype: type = np.float64) -> tuple[np.ndarray, np.ndarray]:
    grads = np.array([gradients(k) for k in range(STEPS)], dtype=dtype)
    return np.array(START, dtype=dtype), grads


def assert_within_ulps(ours: Any, theirs: Any, ulps: int = 8) -> None:
    """Equal within ``ulps`` units in the last place of the parameters' scale (their largest
    magnitude, at least 1): the FMA and sqrt differences of the module's docstring, a few per
    step, stay far below that."""
    theirs = np.asarray(theirs)
    scale = np.spacing(max(np.abs(theirs).max(initial=0.0), theirs.dtype.type(1.0)))
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=ulps * scale)


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=IDS)
@pytest.mark.parametrize("kind", ["value", "float64", "float32"])
def test_optimizers_follow_torch_step_for_step(
    name: str, kwargs: dict[str, Any], kind: str
) -> None:
    dtype = np.float32 if kind == "float32" else np.float64
    start, grads = table(dtype)
    ours, opt = run_ours(name, kwargs, start.tolist() if kind == "value" else start, grads)
    theirs, their_state = run_theirs(name, kwargs, start, grads)
    assert ours.dtype == dtype
    assert_within_ulps(ours, theirs)
    # the same state, by PyTorch's names (each Value keeps its own: compare the Tensor's)
    first = opt.state[opt.param_groups[0]["params"][0]]
    assert set(first) == set(their_state)
    if kind != "value":
        for key, value in their_state.items():
            assert_within_ulps(first[key], value.numpy())


TORCH_PORTABLE = """
import json, sys, numpy as np, torch, test_optim as t
assert torch.backends.cpu.get_cpu_capability() == "DEFAULT"
start, grads = t.table()
print(json.dumps([t.run_theirs(n, kw, start, grads)[0].tolist() for n, kw in t.CONFIGS]))
"""


def test_float64_runs_are_within_2_ulps_of_torchs_portable_kernels() -> None:
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "default", "PYTHONPATH": str(Path(__file__).parent)}
    done = subprocess.run(
        [sys.executable, "-c", TORCH_PORTABLE], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    start, grads = table()
    for (name, kwargs), theirs in zip(CONFIGS, json.loads(done.stdout)):
        on_values = run_ours(name, kwargs, start.tolist(), grads)[0]
        on_tensor = run_ours(name, kwargs, start, grads)[0]
        assert_within_ulps(on_values, theirs, ulps=2)
        assert_within_ulps(on_tensor, theirs, ulps=2)
        assert on_values.tolist() == on_tensor.tolist(), (name, kwargs)  # the same code, here


def hyperparameters(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Settings drawn for ``name``; RMSprop's centered variance is left to the table, since
    with a gradient that hardly changes it is the difference of two close numbers, where one
    fused rounding moves the square root by far more than an ulp."""
    unit = st.floats(0.0, 0.95)
    lr = st.floats(1e-3, 1.0)
    decay = st.sampled_from([0.0, 0.01, 0.3])
    if name in ("Adam", "AdamW"):
        return st.fixed_dictionaries(
            {"lr": lr, "betas": st.tuples(unit, st.floats(0.0, 0.999)), "weight_decay": decay},
            optional={"eps": st.sampled_from([1e-8, 1e-3]), "amsgrad": st.booleans()},
        )
    if name == "RMSprop":
        return st.fixed_dictionaries(
            {"lr": lr, "alpha": st.floats(0.0, 0.999), "weight_decay": decay},
            optional={"momentum": unit, "eps": st.sampled_from([1e-8, 1e-3])},
        )
    if name == "Adagrad":
        return st.fixed_dictionaries(
            {"lr": lr, "lr_decay": st.floats(0.0, 1.0), "weight_decay": decay},
            optional={"initial_accumulator_value": st.floats(0.0, 1.0)},
        )
    return st.fixed_dictionaries(
        {"lr": lr, "momentum": unit, "dampening": unit, "weight_decay": decay}
    )


@given(st.data())
def test_optimizers_follow_torch_for_drawn_shapes_values_and_settings(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]))
    kwargs = data.draw(hyperparameters(name))
    dtype = data.draw(st.sampled_from([np.float64, np.float32]))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, max_side=3))
    values = st.floats(-3.0, 3.0, width=32)
    start = data.draw(hnp.arrays(dtype, shape, elements=values))
    grads = data.draw(hnp.arrays(dtype, (6, *shape), elements=st.floats(-10, 10, width=32)))
    ours, _ = run_ours(name, kwargs, start, grads)
    theirs, _ = run_theirs(name, kwargs, start, grads)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    # Where L2 weight decay cancels the gradient (g + wd p near 0), or a step lands near 0, it
    # is ill-conditioned: one fused multiply-add of PyTorch's moves it by that factor in ulps.
    assert_within_ulps(ours, theirs, ulps=int(8 * cancellation(name, kwargs, start, grads)))


def cancellation(name: str, kwargs: dict[str, Any], start: np.ndarray, grads: np.ndarray) -> float:
    """The largest factor by which a step loses digits along PyTorch's run: g + wd p, by
    (|g| + |wd p|) / |g + wd p| (L2 weight decay; AdamW's is decoupled), and the update
    p - s itself, by (|p| + |s|) / |p - s| (a step that lands near 0 from afar)."""
    decay = 0.0 if name == "AdamW" else kwargs.get("weight_decay", 0.0)
    p = torch.tensor(np.asarray(start), requires_grad=True)
    opt = getattr(torch.optim, name)([p], **kwargs)
    worst = 1.0
    for g in grads:
        x = p.detach().numpy().astype(np.float64)
        total = np.abs(g + decay * x)
        scale = np.abs(g) + np.abs(decay * x)
        p.grad = torch.tensor(g)
        opt.step()
        new = p.detach().numpy().astype(np.float64)
        moved = (np.abs(x) + np.abs(x - new)) / np.maximum(np.abs(new), 1e-300)
        worst = max(
            worst,
            float(np.max(scale / np.maximum(total, 1e-300), initial=1.0)),
            float(np.max(np.where(new == x, 1.0, moved), initial=1.0)),
        )
    return min(worst, 1e6)


def test_a_training_loop_with_a_schedule_follows_torch() -> None:
    """PyTorch's loop as its users write it (zero_grad, backward, step, scheduler step), where
    each gradient depends on the parameters moved so far."""
    start = np.array([[0.5, -1.0, 0.3], [2.0, 0.1, -0.7]])
    x = np.linspace(-1.0, 1.0, 3)
    ours, theirs = tg.Tensor(start, requires_grad=True), torch.tensor(start, requires_grad=True)
    opt_o = tg.optim.AdamW([ours], lr=0.05, weight_decay=0.1, amsgrad=True)
    opt_t = torch.optim.AdamW([theirs], lr=0.05, weight_decay=0.1, amsgrad=True)
    warm_o, warm_t = (
        tg.optim.LinearLR(opt_o, 0.2, total_iters=4),
        torch_lr(opt_t, "LinearLR", 0.2, total_iters=4),
    )
    cos_o, cos_t = (
        tg.optim.CosineAnnealingLR(opt_o, T_max=10),
        torch_lr(opt_t, "CosineAnnealingLR", T_max=10),
    )
    for _ in range(25):
        for opt, w, arg in ((opt_o, ours, tg.Tensor(x)), (opt_t, theirs, torch.tensor(x))):
            opt.zero_grad()
            ((w * arg).sin() ** 2).sum().backward()
            opt.step()
        for sched in (warm_o, warm_t, cos_o, cos_t):
            sched.step()
        assert opt_o.lr == opt_t.param_groups[0]["lr"]
    # (and the gradients themselves differ by an ulp now and then: NumPy's sin is not PyTorch's)
    assert_within_ulps(ours.data, theirs.detach().numpy())


def test_rmsprop_and_adagrad_on_values_and_tensors_together_as_torch() -> None:
    a, t = tg.Value(1.5), tg.tensor([1.5, -0.5], dtype=tg.float64, requires_grad=True)
    f64 = {"dtype": torch.float64, "requires_grad": True}
    ta, tt = torch.tensor(1.5, **f64), torch.tensor([1.5, -0.5], **f64)
    for name, kwargs in (("RMSprop", {"momentum": 0.9}), ("Adagrad", {"lr_decay": 0.1})):
        ours, theirs = (
            getattr(tg.optim, name)([a, t], **kwargs),
            getattr(torch.optim, name)([ta, tt], **kwargs),
        )
        for _ in range(10):
            for opt, p, q in ((ours, a, t), (theirs, ta, tt)):
                opt.zero_grad()
                (p * p * p).backward()
                (q * q).sum().backward()
                opt.step()
        assert_within_ulps(np.array([a.data, *t.data]), np.array([ta.item(), *tt.tolist()]))


def test_zero_over_zero_is_nan_as_in_torch_not_an_exception() -> None:
    """eps=0 with a zero gradient divides 0 by 0: nan, without an exception or a warning."""
    for make in (lambda ps: tg.optim.Adagrad(ps, eps=0.0), lambda ps: tg.optim.Adam(ps, eps=0.0)):
        w, t = tg.Value(1.0), tg.Tensor([1.0, 2.0], requires_grad=True)
        w.grad, t.grad = -0.0, tg.zeros(2)
        make([w, t]).step()
        assert math.isnan(w.data) and np.isnan(t.data).all()
    p = torch.tensor([1.0], requires_grad=True)
    p.grad = torch.zeros(1)
    torch.optim.Adagrad([p], eps=0.0).step()
    assert math.isnan(p.item())


@pytest.mark.parametrize("name", ["AdamW", "RMSprop", "Adagrad"])
def test_new_optimizers_write_in_place_and_skip_what_no_backward_reached(name: str) -> None:
    x = tg.Tensor([1.0, 2.0], requires_grad=True, label="x")
    untouched = tg.Value(3.0)  # no gradient: not even AdamW's decay moves it, as in torch
    loss = (x * x).sum()
    loss.backward()
    getattr(tg.optim, name)([x, untouched], weight_decay=0.5).step()
    assert untouched.data == 3.0
    with pytest.raises(RuntimeError, match=f"input 1 of mul, Tensor x, was written by {name}.step"):
        loss.backward()


# Schedulers: the learning rates of 40 epochs, to the last bit.


def torch_lr(opt: torch.optim.Optimizer, name: str, *args: Any, **kwargs: Any) -> Any:
    return getattr(torch.optim.lr_scheduler, name)(opt, *args, **kwargs)


def rates(name: str, kwargs: dict[str, Any], lr: float, epochs: int = 40) -> tuple[list, list]:
    """(topograd's, PyTorch's) learning rate at epochs 0 to ``epochs``, in PyTorch's loop."""
    opt_o = tg.optim.SGD([tg.Value(0.0)], lr=lr)
    opt_t = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=lr)
    ours, theirs = getattr(tg.optim, name)(opt_o, **kwargs), torch_lr(opt_t, name, **kwargs)
    seen_o, seen_t = [opt_o.lr], [opt_t.param_groups[0]["lr"]]
    for _ in range(epochs):
        opt_o.step()
        opt_t.step()
        ours.step()
        theirs.step()
        seen_o.append(ours.get_last_lr()[0])
        seen_t.append(theirs.get_last_lr()[0])
        assert opt_o.lr == seen_o[-1] and ours.last_epoch == theirs.last_epoch
    return seen_o, seen_t


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("StepLR", {"step_size": 7}),
        ("StepLR", {"step_size": 1, "gamma": 0.9}),
        ("StepLR", {"step_size": 2.0}),  # a float, as PyTorch takes it
        ("StepLR", {"step_size": 2.5, "gamma": 0.5}),  # decays at the multiples: 5, 10, ...
        ("CosineAnnealingLR", {"T_max": 10}),  # down, and back up past T_max
        ("CosineAnnealingLR", {"T_max": 7, "eta_min": 0.01}),
        ("CosineAnnealingLR", {"T_max": 1}),
        ("LinearLR", {}),
        ("LinearLR", {"start_factor": 1.0, "end_factor": 0.1, "total_iters": 12}),
        ("LinearLR", {"start_factor": 0.5, "total_iters": 0}),
    ],
)
def test_schedulers_give_torchs_rates_to_the_bit(name: str, kwargs: dict[str, Any]) -> None:
    ours, theirs = rates(name, kwargs, lr=0.1)
    assert ours == theirs
    assert ours != [0.1] * len(ours)  # the schedule did move


SCHEDULES = st.one_of(
    st.tuples(
        st.just("StepLR"),
        st.fixed_dictionaries({"step_size": st.integers(1, 12), "gamma": st.floats(0.01, 1.0)}),
    ),
    st.tuples(
        st.just("CosineAnnealingLR"),
        st.fixed_dictionaries({"T_max": st.integers(1, 20), "eta_min": st.floats(0.0, 1e-3)}),
    ),
    st.tuples(
        st.just("LinearLR"),
        st.fixed_dictionaries(
            {
                "start_factor": st.floats(0.01, 1.0),
                "end_factor": st.floats(0.0, 1.0),
                "total_iters": st.integers(0, 20),
            }
        ),
    ),
)


@given(SCHEDULES, st.floats(1e-4, 10.0))
def test_drawn_schedules_give_torchs_rates_to_the_bit(schedule: Any, lr: float) -> None:
    ours, theirs = rates(*schedule, lr=lr, epochs=30)
    assert ours == theirs


def test_two_schedulers_on_one_optimizer_compose_as_in_torch() -> None:
    """Warm-up then cosine, both stepped every epoch: each scales the rate the other left."""
    opt_o = tg.optim.SGD([tg.Value(0.0)], lr=0.5)
    opt_t = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.5)
    both = [
        tg.optim.LinearLR(opt_o, start_factor=0.1, total_iters=5),
        tg.optim.CosineAnnealingLR(opt_o, T_max=20, eta_min=0.001),
        torch_lr(opt_t, "LinearLR", start_factor=0.1, total_iters=5),
        torch_lr(opt_t, "CosineAnnealingLR", T_max=20, eta_min=0.001),
    ]
    for _ in range(30):
        opt_t.step()
        for sched in both:
            sched.step()
        assert opt_o.lr == opt_t.param_groups[0]["lr"]


def test_a_schedule_resumed_at_last_epoch_and_from_its_state_dict_as_in_torch() -> None:
    opt_o = tg.optim.SGD([tg.Value(0.0)], lr=0.2)
    opt_t = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.2)
    first_o, first_t = tg.optim.StepLR(opt_o, 2), torch_lr(opt_t, "StepLR", 2)
    for _ in range(3):
        opt_t.step()
        first_o.step()
        first_t.step()
    ours = tg.optim.CosineAnnealingLR(opt_o, T_max=8, last_epoch=3)
    theirs = torch_lr(opt_t, "CosineAnnealingLR", T_max=8, last_epoch=3)
    assert ours.base_lrs == theirs.base_lrs == [0.2]  # the first scheduler's initial_lr
    copy = tg.optim.CosineAnnealingLR(tg.optim.SGD([tg.Value(0.0)], lr=0.2), T_max=1)
    for _ in range(12):
        opt_t.step()
        ours.step()
        theirs.step()
        assert ours.get_last_lr() == theirs.get_last_lr() and ours.last_epoch == theirs.last_epoch
    copy.load_state_dict(ours.state_dict())
    copy.optimizer.lr = opt_o.lr
    for _ in range(5):
        ours.step()
        copy.step()
        assert copy.get_last_lr() == ours.get_last_lr()
    with pytest.raises(KeyError, match="initial_lr"):
        tg.optim.StepLR(tg.optim.SGD([tg.Value(0.0)]), 2, last_epoch=4)
    with pytest.raises(KeyError, match="initial_lr"):
        torch_lr(torch.optim.SGD([torch.zeros(1, requires_grad=True)]), "StepLR", 2, last_epoch=4)


def test_linear_decay_still_runs_micrograds_schedule() -> None:
    opt = tg.optim.SGD([tg.Value(0.0)], lr=123.0)
    schedule = tg.optim.LinearDecay(opt, start=1.0, end=0.1, steps=10)
    for _ in range(12):
        schedule.step()
    assert opt.lr == pytest.approx(0.1, rel=1e-15)


# Refusals: where PyTorch refuses, topograd does too, with the value named.

REFUSED = [
    ("Adam", {"lr": -1.0}, "learning rate"),
    ("Adam", {"lr": math.nan}, "learning rate"),
    ("Adam", {"eps": -1e-8}, "eps"),
    ("Adam", {"betas": (1.0, 0.999)}, r"betas\[0\] must be in \[0, 1\), got 1.0"),
    ("AdamW", {"betas": (0.9, -0.1)}, r"betas\[1\]"),
    ("AdamW", {"weight_decay": -0.1}, "weight_decay"),
    ("RMSprop", {"alpha": -0.5}, "alpha"),
    ("RMSprop", {"momentum": -0.9}, "momentum"),
    ("RMSprop", {"eps": -1.0}, "eps"),
    ("Adagrad", {"lr_decay": -1.0}, "lr_decay"),
    ("Adagrad", {"initial_accumulator_value": -1.0}, "initial_accumulator_value"),
    ("Adagrad", {"eps": -1.0}, "eps"),
    ("SGD", {"momentum": -0.5}, "momentum"),
    ("SGD", {"nesterov": True}, "Nesterov"),
    ("SGD", {"nesterov": True, "momentum": 0.9, "dampening": 0.1}, "Nesterov"),
]


@pytest.mark.parametrize(("name", "kwargs", "message"), REFUSED)
def test_bad_settings_are_refused_as_torch_refuses_them(
    name: str, kwargs: dict, message: str
) -> None:
    with pytest.raises(ValueError, match=r"Invalid|Nesterov"):
        getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError, match=message):
        getattr(tg.optim, name)([tg.Value(0.0)], **kwargs)


def test_bad_params_and_bad_schedules_are_refused() -> None:
    t = tg.Tensor([1.0], requires_grad=True)
    with pytest.raises(TypeError, match="iterable of parameters"):
        tg.optim.AdamW(t)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        torch.optim.AdamW(torch.zeros(1, requires_grad=True))
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        tg.optim.StepLR([t], 2)  # type: ignore[arg-type]
    opt = tg.optim.SGD([t], lr=0.1)
    with pytest.raises(TypeError, match="step_size must be a number, got '2'"):
        tg.optim.StepLR(opt, "2")  # type: ignore[arg-type]
    for bad, message in [
        (lambda: tg.optim.StepLR(opt, 0), "step_size must be > 0, got 0"),
        (lambda: tg.optim.StepLR(opt, -2.0), "step_size must be > 0"),
        (lambda: tg.optim.CosineAnnealingLR(opt, T_max=0), "T_max must be > 0"),
        (lambda: tg.optim.LinearLR(opt, start_factor=0.0), r"start_factor must be in \(0, 1\]"),
        (lambda: tg.optim.LinearLR(opt, start_factor=1.5), "start_factor"),
        (lambda: tg.optim.LinearLR(opt, end_factor=-0.1), r"end_factor must be in \[0, 1\]"),
        (lambda: tg.optim.LinearLR(opt, total_iters=-1), "total_iters must be >= 0"),
    ]:
        with pytest.raises(ValueError, match=message):
            bad()
    assert opt.lr == 0.1  # a refused scheduler touches nothing
    for name, kwargs in (("LinearLR", {"start_factor": 0.0}), ("LinearLR", {"end_factor": 2.0})):
        with pytest.raises(ValueError, match="multiplicative factor"):
            torch_lr(torch.optim.SGD([torch.zeros(1, requires_grad=True)]), name, **kwargs)
    # where PyTorch takes step_size=0 or T_max=0 and fails later, dividing by zero
    opt_t = torch.optim.SGD([torch.zeros(1, requires_grad=True)])
    for sched in (torch_lr(opt_t, "StepLR", 0), torch_lr(opt_t, "CosineAnnealingLR", T_max=0)):
        opt_t.step()
        with pytest.raises(ZeroDivisionError):
            sched.step()
