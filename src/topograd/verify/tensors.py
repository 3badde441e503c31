"""gradcheck on Tensors: the Jacobian column by column, or PyTorch's fast mode (vᵀJu for random
u and v); where a gradient disagrees, the first node whose rule disagrees with its own forward.

>>> import numpy as np
>>> import topograd as tg
>>> x = tg.Tensor(np.array([[0.5, -1.0], [2.0, 0.3]]), requires_grad=True)
>>> tg.gradcheck(lambda t: (t @ t).tanh(), [x])
True
>>> tg.gradcheck(lambda t: (t @ t).tanh().sum(axis=0), [x], fast_mode=True)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..autograd.engine import grad
from ..autograd.kinds import kind_of
from ..tensors import Tensor
from ..tensors.arrays import kernel, value_of
from .faults import (
    Fault,
    GradcheckError,
    Options,
    close,
    is_kink,
    localised,
    mismatch,
    not_reentrant,
)
from .numeric import derivative
from .tensor_rules import directional

Array = np.ndarray[Any, Any]


class TensorGradcheckError(GradcheckError):
    """A gradcheck of Tensors failed: a ``GradcheckError`` like any other."""

    __module__ = "topograd"  # raised as tg.TensorGradcheckError


def check(fn: Callable[..., Any], inputs: Sequence[Any], options: Options) -> None:
    """Raise ``TensorGradcheckError`` where a gradient of ``fn`` disagrees with central
    differences, under PyTorch's rule |a - n| <= atol + rtol |n|."""
    tensors = list(inputs)  # anything but a Tensor is passed to fn as it is: a constant
    checked = [j for j, t in enumerate(tensors) if isinstance(t, Tensor) and t.requires_grad]
    if not checked:
        raise ValueError("gradcheck: no input Tensor requires a gradient: nothing to check")
    out = fn(*tensors)
    if not isinstance(out, Tensor):
        raise TypeError(f"gradcheck: fn must return a Tensor, it returned {type(out).__name__}")
    rng = np.random.default_rng(options.seed)
    for j in checked:
        if options.fast_mode:
            numeric, analytic = _fast(fn, tensors, out, j, rng, options)
            ok = close(float(analytic[0]), float(numeric[0]), options.atol, options.rtol)
        else:
            numeric = _numerical_jacobian(fn, tensors, j, options)
            analytic = _analytical_jacobian(out, tensors[j])
            ok = bool(
                np.allclose(
                    analytic, numeric, rtol=options.rtol, atol=options.atol, equal_nan=False
                )
            )
        if not ok:
            fault = localise(out, options.atol, options.rtol)
            what = "vJu (fast mode)" if options.fast_mode else "Jacobian"
            raise TensorGradcheckError(mismatch(what, j, numeric, analytic, fault), j, fault)
    for j in checked:  # backward run twice gives the same bits
        v = np.ones(out.shape)
        first, second = _vjp(out, tensors[j], v), _vjp(out, tensors[j], v)
        if first.tobytes() != second.tobytes():
            raise TensorGradcheckError(not_reentrant(j, first, second), j)


def _evaluate(fn: Callable[..., Tensor], tensors: list[Any], j: int, data: Array) -> Array:
    """fn's output with input ``j`` set to ``data``, the inputs wanting gradients as they did
    (fn may itself differentiate, with tg.grad(create_graph=True))."""
    args = [
        Tensor(data if k == j else t.array, requires_grad=t.requires_grad)
        if isinstance(t, Tensor)
        else t
        for k, t in enumerate(tensors)
    ]
    return np.asarray(fn(*args).array, dtype=np.float64)


def _fast(
    fn: Callable[..., Tensor],
    tensors: list[Any],
    out: Tensor,
    j: int,
    rng: np.random.Generator,
    options: Options,
) -> tuple[Array, Array]:
    x = tensors[j].array.astype(np.float64)
    u, v = rng.normal(size=x.shape), rng.normal(size=out.shape)

    def along_u(t: float) -> float:
        return float(np.sum(v * _evaluate(fn, tensors, j, x + t * u)))

    scale = max(1.0, float(np.abs(x).max(initial=0.0)))
    numeric = np.array([options.derivative(along_u, 0.0, scale=scale)])
    return numeric, np.array([np.sum(_vjp(out, tensors[j], v) * u)])


def _numerical_jacobian(
    fn: Callable[..., Tensor], tensors: list[Any], j: int, options: Options
) -> Array:
    """Column k: the central difference of the flattened output along input element k."""
    x = tensors[j].array.astype(np.float64)
    columns = []
    for k in range(x.size):

        def moved(t: float, k: int = k) -> Array:
            data = x.copy()
            data.flat[k] = t
            return _evaluate(fn, tensors, j, data).ravel()

        columns.append(np.asarray(options.derivative(moved, float(x.flat[k]))))
    return np.stack(columns, axis=1) if columns else np.zeros((0, 0))


def _vjp(out: Tensor, x: Tensor, v: Array) -> Array:
    (g,) = grad((out * v).sum(), [x])
    return np.asarray(g, dtype=np.float64)


def _analytical_jacobian(out: Tensor, x: Tensor) -> Array:
    """Row m: the gradient of output element m (a backward seeded with a one-hot)."""
    rows = []
    for m in range(out.array.size):
        v = np.zeros(out.array.size)
        v[m] = 1.0
        rows.append(_vjp(out, x, v.reshape(out.shape)).ravel())
    return np.stack(rows) if rows else np.zeros((0, 0))


def _float64(x: Array) -> Array:
    return x.astype(np.float64) if x.dtype.kind == "f" else x


def node_fault(node: Tensor, atol: float, rtol: float, rng: np.random.Generator) -> Fault | None:
    """How ``node``'s rule disagrees with central differences of its own forward at its
    recorded inputs, along random directions (vᵀJu), or None."""
    kind = kind_of(node)
    assert kind is not None
    op = kind.op(node)
    operands = kind.operands(node)
    params = kind.params(node)
    forward = kernel(op)
    wants = [isinstance(t, Tensor) and t.requires_grad for t in operands]
    xs = [_float64(t.array) if isinstance(t, Tensor) else t for t in operands]
    with np.errstate(all="ignore"):
        out = np.asarray(value_of(op, forward(*xs, **params)))
        v = rng.normal(size=out.shape)
        needs = {"needs": tuple(wants)} if op.takes_needs else {}
        contributions = op.rule(v, *xs, out, **params, **needs)
    for i, want in enumerate(wants):
        if not want or contributions[i] is None:
            continue
        given, f = directional(lambda *a: forward(*a, **params), xs, i, v, contributions[i], rng)
        if not math.isfinite(f(0.0)) or is_kink(f, 0.0):
            continue
        scale = max(1.0, float(np.abs(xs[i]).max(initial=0.0)))
        expected = derivative(f, 0.0, richardson_levels=4, scale=scale)
        if math.isfinite(expected) and not close(given, expected, atol, rtol):
            shapes = tuple(tuple(np.shape(x)) for x in xs)
            return Fault(op.name, node.label, shapes, i, expected, given, kind="tensor")
    return None


def localise(output: Tensor, atol: float = 1e-5, rtol: float = 1e-3) -> Fault | None:
    """The first node, in forward order, whose local rule disagrees with its own forward."""
    rng = np.random.default_rng(0)
    return localised(output, lambda node: node_fault(node, atol, rtol, rng))
