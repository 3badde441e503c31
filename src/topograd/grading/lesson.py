"""The ops of the lesson a learner's engine is graded on, with the hand maths of each: the
ranges its points are drawn from (chosen so that the usual wrong rules give other numbers), its
value and its local partials, and the usual wrong rules by name.

Each grade draws its points afresh from a seed (``drawn(seed)``): the child process is sent
the points, never the seed, builds each op on the learner's Values there (``inside/ops.py``),
and the grader compares what came back with the hand maths at the same points, so a recorded
run cannot be replayed. The same seed draws the same points: a report names its seed.

>>> [op.name for op in OPS]
['add', 'mul', 'tanh', 'neg', 'pow', 'exp', 'relu', 'sub', 'div']
>>> OPS[1].partials(2.0, -3.0)
(-3.0, 2.0)
>>> drawn(7) == drawn(7) != drawn(8)
True
"""

from __future__ import annotations

import math
import operator
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .inside.ops import METHODS

Point = tuple[float, ...]
Partials = Callable[..., tuple[float, ...]]
Span = tuple[float, float]  # a point's coordinate is drawn between these

POSITIVE: Span = (1.5, 3.5)  # a of a two-input op: a > 1, so that 1 and a tell apart
NEGATIVE: Span = (-4.0, -1.5)  # b: of the other sign than a, so that no rule mixes them up


@dataclass(frozen=True)
class LessonOp:
    """One op of the lesson, as a learner writes it on ``Value``."""

    name: str  # as the report names it: "mul"
    spelling: str  # "a * b"
    spans: tuple[tuple[Span, ...], ...]  # where its rule is probed; the first also upstream
    value: Callable[..., float]  # the forward, by hand
    partials: Partials  # the local rule, by hand: one partial per input
    rule: str  # the rule in the lesson's words
    mistakes: tuple[tuple[Partials, str], ...] = ()  # wrong rules by what they give

    @property
    def method(self) -> str:
        """The attribute the class needs: "__mul__"."""
        return METHODS[self.name]


CORE = 3  # OPS[:3], the lesson's own ops, make one node each; the others may make several
# (a - b as a + (-b)), so they are graded once the order of the backward pass is, and each
# after the ops it may be built of


def named(op_text: str) -> str:
    """The lesson's name of an op as a learner's ``_op`` spells it: "**-1" -> "pow".

    >>> [named(t) for t in ("+", "*", "**-1", "ReLU", "tanh", "-", "/")]
    ['add', 'mul', 'pow', 'relu', 'tanh', 'sub', 'div']
    """
    text = op_text.strip().lower()
    for prefix, name in (("**", "pow"), ("pow", "pow"), ("+", "add"), ("add", "add")):
        if text.startswith(prefix):
            return name
    spellings = {"*": "mul", "mul": "mul", "-": "sub", "sub": "sub", "neg": "neg", "/": "div"}
    return spellings.get(text, text)


def _tanh_rule(x: float) -> tuple[float, ...]:
    t = math.tanh(x)
    return (1.0 - t * t,)


OPS = (
    LessonOp(
        "add",
        "a + b",
        ((POSITIVE, NEGATIVE),),
        operator.add,
        lambda a, b: (1.0, 1.0),
        "1 to each input",
        (
            (lambda a, b: (1.0, 0.0), "add's rule updates only its first input"),
            (lambda a, b: (0.0, 1.0), "add's rule updates only its second input"),
        ),
    ),
    LessonOp(
        "mul",
        "a * b",
        ((POSITIVE, NEGATIVE),),
        operator.mul,
        lambda a, b: (b, a),
        "each input gets the other's value",
        (
            (lambda a, b: (a, b), "mul's rule gives each input its own value, not the other's"),
            (lambda a, b: (1.0, 1.0), "mul's rule passes the gradient through, as add's does"),
            (lambda a, b: (b, 0.0), "mul's rule updates only its first input"),
            (lambda a, b: (0.0, a), "mul's rule updates only its second input"),
            (
                lambda a, b: (0.0, 0.0),
                "mul's rule moves no gradient (does it multiply by the input's own .grad, not "
                "by out.grad?)",
            ),
        ),
    ),
    LessonOp(
        "tanh",
        "tanh(x)",
        (((0.3, 0.7),),),  # below 0.72, where 1 - t = 1 - t² (and t² = 1 - t² at 0.88)
        math.tanh,
        _tanh_rule,
        "1 - t², from the output t",
        (
            (
                lambda x: (1.0 - x * x,),
                "tanh's rule uses the input, not the output: 1 - x² instead of 1 - t²",
            ),
            (lambda x: (math.tanh(x),), "tanh's rule is t, not 1 - t²"),
            (lambda x: (1.0 - math.tanh(x),), "tanh's rule is 1 - t, not 1 - t²"),
            (lambda x: (math.tanh(x) ** 2,), "tanh's rule is t², not 1 - t²"),
        ),
    ),
    LessonOp(
        "neg",
        "-x",
        ((POSITIVE,),),
        operator.neg,
        lambda x: (-1.0,),
        "-1",
        ((lambda x: (1.0,), "neg's rule lacks the minus sign"),),
    ),
    LessonOp(
        "pow",
        "x ** 3",
        ((POSITIVE,),),
        lambda x: x**3,
        lambda x: (3.0 * x**2,),
        "n·xⁿ⁻¹",
        (
            (lambda x: (3.0 * x**3,), "pow's rule keeps the exponent: n·xⁿ instead of n·xⁿ⁻¹"),
            (lambda x: (x**2,), "pow's rule drops the factor n: xⁿ⁻¹ instead of n·xⁿ⁻¹"),
        ),
    ),
    LessonOp(
        "exp",
        "exp(x)",
        (((0.3, 0.9),),),
        math.exp,
        lambda x: (math.exp(x),),
        "the output itself, eˣ",
        ((lambda x: (x,), "exp's rule uses the input, not the output eˣ"),),
    ),
    LessonOp(
        "relu",
        "relu(x)",
        ((POSITIVE,), (NEGATIVE,)),
        lambda x: max(x, 0.0),
        lambda x: (1.0 if x > 0 else 0.0,),
        "1 where x > 0, else 0",
        (
            (lambda x: (max(x, 0.0),), "relu's rule multiplies by the output, not by (out > 0)"),
            (lambda x: (1.0,), "relu's rule passes the gradient where x < 0 too"),
        ),
    ),
    LessonOp(
        "sub",
        "a - b",
        ((POSITIVE, NEGATIVE),),
        operator.sub,
        lambda a, b: (1.0, -1.0),
        "1 to the first input, -1 to the second",
        ((lambda a, b: (1.0, 1.0), "sub's rule gives the second input +1, not -1"),),
    ),
    LessonOp(
        "div",
        "a / b",
        ((POSITIVE, NEGATIVE),),
        operator.truediv,
        lambda a, b: (1.0 / b, -a / (b * b)),
        "1/b to a, -a/b² to b",
        (
            (lambda a, b: (1.0 / b, a / (b * b)), "div's rule for b lacks the minus: -a/b²"),
            (lambda a, b: (1.0 / b, -1.0 / (b * b)), "div's rule for b drops the factor a"),
        ),
    ),
)

BY_NAME = {op.name: op for op in OPS}


def between(rng: random.Random, span: Span) -> float:
    """A number drawn in ``span``, to two decimals (so that a diagnosis reads easily)."""
    return round(rng.uniform(*span), 2)


@dataclass(frozen=True)
class Draw:
    """Where one grade probes the learner's engine, drawn from its seed."""

    seed: int
    ops: dict[str, tuple[Point, ...]]  # each op's points, as its spans
    chain: float  # the upstream gradient an op's rule is probed under: (a * b) * chain
    lesson: tuple[float, float, float]  # a, b, c of e = tanh(a*b + c)
    shared: float  # x of y = x*x + x, x + x, x * x, the plain numbers and backward twice
    leaf: float  # Value(leaf).data must give it back
    diamond: tuple[float, float]  # k, m of b = a*k, c = a*m, d = b + c: a gets k + m
    held: float  # the gradient each input holds before a node's _backward runs on its own

    def sent(self) -> dict[str, Any]:
        """The points as the child is sent them (the seed stays with the grader)."""
        found: dict[str, Any] = {
            f"op.{name}": [list(p) for p in at] for name, at in self.ops.items()
        }
        found.update(
            chain=self.chain,
            lesson=list(self.lesson),
            shared=self.shared,
            leaf=self.leaf,
            diamond=list(self.diamond),
            held=self.held,
        )
        return found


def fresh_seed() -> int:
    """A seed from the system's randomness, which no submission can predict."""
    return secrets.randbits(32)


def drawn(seed: int | None = None) -> Draw:
    """The points of one grade, from ``seed`` (a fresh one when None)."""
    if seed is None:
        seed = fresh_seed()
    rng = random.Random(seed)
    ops = {
        op.name: tuple(tuple(between(rng, span) for span in point) for point in op.spans)
        for op in OPS
    }
    a, b = between(rng, POSITIVE), between(rng, NEGATIVE)
    n = between(rng, (0.5, 1.5))  # a*b + c, where tanh is neither flat nor straight
    return Draw(
        seed=seed,
        ops=ops,
        chain=between(rng, (-3.5, -1.5)),
        lesson=(a, b, round(n - a * b, 2)),
        shared=between(rng, (2.5, 4.0)),
        leaf=between(rng, (1.5, 4.5)),
        diamond=(between(rng, (1.5, 3.0)), between(rng, (4.0, 6.5))),
        held=between(rng, (0.5, 1.5)),
    )
