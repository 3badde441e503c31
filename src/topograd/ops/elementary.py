"""The elementary functions on both kinds: powers, exp and log, square roots, erf (the
trigonometric and hyperbolic functions are ``trigonometric.py``).

Each rule is PyTorch's formula (derivatives.yaml), reusing the output where the maths allows
(exp' = out, tanh' = 1 - out²). Conventions at singular points are PyTorch 2.13's in float64:
IEEE results (inf, nan), never an exception.

>>> exp.rule(1.0, 0.0, 1.0), log.rule(1.0, 4.0, log(4.0))
((1.0,), (0.25,))
"""

from __future__ import annotations

import math
from typing import Any

from ..autograd.registry import ANY, OUT, POSITIVE, Code, Difference, register
from . import floats
from .arithmetic import div
from .floats import INF, NAN
from .helpers import data, is_number
from .selection import where, zeros_like

TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
HALF_POWERS = (
    "at a base of -0.0 or -inf, PyTorch takes x ** 0.5 as √x and x ** -0.5 as 1/√x where the "
    "exponent is a number (and x ** 1.5's derivative through x ** 0.5), so (-0.0) ** 0.5 is "
    "-0.0 and (-inf) ** 0.5 nan, but C's pow where the exponent is a tensor (+0.0, +inf); "
    "topograd's Values take C's pow in every form, its Tensors NumPy's (√x for a number)"
)


@register(
    "pow",
    "x ** y",
    scalar=floats.power,
    array="power",
    symbol="**",
    torch="torch.pow",
    saves=(0, 1, OUT),
    domain=(POSITIVE, ANY),
    special=[
        ((0.0, 0.0), 1.0, (0.0, 0.0)),
        ((3.0, 0.0), 1.0, (0.0, math.log(3.0))),
        ((-3.0, 0.0), 1.0, (0.0, NAN)),
        ((0.0, 2.0), 0.0, (0.0, 0.0)),
        ((0.0, -1.0), INF, (-INF, -INF)),
        ((0.0, 0.5), 0.0, (INF, 0.0)),
        ((-2.0, 2.0), 4.0, (-4.0, NAN)),
        ((-8.0, 1 / 3), NAN, (NAN, NAN)),
        ((-0.0, -1.0), -INF, (-INF, INF)),
        ((10.0, 400.0), INF, (INF, INF)),
    ],
    differs=[
        Difference(point, "", ours, theirs, HALF_POWERS, any_kind=True)
        for point, ours, theirs in [
            ((-0.0, 0.5), 0.0, -0.0),
            ((-INF, 0.5), INF, NAN),
            ((-0.0, -0.5), INF, -INF),
            ((-INF, -0.5), 0.0, NAN),
            ((-0.0, 1.5), 0.0, -0.0),
            ((-INF, 1.5), INF, NAN),
        ]
    ],
    integers="keep",
    bools=False,
)
def power(grad: Any, x: Any, y: Any, out: Any) -> tuple[Any, Any]:
    """y x^(y-1), nothing wherever y = 0; and x^y log(x), 0 where x = 0 and y >= 0 (PyTorch)"""
    # PyTorch's formulas: for a number exponent (x ** 2.0), pow_backward decides on the number;
    # for a node, pow_backward_self selects, and a second derivative sees the selection.
    if is_number(y):
        dx = zeros_like(grad) if y == 0.0 else grad * (y * power(x, y - 1.0))
    else:
        dx = where(data(y) == 0.0, 0.0, grad * (y * power(x, y - 1.0)))
    if is_number(x) and x != 0.0:  # 2.0 ** y: pow_backward_exponent with a number base
        dy = grad * (out * log(x))
    else:
        dy = grad * where((data(x) == 0.0) & (data(y) >= 0.0), 0.0, out * log(_floats(x, out)))
    return dx, dy


def _floats(x: Any, out: Any) -> Any:
    """An integer base (which wants no gradient) in the output's float dtype, for its log: NumPy
    would take the log of uint8 in float16, of int16 in float32."""
    kind = getattr(data(x), "dtype", None)  # (None: a number, a Value's float)
    return x if kind is None or kind.kind == "f" else data(x).astype(data(out).dtype)


@register(
    "exp",
    "e^x",
    scalar=floats.exp,
    array="exp",
    torch="torch.exp",
    saves=(OUT,),
    domain=(ANY,),
    special=[((1000.0,), INF, (INF,)), ((-1000.0,), 0.0, (0.0,))],
    code=Code(rule=("{g} * {out}",)),
)
def exp(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """e^x, the output itself"""
    return (grad * out,)


@register(
    "log",
    "log(x)",
    scalar=floats.log,
    array="log",
    torch="torch.log",
    saves=(0,),
    domain=(POSITIVE,),
    special=[((0.0,), -INF, (INF,)), ((-1.0,), NAN, (-1.0,))],
)
def log(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 / x, as grad / x: +inf at 0, and 1/x (not nan) below 0, as PyTorch"""
    return (div(grad, x),)


# PyTorch's constants, as its derivatives.yaml writes them: its ln 10 is one unit in the last
# place below the nearest double, and topograd's gradients are PyTorch's to the last bit.
_LN2 = 0.6931471805599453
_LN10 = 2.3025850929940456  # (which parses to 2.3025850929940455)


@register(
    "log2",
    "log₂(x)",
    scalar=floats.log2,
    array="log2",
    torch="torch.log2",
    saves=(0,),
    domain=(POSITIVE,),
    special=[((0.0,), -INF, (INF,)), ((-1.0,), NAN, (-1.0 / _LN2,))],
)
def log2(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 / (x ln 2), as PyTorch's grad / (x * ln 2)"""
    return (div(grad, x * _LN2),)


@register(
    "log10",
    "log₁₀(x)",
    scalar=floats.log10,
    array="log10",
    torch="torch.log10",
    saves=(0,),
    domain=(POSITIVE,),
    special=[((0.0,), -INF, (INF,)), ((-1.0,), NAN, (-1.0 / _LN10,))],
)
def log10(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 / (x ln 10), as PyTorch's grad / (x * 2.3025850929940456)"""
    return (div(grad, x * _LN10),)


@register(
    "sqrt",
    "√x",
    scalar=floats.sqrt,
    array="sqrt",
    torch="torch.sqrt",
    saves=(OUT,),
    domain=(POSITIVE,),
    special=[((0.0,), 0.0, (INF,)), ((-1.0,), NAN, (NAN,))],
)
def sqrt(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 / (2 √x), from the output: +inf at 0, nan below"""
    return (div(grad, 2.0 * out),)


@register(
    "log1p",
    "log(1 + x), exact near 0",
    scalar=floats.log1p,
    array="log1p",
    torch="torch.log1p",
    saves=(0,),
    domain=((-0.9, 3.0),),
    special=[((-1.0,), -INF, (INF,)), ((-2.0,), NAN, (-1.0,)), ((0.0,), 0.0, (1.0,))],
    differs=[
        Difference(
            (5e-324,),
            "value",
            5e-324,
            0.0,
            "PyTorch's log1p loses the subnormals (1e-310 gives 1.00000000000005e-310, 5e-324 "
            "gives 0) in its vectorised kernel; topograd's is C's, correctly rounded: x itself "
            "there",
            region=(-2.3e-308, 2.3e-308),
            kernel=True,
        )
    ],
)
def log1p(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 / (1 + x)"""
    return (div(grad, x + 1.0),)


@register(
    "expm1",
    "e^x - 1, exact near 0",
    scalar=floats.expm1,
    array="expm1",
    torch="torch.expm1",
    saves=(OUT,),
    domain=(ANY,),
    special=[((0.0,), 0.0, (1.0,)), ((1000.0,), INF, (INF,)), ((-1000.0,), -1.0, (0.0,))],
)
def expm1(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """e^x, from the output: out + 1"""
    return (grad * (out + 1.0),)


@register(
    "erf",
    "erf(x) = 2/√π ∫₀ˣ e^(-t²) dt",
    scalar=math.erf,
    array="erf",
    torch="torch.erf",
    saves=(0,),
    domain=(ANY,),
    special=[((0.0,), 0.0, (TWO_OVER_SQRT_PI,)), ((30.0,), 1.0, (0.0,)), ((-30.0,), -1.0, (0.0,))],
)
def erf(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """2/√π e^(-x²), as PyTorch: with x^2, whose derivative 2x overflows where x*x's does not"""
    return (TWO_OVER_SQRT_PI * exp(-power(x, 2.0)) * grad,)
