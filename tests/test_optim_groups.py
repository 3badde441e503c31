"""torch.optim's API around the updates, against torch 2.13: parameter groups (their keys and
defaults, add_param_group, a group's lr changed by hand or by a scheduler), ``state[p]`` and
``state_dict()`` (PyTorch's structure; a resumed run is the uninterrupted one to the bit),
``step(closure)``, ``zero_grad(set_to_none)``, named parameters, the keywords PyTorch's
signatures have, and the refusals in PyTorch's words."""

from __future__ import annotations

import copy
import inspect
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from test_optim import CONFIGS, IDS, assert_within_ulps, gradients, torch_lr

import topograd as tg

NAMES = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]
EXTRA = {"SGD": {"momentum": 0.9}, "Adam": {"amsgrad": True}, "AdamW": {"eps": 1e-6},
         "RMSprop": {"centered": True}, "Adagrad": {"lr_decay": 0.1}}  # fmt: skip
START = [[0.5, -1.5, 2.0], [0.25, -0.75]]


def pair(name: str, groups: list[dict[str, Any]], **kwargs: Any) -> tuple[Any, Any, list, list]:
    """The same optimizer on float64 Tensors in both libraries, with these groups (each
    ``{"params": i, ...}`` for the i-th start)."""
    ours = [tg.Tensor(np.array(x), requires_grad=True) for x in START]
    theirs = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in START]
    made = []
    for params in (ours, theirs):
        made.append([{**g, "params": [params[g["params"]]]} for g in groups])
    opt_o = getattr(tg.optim, name)(made[0], **kwargs)
    opt_t = getattr(torch.optim, name)(made[1], **kwargs)
    return opt_o, opt_t, ours, theirs


def run(opt_o: Any, opt_t: Any, ours: list, theirs: list, steps: range) -> None:
    for k in steps:
        for i, (o, t) in enumerate(zip(ours, theirs)):
            g = np.array(gradients(k + 10 * i)[: len(START[i])])
            o.grad, t.grad = g.copy(), torch.tensor(g)
        opt_o.step()
        opt_t.step()


def same_groups(opt_o: Any, opt_t: Any) -> None:
    """The groups hold the same keys and the same hyperparameters as PyTorch's."""
    assert len(opt_o.param_groups) == len(opt_t.param_groups)
    for g_o, g_t in zip(opt_o.param_groups, opt_t.param_groups):
        assert set(g_o) == set(g_t)
        assert {k: v for k, v in g_o.items() if k != "params"} == {
            k: v for k, v in g_t.items() if k != "params"
        }


@pytest.mark.parametrize("name", NAMES)
def test_groups_take_their_own_settings_and_the_defaults_as_torch(name: str) -> None:
    opt_o, opt_t, ours, theirs = pair(name, two_groups(name), lr=0.2, weight_decay=0.01)
    assert opt_o.defaults == opt_t.defaults
    same_groups(opt_o, opt_t)
    run(opt_o, opt_t, ours, theirs, range(8))
    opt_o.param_groups[1]["lr"] = opt_t.param_groups[1]["lr"] = 0.01  # the next step uses it
    run(opt_o, opt_t, ours, theirs, range(8, 12))
    for o, t in zip(ours, theirs):
        assert_within_ulps(o.data, t.detach().numpy())
    for p_o, p_t in zip(ours, theirs):
        assert set(opt_o.state[p_o]) == set(opt_t.state[p_t])
        for key, value in opt_t.state[p_t].items():
            assert_within_ulps(opt_o.state[p_o][key], value.numpy())


PORTABLE = """
import numpy as np, torch, test_optim_groups as t
assert torch.backends.cpu.get_cpu_capability() == "DEFAULT"
for name in t.NAMES:
    opt_o, opt_t, ours, theirs = t.pair(name, t.two_groups(name), lr=0.2, weight_decay=0.01)
    t.run(opt_o, opt_t, ours, theirs, range(12))
    for o, p in zip(ours, theirs):
        t.assert_within_ulps(o.data, p.detach().numpy(), ulps=2)
print("within 2 ulps")
"""


def two_groups(name: str) -> list[dict[str, Any]]:
    return [{"params": 0, "lr": 0.05, **EXTRA[name]}, {"params": 1}]


def test_groups_are_within_2_ulps_of_torchs_portable_kernels_in_float64() -> None:
    """As test_optim's float64 runs (see its docstring), with two groups."""
    path = os.pathsep.join([str(Path(__file__).parent), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "ATEN_CPU_CAPABILITY": "default", "PYTHONPATH": path}
    done = subprocess.run(
        [sys.executable, "-c", PORTABLE], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "within 2 ulps"


def test_add_param_group_as_torch() -> None:
    opt_o, opt_t, ours, theirs = pair("SGD", [{"params": 0}], lr=0.1)
    opt_o.add_param_group({"params": ours[1], "momentum": 0.5})
    opt_t.add_param_group({"params": theirs[1], "momentum": 0.5})
    same_groups(opt_o, opt_t)
    run(opt_o, opt_t, ours, theirs, range(5))
    assert_within_ulps(ours[1].data, theirs[1].detach().numpy())
    for opt, p in ((opt_o, ours[0]), (opt_t, theirs[0])):
        with pytest.raises(ValueError, match="more than one parameter group"):
            opt.add_param_group({"params": [p]})
        with pytest.raises(TypeError, match="param_group must be a dict"):
            opt.add_param_group([p])
        with pytest.raises(TypeError, match="ordered collections"):
            opt.add_param_group({"params": {p}})


def test_lr_is_a_shorthand_for_the_groups_rates() -> None:
    a, b = tg.Value(1.0), tg.Value(1.0)
    seen = []

    class Record(tg.optim.Optimizer):
        def update(self, p, grad, state):  # type: ignore[no-untyped-def]
            seen.append(self.lr)  # the rate of the group being stepped
            p.data -= self.lr * grad

    opt = Record([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)
    with pytest.raises(ValueError, match=r"different learning rates, \[0.1, 0.5\]"):
        _ = opt.lr
    a.grad = b.grad = 1.0
    opt.step()
    assert seen == [0.1, 0.5] and (a.data, b.data) == (0.9, 0.5)
    opt.lr = 0.2  # every group's
    assert opt.lr == 0.2 and [g["lr"] for g in opt.param_groups] == [0.2, 0.2]


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [("StepLR", {"step_size": 3}), ("CosineAnnealingLR", {"T_max": 5}), ("LinearLR", {})],
)
def test_schedulers_set_every_groups_rate_as_torch(name: str, kwargs: dict[str, Any]) -> None:
    opt_o, opt_t, _, _ = pair("SGD", [{"params": 0}, {"params": 1, "lr": 0.5}], lr=0.1)
    ours, theirs = getattr(tg.optim, name)(opt_o, **kwargs), torch_lr(opt_t, name, **kwargs)
    assert ours.base_lrs == theirs.base_lrs == [0.1, 0.5]
    for _ in range(12):
        opt_t.step()
        ours.step()
        theirs.step()
        assert ours.get_last_lr() == theirs.get_last_lr()
        same_groups(opt_o, opt_t)  # lr and initial_lr in each group
    assert set(ours.state_dict()) == set(theirs.state_dict())
    assert ours.state_dict() == theirs.state_dict()


def test_linear_decay_sets_every_group() -> None:
    opt = tg.optim.SGD([{"params": [tg.Value(0.0)]}, {"params": [tg.Value(0.0)], "lr": 3.0}])
    schedule = tg.optim.LinearDecay(opt, start=1.0, end=0.1, steps=10)
    schedule.step()
    assert [g["lr"] for g in opt.param_groups] == [opt.lr] * 2 == [pytest.approx(0.91)] * 2


def test_the_lr_scheduler_module_and_get_lr_as_torch() -> None:
    assert tg.optim.lr_scheduler.StepLR is tg.optim.StepLR
    assert set(tg.optim.lr_scheduler.__all__) <= set(dir(torch.optim.lr_scheduler))
    opt_o, opt_t, _, _ = pair("SGD", [{"params": 0}], lr=1.0)
    ours, theirs = tg.optim.StepLR(opt_o, 2.0), torch_lr(opt_t, "StepLR", 2.0)
    for _ in range(2):
        opt_t.step()
        ours.step()
        theirs.step()
    with pytest.warns(UserWarning, match="get_last_lr"):
        expected = theirs.get_lr()  # the chainable form again: 0.01, not the rate in use
    with pytest.warns(UserWarning, match="get_last_lr"):
        assert ours.get_lr() == expected == [pytest.approx(0.01)]
    for sched in (ours, theirs):
        with pytest.warns(UserWarning, match="epoch parameter"):
            sched.step(5)  # deprecated: the closed form at epoch 5
    assert ours.get_last_lr() == theirs.get_last_lr() and ours.last_epoch == 5


# state and state_dict


def test_state_dict_has_torchs_structure() -> None:
    groups = [{"params": 0, "lr": 0.05}, {"params": 1}]
    opt_o, opt_t, ours, theirs = pair("Adam", groups, lr=0.1, amsgrad=True)
    torch_lr(opt_t, "StepLR", 2), tg.optim.StepLR(opt_o, 2)
    run(opt_o, opt_t, ours, theirs, range(3))
    saved_o, saved_t = opt_o.state_dict(), opt_t.state_dict()
    assert list(saved_o) == ["state", "param_groups"]
    assert saved_o["param_groups"] == saved_t["param_groups"]  # initial_lr in each group
    assert saved_o["state"].keys() == saved_t["state"].keys() == {0, 1}
    for i, state in saved_t["state"].items():
        assert saved_o["state"][i].keys() == state.keys()
        assert saved_o["state"][i]["step"] == state["step"].item() == 3
    assert tg.optim.Adagrad([ours[0]]).state_dict()["state"].keys() == {0}  # made at once


@pytest.mark.parametrize(("name", "kwargs"), CONFIGS, ids=IDS)
@pytest.mark.parametrize("kind", ["value", "float32"])
def test_a_resumed_run_is_the_uninterrupted_one_bit_for_bit(
    name: str, kwargs: dict[str, Any], kind: str
) -> None:
    def made() -> tuple[list[Any], Any, Any]:
        if kind == "value":
            params = [tg.Value(x) for x in (0.5, -1.5, 2.0)]
        else:
            params = [tg.Tensor(np.array([0.5, -1.5, 2.0], np.float32), requires_grad=True)]
        opt = getattr(tg.optim, name)([{"params": params[:1]}, {"params": params[1:]}], **kwargs)
        return params, opt, tg.optim.CosineAnnealingLR(opt, T_max=4)

    def steps(params: list[Any], opt: Any, sched: Any, ks: range) -> list[Any]:
        for k in ks:
            for p, g in zip(params, gradients(k)):
                p.grad = g if kind == "value" else np.array([g, -g, 2 * g], np.float32)
            opt.step()
            sched.step()
        return [p.data if kind == "value" else p.data.tolist() for p in params]

    whole = steps(*made(), range(10))
    first = made()
    steps(*first, range(5))
    saved = copy.deepcopy((first[1].state_dict(), first[2].state_dict()))
    again = made()
    for p, q in zip(again[0], first[0]):  # the model's weights, as a checkpoint keeps them
        p.data = copy.deepcopy(q.data)
    again[1].load_state_dict(saved[0])
    again[2].load_state_dict(saved[1])
    assert steps(*again, range(5, 10)) == whole


def test_load_state_dict_refuses_what_does_not_fit_as_torch() -> None:
    one = tg.optim.SGD([tg.Value(0.0)], lr=0.1).state_dict()
    one_t = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1).state_dict()
    two = [{"params": [tg.Value(0.0)]}, {"params": [tg.Value(0.0)]}]
    two_t = [{"params": [torch.zeros(1, requires_grad=True)]} for _ in range(2)]
    wider = [tg.Value(0.0), tg.Value(1.0)]
    wider_t = [torch.zeros(1, requires_grad=True) for _ in range(2)]
    pairs = [
        (one, two, one_t, two_t, "different number of parameter groups"),
        (one, wider, one_t, wider_t, "doesn't match the size"),
    ]
    for saved, params, saved_t, params_t, message in pairs:
        with pytest.raises(ValueError, match=message):
            tg.optim.SGD(params, lr=0.1).load_state_dict(saved)
        with pytest.raises(ValueError, match=message):
            torch.optim.SGD(params_t, lr=0.1).load_state_dict(saved_t)


def test_a_loaded_state_takes_the_parameters_precision_and_shares_nothing() -> None:
    wide = tg.Tensor(np.ones(2), requires_grad=True)
    opt = tg.optim.SGD([wide], lr=0.1, momentum=0.9)
    wide.grad = np.full(2, 1 / 3)
    opt.step()
    narrow = tg.Tensor(np.ones(2, np.float32), requires_grad=True)
    other = tg.optim.SGD([narrow], lr=0.5)
    other.load_state_dict(opt.state_dict())
    buf = other.state[narrow]["momentum_buffer"]
    assert buf.dtype == np.float32 and buf is not opt.state[wide]["momentum_buffer"]
    assert other.param_groups[0]["lr"] == 0.1 and other.param_groups[0]["params"] == [narrow]


# step(closure), zero_grad(set_to_none)


def test_step_calls_the_closure_with_grad_on_and_returns_its_loss_as_torch() -> None:
    def closure_of(opt: Any, w: Any) -> Any:
        def closure() -> Any:
            opt.zero_grad()
            loss = (w * w).sum()
            loss.backward()
            return loss

        return closure

    w_o = tg.Tensor(np.array([1.0, -2.0]), requires_grad=True)
    w_t = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    opt_o, opt_t = tg.optim.Adam([w_o], lr=0.1), torch.optim.Adam([w_t], lr=0.1)
    for _ in range(5):
        with tg.no_grad():
            loss_o = opt_o.step(closure_of(opt_o, w_o))
        with torch.no_grad():
            loss_t = opt_t.step(closure_of(opt_t, w_t))
        assert loss_o.item() == loss_t.item()
    assert_within_ulps(w_o.data, w_t.detach().numpy())
    assert opt_o.step() is None


def test_zero_grad_set_to_none_as_torch_and_micrograds_zero_for_values() -> None:
    t, v = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True), tg.Value(1.0)
    theirs = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    opt_o = tg.optim.SGD([t, v], lr=0.1, momentum=0.9)
    opt_t = torch.optim.SGD([theirs], lr=0.1, momentum=0.9)
    (t * t).sum().backward()
    (v * v).backward()
    (theirs * theirs).sum().backward()
    opt_o.step()
    opt_t.step()
    grad = t.grad
    opt_o.zero_grad(set_to_none=False)
    opt_t.zero_grad(set_to_none=False)
    assert t.grad is grad and t.grad.tolist() == theirs.grad.tolist() == [0.0, 0.0]
    assert v.grad == 0.0
    opt_o.step()  # a zero gradient is a gradient: the momentum still moves both
    opt_t.step()
    moved = (1.0 - 0.1 * 2.0) - 0.1 * (0.9 * 2.0)
    assert t.data.tolist() == theirs.tolist() and v.data == moved
    opt_o.zero_grad()
    opt_t.zero_grad()
    assert t.grad is None and theirs.grad is None and v.grad == 0.0
    opt_o.step()  # now nothing moves: no gradient
    assert t.data.tolist() == theirs.tolist() and v.data == moved


# named parameters, PyTorch's keywords, refusals


def test_named_parameters_as_torch() -> None:
    model = tg.nn.Linear(3, 2, seed=0)
    opt = tg.optim.AdamW(model.named_parameters(), lr=0.01)
    assert opt.param_groups[0]["param_names"] == ["weight", "bias"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["weight", "bias"]
    a, b = tg.Value(1.0), tg.Value(2.0)
    a_t, b_t = torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    for opt_class, x, y in ((tg.optim.SGD, a, b), (torch.optim.SGD, a_t, b_t)):
        with pytest.raises(ValueError, match="Some param names are missing"):
            opt_class([("a", x), y], lr=0.1)
        with pytest.raises(ValueError, match="cannot add param group without names"):
            opt_class([{"params": [("a", x)]}, {"params": [y]}], lr=0.1)


@pytest.mark.parametrize("name", NAMES)
def test_signatures_are_torchs(name: str) -> None:
    ours = inspect.signature(getattr(tg.optim, name)).parameters
    theirs = inspect.signature(getattr(torch.optim, name)).parameters
    assert list(ours) == list(theirs)
    for key, p in theirs.items():
        assert (ours[key].kind, ours[key].default) == (p.kind, p.default), key


@pytest.mark.parametrize("name", NAMES)
def test_what_topograd_does_not_do_is_refused_and_foreach_is_taken(name: str) -> None:
    keywords = inspect.signature(getattr(tg.optim, name)).parameters
    for flag in ("fused", "capturable", "differentiable"):
        if flag in keywords:
            with pytest.raises(NotImplementedError, match=f"{flag}=True asks for"):
                getattr(tg.optim, name)([tg.Value(0.0)], **{flag: True})
    with pytest.raises(NotImplementedError, match="fused=True"):
        getattr(tg.optim, name)([{"params": [tg.Value(0.0)], "fused": True}])
    opt_o, opt_t, ours, theirs = pair(name, [{"params": 0}], lr=0.1, foreach=True)
    run(opt_o, opt_t, ours, theirs, range(4))
    assert_within_ulps(ours[0].data, theirs[0].detach().numpy())


def test_non_parameters_are_refused_at_construction_as_torch() -> None:
    message = "optimizer can only optimize Tensors, but one of the params is float"
    for params in ([1.0], [tg.Value(1.0), 1.0], [{"params": [2.0]}]):
        with pytest.raises(TypeError, match=message):
            tg.optim.SGD(params, lr=0.1)
    with pytest.raises(TypeError, match=message):
        torch.optim.SGD([1.0], lr=0.1)
    with pytest.raises(TypeError, match=r"one of the params is numpy\.ndarray"):
        tg.optim.Adam([np.zeros(2)])
    with pytest.raises(ValueError, match="empty parameter list"):
        tg.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="learning rate"):
        tg.optim.SGD([{"params": [tg.Value(1.0)], "lr": -1.0}], lr=0.1)


def test_a_parameter_twice_in_a_group_warns_as_torch() -> None:
    v, t = tg.Value(1.0), torch.zeros(1, requires_grad=True)
    for opt_class, p in ((tg.optim.SGD, v), (torch.optim.SGD, t)):
        with pytest.warns(UserWarning, match="duplicate parameters"):
            opt_class([p, p], lr=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tg.optim.SGD([v], lr=0.1)
