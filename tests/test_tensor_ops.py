"""Every elementwise op of the registry on Tensors, generated from the registry: against
PyTorch float64 with shapes and broadcasting drawn by hypothesis, against the scalar engine
element by element, and at its special points. A new op is covered without a test here."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from oracle import reference, same

import topograd as tg
from topograd.autograd.registry import AWAY_FROM_ZERO, OPS, Interval
from topograd.tensors.arrays import kernel
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
    assert_forward_close(op, arrays, out.array, expected.detach().numpy())
    weights = rng.uniform(-1.0, 1.0, out.shape)
    (out * weights).sum().backward()
    # each element's terms before broadcasting sums them: the rounding of a sum, in whatever
    # order NumPy and PyTorch add, is within terms x eps x the sum of their sizes
    spread = [torch.tensor(np.broadcast_to(a, out.shape), requires_grad=True) for a in arrays]
    (reference(op, scalars=False)(*spread) * torch.tensor(weights)).sum().backward()
    references = torch_gradients(expected, torch.tensor(weights), theirs, spread)
    assert references is not None or name == "clamp_between", "only clamp.Tensor refuses"
    for k, (mine, terms) in enumerate(zip(ours, spread)):
        assert mine.grad is not None and terms.grad is not None
        assert mine.grad.shape == mine.shape
        count = max(1, out.array.size // max(1, mine.array.size))
        size = unbroadcast(np.abs(terms.grad.numpy()), mine.shape)
        # where PyTorch refuses, its gradients of the broadcast inputs, summed as they broadcast
        theirs_k = references[k] if references else unbroadcast(terms.grad.numpy(), mine.shape)
        error = np.abs(mine.grad.array - theirs_k)
        bound = 1e-12 * np.abs(theirs_k) + count * 2.0**-52 * size
        assert np.all(error <= bound), (mine.grad, theirs_k, bound)


def assert_forward_close(op: Any, arrays: list[np.ndarray], ours: Any, theirs: Any) -> None:
    """Within 1e-13 of PyTorch's value; or, where a formula cancels (1 + tanh(x) at a
    negative x: the last bits of PyTorch's vectorised tanh and NumPy's differ, and the
    difference is what remains), no further from the same kernel in x86's 80-bit long double
    than PyTorch's own answer is, with an ulp of slack."""
    close = np.isclose(ours, theirs, rtol=1e-13, atol=1e-300) | (np.isnan(ours) & np.isnan(theirs))
    if np.all(close):
        return
    finer = kernel(op)(*[a.astype(np.longdouble) for a in arrays])
    assert finer.dtype == np.longdouble
    ulp = np.spacing(np.abs(np.asarray(ours, dtype=np.float64)))
    ours_off = np.abs(np.asarray(ours, np.longdouble) - finer)
    theirs_off = np.abs(np.asarray(theirs, np.longdouble) - finer)
    assert np.all(close | (ours_off <= 2 * theirs_off + ulp)), (ours, theirs, finer)


def torch_gradients(
    out: torch.Tensor, weights: torch.Tensor, leaves: list[torch.Tensor], spread: list[torch.Tensor]
) -> list[np.ndarray] | None:
    """PyTorch's gradients of the leaves, or None where its backward refuses: clamp.Tensor's
    rule does not sum the gradient of an input its limits broadcast (a 0-d x with limits of
    shape (1,): "output with shape [] doesn't match the broadcast shape [1]", PyTorch 2.13),
    and only where an input is smaller than the output."""
    refusal = ""
    try:
        (out * weights).sum().backward()
    except RuntimeError as error:
        refusal = str(error)
    if refusal:
        assert "doesn't match the broadcast shape" in refusal
        assert any(leaf.shape != s.shape for leaf, s in zip(leaves, spread))
        return None
    return [leaf.grad.numpy() for leaf in leaves if leaf.grad is not None]


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


SATURATING = {"tanh": torch.tanh, "sigmoid": torch.sigmoid}


@pytest.mark.parametrize("name", sorted(SATURATING))
def test_a_saturated_gradient_is_within_ulps_of_the_terms_that_cancel(name: str) -> None:
    """tanh's 1 - t² and sigmoid's s (1 - s), out to where they saturate: the value t (or s)
    differs from PyTorch's in its last bits on some CPUs' kernels, and 1 - t² keeps only that
    difference, so the gradient is held to 4 ulps of 1 (the size of the terms that cancel),
    not to its own size (the README's promise: at x = 19, 2.2e-16 against 0)."""
    x = np.concatenate([-np.geomspace(1.0, 40.0, 200), np.geomspace(1.0, 40.0, 200)])
    upstream = np.random.default_rng(3).uniform(-2.0, 2.0, x.shape)
    ours = tg.tensor(x, dtype=tg.float64, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    (getattr(ours, name)() * upstream).sum().backward()
    (SATURATING[name](theirs) * torch.tensor(upstream)).sum().backward()
    assert ours.grad is not None and theirs.grad is not None
    error = np.abs(ours.grad.array - theirs.grad.numpy())
    assert np.all(error <= 4 * 2.0**-52 * np.abs(upstream))
    unsaturated = np.abs(x) < 5.0  # there the formula keeps its digits: 1e-12 relative
    assert np.all(error[unsaturated] <= 1e-12 * np.abs(theirs.grad.numpy()[unsaturated]))
