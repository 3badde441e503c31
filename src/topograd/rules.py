"""The table of calculus: every built-in scalar op, its forward and its local derivative rule.

An entry is one decorated function. The decorator names the op (the ``.op`` of its results),
gives its forward on floats and, per input, the interval where tests draw points. The function
is the rule: it takes the op's inputs and its output ``out`` and returns one local partial per
input. The engine multiplies each partial by the upstream gradient and sums over paths; no rule
does that itself.

One rule serves both kinds of backward. An ordinary backward calls it with floats and gets float
partials. ``create_graph=True`` calls it with the Values themselves, and the partials come out as
Values whose graph can be differentiated again. Rules therefore use only arithmetic operators and
the few helpers below, which work on both. Conventions at kinks and singular points follow
PyTorch 2.13 in float64 (see the special-points table in the tests).

>>> OPS["tanh"].rule(0.5, 0.5)  # the partial of tanh at out = 0.5
(0.75,)
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

from . import ieee

if TYPE_CHECKING:
    from .value import Value

Num = Union[float, "Value"]
Rule = Callable[..., tuple[Num, ...]]
Interval = tuple[float, float]
# A point where the rule follows a convention: (inputs, value, partials), PyTorch 2.13 float64.
SpecialPoint = tuple[tuple[float, ...], float, tuple[float, ...]]

VARIADIC = -1  # the arity of an op that takes any number of inputs


@dataclass(slots=True)
class Op:
    """One entry of the table: what a node's ``.op`` names and how to differentiate it."""

    name: str
    arity: int
    forward: Callable[..., float]
    rule: Rule
    domain: tuple[Interval, ...] = ()  # per input: where tests and `topograd check` draw points
    special: tuple[SpecialPoint, ...] = ()

    def __repr__(self) -> str:
        return f"Op({self.name!r})"


OPS: dict[str, Op] = {}

ANY: Interval = (-3.0, 3.0)
POSITIVE: Interval = (0.05, 4.0)
AWAY_FROM_ZERO: Interval = (0.25, 3.0)  # drawn with either sign
INF, NAN = math.inf, math.nan


def _entry(
    name: str,
    forward: Callable[..., float],
    *domain: Interval,
    special: Sequence[SpecialPoint] = (),
    variadic: bool = False,
) -> Callable[[Rule], Rule]:
    """Register a rule. A variadic op takes any number of inputs; its domain has as many
    intervals as its tests use."""

    def register(rule: Rule) -> Rule:
        arity = VARIADIC if variadic else len(domain)
        OPS[name] = Op(name, arity, forward, rule, domain, tuple(special))
        return rule

    return register


# Helpers that work on floats (IEEE results, never raising) and on Values (recording a graph).


def _data(x: Num) -> float:
    return x if isinstance(x, (float, int)) else x.data


def _div(x: Num, y: Num) -> Num:
    return ieee.div(x, y) if isinstance(x, (float, int)) and isinstance(y, (float, int)) else x / y


def _power(x: Num, y: Num) -> Num:
    return ieee.power(x, y) if isinstance(x, (float, int)) and isinstance(y, (float, int)) else x**y


def _log(x: Num) -> Num:
    return ieee.log(x) if isinstance(x, (float, int)) else x.log()


def _sin(x: Num) -> Num:
    return ieee.sin(x) if isinstance(x, (float, int)) else x.sin()


def _cos(x: Num) -> Num:
    return ieee.cos(x) if isinstance(x, (float, int)) else x.cos()


def _sigmoid(x: Num) -> Num:
    return ieee.sigmoid(x) if isinstance(x, (float, int)) else x.sigmoid()


# The rules. Where the maths has a kink or a singular point, the comment gives the convention.


@_entry("+", operator.add, ANY, ANY)
def d_add(x: Num, y: Num, out: Num) -> tuple[Num, Num]:
    """d(x + y) = dx + dy"""
    return 1.0, 1.0


@_entry("-", operator.sub, ANY, ANY)
def d_sub(x: Num, y: Num, out: Num) -> tuple[Num, Num]:
    """d(x - y) = dx - dy"""
    return 1.0, -1.0


@_entry("*", operator.mul, ANY, ANY)
def d_mul(x: Num, y: Num, out: Num) -> tuple[Num, Num]:
    """d(x y) = y dx + x dy"""
    return y, x


@_entry(
    "/",
    ieee.div,
    ANY,
    AWAY_FROM_ZERO,
    special=[
        ((1.0, 0.0), INF, (INF, -INF)),
        ((0.0, 0.0), NAN, (INF, NAN)),
        ((-1.0, 0.0), -INF, (INF, INF)),
        ((1.0, -0.0), -INF, (-INF, -INF)),
    ],
)
def d_div(x: Num, y: Num, out: Num) -> tuple[Num, Num]:
    """d(x / y) = dx / y - (x / y) dy / y;  at y = 0: (±inf, nan or ∓inf) as IEEE gives."""
    return _div(1.0, y), -_div(out, y)


@_entry(
    "**",
    ieee.power,
    POSITIVE,
    ANY,
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
)
def d_pow(x: Num, y: Num, out: Num) -> tuple[Num, Num]:
    """d(x^y) = y x^(y-1) dx + x^y log(x) dy.

    PyTorch's conventions: d/dx is 0 wherever y = 0 (x^0 is constant), and d/dy is 0 where x = 0
    and y >= 0 (the limit along x = 0); elsewhere IEEE gives inf or nan (log of a negative).
    """
    dx: Num = 0.0 if _data(y) == 0.0 else y * _power(x, y - 1.0)
    dy: Num = 0.0 if _data(x) == 0.0 and _data(y) >= 0.0 else out * _log(x)
    return dx, dy


@_entry("neg", operator.neg, ANY)
def d_neg(x: Num, out: Num) -> tuple[Num]:
    """d(-x) = -dx"""
    return (-1.0,)


@_entry("abs", abs, ANY, special=[((0.0,), 0.0, (0.0,)), ((-0.0,), 0.0, (0.0,))])
def d_abs(x: Num, out: Num) -> tuple[Num]:
    """d|x| = sign(x) dx;  sign(0) = 0, the least-norm sub-gradient (0 at nan too, as PyTorch)."""
    xd = _data(x)
    return (1.0 if xd > 0.0 else -1.0 if xd < 0.0 else 0.0,)


@_entry(
    "relu",
    ieee.relu,
    ANY,
    special=[((0.0,), 0.0, (0.0,)), ((-0.0,), -0.0, (0.0,)), ((NAN,), NAN, (1.0,))],
)
def d_relu(x: Num, out: Num) -> tuple[Num]:
    """d relu(x) = [out > 0] dx;  0 at x = 0, and 1 at nan (PyTorch tests out <= 0)."""
    return (0.0 if _data(out) <= 0.0 else 1.0,)


@_entry("exp", ieee.exp, ANY, special=[((1000.0,), INF, (INF,)), ((-1000.0,), 0.0, (0.0,))])
def d_exp(x: Num, out: Num) -> tuple[Num]:
    """d e^x = e^x dx, the output itself."""
    return (out,)


@_entry("log", ieee.log, POSITIVE, special=[((0.0,), -INF, (INF,)), ((-1.0,), NAN, (-1.0,))])
def d_log(x: Num, out: Num) -> tuple[Num]:
    """d log x = dx / x;  +inf at 0, and 1/x (not nan) for x < 0, as PyTorch."""
    return (_div(1.0, x),)


@_entry("sqrt", ieee.sqrt, POSITIVE, special=[((0.0,), 0.0, (INF,)), ((-1.0,), NAN, (NAN,))])
def d_sqrt(x: Num, out: Num) -> tuple[Num]:
    """d sqrt(x) = dx / (2 sqrt(x));  +inf at 0, nan below."""
    return (_div(0.5, out),)


@_entry(
    "tanh",
    math.tanh,
    ANY,
    special=[((0.0,), 0.0, (1.0,)), ((20.0,), 1.0, (0.0,)), ((1000.0,), 1.0, (0.0,))],
)
def d_tanh(x: Num, out: Num) -> tuple[Num]:
    """d tanh x = (1 - tanh² x) dx, from the output."""
    return (1.0 - out * out,)


@_entry(
    "sigmoid",
    ieee.sigmoid,
    ANY,
    special=[((0.0,), 0.5, (0.25,)), ((-1000.0,), 0.0, (0.0,)), ((1000.0,), 1.0, (0.0,))],
)
def d_sigmoid(x: Num, out: Num) -> tuple[Num]:
    """d σ(x) = σ(x) (1 - σ(x)) dx, from the output (no overflow at ±1000)."""
    return (out * (1.0 - out),)


@_entry("sin", ieee.sin, ANY, special=[((INF,), NAN, (NAN,))])
def d_sin(x: Num, out: Num) -> tuple[Num]:
    """d sin x = cos x dx"""
    return (_cos(x),)


@_entry("cos", ieee.cos, ANY, special=[((-INF,), NAN, (NAN,))])
def d_cos(x: Num, out: Num) -> tuple[Num]:
    """d cos x = -sin x dx"""
    return (-_sin(x),)


@_entry(
    "softplus",
    ieee.softplus,
    ANY,
    special=[
        ((0.0,), math.log(2.0), (0.5,)),
        ((1000.0,), 1000.0, (1.0,)),
        ((-1000.0,), 0.0, (0.0,)),
    ],
)
def d_softplus(x: Num, out: Num) -> tuple[Num]:
    """d log(1 + e^x) = σ(x) dx: smooth everywhere, no overflow at ±1000. (Above x = 20
    PyTorch's softplus returns x and a derivative of 1, its threshold; this stays exact, within
    2.1e-9 of those.)"""
    return (_sigmoid(x),)


# Fused n-ary ops: one node with n operands instead of a chain of n - 1 nodes.


@_entry("sum", ieee.total, ANY, ANY, ANY, variadic=True)
def d_sum(*args: Num) -> tuple[Num, ...]:
    """d(x1 + ... + xn) = dx1 + ... + dxn"""
    return (1.0,) * (len(args) - 1)


@_entry("dot", ieee.dot, ANY, ANY, ANY, ANY, variadic=True)
def d_dot(*args: Num) -> tuple[Num, ...]:
    """d(w1 x1 + ... + wn xn) = x1 dw1 + ... + xn dwn + w1 dx1 + ... + wn dxn; the operands are
    w1 ... wn, x1 ... xn."""
    n = (len(args) - 1) // 2
    return (*args[n : 2 * n], *args[:n])


@_entry("affine", ieee.affine, ANY, ANY, ANY, ANY, ANY, variadic=True)
def d_affine(*args: Num) -> tuple[Num, ...]:
    """d(w . x + b) = x . dw + w . dx + db; the operands are w1 ... wn, x1 ... xn, b: a neuron
    in one node."""
    n = (len(args) - 2) // 2
    return (*args[n : 2 * n], *args[:n], 1.0)
