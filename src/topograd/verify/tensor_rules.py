"""The check of every op of the registry on arrays, as ``topograd check`` runs it on Tensors.

An op of both kinds (elementwise) must give on arrays what it gives on floats, element by
element, for its value and every contribution (the float rules are themselves checked against
central differences); its broadcasting is checked as vᵀJu against central differences; its
special points hold on arrays too. An op of Tensors alone is checked on each of its cases, as
vᵀJu for random u and v against Richardson-extrapolated central differences.

>>> from topograd.autograd.registry import OPS
>>> check_rule(OPS["matmul"], points=200).passed, check_rule(OPS["tanh"], points=200).passed
(True, True)
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..autograd.registry import AWAY_FROM_ZERO, Case, Given, Interval, Op
from ..tensors.arrays import kernel, value_of
from ..tensors.broadcast import unbroadcast
from .faults import is_kink
from .numeric import derivative
from .scalar_rules import RuleReport, same

Array = np.ndarray[Any, Any]
RAISED = (ArithmeticError, ValueError, TypeError, IndexError, RuntimeError)  # a broken rule's
BROADCASTS = {1: (((2, 3),), ((),)), 2: (((3, 1), (1, 4)), ((4,), ()), ((2, 1, 3), (3,)))}


def check_rule(op: Op, points: int = 1000, seed: int = 0, tolerance: float = 1e-7) -> RuleReport:
    """The op's rule on arrays: against its float rule element by element (where it has one),
    against central differences as vᵀJu on each case, and at its special points."""
    rng = np.random.default_rng([zlib.crc32(op.name.encode()), seed])
    worst, failures = 0.0, []
    if op.elementwise:
        try:
            worst = max(worst, _against_floats(op, points, rng))
        except RAISED as raised:
            failures.append(f"on arrays of {points}: raised {raised!r}")
        cases = [Case(shapes) for shapes in BROADCASTS.get(op.arity, ())]
        trials = 1
    else:
        cases, trials = list(op.cases), max(1, points // 100)
    for case in cases:
        for _ in range(trials):
            try:
                worst = max(worst, _directional_error(op, case, rng))
            except RAISED as raised:
                failures.append(f"case {case.inputs}: raised {raised!r}")
                break
    failures += [f for f in (_special_failure(op, *point) for point in op.special) if f]
    checked = (points if op.elementwise else 0) + trials * len(cases) + len(op.special)
    return RuleReport(op.name, "tensor", checked, worst, tuple(failures), tolerance)


def _draw(interval: Interval, shape: tuple[int, ...], rng: np.random.Generator) -> Array:
    lo, hi = interval
    x = rng.uniform(lo, hi, shape)
    if (lo, hi) == AWAY_FROM_ZERO:
        x *= rng.choice([-1.0, 1.0], shape)
    return x


def _rule(op: Op, grad: Any, xs: Sequence[Array], out: Array, params: dict[str, Any]) -> Any:
    needs = {"needs": (True,) * len(xs)} if op.takes_needs else {}
    with np.errstate(all="ignore"):
        return op.rule(grad, *xs, out, **params, **needs)


def _forward(op: Op, xs: Sequence[Array], params: dict[str, Any]) -> Array:
    with np.errstate(all="ignore"):
        return np.asarray(value_of(op, kernel(op)(*xs, **params)))


def _relative(a: Any, b: Any) -> float:
    """The largest |a - b| / max(1, |b|); inf where one is nan and the other not."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if (np.isnan(a) != np.isnan(b)).any():
        return math.inf
    both = ~np.isnan(a) & (a != b)
    gap = np.abs(a[both] - b[both]) / np.maximum(1.0, np.abs(b[both]))
    return float(np.nan_to_num(gap, nan=math.inf).max(initial=0.0))


def _against_floats(op: Op, points: int, rng: np.random.Generator) -> float:
    """Value and contributions on arrays of ``points`` elements against the float op's."""
    xs = [_draw(interval, (points,), rng) for interval in op.domain]
    out = _forward(op, xs, {})
    grad = rng.uniform(-2.0, 2.0, (points,))
    given = _rule(op, grad, xs, out, {})
    scalar = [op(*[float(x[k]) for x in xs]) for k in range(points)]
    contributions = [
        op.rule(float(grad[k]), *[float(x[k]) for x in xs], scalar[k]) for k in range(points)
    ]
    worst = _relative(out, scalar)
    for i in range(len(xs)):
        worst = max(worst, _relative(given[i], [c[i] for c in contributions]))
    return worst


def _directional_error(op: Op, case: Case, rng: np.random.Generator) -> float:
    """|vᵀJu from the rule - vᵀJu by central differences| / max(1, |...|), the worst input."""
    xs = [
        np.asarray(spec.value) if isinstance(spec, Given) else _draw(interval, spec, rng)
        for spec, interval in zip(case.inputs, op.domain)
    ]
    params = dict(case.params)
    out = _forward(op, xs, params)
    v = rng.normal(size=out.shape)
    contributions = _rule(op, v, xs, out, params)
    worst = 0.0
    for i, spec in enumerate(case.inputs):
        if isinstance(spec, Given):
            continue
        given, f = directional(lambda *a: _forward(op, a, params), xs, i, v, contributions[i], rng)
        if is_kink(f, 0.0):
            continue
        expected = derivative(f, 0.0, richardson_levels=4)
        worst = max(worst, _relative(given, expected))
    return worst


def directional(
    forward: Callable[..., Any],
    xs: Sequence[Array],
    i: int,
    v: Any,  # an array, or a float for a 0-d output
    contribution: Any,
    rng: np.random.Generator,
) -> tuple[float, Callable[[float], float]]:
    """vᵀJu for input ``i`` and a random direction u: as the rule gives it (``contribution``,
    the rule's for upstream gradient v), and, as a function of the step along u, vᵀ forward,
    whose derivative at 0 it must be."""
    u = rng.normal(size=xs[i].shape)
    given = float(np.sum(unbroadcast(np.asarray(contribution), xs[i].shape) * u))

    def along(step: float) -> float:
        moved = [x + step * u if k == i else x for k, x in enumerate(xs)]
        with np.errstate(all="ignore"):
            return float(np.sum(v * forward(*moved)))

    return given, along


def _special_failure(op: Op, xs: tuple[Any, ...], value: Any, partials: tuple[Any, ...]) -> str:
    """Why the op breaks its convention at a special point on arrays, or "" where it keeps it."""
    masks = _masks(op)  # (where's condition: a number to a Value, booleans to a Tensor)
    arrays = [np.asarray(x, dtype=bool if k in masks else np.float64) for k, x in enumerate(xs)]
    try:
        out = _forward(op, arrays, {})
        given = _rule(op, np.ones_like(out), arrays, out, {})
        given = [  # an input that gets nothing (None) gets zeros
            np.zeros(a.shape) if g is None else unbroadcast(np.asarray(g), a.shape)
            for g, a in zip(given, arrays)
        ]
    except RAISED as error:
        return f"at {xs}: raised {error!r}"
    ok = _all_same(out, value) and all(_all_same(g, p) for g, p in zip(given, partials))
    if ok:
        return ""
    shown = [g.tolist() for g in given]
    return (
        f"at {xs}: value {out.tolist()!r} and partials {shown}, expected {value!r} and {partials}"
    )


def _masks(op: Op) -> set[int]:
    """The inputs the op's cases give as booleans (a mask, a condition)."""
    return {
        k
        for case in op.cases
        for k, x in enumerate(case.inputs)
        if isinstance(x, Given) and np.asarray(x.value).dtype == np.bool_
    }


def _all_same(a: Array, b: Any) -> bool:
    flat_a, flat_b = (
        np.asarray(a, dtype=np.float64).ravel(),
        np.asarray(b, dtype=np.float64).ravel(),
    )
    return len(flat_a) == len(flat_b) and all(map(same, flat_a.tolist(), flat_b.tolist()))
