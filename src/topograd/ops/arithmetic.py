"""Arithmetic on both kinds: + - * / and negation, abs and sign.

The rules follow PyTorch's formulas op by op (derivatives.yaml), so that results agree to the
last bit: ``x / y`` passes ``grad / y`` (never ``grad * (1 / y)``, which overflows sooner).

>>> div.rule(1.0, 1.0, 4.0, 0.25)
(0.25, -0.0625)
"""

from __future__ import annotations

import operator
from typing import Any

from ..autograd.registry import ANY, AWAY_FROM_ZERO, Code, Difference, register
from . import floats
from .floats import INF, NAN
from .helpers import data
from .selection import zeros_like


@register(
    "add",
    "x + y",
    scalar=operator.add,
    array="add",
    symbol="+",
    torch="torch.add",
    saves=(),
    domain=(ANY, ANY),
    code=Code("{0} + {1}", ("{g}", "{g}")),
    integers="keep",
)
def add(grad: Any, x: Any, y: Any, out: Any) -> tuple[Any, Any]:
    """1 and 1"""
    return grad, grad


@register(
    "sub",
    "x - y",
    scalar=operator.sub,
    array="subtract",
    symbol="-",
    torch="torch.sub",
    saves=(),
    code=Code("{0} - {1}", ("{g}", "-{g}")),
    domain=(ANY, ANY),
    integers="keep",
    bools=False,
)
def sub(grad: Any, x: Any, y: Any, out: Any) -> tuple[Any, Any]:
    """1 and -1"""
    return grad, -grad


@register(
    "mul",
    "x * y",
    scalar=operator.mul,
    array="multiply",
    symbol="*",
    torch="torch.mul",
    saves=(0, 1),
    code=Code("{0} * {1}", ("{g} * {1}", "{g} * {0}")),
    domain=(ANY, ANY),
    integers="keep",
)
def mul(grad: Any, x: Any, y: Any, out: Any) -> tuple[Any, Any]:
    """y and x"""
    return grad * y, grad * x


def div_tangent(tx: Any, ty: Any, x: Any, y: Any, out: Any) -> Any:
    """(t_x - t_y · out) / y, as PyTorch's forward mode computes it. At x = 1, y = 0 with no
    tangent on x it gives (0 - t_y inf) / 0 = -inf x sign(t_y), where the sum of the partials,
    t_x / y - t_y (x / y) / y, would give 0 / 0 = nan for a zero t_x"""
    if ty is None:
        return div(tx, y)
    return div(-(ty * out) if tx is None else tx - ty * out, y)


@register(
    "div",
    "x / y",
    scalar=floats.div,
    array="true_divide",
    symbol="/",
    torch="torch.div",
    saves=(0, 1),
    domain=(ANY, AWAY_FROM_ZERO),
    forward=div_tangent,
    special=[
        ((1.0, 0.0), INF, (INF, -INF)),
        ((0.0, 0.0), NAN, (INF, NAN)),
        ((-1.0, 0.0), -INF, (INF, INF)),
        ((1.0, -0.0), -INF, (-INF, -INF)),
    ],
    differs=[
        Difference(
            (0.0, 1e-310),
            "",
            0.0,
            NAN,
            "PyTorch computes a number divided by a tensor as the number times the tensor's "
            "reciprocal (its Tensor.__rtruediv__): 0 / 1e-310 is 0 x inf = nan there, and "
            "other quotients round twice; topograd divides",
            form="cx",
            anywhere=True,
            any_kind=True,
        )
    ],
)
def div(grad: Any, x: Any, y: Any, out: Any) -> tuple[Any, Any]:
    """1 / y and -x / y², as PyTorch computes them: grad / y and -grad * ((x / y) / y)"""
    return div(grad, y), -grad * div(div(x, y), y)


@register(
    "neg",
    "-x",
    scalar=operator.neg,
    array="negative",
    symbol="-",
    torch="torch.neg",
    domain=(ANY,),
    code=Code("-{0}", ("-{g}",)),
    integers="keep",
    bools=False,
)
def neg(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """-1"""
    return (-grad,)


@register(
    "sign",
    "sign(x): -1, 0 or 1",
    scalar=floats.sign,
    array="sign",
    torch="torch.sign",
    saves=(),
    domain=(AWAY_FROM_ZERO,),
    special=[((0.0,), 0.0, (0.0,)), ((NAN,), 0.0, (0.0,))],
    integers="keep",
)
def sign(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """0: a step function, flat wherever it is differentiable (zeros, whatever comes in)"""
    return (zeros_like(grad),)


@register(
    "abs",
    "|x|",
    scalar=abs,
    array="absolute",
    torch="torch.abs",
    saves=(0,),
    domain=(AWAY_FROM_ZERO,),
    special=[((0.0,), 0.0, (0.0,)), ((-0.0,), 0.0, (0.0,)), ((NAN,), NAN, (0.0,))],
    integers="keep",
    bools=False,
    differs=[
        Difference(
            (2.0,),
            "d2",
            0.0,
            -0.0,
            "PyTorch's abs passes grad * sgn(x), and the derivative of its sgn is an efficient "
            "ZeroTensor: nothing through the kernels that know it (a product, a quotient, a "
            "sum), a real +0.0 through the rest (neg's makes it -0.0; through log's rule at 0 it "
            "is 0 / 0 = nan); topograd's abs passes nothing back through its sign, so a second "
            "derivative through abs of another op's result may differ in a zero's sign, or be "
            "finite where PyTorch's is nan",
            anywhere=True,
            any_kind=True,
            through="neg",
        )
    ],
)
def absolute(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """sign(x): 0 at 0 (the least-norm sub-gradient) and at nan, as PyTorch's grad * sgn(x)"""
    return (grad * sign(data(x)),)
