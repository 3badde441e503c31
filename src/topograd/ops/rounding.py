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
    ),
    batches=True,
    integers="keep",
    bools=False,
)
def clamp(grad: Any, x: Any, out: Any, *, low: Any = None, high: Any = None) -> tuple[Any]:
    """1 where low ≤ x ≤ high (ends included), else 0, as PyTorch's clamp_backward"""
    xd = data(x)
    inside = True if low is None else xd >= low
    if high is not None:
        inside = inside & (xd <= high) if low is not None else xd <= high
    return (where(inside, grad, 0.0),)


@register(
    "astype",
    "x in another float precision (float16, float32, float64): rounded to it",
    array="astype",
    torch="torch.Tensor.to",
    saves=(0,),
    arity=1,
    domain=(ANY,),
    # (the rounding to float16 or float32 itself is tested against PyTorch's apart: central
    # differences cannot check a rule through it, nor a hessian in float64's tolerance)
    cases=(Case(((2, 3),), {"dtype": "float64"}),),
    batches=True,
    integers="floats",
)
def astype(grad: Any, x: Any, out: Any, *, dtype: Any) -> tuple[Any]:
    """1: the gradient itself, in the input's precision (PyTorch's grad.to(x.dtype))"""
    return (astype(grad, dtype=data(x).dtype),)
