"""Why a value is nan: the first operation whose operands are numbers and whose result is not
(``log(-1)``, ``0 / 0``, ``inf - inf``), told in words, so that a learner blames the domain of
the function rather than the step of the check; and how far a gradient and its check differ,
relatively where the numbers are large.

>>> import topograd as tg
>>> x = tg.Value(-1.0, label="x")
>>> undefined(tg.log(x) + x).split(". ")[0]
'log(-1) is nan: -1 is outside the domain of log'
>>> f"{relative_difference(1e21, 1e21 + 8e9):.2g}", relative_difference(0.5, 0.25)
('8e-12', 0.25)
"""

from __future__ import annotations

import math

from ..autograd.engine import topological_order
from ..autograd.registry import OPS
from ..scalar.value import Value


def relative_difference(a: float, b: float) -> float:
    """|a - b| / max(1, |a|, |b|): relative for numbers above 1, absolute below (as the check's
    own tolerance); 0 where both are the same infinity, inf where only one is infinite."""
    if a == b:
        return 0.0
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if math.isinf(a) or math.isinf(b):
        return math.inf
    return abs(a - b) / max(1.0, abs(a), abs(b))


def undefined(output: Value) -> str:
    """What makes ``output``'s graph nan first, in words; "" if no operation gives nan from
    operands that are numbers."""
    for node in topological_order([output], lambda v: v.parents):
        operands = node.parents
        if not (operands and math.isnan(node.data)):
            continue
        if any(math.isnan(p.data) for p in operands):
            continue
        shown = [f"{p.data:g}" for p in operands]
        op = OPS.get(node.op)
        written = op.written if op is not None else node.op
        if len(shown) == 2:
            text = f"{shown[0]} {written} {shown[1]}"
        else:
            text = f"{node.op}({', '.join(shown)})"
        if not all(math.isfinite(p.data) for p in operands):
            where = "an infinity (an overflow upstream) meets an operation with no value for it"
        elif len(shown) == 1:
            where = f"{shown[0]} is outside the domain of {node.op}"
        else:
            where = f"{written} has no value at these operands"
        return (
            f"{text} is nan: {where}. Every value computed from it is nan, whatever the "
            "central difference's step h."
        )
    return ""
