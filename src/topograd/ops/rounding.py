"""Rounding and limits: ``floor``, ``ceil``, ``round`` (to the nearest, halves to even), whose
gradient is zero wherever it exists (PyTorch gives zeros everywhere, as here), and ``clamp``
on Tensors, whose gradient passes where the input lies within the limits, ends included, and
``astype``, a Tensor rounded to another float precision, whose gradient is rounded back.

>>> floor.rule(5.0, 2.5, 2.0), clamp.rule(1.0, 2.0, 1.0, low=0.0, high=1.0)
((0.0,), (0.0,))
"""

from __future__ import annotations

from typing import Any

from ..autograd.registry import ANY, Case, register
from . import floats
from .floats import INF, NAN
from .helpers import data
from .selection import where, zeros_like

_STEPS = [
    ((0.0,), 0.0, (0.0,)),
    ((-0.0,), -0.0, (0.0,)),
    ((INF,), INF, (0.0,)),
    ((NAN,), NAN, (0.0,)),
]


@register(
    "floor",
    "the largest whole number ≤ x",
    scalar=floats.floor,
    array="floor",
    torch="torch.floor",
    saves=(),
    domain=((0.1, 0.9),),
    special=[*_STEPS, ((-0.5,), -1.0, (0.0,))],
    integers="keep",
    bools=False,
)
def floor(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """0: a step function (zeros, whatever comes in, as PyTorch)"""
    return (zeros_like(grad),)


@register(
    "ceil",
    "the smallest whole number ≥ x",
    scalar=floats.ceil,
    array="ceil",
    torch="torch.ceil",
    saves=(),
    domain=((0.1, 0.9),),
    special=[*_STEPS, ((-0.5,), -0.0, (0.0,))],
    integers="keep",
    bools=False,
)
def ceil(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """0: a step function"""
    return (zeros_like(grad),)


@register(
    "round",
    "x to the nearest whole number, halves to the even one",
    scalar=floats.round_even,
    array="rint",
    torch="torch.round",
    saves=(),
    domain=((0.1, 0.4),),
    special=[*_STEPS, ((2.5,), 2.0, (0.0,)), ((-0.5,), -0.0, (0.0,))],
    integers="keep",
    bools=False,
)
def round_even(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """0: a step function"""
    return (zeros_like(grad),)


@register(
    "clamp",
    "x limited to [low, high] (either may be None)",
    array="clamp",
    torch="torch.clamp",
    saves=(0,),
    arity=1,
    domain=(ANY,),
    cases=(
        Case(((2, 3),), {"low": -0.5, "high": 0.5}),
        Case(((4,),), {"low": 0.0, "high": None}),
        Case(((4,),), {"low": None, "high": -1.0}),
        Case(((3,),), {"low": -1, "high": 2}),  # Python ints: integers stay integers
    ),
    batches=True,
    integers="limits",
    bools=False,
)
def clamp(grad: Any, x: Any, out: Any, *, low: Any = None, high: Any = None) -> tuple[Any]:
    """1 where low ≤ x ≤ high (ends included), else 0, as PyTorch's clamp_backward"""
    xd = data(x)
    inside = True if low is None else xd >= low
    if high is not None:
        inside = inside & (xd <= high) if low is not None else xd <= high
    return (where(inside, grad, 0.0),)


# clamp with Tensor limits (PyTorch's clamp.Tensor): the limits are operands, with gradients
# of their own. Its rules compare, so at a nan (in x or in a limit) every input gets +0.0: the
# comparisons all fail, as PyTorch's clamp_backward's and clamp_backward_min_max's do.


def _tangent(cond: Any, chosen: Any, other: Any) -> Any:
    """PyTorch's where(cond, chosen, other) of two tangents, an absent one (None) as 0."""
    return where(cond, 0.0 if chosen is None else chosen, 0.0 if other is None else other)


@register(
    "clamp_min",
    "x, or low where x < low (x.clamp(min=low) with a Tensor low); nan where low is",
    scalar=floats.clamp_min,
    array="clamp_min",
    torch="torch.clamp",  # with min= only
    saves=(0, 1),
    integers="keep",  # (integers and booleans kept, as PyTorch's)
    domain=(ANY, ANY),
    special=[
        ((1.0, 1.0), 1.0, (1.0, 0.0)),
        ((0.0, 1.0), 1.0, (0.0, 1.0)),
        ((NAN, 0.0), NAN, (0.0, 0.0)),
        ((1.0, NAN), NAN, (0.0, 0.0)),
    ],
    forward=lambda tx, tl, x, low, out: _tangent(data(x) > data(low), tx, tl),
)
def clamp_min(grad: Any, x: Any, low: Any, out: Any) -> tuple[Any, Any]:
    """1 for x where x ≥ low, for low where x < low: 0 for both at a nan"""
    xd, low = data(x), data(low)
    return where(xd >= low, grad, 0.0), where(xd < low, grad, 0.0)


@register(
    "clamp_max",
    "x, or high where x > high (x.clamp(max=high) with a Tensor high); nan where high is",
    scalar=floats.clamp_max,
    array="clamp_max",
    torch="torch.clamp",  # with max= only
    saves=(0, 1),
    integers="keep",  # (integers and booleans kept, as PyTorch's)
    domain=(ANY, ANY),
    special=[
        ((1.0, 1.0), 1.0, (1.0, 0.0)),
        ((2.0, 1.0), 1.0, (0.0, 1.0)),
        ((NAN, 0.0), NAN, (0.0, 0.0)),
        ((1.0, NAN), NAN, (0.0, 0.0)),
    ],
    forward=lambda tx, th, x, high, out: _tangent(data(x) < data(high), tx, th),
)
def clamp_max(grad: Any, x: Any, high: Any, out: Any) -> tuple[Any, Any]:
    """1 for x where x ≤ high, for high where x > high: 0 for both at a nan"""
    xd, high = data(x), data(high)
    return where(xd <= high, grad, 0.0), where(xd > high, grad, 0.0)


@register(
    "clamp_between",
    "x limited to [low, high] (x.clamp(low, high) with Tensor limits); high where low > high",
    scalar=floats.clamp_between,
    array="clamp_between",
    torch="torch.clamp",
    saves=(0, 1, 2),
    integers="keep",
    bools=False,
    domain=(ANY, ANY, ANY),
    special=[
        ((1.0, 1.0, 1.0), 1.0, (1.0, 0.0, 0.0)),
        ((0.5, 1.0, 0.0), 0.0, (0.0, 0.0, 1.0)),
        ((NAN, 0.0, 1.0), NAN, (0.0, 0.0, 0.0)),
        ((0.5, NAN, 1.0), NAN, (0.0, 0.0, 0.0)),
        ((2.0, NAN, 1.0), NAN, (0.0, 0.0, 1.0)),
    ],
    forward=lambda tx, tl, th, x, low, high, out: _between_tangent(tx, tl, th, x, low, high),
)
def clamp_between(grad: Any, x: Any, low: Any, high: Any, out: Any) -> tuple[Any, Any, Any]:
    """1 for x where low ≤ x ≤ high; for low where x < low < high; for high where x > high or
    high < low (PyTorch's clamp_backward and clamp_backward_min_max): 0 for all at a nan"""
    xd, low, high = data(x), data(low), data(high)
    return (
        where((xd >= low) & (xd <= high), grad, 0.0),
        where((xd < low) & (low < high), grad, 0.0),
        where((xd > high) | (high < low), grad, 0.0),
    )


def _between_tangent(tx: Any, tl: Any, th: Any, x: Any, low: Any, high: Any) -> Any:
    """PyTorch's clamp_jvp, which is not the reverse rule at a nan: high's tangent where
    low > high, else low's where x < low, high's where x > high, x's elsewhere (at a nan too)"""
    xd, low, high = data(x), data(low), data(high)
    inner = _tangent(xd < low, tl, _tangent(xd > high, th, tx))
    return _tangent(low > high, th, inner)


@register(
    "astype",
    "x in another float precision (float16, float32, float64): rounded to it (integers and "
    "booleans cast, wanting no gradient)",
    array="astype",
    torch="torch.Tensor.to",
    saves=(0,),
    arity=1,
    domain=(ANY,),
    # (the rounding to float16 or float32 itself is tested against PyTorch's apart: central
    # differences cannot check a rule through it, nor a hessian in float64's tolerance)
    cases=(Case(((2, 3),), {"dtype": "float64"}),),
    batches=True,
    integers="keep",
)
def astype(grad: Any, x: Any, out: Any, *, dtype: Any) -> tuple[Any]:
    """1: the gradient itself, in the input's precision (PyTorch's grad.to(x.dtype))"""
    return (astype(grad, dtype=data(x).dtype),)
