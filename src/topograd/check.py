"""Checking gradients against central differences of the forward computation.

>>> import math
>>> import topograd as tg
>>> x = tg.Value(0.5)
>>> y = (x * x).sin()
>>> round(central_difference(y, x), 8), round(2 * 0.5 * math.cos(0.25), 8)
(0.96891242, 0.96891242)
"""

from __future__ import annotations

from .engine import topological_order
from .value import Value

STEP = 6.055454452393343e-06  # cbrt(machine epsilon): the step with the least total error


def replay(output: Value, changed: dict[Value, float]) -> float:
    """``output.data`` recomputed with the forward of every op, some nodes set to other values."""
    values: dict[Value, float] = {}
    for node in topological_order([output]):
        if node in changed:
            values[node] = changed[node]
        elif node.parents:
            values[node] = node._op.forward(*[values[p] for p in node.parents])
        else:
            values[node] = node.data
    return values[output]


def central_difference(output: Value, node: Value, step: float | None = None) -> float:
    """d output / d node by (f(x + h) - f(x - h)) / 2h, h = cbrt(eps) * max(1, |x|) by default.

    The node may be a leaf or an intermediate; everything downstream of it is recomputed.
    """
    x = node.data
    h = step if step is not None else STEP * max(1.0, abs(x))
    up, down = x + h, x - h
    return (replay(output, {node: up}) - replay(output, {node: down})) / (up - down)
