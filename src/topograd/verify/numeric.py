"""Numerical derivatives: central differences, Richardson extrapolation, and the derivative of
a graph's output with respect to any of its nodes by replaying the recorded forward. The
function differentiated maps a float to a float, or to an array (a Tensor's numbers).

>>> import math
>>> abs(derivative(math.sin, 0.3, richardson_levels=4) - math.cos(0.3)) < 1e-14
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import pairwise
from typing import Any

from ..autograd.engine import topological_order
from ..autograd.kinds import kind_of
from ..scalar.value import Value

STEP = 6.055454452393343e-06  # cbrt(machine epsilon): the central step with the least total error


# Numerical derivatives of a function of one float (to a float, or to an array).


def _finite(v: Any) -> bool:
    """Every number of ``v`` (a float or an array) finite."""
    if isinstance(v, (float, int)):
        return math.isfinite(v)
    return bool((abs(v) < math.inf).all())  # an array


def _agree(a: Any, b: Any) -> bool:
    """Two estimates within 1e-10 of each other, relative to max(1, |a|), everywhere."""
    gap, size = abs(a - b), abs(a)
    if isinstance(gap, (float, int)):
        return bool(gap <= 1e-10 * max(1.0, size))
    return bool((gap <= 1e-10 * size.clip(1.0)).all())


def central(f: Callable[[float], Any], x: float, h: float) -> Any:
    """(f(x + h) - f(x - h)) / 2h, with the step as the floats really hold it (where h is
    below the spacing of floats at x, the step the caller asked for)."""
    up, down = x + h, x - h
    step = up - down
    return (f(up) - f(down)) / (step if step else 2 * h)


def richardson(f: Callable[[float], Any], x: float, h: float, levels: int = 4) -> Any:
    """Central differences at steps h, h/2, h/4, ... combined to cancel h^2, h^4, h^6, ...:
    about 1e-13 where a plain central difference reaches 1e-10."""
    table = [central(f, x, h / 2**k) for k in range(levels)]
    for j in range(1, levels):
        weight = 4**j
        table = [(weight * fine - coarse) / (weight - 1) for coarse, fine in pairwise(table)]
    return table[0]


def derivative(
    f: Callable[[float], Any],
    x: float,
    *,
    eps: float = 1e-6,
    scaled_step: bool = False,
    richardson_levels: int = 0,
    scale: float | None = None,
) -> Any:
    """f'(x) numerically: a central difference with step ``eps``, or ``cbrt(machine eps) *
    scale`` when ``scaled_step`` (``scale`` is max(1, |x|) unless given). With
    ``richardson_levels`` (4, say), Richardson extrapolation instead, from a long step shortened
    until two estimates agree (``eps`` and ``scaled_step`` then play no part). nan where x is
    not finite."""
    if not math.isfinite(x):
        return math.nan
    scale = max(1.0, abs(x)) if scale is None else scale
    if not richardson_levels:
        return central(f, x, STEP * scale if scaled_step else eps)
    # Start long (extrapolation removes the truncation error) and shorten the step until two
    # estimates agree: a long step may cross a kink or leave the domain (relu near 0, log near 0).
    h = 2.0**-5 * scale
    previous: Any = math.nan
    while h >= STEP * scale:
        if _finite(f(x + h)) and _finite(f(x - h)):
            estimate = richardson(f, x, h, richardson_levels)
            if _agree(estimate, previous):
                return estimate
            previous = estimate
        h /= 4
    return previous if _finite(previous) else central(f, x, STEP * scale)


def replay(output: Value, changed: dict[Value, float]) -> float:
    """``output.data`` recomputed with the forward of every op, some nodes set to other values."""
    kind = kind_of(output)
    assert kind is not None
    values: dict[Value, float] = {}
    for node in topological_order([output]):
        op = kind.op(node)
        if node in changed:
            values[node] = changed[node]
        elif op is None:
            values[node] = node.data
        else:
            operands = kind.operands(node)
            values[node] = op.scalar(*[values[o] if isinstance(o, Value) else o for o in operands])
    return values[output]


def central_difference(output: Value, node: Value, step: float | None = None) -> float:
    """d output / d node by a central difference, h = cbrt(eps) * max(1, |x|) by default.

    The node may be a leaf or an intermediate; everything downstream of it is recomputed.

    >>> import math
    >>> import topograd as tg
    >>> x = tg.Value(0.5)
    >>> y = (x * x).sin()
    >>> round(central_difference(y, x), 8), round(2 * 0.5 * math.cos(0.25), 8)
    (0.96891242, 0.96891242)
    """
    h = step if step is not None else STEP * max(1.0, abs(node.data))
    return float(central(lambda t: replay(output, {node: t}), node.data, h))
