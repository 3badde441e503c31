"""The check of every op of the registry on floats: its rule against Richardson-extrapolated
central differences of its own forward, at random points of its domain, and at its special
points (where the rule must follow PyTorch's convention, to the bit and the sign of zero).

>>> from topograd.autograd.registry import OPS
>>> check_rule(OPS["tanh"], points=50).passed
True
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from ..autograd.registry import AWAY_FROM_ZERO, Op
from .numeric import derivative
from .scalars import along, partials_at


def draw_point(op: Op, rng: random.Random) -> list[float]:
    """A random point of the op's test domain (sign chosen at random where it keeps off zero)."""
    point = []
    for lo, hi in op.domain:
        x = rng.uniform(lo, hi)
        point.append(-x if (lo, hi) == AWAY_FROM_ZERO and rng.random() < 0.5 else x)
    return point


_RAISED = (ArithmeticError, ValueError, TypeError)  # what a broken rule may raise


@dataclass(frozen=True)
class RuleReport:
    """How an op's rule fared on one kind."""

    op: str
    kind: str  # "scalar" or "tensor"
    points: int
    worst: float  # largest relative error of a partial against Richardson's central differences
    special_failures: tuple[str, ...]  # special points where the rule breaks its convention
    tolerance: float

    @property
    def passed(self) -> bool:
        return self.worst <= self.tolerance and not self.special_failures


def check_rule(op: Op, points: int = 1000, seed: int = 0, tolerance: float = 1e-7) -> RuleReport:
    """The op's rule at ``points`` random points of its domain, and at its special points."""
    rng = random.Random(f"{op.name} {seed}")
    worst, failures = 0.0, []
    for _ in range(points):
        xs = draw_point(op, rng)
        try:
            given = partials_at(op, xs)
        except _RAISED as raised:
            failures.append(f"at {tuple(xs)}: raised {raised!r}")
            break
        for i in range(len(xs)):
            expected = derivative(along(op, xs, i), xs[i], richardson_levels=4)
            error = abs(given[i] - expected) / max(1.0, abs(expected))
            worst = max(worst, error if not math.isnan(error) else math.inf)
    failures += [f for f in (_special_failure(op, *point) for point in op.special) if f]
    return RuleReport(
        op.name, "scalar", points + len(op.special), worst, tuple(failures), tolerance
    )


def _special_failure(
    op: Op, xs: tuple[float, ...], value: float, partials: tuple[float, ...]
) -> str:
    """Why the op breaks its convention at a special point, or "" where it keeps it."""
    try:
        out, given = op(*xs), partials_at(op, xs)
    except _RAISED as error:
        return f"at {xs}: raised {error!r}"
    if same(out, value) and all(map(same, given, partials)):
        return ""
    return f"at {xs}: value {out!r} and partials {given}, expected {value!r} and {partials}"


def same(a: float, b: float) -> bool:
    """Equal as IEEE values: nan equals nan, and the sign of a zero counts."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
