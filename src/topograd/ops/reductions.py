"""Reductions: ``sum`` (of several Values, or of a Tensor's elements), ``mean`` and ``max``.

``sum`` is one op in both kinds: the sum of its summands. ``tg.sum([a, b, c])`` adds three
Values in one node; ``t.sum(axis)`` adds a Tensor's elements. Either way every summand gets
the upstream gradient.

>>> total.rule(2.0, 1.0, 5.0, 6.0)
(2.0, 2.0)
"""

from __future__ import annotations

from typing import Any

from ..autograd.registry import ANY, OUT, VARIADIC, Case, register
from . import floats
from .helpers import data, shape_of, sum_of
from .shapes import broadcast_to

_AXES = (
    Case(((2, 3),), {"axis": None, "keepdims": False}),
    Case(((2, 3),), {"axis": 1, "keepdims": True}),
    Case(((2, 3, 4),), {"axis": (0, 2), "keepdims": False}),
    Case(((2, 3),), {"axis": -1, "keepdims": False}),
)


def expand(grad: Any, x: Any, axis: Any, keepdims: bool) -> Any:
    """A reduced gradient spread back over the reduced axes of ``x`` (a summand's gradient
    itself, for a sum of Values); leading batch axes on ``grad`` stay in front."""
    if not hasattr(grad, "shape"):
        return grad
    target = shape_of(x)
    reduced = range(len(target)) if axis is None else (axis,) if isinstance(axis, int) else axis
    axes = sorted(a % len(target) for a in reduced) if target else []
    rank = len(target) if keepdims else len(target) - len(axes)  # the output's
    lead = shape_of(grad)[: len(shape_of(grad)) - rank]
    if not keepdims:
        kept = list(shape_of(grad))
        for a in axes:
            kept.insert(len(lead) + a, 1)
        grad = grad.reshape(tuple(kept))
    return broadcast_to(grad, shape=(*lead, *target))


@register(
    "sum",
    "x₁ + … + xₙ: the summands, or a Tensor's elements (along axis)",
    scalar=floats.total,
    array="total",
    torch="torch.sum",
    saves=(),
    arity=VARIADIC,
    domain=(ANY, ANY, ANY),
    cases=_AXES,
    batches=True,
    forward=lambda *args: sum_of(t for t in args[: (len(args) - 1) // 2] if t is not None),
)
def total(grad: Any, *args: Any, axis: Any = None, keepdims: bool = False) -> tuple[Any, ...]:
    """1 for every summand (every element)"""
    return tuple(expand(grad, x, axis, keepdims) for x in args[:-1])


@register(
    "mean",
    "the mean of the elements (along axis)",
    array="mean",
    torch="torch.mean",
    saves=(),
    arity=1,
    domain=(ANY,),
    cases=_AXES,
    batches=True,
)
def mean(grad: Any, x: Any, out: Any, *, axis: Any = None, keepdims: bool = False) -> tuple[Any]:
    """1 / n for every element, n the number averaged"""
    count = data(x).size // max(1, data(out).size)
    return (expand(grad, x, axis, keepdims) / count,)


@register(
    "max",
    "the largest element (along axis)",
    array="max",
    torch="torch.amax",
    saves=(0, OUT),
    arity=1,
    domain=(ANY,),
    cases=(*_AXES, Case(((3, 3),), {"axis": 0, "keepdims": False})),
    special=[(([1.0, 3.0, 3.0],), 3.0, ([0.0, 0.5, 0.5],))],
    batches=True,
)
def amax(grad: Any, x: Any, out: Any, *, axis: Any = None, keepdims: bool = False) -> tuple[Any]:
    """1 for the largest element; ties share it evenly, as torch.amax"""
    xd = data(x)
    hits = xd == expand(data(out), xd, axis, keepdims)
    count = expand(hits.sum(axis=axis, keepdims=keepdims), xd, axis, keepdims)
    share = (hits / count).astype(xd.dtype)  # a float32 input keeps float32 gradients
    return (expand(grad, xd, axis, keepdims) * share,)
