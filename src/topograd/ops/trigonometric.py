"""The trigonometric and hyperbolic functions and their inverses, on both kinds.

Each rule is PyTorch's formula (derivatives.yaml), from the output where the maths allows
(tan' = 1 + out², tanh' = 1 - out²); the inverses' rules are PyTorch's, reciprocal square
roots as its rsqrt (1 / √x): inf at the ends of their domains, nan beyond.

>>> sin.rule(1.0, 0.0, 0.0), asin.rule(1.0, 1.0, asin(1.0))
((1.0,), (inf,))
"""

from __future__ import annotations

import math
from typing import Any

from ..autograd.registry import ANY, OUT, Code, register
from . import floats
from .arithmetic import div
from .elementary import power, sqrt
from .floats import INF, NAN


@register(
    "sin",
    "sin(x)",
    scalar=floats.sin,
    array="sin",
    torch="torch.sin",
    saves=(0,),
    domain=(ANY,),
    special=[((INF,), NAN, (NAN,))],
)
def sin(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """cos(x)"""
    return (grad * cos(x),)


@register(
    "cos",
    "cos(x)",
    scalar=floats.cos,
    array="cos",
    torch="torch.cos",
    saves=(0,),
    domain=(ANY,),
    special=[((-INF,), NAN, (NAN,))],
)
def cos(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """-sin(x)"""
    return (grad * -sin(x),)


@register(
    "tan",
    "tan(x)",
    scalar=floats.tan,
    array="tan",
    torch="torch.tan",
    saves=(OUT,),
    domain=((-1.2, 1.2),),
    special=[((0.0,), 0.0, (1.0,)), ((INF,), NAN, (NAN,))],
)
def tan(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 + tan²(x), from the output"""
    return (grad * (1.0 + out * out),)


@register(
    "sinh",
    "sinh(x)",
    scalar=floats.sinh,
    array="sinh",
    torch="torch.sinh",
    saves=(0,),
    domain=(ANY,),
    special=[((0.0,), 0.0, (1.0,)), ((1000.0,), INF, (INF,)), ((-1000.0,), -INF, (INF,))],
)
def sinh(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """cosh(x)"""
    return (grad * cosh(x),)


@register(
    "cosh",
    "cosh(x)",
    scalar=floats.cosh,
    array="cosh",
    torch="torch.cosh",
    saves=(0,),
    domain=(ANY,),
    special=[((0.0,), 1.0, (0.0,)), ((1000.0,), INF, (INF,))],
)
def cosh(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """sinh(x)"""
    return (grad * sinh(x),)


@register(
    "tanh",
    "tanh(x)",
    scalar=math.tanh,
    array="tanh",
    torch="torch.tanh",
    saves=(OUT,),
    domain=(ANY,),
    special=[((0.0,), 0.0, (1.0,)), ((20.0,), 1.0, (0.0,)), ((1000.0,), 1.0, (0.0,))],
    code=Code(rule=("{g} * (1.0 - {out} * {out})",)),
)
def tanh(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 - tanh²(x), from the output"""
    return (grad * (1.0 - out * out),)


@register(
    "asinh",
    "asinh(x)",
    scalar=math.asinh,
    array="arcsinh",
    torch="torch.asinh",
    saves=(0,),
    domain=(ANY,),
    special=[((0.0,), 0.0, (1.0,)), ((INF,), INF, (0.0,))],
)
def asinh(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 / √(x² + 1), as PyTorch: grad (x^2 + 1)^-½ (its rsqrt)"""
    return (grad * power(power(x, 2.0) + 1.0, -0.5),)


@register(
    "atan",
    "atan(x)",
    scalar=math.atan,
    array="arctan",
    torch="torch.atan",
    saves=(0,),
    domain=(ANY,),
    special=[((0.0,), 0.0, (1.0,)), ((INF,), math.pi / 2, (0.0,))],
)
def atan(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 / (x² + 1)"""
    return (div(grad, x * x + 1.0),)


@register(
    "asin",
    "arcsin(x)",
    scalar=floats.asin,
    array="arcsin",
    torch="torch.asin",
    saves=(0,),
    domain=((-0.9, 0.9),),
    special=[((1.0,), math.pi / 2, (INF,)), ((-1.0,), -math.pi / 2, (INF,)), ((2.0,), NAN, (NAN,))],
)
def asin(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 / √(1 - x²), as PyTorch's grad · rsqrt(-x x + 1): inf at ±1, nan beyond"""
    return (grad * rsqrt(-x * x + 1.0),)


@register(
    "acos",
    "arccos(x)",
    scalar=floats.acos,
    array="arccos",
    torch="torch.acos",
    saves=(0,),
    domain=((-0.9, 0.9),),
    special=[((1.0,), 0.0, (-INF,)), ((-1.0,), math.pi, (-INF,)), ((2.0,), NAN, (NAN,))],
)
def acos(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """-1 / √(1 - x²), as PyTorch's grad · -rsqrt(-x x + 1)"""
    return (grad * -rsqrt(-x * x + 1.0),)


@register(
    "atanh",
    "artanh(x)",
    scalar=floats.atanh,
    array="arctanh",
    torch="torch.atanh",
    saves=(0,),
    domain=((-0.9, 0.9),),
    special=[((1.0,), INF, (INF,)), ((-1.0,), -INF, (INF,)), ((2.0,), NAN, (-1.0 / 3.0,))],
)
def atanh(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 / (1 - x²), as PyTorch's grad / (1 - x^2): inf at ±1, and 1 / (1 - x²) beyond"""
    return (div(grad, 1.0 - power(x, 2.0)),)


@register(
    "acosh",
    "arcosh(x)",
    scalar=floats.acosh,
    array="arccosh",
    torch="torch.acosh",
    saves=(0,),
    domain=((1.1, 4.0),),
    special=[((1.0,), 0.0, (INF,)), ((0.0,), NAN, (NAN,)), ((INF,), INF, (0.0,))],
)
def acosh(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 / √(x² - 1), as PyTorch's grad · rsqrt(x x - 1): inf at 1, nan below"""
    return (grad * rsqrt(x * x - 1.0),)


def rsqrt(x: Any) -> Any:
    """1 / √x, as PyTorch's rsqrt computes it: nan at -inf, where C's pow(x, -½) gives 0 (which
    the rule of asinh, whose base is never -inf, uses)."""
    return div(1.0, sqrt(x))
