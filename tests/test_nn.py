"""Modules as micrograd's, fused ops as their chains, losses as PyTorch's."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import torch
import torch.nn.functional as functional

import topograd as tg

micrograd_nn = pytest.importorskip("micrograd.nn")


def test_parameters_in_micrograds_order_with_micrograds_weights() -> None:
    random.seed(1337)
    theirs = micrograd_nn.MLP(2, [16, 16, 1])
    random.seed(1337)
    ours = tg.nn.MLP(2, [16, 16, 1])  # no seed: Python's global random, as micrograd
    assert [p.data for p in ours.parameters()] == [p.data for p in theirs.parameters()]
    assert repr(ours) == repr(theirs)
    names = [name for name, _ in ours.named_parameters()]
    assert names[:3] == ["layers.0.neurons.0.w.0", "layers.0.neurons.0.w.1", "layers.0.neurons.0.b"]
    assert names[-1] == "layers.2.neurons.0.b"


def test_forward_and_gradients_equal_micrograds() -> None:
    random.seed(7)
    theirs = micrograd_nn.MLP(3, [4, 4, 2])
    random.seed(7)
    ours = tg.nn.MLP(3, [4, 4, 2])
    x = [0.5, -1.25, 2.0]
    out_theirs, out_ours = theirs(x), ours(x)
    assert isinstance(out_ours, list)
    assert [o.data for o in out_ours] == pytest.approx([o.data for o in out_theirs], rel=1e-12)
    (out_theirs[0] * out_theirs[1]).backward()
    (out_ours[0] * out_ours[1]).backward()
    got, expected = [p.grad for p in ours.parameters()], [p.grad for p in theirs.parameters()]
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_a_seed_makes_construction_reproducible() -> None:
    a, b, c = (
        tg.nn.MLP(2, [3, 1], seed=5),
        tg.nn.MLP(2, [3, 1], seed=5),
        tg.nn.MLP(2, [3, 1], seed=6),
    )
    assert a.state_dict() == b.state_dict() != c.state_dict()
    rng = random.Random(5)
    assert tg.nn.MLP(2, [3, 1], seed=rng).state_dict() == a.state_dict()
    with pytest.raises(TypeError, match="seed"):
        tg.nn.MLP(2, [3, 1], seed="five")  # type: ignore[arg-type]


def test_modules_micrograd_style() -> None:
    neuron = tg.nn.Neuron(3, nonlin=False, seed=0)
    assert len(neuron.parameters()) == 4 and neuron.b.data == 0.0
    assert all(-1 <= w.data <= 1 for w in neuron.w)
    layer = tg.nn.Layer(3, 1, seed=0)
    assert isinstance(layer([1, 2, 3]), tg.Value)
    assert isinstance(tg.nn.Layer(3, 2, seed=0)([1, 2, 3]), list)
    model = tg.nn.MLP(2, [4, 1], seed=0)
    model([1.0, 2.0]).backward()
    assert any(p.grad != 0 for p in model.parameters())
    model.zero_grad()
    assert all(p.grad == 0.0 for p in model.parameters())
    assert model([1.0, 2.0]).op == "affine"  # a linear output: w . x + b, no ReLU
    assert model.layers[0]([1.0, 2.0])[0].op == "neuron"  # type: ignore[index]  # relu(w.x + b)


@pytest.mark.parametrize("n", [1, 2, 7, 40])
def test_fused_sum_and_dot_equal_their_chains(n: int) -> None:
    rng = random.Random(n)
    ws = [tg.Value(rng.uniform(-2, 2)) for _ in range(n)]
    xs = [tg.Value(rng.uniform(-2, 2)) for _ in range(n)]
    fused = tg.dot(ws, xs) * tg.sum(ws)
    chain = sum((w * x for w, x in zip(ws, xs)), tg.Value(0.0)) * sum(ws, tg.Value(0.0))
    assert fused.data == pytest.approx(chain.data, rel=1e-12)
    assert len(tg.dot(ws, xs).parents) == 2 * n
    fused_grads = tg.grad(fused, ws + xs)
    chain_grads = tg.grad(chain, ws + xs)
    assert fused_grads == pytest.approx(chain_grads, rel=1e-12, abs=1e-12)
    assert tg.gradcheck(lambda *v: tg.dot(v[:n], v[n:]) * tg.sum(v[:n]), [v.data for v in ws + xs])


def test_fused_ops_take_numbers_and_refuse_the_rest() -> None:
    x = tg.Value(2.0)
    assert tg.sum([x, 3, 4.5]).data == 9.5
    assert tg.dot([x, 1], [3, x]).data == 8.0
    assert tg.sum([]).data == 0.0
    with pytest.raises(ValueError, match="one length"):
        tg.dot([x], [1, 2])
    with pytest.raises(TypeError, match="sum"):
        tg.sum([x, "3"])  # type: ignore[list-item]


def values(xs: list[float]) -> list[tg.Value]:
    return [tg.Value(x) for x in xs]


def grads_equal(ours: list[tg.Value], theirs: torch.Tensor, rel: float = 1e-12) -> None:
    assert theirs.grad is not None
    assert [v.grad for v in ours] == pytest.approx(theirs.grad.tolist(), rel=rel, abs=1e-15)


def test_mse_matches_torch() -> None:
    preds, targets = [0.5, -1.0, 2.0], [1.0, 0.0, 2.5]
    ours = values(preds)
    theirs = torch.tensor(preds, dtype=torch.float64, requires_grad=True)
    loss = tg.nn.mse(ours, targets)
    reference = functional.mse_loss(theirs, torch.tensor(targets, dtype=torch.float64))
    loss.backward()
    reference.backward()
    assert loss.data == pytest.approx(reference.item(), rel=1e-15)
    grads_equal(ours, theirs)


def test_hinge_is_micrograds_max_margin() -> None:
    scores = values([0.5, -2.0, 1.5])
    loss = tg.nn.hinge(scores, [1, -1, -1])
    assert loss.data == pytest.approx((0.5 + 0.0 + 2.5) / 3)
    loss.backward()
    assert [s.grad for s in scores] == pytest.approx([-1 / 3, 0.0, 1 / 3])
    with pytest.raises(ValueError, match="-1 and \\+1"):
        tg.nn.hinge(scores, [0, 1, 1])


@pytest.mark.parametrize("logits", [[0.5, -2.0, 0.0, 3.0], [1000.0, -1000.0, 0.0, 35.0]])
def test_bce_with_logits_matches_torch_and_is_stable(logits: list[float]) -> None:
    targets = [1.0, 0.0, 1.0, 0.25]
    ours = values(logits)
    theirs = torch.tensor(logits, dtype=torch.float64, requires_grad=True)
    loss = tg.nn.bce_with_logits(ours, targets)
    reference = functional.binary_cross_entropy_with_logits(
        theirs, torch.tensor(targets, dtype=torch.float64)
    )
    loss.backward()
    reference.backward()
    assert math.isfinite(loss.data)
    assert loss.data == pytest.approx(reference.item(), rel=1e-12)
    grads_equal(ours, theirs)


@pytest.mark.parametrize(
    "logits",
    [[[0.5, -2.0, 3.0], [1.0, 1.0, 1.0]], [[1000.0, -1000.0, 0.0], [-1000.0, 999.0, 1000.0]]],
)
def test_cross_entropy_matches_torch_and_is_stable(logits: list[list[float]]) -> None:
    targets = [2, 0]
    ours = [values(row) for row in logits]
    theirs = torch.tensor(logits, dtype=torch.float64, requires_grad=True)
    loss = tg.nn.cross_entropy(ours, targets)
    reference = functional.cross_entropy(theirs, torch.tensor(targets))
    loss.backward()
    reference.backward()
    assert loss.data == pytest.approx(reference.item(), rel=1e-12)
    assert theirs.grad is not None
    for row, expected in zip(ours, theirs.grad.tolist()):
        assert [v.grad for v in row] == pytest.approx(expected, rel=1e-12, abs=1e-15)
    single = tg.nn.cross_entropy(values(logits[0]), 2)
    assert single.data == pytest.approx(
        functional.cross_entropy(theirs[0:1], torch.tensor([2])).item(), rel=1e-12
    )
    with pytest.raises(ValueError, match="not a class"):
        tg.nn.cross_entropy(values(logits[0]), 3)


def test_l2_is_one_node() -> None:
    ps = values([1.0, -2.0, 3.0])
    reg = tg.nn.l2(ps)
    reg.backward()
    assert (reg.op, reg.data) == ("dot", 14.0)
    assert [p.grad for p in ps] == [2.0, -4.0, 6.0]


def test_losses_refuse_mismatched_lengths() -> None:
    with pytest.raises(ValueError, match="2 predictions but 1 targets"):
        tg.nn.mse(values([1.0, 2.0]), [1.0])
    with pytest.raises(ValueError, match="at least one sample"):
        tg.nn.mse([], [])


# Modules find their parameters themselves; the optimizer base class owns the loop.


def test_a_users_module_finds_its_parameters_by_attribute_list_and_dict() -> None:
    class TwoHeads(tg.nn.Module):
        def __init__(self) -> None:
            self.first = tg.nn.Linear(3, 4, seed=0)
            self.second = tg.nn.Linear(4, 2, seed=1)
            self.blocks = [tg.nn.Linear(2, 2, seed=2, bias=False)]
            self.scales = {"a": tg.Tensor([1.0], requires_grad=True)}
            self.buffer = tg.Tensor([0.0])  # no gradient wanted: not a parameter
            self.shared = self.first  # the same module twice: its parameters once

        def __call__(self, x):  # type: ignore[no-untyped-def]
            return self.second(self.first(x).relu())

    model = TwoHeads()
    # PyTorch's order: the module's own parameters (a dict of parameters counts as its own)
    # first, then its sub-modules', each in the order assigned
    assert [name for name, _ in model.named_parameters()] == [
        "scales.a",
        "first.weight",
        "first.bias",
        "second.weight",
        "second.bias",
        "blocks.0.weight",
    ]
    assert len(model.parameters()) == 6
    state = model.state_dict()
    copy = TwoHeads()
    for p in copy.parameters():
        p.data = p.data * 0
    copy.load_state_dict(state)
    assert all((a.data == b.data).all() for a, b in zip(model.parameters(), copy.parameters()))


def test_scalar_modules_name_their_parameters_as_micrograd_orders_them() -> None:
    class Pair(tg.nn.Module):
        def __init__(self) -> None:
            self.neuron = tg.nn.Neuron(2, seed=0)
            self.extra = (tg.Value(1.0), tg.Value(2.0) * 3)  # a computed Value is no parameter

    names = [name for name, _ in Pair().named_parameters()]  # its own first, as PyTorch's
    assert names == ["extra.0", "neuron.w.0", "neuron.w.1", "neuron.b"]


def test_an_optimizer_writes_only_its_update() -> None:
    class Halve(tg.optim.Optimizer):
        def update(self, p, grad, state):  # type: ignore[no-untyped-def]
            state["calls"] = state.get("calls", 0) + 1
            p.data -= self.lr * grad / 2

    a, b = tg.Value(1.0), tg.Value(1.0)
    t = tg.Tensor([1.0, 2.0], requires_grad=True)
    unused = tg.Tensor([5.0], requires_grad=True)  # no gradient: skipped, as torch.optim does
    opt = Halve([a, b, t, unused], lr=0.5, weight_decay=0.1)
    (a * a).backward()
    (t * t).sum().backward()
    opt.step()
    assert a.data == 1.0 - 0.5 * (2.0 + 0.1 * 1.0) / 2  # weight decay added by the base class
    assert b.data == 1.0  # no backward reached b: skipped, as torch.optim skips a None grad
    np.testing.assert_allclose(t.data, [1.0 - 0.25 * 2.1, 2.0 - 0.25 * 4.2])
    assert unused.data.tolist() == [5.0] and opt.state[unused] == {}
    assert [opt.state[p].get("calls") for p in (a, b, t, unused)] == [1, None, 1, None]
    opt.zero_grad()
    assert (a.grad, t.grad, unused.grad) == (0.0, None, None)
    with pytest.raises(ValueError, match="weight_decay"):
        Halve([a], lr=0.1, weight_decay=-1.0)
    (a * a).backward()
    with pytest.raises(NotImplementedError, match="update"):
        tg.optim.Optimizer([a], lr=0.1).step()


def test_an_update_that_rebinds_data_still_writes_the_tensors_own_array() -> None:
    class Rebind(tg.optim.Optimizer):
        def update(self, p, grad, state):  # type: ignore[no-untyped-def]
            p.data = p.data - self.lr * grad  # a new array, not a write in place
            p.data = p.data * 4.0

    t = tg.Tensor([1.0, 2.0], requires_grad=True)
    view, array = t[1:], t.array
    (t * t).sum().backward()
    Rebind([t], lr=0.125).step()
    assert t.array is array and t.data.tolist() == [3.0, 6.0]  # (1 - 0.25) * 4, (2 - 0.5) * 4
    assert view.data.tolist() == [6.0]  # written in place: a view sees it
    y = (t * t).sum()
    Rebind([t], lr=0.125).step()
    with pytest.raises(RuntimeError, match=r"Rebind\.step"):  # the write is counted
        y.backward()


def test_cross_entropy_takes_numpy_class_indices_and_refuses_the_rest_clearly() -> None:
    logits = [tg.Value(1.0), tg.Value(2.0), tg.Value(-1.0)]
    assert tg.nn.cross_entropy(logits, np.int64(1)).data == tg.nn.cross_entropy(logits, 1).data
    batch = tg.nn.cross_entropy([logits, logits], np.array([1, 0]))
    assert batch.data == (tg.nn.cross_entropy(logits, 1) + tg.nn.cross_entropy(logits, 0)).data / 2
    with pytest.raises(TypeError, match="class indices"):
        tg.nn.cross_entropy(logits, True)
    with pytest.raises(TypeError, match="class index"):
        tg.nn.cross_entropy(logits, 1.0)
    with pytest.raises(ValueError, match="2 predictions but 1 targets"):
        tg.nn.cross_entropy([logits, logits], [1])
