"""Checking derivative rules: ``gradcheck`` that names the faulty op, and a check of every rule
in the table at random points of its domain and at its special points.

>>> import topograd as tg
>>> tg.gradcheck(lambda x, y: (x * y).sin() / y, [0.5, 2.0])
True
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ..autograd.engine import grad, topological_order
from ..autograd.kinds import kind_of
from ..autograd.registry import AWAY_FROM_ZERO, OPS, Op
from ..scalar.value import Value, describe, is_real
from ..tensor import Tensor
from .numeric import STEP, derivative
from .tensors import TensorGradcheckError, gradcheck_tensors


def partials_at(op: Op, xs: Sequence[float]) -> tuple[float, ...]:
    """The op's rule at ``xs`` with an upstream gradient of 1: its partials, in floats (a
    TypeError for a partial that is not real)."""
    forward = cast(Callable[..., float], op.scalar)
    return tuple(float(cast(float, p)) for p in op.rule(1.0, *xs, forward(*xs)))


def _along(op: Op, xs: Sequence[float], i: int) -> Callable[[float], float]:
    """The op's forward as a function of its input ``i`` alone, the others held at ``xs``."""
    forward = cast(Callable[..., float], op.scalar)
    return lambda t: float(forward(*xs[:i], t, *xs[i + 1 :]))


# gradcheck.


@dataclass(frozen=True)
class Fault:
    """The first node whose rule disagrees with central differences of its own forward."""

    op: str
    label: str
    inputs: tuple[float, ...]
    input_index: int
    expected: float
    given: float

    def __str__(self) -> str:
        label = f" (label {self.label!r})" if self.label else ""
        return (
            f"The faulty rule is op {self.op!r}{label} at inputs {self.inputs}: its partial for "
            f"input {self.input_index} should be {self.expected!r} (central differences of its "
            f"forward) but its rule gives {self.given!r}."
        )


class GradcheckError(RuntimeError):
    """A gradient disagrees with central differences; ``fault`` names the faulty rule."""

    __module__ = "topograd"  # raised as tg.GradcheckError

    def __init__(self, message: str, input_index: int | None = None, fault: Fault | None = None):
        super().__init__(message)
        self.input_index = input_index
        self.fault = fault


def _close(analytic: float, numeric: float, atol: float, rtol: float) -> bool:
    """PyTorch's test (torch.allclose): nan is never close, an infinity only to itself."""
    if math.isnan(analytic) or math.isnan(numeric):
        return False
    if math.isinf(analytic) or math.isinf(numeric):
        return analytic == numeric
    return abs(analytic - numeric) <= atol + rtol * abs(numeric)


def _is_kink(f: Callable[[float], float], x: float) -> bool:
    """No derivative to check here (relu at 0, ...): the one-sided differences disagree, and
    by as much at a step eight times shorter. At a smooth but steep point the disagreement
    shrinks with the step; at a kink it stays."""
    y = f(x)

    def gap(h: float) -> float:
        return (f(x + h) - y) / h - (y - f(x - h)) / h

    h = STEP * max(1.0, abs(x))
    long, short = abs(gap(h)), abs(gap(h / 8))
    return short > 1e-6 * max(1.0, abs(y)) and short > 0.5 * long


def _node_fault(node: Value, atol: float, rtol: float) -> Fault | None:
    kind = kind_of(node)
    assert kind is not None
    op: Op = kind.op(node)
    xs = [p.data if isinstance(p, Value) else float(p) for p in kind.operands(node)]
    given = partials_at(op, xs)
    for i, x in enumerate(xs):
        along = _along(op, xs, i)
        if not math.isfinite(along(x)) or _is_kink(along, x):
            continue
        expected = derivative(along, x, richardson_levels=4)
        if math.isfinite(expected) and not _close(given[i], expected, atol, rtol):
            return Fault(node.op, node.label, tuple(xs), i, expected, given[i])
    return None


def localise(output: Value, atol: float = 1e-5, rtol: float = 1e-3) -> Fault | None:
    """The first node, in forward order, whose local rule disagrees with its own forward."""
    kind = kind_of(output)
    assert kind is not None
    for node in topological_order([output]):
        if kind.op(node) is not None:
            fault = _node_fault(node, atol, rtol)
            if fault is not None:
                return fault
    return None


def gradcheck(
    fn: Callable[..., Any],
    inputs: Sequence[float],
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    scaled_step: bool = False,
    richardson_levels: int = 0,
    raise_exception: bool = True,
    fast_mode: bool = False,
    seed: int = 0,
) -> bool:
    """Check the gradients of ``fn(*Values)`` at ``inputs`` against central differences.

    Passes where ``|analytic - numeric| <= atol + rtol * |numeric|`` for every input, and
    backward run twice gives the same bits. On failure raises ``GradcheckError`` in PyTorch's
    words, then names the faulty rule: the first node whose local partial disagrees with
    central differences of its own forward at its recorded inputs.
    ``scaled_step`` takes h = cbrt(machine eps) * max(1, |x|) instead of ``eps``;
    ``richardson_levels`` (e.g. 4) extrapolates to tell a real bug from finite-difference noise.

    With Tensor inputs, ``fn`` takes Tensors and returns a Tensor: the whole Jacobian is
    checked column by column, or, with ``fast_mode``, vᵀJu for random u and v (drawn from
    ``seed``), as PyTorch's fast mode; the error is then a ``TensorGradcheckError``.
    """
    if any(isinstance(x, Tensor) for x in inputs):
        try:
            gradcheck_tensors(
                fn, inputs, eps=eps, atol=atol, rtol=rtol, fast_mode=fast_mode, seed=seed
            )
        except TensorGradcheckError:
            if raise_exception:
                raise
            return False
        return True
    xs = [_as_float(x, i) for i, x in enumerate(inputs)]
    leaves = [Value(x, label=f"input {i}") for i, x in enumerate(xs)]
    out = fn(*leaves)
    if not isinstance(out, Value):
        raise TypeError(f"gradcheck: fn must return a Value, it returned {describe(out)}")
    analytic = [cast(float, g) for g in grad(out, leaves)]
    for j, x in enumerate(xs):
        numeric = derivative(
            _along_input(fn, xs, j),
            x,
            eps=eps,
            scaled_step=scaled_step,
            richardson_levels=richardson_levels,
        )
        if not _close(analytic[j], numeric, atol, rtol):
            fault = localise(out, atol, rtol)
            message = (
                f"Jacobian mismatch for output 0 with respect to input {j},\n"
                f"numerical:{numeric!r}\nanalytical:{analytic[j]!r}\n\n"
                + (str(fault) if fault else _NO_FAULT)
            )
            return _fail(GradcheckError(message, j, fault), raise_exception)
    again = [cast(float, g) for g in grad(out, leaves)]
    if [a.hex() for a in again] != [a.hex() for a in analytic]:
        message = (
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values, although analytical gradient matches "
            f"numerical gradient: {analytic} then {again}"
        )
        return _fail(GradcheckError(message), raise_exception)
    return True


def _along_input(fn: Callable[..., Value], xs: list[float], j: int) -> Callable[[float], float]:
    """fn's value as a function of its input ``j`` alone (graphs may be recorded: fn may
    itself differentiate, with tg.grad(create_graph=True))."""
    return lambda t: fn(*[Value(t if k == j else v) for k, v in enumerate(xs)]).data


_NO_FAULT = (
    "Every node's rule agrees with its own forward. Either the gradient is lost outside the "
    "graph (a value computed from .data, a number where a Value should be), or the numerical "
    "derivative is too noisy for this tolerance: try scaled_step=True or richardson_levels=4."
)


def _as_float(x: object, i: int) -> float:
    if not is_real(x):
        raise TypeError(f"gradcheck: input {i} must be a real number, got {describe(x)}")
    return float(x)  # type: ignore[arg-type]


def _fail(error: GradcheckError, raise_exception: bool) -> bool:
    if raise_exception:
        raise error
    return False


# Every rule of the table, for the tests and for `topograd check`.


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
    op: str
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
            expected = derivative(_along(op, xs, i), xs[i], richardson_levels=4)
            error = abs(given[i] - expected) / max(1.0, abs(expected))
            worst = max(worst, error if not math.isnan(error) else math.inf)
    failures += [f for f in (_special_failure(op, *point) for point in op.special) if f]
    return RuleReport(op.name, points + len(op.special), worst, tuple(failures), tolerance)


def _special_failure(
    op: Op, xs: tuple[float, ...], value: float, partials: tuple[float, ...]
) -> str:
    """Why the op breaks its convention at a special point, or "" where it keeps it."""
    try:
        out, given = cast(Callable[..., float], op.scalar)(*xs), partials_at(op, xs)
    except _RAISED as error:
        return f"at {xs}: raised {error!r}"
    if _same(out, value) and all(map(_same, given, partials)):
        return ""
    return f"at {xs}: value {out!r} and partials {given}, expected {value!r} and {partials}"


def check_rules(points: int = 1000, seed: int = 0) -> list[RuleReport]:
    return [check_rule(op, points, seed) for op in OPS.values() if op.scalar is not None]


def _same(a: float, b: float) -> bool:
    """Equal as IEEE values: nan equals nan, and the sign of a zero counts."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
