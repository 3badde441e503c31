"""Every elementwise op of the registry on Tensors, generated from the registry: against
PyTorch float64 with shapes and broadcasting drawn by hypothesis, against the scalar engine
element by element, and at its special points. A new op is covered without a test here."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from oracle import reference, same

import topograd as tg
from topograd.autograd.registry import AWAY_FROM_ZERO, OPS, Interval
from topograd.tensors.broadcast import unbroadcast

ELEMENTWISE = sorted(name for name, op in OPS.items() if op.elementwise and not op.custom)


def draw(rng: np.random.Generator, shape: tuple[int, ...], interval: Interval) -> np.ndarray:
    lo, hi = interval
    x = rng.uniform(lo, hi, shape)
    return x * rng.choice([-1.0, 1.0], shape) if (lo, hi) == AWAY_FROM_ZERO else x


def shapes_for(arity: int) -> st.SearchStrategy[tuple[tuple[int, ...], ...]]:
    return hnp.mutually_broadcastable_shapes(
        num_shapes=arity, min_dims=0, max_dims=3, max_side=3
    ).map(lambda s: s.input_shapes)


def test_every_op_of_both_kinds_is_tested_here() -> None:
    both = {name for name, op in OPS.items() if op.kinds == ("scalar", "tensor") and not op.custom}
    # sum and logsumexp: reductions on Tensors (see test_tensor and the conformance suite's
    # cases); where: a boolean condition (its cases)
    assert both - {"sum", "logsumexp", "where"} == set(ELEMENTWISE)


@pytest.mark.parametrize("name", ELEMENTWISE)
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_elementwise_op_matches_torch_with_broadcasting(name: str, data, seed: int) -> None:  # type: ignore[no-untyped-def]
    op = OPS[name]
    shapes = data.draw(shapes_for(op.arity))
    rng = np.random.default_rng(seed)
    arrays = [draw(rng, shape, interval) for shape, interval in zip(shapes, op.domain)]
    ours = [tg.Tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, expected = op(*ours), reference(op, scalars=False)(*theirs)
    assert out.shape == tuple(expected.shape)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-13, atol=1e-300)
    weights = rng.uniform(-1.0, 1.0, out.shape)
    (out * weights).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    # each element's terms before broadcasting sums them: the rounding of a sum, in whatever
    # order NumPy and PyTorch add, is within terms x eps x the sum of their sizes
    spread = [torch.tensor(np.broadcast_to(a, out.shape), requires_grad=True) for a in arrays]
    (reference(op, scalars=False)(*spread) * torch.tensor(weights)).sum().backward()
    for mine, reference_leaf, terms in zip(ours, theirs, spread):
        assert mine.grad is not None and reference_leaf.grad is not None
        assert mine.grad.shape == mine.shape
        assert terms.grad is not None
        count = max(1, out.array.size // max(1, mine.array.size))
        size = unbroadcast(np.abs(terms.grad.numpy()), mine.shape)
        error = np.abs(mine.grad - reference_leaf.grad.numpy())
        bound = 1e-12 * np.abs(reference_leaf.grad.numpy()) + count * 2.0**-52 * size
        assert np.all(error <= bound), (mine.grad, reference_leaf.grad, bound)


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_elementwise_op_on_tensors_equals_the_scalar_engine(name: str) -> None:
    op = OPS[name]
    rng = np.random.default_rng(len(name))
    arrays = [draw(rng, (40,), interval) for interval in op.domain]
    tensors = [tg.Tensor(a, requires_grad=True) for a in arrays]
    op(*tensors).sum().backward()
    for k in range(40):
        values = [tg.Value(a[k]) for a in arrays]
        out = op(*values)
        out.backward()
        # (1e-14: where a formula cancels, 1 + tanh in gelu's tanh form, libm's last bit grows)
        assert same(float(op(*tensors).data[k]), out.data, 1e-14), (name, k)
        for tensor, value in zip(tensors, values):
            assert tensor.grad is not None
            # a last-bit difference of libm and NumPy grows where a rule cancels (1 - tanh²)
            assert same(float(tensor.grad[k]), value.grad, 1e-12), (name, k)


SPECIAL = [
    (name, xs, value, partials) for name in ELEMENTWISE for xs, value, partials in OPS[name].special
]


@pytest.mark.parametrize(("name", "xs", "value", "partials"), SPECIAL)
def test_special_points_hold_on_tensors_of_any_shape(name: str, xs, value, partials) -> None:  # type: ignore[no-untyped-def]
    for shape in [(), (2,), (2, 3)]:
        tensors = [tg.Tensor(np.full(shape, x), requires_grad=True) for x in xs]
        out = OPS[name](*tensors)
        out.sum().backward()
        assert all(same(v, value) for v in out.array.ravel().tolist()), (name, shape)
        for tensor, partial in zip(tensors, partials):
            assert tensor.grad is not None
            got = tensor.grad.array.ravel().tolist()
            assert all(same(g, partial) for g in got), (name, shape, got, partial)


def test_zero_exponent_selects_on_tensors_even_for_an_infinite_upstream() -> None:
    x = tg.Tensor([2.0, 0.0], requires_grad=True)
    (x**0.0).backward(np.array([math.inf, math.nan]))
    assert x.grad.tolist() == [0.0, 0.0]
