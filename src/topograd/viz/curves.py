"""A function of one number drawn beside its derivative, around the input a node gave it: why a
gradient vanishes through ``tanh`` at 94 (its derivative is 0 there, to the last bit) and not
at 4, why ``relu`` passes nothing below 0. The values and slopes are the registry's own (its
forward and its rule), never a second copy of the maths.

>>> import topograd as tg
>>> x = tg.Value(4.0, label="x")
>>> shown = curves(x.tanh())["n1"]
>>> shown["op"], shown["at"], f"{shown['slope']:.6g}", len(shown["x"]) == SAMPLES
('tanh', 4.0, '0.00134095', True)
"""

from __future__ import annotations

import math
from typing import Any

from ..autograd.registry import OPS
from ..scalar.value import Value
from .graph import ids, walk

# The functions whose derivative makes a gradient vanish (tanh and sigmoid saturate) or die
# (relu is flat below 0): the ones a learner is told to look at.
ACTIVATIONS = ("tanh", "sigmoid", "relu")
SAMPLES = 61  # points of each curve, to six significant digits: a drawing, not a table
LEAST_HALF_WIDTH = 4.0  # the curve spans at least -4 to 4, and its input with room to spare


def curves(output: Value, graph: dict[Value, tuple[Value, ...]] | None = None) -> dict[str, Any]:
    """For each activation node of ``output``'s graph (by id): its op, sample points ``x``,
    the function ``f`` and its derivative ``df`` there (to six significant digits, as they are
    drawn), the input it was given (``at``), its value and its slope at that input (exact).
    Nodes given a non-finite input are left out."""
    graph = walk(output) if graph is None else graph
    named = ids(graph)
    found: dict[str, Any] = {}
    for v, operands in graph.items():
        if v.op not in ACTIVATIONS or not math.isfinite(operands[0].data):
            continue
        op, at = OPS[v.op], operands[0].data
        assert op.scalar is not None  # a function of numbers: these three are
        half = max(LEAST_HALF_WIDTH, 1.25 * abs(at))
        xs = [-half + 2 * half * k / (SAMPLES - 1) for k in range(SAMPLES)]
        fs = [float(op.scalar(x)) for x in xs]
        found[named[v]] = {
            "op": v.op,
            "x": [_drawn(x) for x in xs],
            "f": [_drawn(f) for f in fs],
            "df": [_drawn(float(op.rule(1.0, x, f)[0])) for x, f in zip(xs, fs)],
            "at": at,
            "value": v.data,
            "slope": float(op.rule(1.0, at, v.data)[0]),
        }
    return found


def _drawn(x: float) -> float:
    return float(f"{x:.6g}")
