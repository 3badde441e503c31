"""The minimal reproductions of issue 11, each against PyTorch float64 run beside it: a zero
local derivative times an infinite or nan upstream gradient, the two engines against each
other, second derivatives of ``**``, overflow PyTorch avoids, the sign of zero, and bad
indices, axes, seeds and dtypes."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from oracle import same

import topograd as tg

INF, NAN = math.inf, math.nan

# (what, f on Values or Tensors and on torch tensors alike, inputs, upstream gradient)
CASES: list[tuple[str, Callable[..., Any], list[float], float]] = [
    ("sqrt(relu(x))", lambda x: x.relu().sqrt(), [-1.0], 1.0),
    ("log(relu(x))", lambda x: x.relu().log(), [-1.0], 1.0),
    ("1 / relu(x)", lambda x: 1 / x.relu(), [-1.0], 1.0),
    ("x ** 0 * y, y = inf", lambda x, y: x**0 * y, [2.0, INF], 1.0),
    ("log(x ** 0 - 1)", lambda x: (x**0 - 1).log(), [2.0], 1.0),
    ("log(x ** 0. - 1)", lambda x: (x**0.0 - 1).log(), [2.0], 1.0),
    ("log(x ** y) at (0, 2)", lambda x, y: (x**y).log(), [0.0, 2.0], 1.0),
    ("1e-300 * log(x)", lambda x: 1e-300 * x.log(), [1e-310], 1.0),
    ("0 * (y / x)", lambda y, x: 0 * (y / x), [1e-300, 1e-310], 1.0),
    ("relu(x), upstream -1", lambda x: x.relu(), [-1.0], -1.0),
    ("x ** 0, upstream -1", lambda x: x**0, [2.0], -1.0),
    ("sqrt(x) * 0 lets the nan flow", lambda x: x.sqrt() * 0, [0.0], 1.0),
]
KINDS = {
    "Value": lambda x: tg.Value(x),
    "Tensor": lambda x: tg.tensor(x, dtype=tg.float64, requires_grad=True),
}


def torch_leaf(x: float) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float64, requires_grad=True)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("what", "f", "xs", "upstream"), CASES, ids=[c[0] for c in CASES])
def test_first_derivatives_equal_pytorch(what: str, f, xs, upstream, kind: str) -> None:  # type: ignore[no-untyped-def]
    ours = [KINDS[kind](x) for x in xs]
    f(*ours).backward(upstream if kind == "Value" else np.array(upstream))
    theirs = [torch_leaf(x) for x in xs]
    f(*theirs).backward(torch.tensor(upstream, dtype=torch.float64))
    for o, t in zip(ours, theirs, strict=True):
        assert same(float(o.grad), t.grad.item()), (what, kind, o.grad, t.grad)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("f", "xs"),
    [
        (lambda x: x**0.0, [2.0]),
        (lambda x: x**0.0, [0.0]),
        (lambda x, y: x**y, [0.0, 0.0]),
        (lambda x, y: x**y, [0.0, 2.0]),
        (lambda x, y: x**y, [3.0, 0.0]),
        (lambda x: 0.0**x, [2.0]),
    ],
)
def test_second_derivatives_of_pow_equal_pytorch(f, xs, kind: str) -> None:  # type: ignore[no-untyped-def]
    ours = [KINDS[kind](x) for x in xs]
    theirs = [torch_leaf(x) for x in xs]
    first = tg.grad(f(*ours), ours, create_graph=True)
    expected_first = torch.autograd.grad(f(*theirs), theirs, create_graph=True)
    for g, e in zip(first, expected_first, strict=True):
        second = tg.grad(g, ours, materialize_grads=True)
        if e.requires_grad:
            expected = torch.autograd.grad(e, theirs, allow_unused=True, materialize_grads=True)
        else:
            expected = tuple(torch.zeros(()) for _ in theirs)
        for s, t in zip(second, expected, strict=True):
            assert same(float(s), t.item()), (xs, kind, second, expected)


def test_where_selects_on_tensors() -> None:
    x = tg.Tensor([1.0, 2.0], requires_grad=True)
    tg.where(np.array([True, False]), x, tg.Tensor([1.0, 0.0])).log().sum().backward()
    t = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    torch.where(torch.tensor([True, False]), t, torch.tensor([1.0, 0.0])).log().sum().backward()
    assert all(map(same, x.grad, t.grad.numpy()))
    assert x.grad.tolist() == [1.0, 0.0]


@pytest.mark.parametrize("kind", KINDS)
def test_a_zero_then_a_negative_zero_seed_add_as_pytorch(kind: str) -> None:
    x = KINDS[kind](1.0)
    theirs = torch_leaf(1.0)
    for seed in (0.0, -0.0):
        x.backward(seed if kind == "Value" else np.array(seed))
        theirs.backward(torch.tensor(seed, dtype=torch.float64))
    assert same(float(x.grad), theirs.grad.item())
    assert math.copysign(1.0, float(x.grad)) == 1.0
    fresh = KINDS[kind](1.0)
    fresh.backward(-0.0 if kind == "Value" else np.array(-0.0))
    assert math.copysign(1.0, float(fresh.grad)) == -1.0  # a first -0.0 keeps its sign


@pytest.mark.parametrize("reduce", ["sum", "mean", "max"])
@pytest.mark.parametrize("axis", [0, -1, (0,), (-1,)])
def test_a_0d_tensor_reduces_over_axis_0_or_minus_1_as_in_pytorch(reduce: str, axis) -> None:  # type: ignore[no-untyped-def]
    x = tg.Tensor(3.0, requires_grad=True)
    out = getattr(x, reduce)(axis=axis)
    out.backward()
    t = torch_leaf(3.0)
    getattr(t, {"max": "amax"}.get(reduce, reduce))(dim=axis).backward()
    assert out.shape == () and out.item() == 3.0
    assert x.grad.shape == () and x.grad == t.grad.item() == 1.0
    with pytest.raises(IndexError):
        getattr(x, reduce)(axis=1)


def test_bad_axes_indices_and_seeds_are_refused() -> None:
    a = tg.Tensor(np.ones((2, 2)), requires_grad=True)
    with pytest.raises(IndexError):
        a.transpose(2, 3)
    with pytest.raises(IndexError):
        tg.Tensor([1.0, 2.0, 3.0])[tg.Tensor([1.7, 0.2])]
    with pytest.raises(TypeError, match="real"):
        (a * 1).sum().backward(np.array(1 + 2j))
    with pytest.raises(TypeError, match="real"):
        tg.Value(1.0).backward(1 + 2j)  # type: ignore[arg-type]


def test_float16_stays_float16_as_in_pytorch() -> None:
    x = tg.Tensor(np.ones(3, np.float16), requires_grad=True)
    (x * 2.0).sum().backward()
    assert x.dtype == np.float16 and (x * 2.0).dtype == np.float16
    assert x.grad.dtype == np.float16


def test_numpy_sees_a_tensor_as_its_numbers() -> None:
    t = tg.Tensor([[1.0, 2.0], [3.0, 4.0]])
    array = np.asarray(t)
    assert array.dtype == np.float32 and array.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert np.asarray(t, dtype=np.float32).dtype == np.float32
    assert not np.shares_memory(np.array(t, copy=True), t.data)
    assert np.shares_memory(np.asarray(t), t.data)
    with pytest.raises(RuntimeError, match="requires grad"):
        np.asarray(tg.Tensor([1.0], requires_grad=True))  # NumPy would drop its gradient


def test_grad_of_a_0d_tensor_is_a_tensor_as_its_grad() -> None:
    x = tg.Tensor(3.0, requires_grad=True)
    (g,) = tg.grad(x * x, [x])
    (x * x).backward()
    assert type(g) is type(x.grad) is tg.Tensor
    assert g.shape == x.grad.shape == ()


def test_a_grad_set_to_none_by_hand_counts_as_none() -> None:
    w = tg.Value(2.0)
    w.grad = None  # type: ignore[assignment]
    (w * w).backward()
    assert w.grad == 4.0


def test_a_seed_taken_from_a_fresh_gradient_is_a_gradient() -> None:
    a, x = tg.Value(1.0), tg.Value(1.0)
    y = x + 1.0
    y.backward(a.grad)  # a's 0.0 before any backward
    y.backward(-0.0)
    assert math.copysign(1.0, x.grad) == 1.0  # 0.0 + -0.0, as PyTorch
