"""gradcheck on scalar Values: every gradient against central differences, then, where one
disagrees, the first node whose own rule disagrees with its own forward.

>>> import topograd as tg
>>> tg.gradcheck(lambda x, y: (x * y).sin() / y, [0.5, 2.0])
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any, cast

from ..autograd.engine import grad
from ..autograd.kinds import kind_of
from ..autograd.registry import Op
from ..scalar.value import Value, describe, is_real
from .faults import (
    Fault,
    GradcheckError,
    Options,
    close,
    is_kink,
    localised,
    mismatch,
    not_reentrant,
)
from .numeric import derivative


def check(fn: Callable[..., Any], inputs: Sequence[object], options: Options) -> None:
    """Raise ``GradcheckError`` where a gradient of ``fn(*Values)`` disagrees."""
    xs = [_as_float(x, i) for i, x in enumerate(inputs)]
    leaves = [Value(x, label=f"input {i}") for i, x in enumerate(xs)]
    out = fn(*leaves)
    if not isinstance(out, Value):
        raise TypeError(f"gradcheck: fn must return a Value, it returned {describe(out)}")
    analytic = [cast(float, g) for g in grad(out, leaves)]
    for j, numeric, given in _comparisons(fn, xs, analytic, options):
        if not close(given, numeric, options.atol, options.rtol):
            fault = localise(out, options.atol, options.rtol)
            what = "vJu (fast mode)" if options.fast_mode else "Jacobian"
            raise GradcheckError(mismatch(what, j, numeric, given, fault), j, fault)
    again = [cast(float, g) for g in grad(out, leaves)]
    for j, (a, b) in enumerate(zip(analytic, again)):
        if a.hex() != b.hex():
            raise GradcheckError(not_reentrant(j, a, b), j)


def _comparisons(
    fn: Callable[..., Value], xs: list[float], analytic: list[float], options: Options
) -> Iterator[tuple[int, float, float]]:
    """(input, numerical, analytical): each gradient against the central difference along its
    input; in PyTorch's fast mode, input by input, vJu for a random u and v (numbers here)."""
    rng = random.Random(options.seed)
    for j, x in enumerate(xs):
        numeric = options.derivative(_along(fn, xs, j), x)
        if not options.fast_mode:
            yield j, numeric, analytic[j]
            continue
        u, v = rng.gauss(0.0, 1.0), rng.gauss(0.0, 1.0)
        yield j, v * numeric * u, v * analytic[j] * u


def _along(fn: Callable[..., Value], xs: list[float], j: int) -> Callable[[float], float]:
    """fn's value as a function of its input ``j`` alone (graphs may be recorded: fn may
    itself differentiate, with tg.grad(create_graph=True))."""
    return lambda t: fn(*[Value(t if k == j else v) for k, v in enumerate(xs)]).data


def _as_float(x: object, i: int) -> float:
    if not is_real(x):
        raise TypeError(f"gradcheck: input {i} must be a real number, got {describe(x)}")
    return float(x)  # type: ignore[arg-type]


def partials_at(op: Op, xs: Sequence[float]) -> tuple[float, ...]:
    """The op's rule at ``xs`` with an upstream gradient of 1: its partials, in floats (a
    TypeError for a partial that is not real; 0.0 for an input that gets nothing)."""
    forward = cast(Callable[..., float], op.scalar)
    found = op.rule(1.0, *xs, forward(*xs))
    return tuple(0.0 if p is None else float(cast(float, p)) for p in found)


def along(op: Op, xs: Sequence[float], i: int) -> Callable[[float], float]:
    """The op's forward as a function of its input ``i`` alone, the others held at ``xs``."""
    forward = cast(Callable[..., float], op.scalar)
    return lambda t: float(forward(*xs[:i], t, *xs[i + 1 :]))


def node_fault(node: Value, atol: float, rtol: float) -> Fault | None:
    """How ``node``'s rule disagrees with central differences of its own forward at its
    recorded inputs (kinks skipped), or None."""
    kind = kind_of(node)
    assert kind is not None
    op: Op = kind.op(node)
    xs = [p.data if isinstance(p, Value) else float(p) for p in kind.operands(node)]
    given = partials_at(op, xs)
    for i, x in enumerate(xs):
        f = along(op, xs, i)
        if not math.isfinite(f(x)) or is_kink(f, x):
            continue
        expected = derivative(f, x, richardson_levels=4)
        if math.isfinite(expected) and not close(given[i], expected, atol, rtol):
            return Fault(node.op, node.label, tuple(xs), i, expected, given[i])
    return None


def localise(output: Value, atol: float = 1e-5, rtol: float = 1e-3) -> Fault | None:
    """The first node, in forward order, whose local rule disagrees with its own forward."""
    return localised(output, lambda node: node_fault(node, atol, rtol))
