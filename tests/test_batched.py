"""Batches of gradients and of tangents run at once (``tg.grad(..., is_grads_batched=True)`` as
PyTorch's; what ``jacrev`` and ``jacfwd`` run on Tensors), table-driven from the registry: for
every Tensor op, at each of its cases, a batch gives what its gradients (tangents) give one at a
time; an op whose rule takes a batch (``Op.batched``) runs it once for the whole batch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_func_tensors import DIFFERENTIABLE, calls

import topograd as tg
from topograd.autograd.registry import OPS
from topograd.func.forward import tangents

BATCH = 3


def same(batched: Any, one_by_one: list[Any]) -> None:
    expected = np.stack([np.asarray(x) for x in one_by_one])
    np.testing.assert_allclose(np.asarray(batched), expected, rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_a_batch_of_gradients_is_its_gradients_one_at_a_time(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    op = OPS[name]
    runs = []
    rule = op.rule
    monkeypatch.setattr(op, "rule", lambda *a, **k: runs.append(1) or rule(*a, **k))
    for label, ours, _, arrays in calls(name):
        rng = np.random.default_rng(5)
        leaves = [tg.Tensor(a, requires_grad=True) for a in arrays]
        out = ours(*leaves)
        grads = rng.uniform(-2, 2, (BATCH, *out.shape))
        runs.clear()
        batched = tg.grad(out, leaves, grads, is_grads_batched=True)
        assert len(runs) == (1 if op.batched else BATCH), (name, label)
        one_by_one = [tg.grad(out, leaves, g) for g in grads]
        for k, found in enumerate(batched):
            assert found.shape == (BATCH, *leaves[k].shape)
            same(found, [each[k] for each in one_by_one])


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_a_batch_of_tangents_is_its_tangents_one_at_a_time(name: str) -> None:
    for _, ours, _, arrays in calls(name):
        rng = np.random.default_rng(6)
        leaves = [tg.Tensor(a, requires_grad=True) for a in arrays]
        out = ours(*leaves)
        seeds = {x: rng.uniform(-2, 2, (BATCH, *x.shape)) for x in leaves}
        batched = tangents([out], seeds, False, (BATCH,))[out]
        one_by_one = [
            tangents([out], {x: t[b] for x, t in seeds.items()}, False)[out] for b in range(BATCH)
        ]
        assert batched.shape == (BATCH, *out.shape)
        same(batched, one_by_one)


def test_a_batch_under_create_graph_is_differentiable() -> None:
    x = tg.tensor([0.5, -1.0, 2.0], dtype=tg.float64, requires_grad=True)
    y = (x * x).tanh()
    seeds = tg.Tensor(np.eye(3))
    (rows,) = tg.grad(y, [x], seeds, create_graph=True, is_grads_batched=True)
    (again,) = tg.grad(rows.sum(), [x])  # d/dx of sum of the Jacobian's diagonal
    t = np.tanh(x.array**2)
    expected = 2 * (1 - t**2) - 8 * x.array**2 * t * (1 - t**2)
    np.testing.assert_allclose(again, expected, rtol=1e-13)


def test_a_batch_is_refused_where_it_cannot_be() -> None:
    v = tg.Value(2.0)
    with pytest.raises(TypeError, match="a batch of gradients at once takes Tensors"):
        tg.grad(v * v, [v], [[1.0, 2.0]], is_grads_batched=True)  # (a list: one per output)
    x = tg.Tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"output's shape \(2,\) after its first axis"):
        tg.grad(x * 2, [x], np.ones((3, 3)), is_grads_batched=True)
    with pytest.raises(RuntimeError, match="every batch of upstream gradients must be of one"):
        tg.grad([x * 2, x * 3], [x], [np.ones((3, 2)), np.ones((2, 2))], is_grads_batched=True)


@pytest.mark.parametrize("transform", [tg.func.jacrev, tg.func.jacfwd])
def test_chunks_of_passes_give_the_same_jacobian(transform: Any) -> None:
    w = np.random.default_rng(1).standard_normal((5, 4))

    def f(x: Any) -> Any:
        return (x @ w.T).tanh() * x.sum()

    x = np.array([0.1, -0.4, 0.9, 1.3])
    whole = transform(f)(x)
    for chunk in (1, 3, 4, 10):
        np.testing.assert_allclose(transform(f, chunk_size=chunk)(x), whole, rtol=1e-14)
    with pytest.raises(ValueError, match="chunk_size must be None or a whole number >= 1"):
        transform(f, chunk_size=0)
