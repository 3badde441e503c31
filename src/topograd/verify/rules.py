"""The check of every op of the registry, on each kind it has: ``topograd check``.

>>> reports = check_rules(points=20, kinds=("scalar",))
>>> all(r.passed for r in reports), {r.kind for r in reports}
(True, {'scalar'})
"""

from __future__ import annotations

from collections.abc import Sequence

from ..autograd.registry import OPS
from .scalar_rules import RuleReport, check_rule

KINDS = ("scalar", "tensor")


def check_rules(
    points: int = 1000, seed: int = 0, kinds: Sequence[str] = KINDS
) -> list[RuleReport]:
    """Every op's rule, on every kind asked for that it has: scalars at ``points`` random
    points; on Tensors, an elementwise op on arrays of as many elements, any other op on
    ``points // 100`` random draws of each of its cases."""
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ValueError(f"check_rules: unknown kinds {unknown}; the kinds are {list(KINDS)}")
    reports = []
    if "scalar" in kinds:
        reports += [check_rule(op, points, seed) for op in OPS.values() if op.scalar is not None]
    if "tensor" in kinds:
        from . import tensor_rules  # NumPy, only when Tensors are checked

        reports += [
            tensor_rules.check_rule(op, points, seed) for op in OPS.values() if op.array is not None
        ]
    return reports
