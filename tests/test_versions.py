"""Data changed between forward and backward: every write in place topograd makes (optimizer
steps, in-place methods, item assignment, load_state_dict) makes a backward through an older
graph raise, as PyTorch's version counters do; under detect_anomaly a write behind topograd's
back (into .data) is caught too."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import topograd as tg

MODIFIED = "modified by an inplace operation"


def test_an_optimizer_step_between_forward_and_backward_is_refused_as_in_pytorch() -> None:
    w = tg.Value(2.0, label="w")
    y = w * w
    tg.optim.SGD([w], lr=0.1).step()
    with pytest.raises(RuntimeError, match=f"{MODIFIED}: input 1 of mul, Value w, .*SGD.step"):
        y.backward()
    t = torch.tensor(2.0, requires_grad=True)
    u = t * t
    u.backward(retain_graph=True)
    torch.optim.SGD([t], lr=0.1).step()
    with pytest.raises(RuntimeError, match=MODIFIED):
        u.backward()
    (w * w).backward()  # a new forward reads the new value: fine
    assert w.grad == 2 * w.data


@pytest.mark.parametrize("make", ["SGD", "Adam"])
def test_tensor_optimizers_write_in_place_and_say_so(make: str) -> None:
    x = tg.Tensor([1.0, 2.0], requires_grad=True, label="x")
    loss = (x * x).sum()
    loss.backward()
    getattr(tg.optim, make)([x], lr=0.1).step()
    with pytest.raises(RuntimeError, match=f"input 1 of mul, Tensor x, was written by {make}.step"):
        loss.backward()


def test_a_training_loop_never_trips_the_check() -> None:
    model = tg.nn.MLP(2, [4, 1], seed=0)
    opt = tg.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(3):
        opt.zero_grad()
        out = model([tg.Value(0.5), tg.Value(-1.0)])
        loss = out[0] * out[0] if isinstance(out, list) else out * out
        loss.backward()
        opt.step()


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
        lambda: x.__setitem__(tg.Tensor([1.0]), 8.0),
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
    with pytest.raises(RuntimeError, match="records no in-place op inside a graph"):
        h.add_(1.0)


def test_load_state_dict_counts_as_a_write() -> None:
    model = tg.nn.Linear(2, 1, seed=0)
    y = model(tg.Tensor([[1.0, 2.0]])).sum()
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
        y = v.exp() * 2.0
        v.data = 1.0
        with pytest.raises(tg.AnomalyError, match=r"input 1 of exp .*3.0 when saved, 1.0 now"):
            y.backward()
