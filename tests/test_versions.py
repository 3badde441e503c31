"""Data changed between forward and backward: every write in place topograd makes (optimizer
steps, in-place methods, item assignment, load_state_dict) makes a backward through an older
graph raise, as PyTorch's version counters do; under detect_anomaly a write behind topograd's
back (into .data) is caught too."""

from __future__ import annotations

import math
import random
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import topograd as tg
from topograd.autograd.registry import OPS, OUT, Given
from topograd.verify.scalar_rules import draw_point

MODIFIED = "modified by an inplace operation"


def test_an_optimizer_step_between_forward_and_backward_is_refused_as_in_pytorch() -> None:
    w = tg.Value(2.0, label="w")
    y = w * w
    y.backward()
    tg.optim.SGD([w], lr=0.1).step()
    with pytest.raises(RuntimeError, match=f"{MODIFIED}: input 1 of mul, Value w, .*SGD.step"):
        y.backward()  # (topograd keeps every graph, as PyTorch's retain_graph=True)
    t = torch.tensor(2.0, requires_grad=True)
    u = t * t
    u.backward(retain_graph=True)
    torch.optim.SGD([t], lr=0.1).step()
    with pytest.raises(RuntimeError, match=MODIFIED):
        u.backward()
    w.grad = 0.0
    (w * w).backward()  # a new forward reads the new value: fine
    assert w.data == 2.0 - 0.1 * 4.0 and w.grad == 2 * w.data


@pytest.mark.parametrize("make", ["SGD", "Adam"])
def test_tensor_optimizers_write_in_place_and_say_so(make: str) -> None:
    x = tg.Tensor([1.0, 2.0], requires_grad=True, label="x")
    loss = (x * x).sum()
    loss.backward()
    getattr(tg.optim, make)([x], lr=0.1).step()
    with pytest.raises(RuntimeError, match=f"input 1 of mul, Tensor x, was written by {make}.step"):
        loss.backward()


def test_a_parameter_no_backward_reached_is_neither_moved_nor_written_as_in_pytorch() -> None:
    w1, w2 = tg.Value(1.0), tg.Value(2.0, label="w2")
    opt = tg.optim.SGD([w1, w2], lr=0.1, weight_decay=0.5)
    loss_a, loss_b = w1 * w1, w2 * w2  # two losses made before any step
    opt.zero_grad()
    loss_a.backward()
    opt.step()
    opt.zero_grad()
    loss_b.backward()  # w2 was not written: no error, as in PyTorch
    assert w2.data == 2.0 and w2.grad == 4.0
    assert w1.data == 1.0 - 0.1 * (2.0 + 0.5 * 1.0)
    with pytest.raises(RuntimeError, match=MODIFIED):
        loss_a.backward()  # w1 was


def test_training_loops_in_threads_share_the_count_safely() -> None:
    errors: list[BaseException] = []

    def train(seed: int) -> None:
        try:
            model = tg.nn.MLP(2, [3, 1], seed=seed)
            opt = tg.optim.SGD(model.parameters(), lr=0.01)
            for _ in range(40):
                opt.zero_grad()
                out = model([tg.Value(0.5), tg.Value(-1.0)])
                (out * out).backward()  # type: ignore[operator]
                opt.step()
        except BaseException as error:
            errors.append(error)

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=train, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(switch)
    assert errors == []


def test_in_place_methods_and_item_assignment_count_as_writes() -> None:
    w = tg.Tensor([1.0, 2.0], requires_grad=True)
    x = tg.Tensor([3.0, 4.0])  # data: no gradient, but mul saves it
    for write in (
        lambda: x.mul_(2),
        lambda: x.add_(1.0),
        lambda: x.sub_(tg.Tensor([1.0, 1.0]), alpha=2),
        lambda: x.div_(2),
        lambda: x.fill_(1.0),
        lambda: x.zero_(),
        lambda: x.copy_(np.array([5.0, 6.0])),
        lambda: x.__setitem__(0, 7.0),
        lambda: x.__setitem__(tg.tensor([1]), 8.0),
    ):
        y = (w * x).sum()
        write()
        with pytest.raises(RuntimeError, match=f"{MODIFIED}: input 2 of mul"):
            y.backward()
    assert x.tolist() == [7.0, 8.0]


def test_in_place_methods_compute_as_pytorch_does() -> None:
    ours, theirs = tg.Tensor([1.0, -2.0, 3.0]), torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64)
    for name, args in [("add_", (2.0,)), ("mul_", (3.0,)), ("sub_", (1.0,)), ("div_", (4.0,))]:
        getattr(ours, name)(*args)
        getattr(theirs, name)(*args)
    ours.add_(tg.Tensor([1.0, 1.0, 1.0]), alpha=0.5)
    theirs.add_(torch.ones(3, dtype=torch.float64), alpha=0.5)
    ours[1:] = 0.25
    theirs[1:] = 0.25
    assert ours.tolist() == theirs.tolist()


def test_a_written_output_is_refused_as_in_pytorch() -> None:
    x = tg.Tensor([0.5, 1.0], requires_grad=True)
    y = x.exp()  # exp's rule reads its output
    with tg.no_grad():
        y.mul_(2.0)
    with pytest.raises(RuntimeError, match=f"{MODIFIED}: the output of exp"):
        y.sum().backward()
    t = torch.tensor([0.5, 1.0], requires_grad=True)
    u = t.exp()
    with torch.no_grad():
        u.mul_(2.0)
    with pytest.raises(RuntimeError, match=MODIFIED):
        u.sum().backward()


def test_a_node_written_after_its_input_was_is_still_refused() -> None:
    x = tg.Tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    y = h.sum()
    with tg.no_grad():
        x.add_(1.0)  # h's input, then h itself
        h.mul_(1.0)
    with pytest.raises(RuntimeError, match=MODIFIED):
        y.backward()


def test_a_leaf_that_wants_a_gradient_is_written_only_under_no_grad() -> None:
    w = tg.Tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w.add_(1.0)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        w[0] = 2.0
    with tg.no_grad():
        w[0] = 2.0
    assert w.tolist() == [2.0]
    h = w * 2
    h.add_(1.0)  # a node, not a leaf: recorded, as PyTorch's (test_inplace_graph.py)
    assert h.op == "add" and h.tolist() == [5.0]


def test_load_state_dict_counts_as_a_write() -> None:
    model = tg.nn.Linear(2, 1, seed=0)
    y = model(np.array([[1.0, 2.0]])).sum()  # an array takes the weights' float32
    model.load_state_dict(model.state_dict())
    with pytest.raises(RuntimeError, match="load_state_dict"):
        y.backward()


def test_a_write_into_data_is_seen_only_under_detect_anomaly() -> None:
    x = tg.Tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    x.data[0] = 5.0  # behind topograd's back: as in PyTorch, not seen
    y.backward()
    assert x.grad.tolist() == [10.0, 4.0]
    with tg.detect_anomaly():
        y = (x * x).sum()
        x.data[0] = 1.0
        with pytest.raises(tg.AnomalyError, match=r"input 1 of mul .* changed") as caught:
            y.backward()
    assert "test_versions.py" in str(caught.value)  # where the mul was made


def test_a_value_data_write_is_seen_under_detect_anomaly() -> None:
    v = tg.Value(3.0, label="v")
    with tg.detect_anomaly():
        y = v.log() * 2.0
        v.data = 1.0
        with pytest.raises(tg.AnomalyError, match=r"input 1 of log .*3.0 when saved, 1.0 now"):
            y.backward()
        z = v.exp() * 2.0  # exp's rule reads its output only: a write to v changes nothing
        v.data = 2.0
        z.backward()
        assert v.grad == 2.0 * math.exp(1.0)


def test_an_optimizer_refuses_a_non_leaf_as_pytorch() -> None:
    x = tg.Value(1.0)
    with pytest.raises(ValueError, match="non-leaf"):
        tg.optim.SGD([x * 2.0], lr=0.1)
    t = tg.Tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="non-leaf"):
        tg.optim.Adam([t * 2.0], lr=0.1)


VIEWS: dict[str, Callable[[Any], Any]] = {
    "detach": lambda t: t.detach(),
    "a slice": lambda t: t[0:2],
    "view": lambda t: t.view(3),
    "t": lambda t: t.view(1, 3).t(),
    "an index": lambda t: t[1],
}


@pytest.mark.parametrize("name", sorted(VIEWS))
@pytest.mark.parametrize("through", ["the input", "the output"])
def test_a_write_through_a_view_is_seen_through_its_base_as_in_pytorch(
    name: str, through: str
) -> None:
    """A view shares its base's numbers and count of writes: a write through it (in place, as
    PyTorch's views share storage) changes the base and is refused at the backward that reads
    the base, as PyTorch refuses it; the numbers agree."""
    refusals = []
    for lib in (tg, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        z = (y * y).sum()
        with lib.no_grad():
            VIEWS[name](x if through == "the input" else y).zero_()
        assert (x if through == "the input" else y).tolist()[1] == 0.0
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as caught:
            z.backward()
        refusals.append(caught.type)
    assert issubclass(refusals[0], refusals[1])


def test_an_in_place_write_of_a_value_that_requires_grad_is_recorded_not_detached() -> None:
    x = tg.Tensor([1.0, 2.0], requires_grad=True)
    out = tg.Tensor(np.zeros(2))
    out[0] = x[0] * x[0]  # recorded, as PyTorch's: out is now a node
    out.add_(x * 2.0)
    out.sum().backward()
    assert out.tolist() == [3.0, 4.0] and x.grad.tolist() == [4.0, 2.0]
    with tg.no_grad():
        out[0] = x[0] * x[0]  # numbers only: fine
    assert out.tolist() == [1.0, 4.0]


def test_a_write_to_data_no_rule_reads_is_fine_as_in_pytorch() -> None:
    w = tg.Tensor([1.0, 2.0], requires_grad=True)
    baseline = tg.Tensor([0.5, 0.5])
    loss = (w * 3.0 - baseline).sum()  # sub reads neither input at backward
    baseline.mul_(0.9).add_(0.1)
    loss.backward()
    assert w.grad.tolist() == [3.0, 3.0]
    x = tg.Tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    z = (y + 1.0).sum()
    with tg.no_grad():
        y.mul_(1.0)  # mul's rule does not read its output, add reads nothing
    z.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def _replaced(x: object, seed: float) -> object:
    """Other numbers in the same shape (a number for a number)."""
    return np.full(np.shape(x), seed) if isinstance(x, (np.ndarray, np.generic)) else seed


@pytest.mark.parametrize("name", sorted(n for n, op in OPS.items() if op.saves is not None))
def test_what_an_op_says_it_saves_is_all_its_rule_reads(name: str) -> None:
    """The rule gives the same contributions when the data it does not save is replaced: the
    in-place check may ignore writes to it."""
    op = OPS[name]
    rng = np.random.default_rng(0)
    cases = [
        (
            [
                np.asarray(s.value) if isinstance(s, Given) else rng.uniform(0.5, 2.0, s)
                for s in case.inputs
            ],
            dict(case.params),
        )
        for case in op.cases
    ] or [([float(x) for x in draw_point(op, random.Random(name))], {})]
    for xs, params in cases:
        out = op(*xs, **params)
        grad = _replaced(out, 0.75)
        needs = {"needs": (True,) * len(xs)} if op.takes_needs else {}
        expected = op.rule(grad, *xs, out, **params, **needs)
        other = [x if op.saved(i) else _replaced(x, 0.123) for i, x in enumerate(xs)]
        other_out = out if op.saved(OUT) else _replaced(out, 0.456)
        found = op.rule(grad, *other, other_out, **params, **needs)
        for a, b in zip(found, expected, strict=True):
            assert (a is None and b is None) or np.array_equal(a, b, equal_nan=True), name


def test_grad_runs_and_checks_only_the_rules_on_the_way_to_its_inputs() -> None:
    x = tg.Tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    with tg.no_grad():
        y.mul_(2.0)  # exp's output, which exp's rule reads: only a backward through exp cares
    z = (y * 3.0).sum()
    (dz_dy,) = tg.grad(z, [y])  # as torch.autograd.grad: exp's rule is not needed, nor run
    assert dz_dy.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="the output of exp"):
        tg.grad(z, [x])


def test_a_write_to_the_tensor_a_view_was_taken_from_is_refused_as_pytorch() -> None:
    x = tg.Tensor([[1.0, 2.0]], requires_grad=True)
    w = tg.Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    loss = (x @ w.T).sum()  # w.T is a view of w's numbers
    loss.backward()
    tg.optim.SGD([w], lr=1.0).step()
    with pytest.raises(RuntimeError, match="input 1 of transpose"):
        loss.backward()
    y = tg.Tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    v = y[1:]
    loss = (v * v).sum()
    with tg.no_grad():
        y.mul_(10.0)
    with pytest.raises(RuntimeError, match="input 1 of getitem"):
        loss.backward()


def test_a_value_is_no_value_for_an_in_place_write_and_numpy_refuses_what_needs_a_grad() -> None:
    t = tg.Tensor([0.0, 0.0])
    with pytest.raises(TypeError, match="a Tensor cannot hold a Value"):
        t[0] = tg.Value(2.0) * 3.0
    with pytest.raises(RuntimeError, match="requires grad"):
        tg.Tensor([1.0], requires_grad=True).numpy()
    assert tg.Tensor([1.0], requires_grad=True).detach().numpy().tolist() == [1.0]
