"""The ops of the lesson a learner's engine is graded on, with the hand maths of each: the
point it is probed at (chosen so that the usual wrong rules give other numbers), its value
there and its local partials, and the usual wrong rules by name.

The child process builds each op on the learner's Values (``inside/ops.py``) at the points the
grader sends it (``points()``), and the grader compares what came back with the hand maths.

>>> [op.name for op in OPS]
['add', 'mul', 'tanh', 'neg', 'pow', 'exp', 'relu', 'sub', 'div']
>>> OPS[1].partials(2.0, -3.0)
(-3.0, 2.0)
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .inside.ops import METHODS

Point = tuple[float, ...]
Partials = Callable[..., tuple[float, ...]]

CHAIN_FACTOR = -2.5  # the upstream gradient an op's rule is probed under: (a * b) * -2.5
LESSON_POINT = (2.0, -3.0, 10.0)  # e = tanh(a*b + c)
SHARED_POINT = 3.0  # y = x*x + x


@dataclass(frozen=True)
class LessonOp:
    """One op of the lesson, as a learner writes it on ``Value``."""

    name: str  # as the report names it: "mul"
    spelling: str  # "a * b"
    points: tuple[Point, ...]  # where its rule is probed; the first also under CHAIN_FACTOR
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
        ((2.0, -3.0),),
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
        ((2.0, -3.0),),
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
        ((0.5,),),
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
        ((3.0,),),
        operator.neg,
        lambda x: (-1.0,),
        "-1",
        ((lambda x: (1.0,), "neg's rule lacks the minus sign"),),
    ),
    LessonOp(
        "pow",
        "x ** 3",
        ((2.0,),),
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
        ((0.5,),),
        math.exp,
        lambda x: (math.exp(x),),
        "the output itself, eˣ",
        ((lambda x: (x,), "exp's rule uses the input, not the output eˣ"),),
    ),
    LessonOp(
        "relu",
        "relu(x)",
        ((2.0,), (-2.0,)),
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
        ((2.0, -3.0),),
        operator.sub,
        lambda a, b: (1.0, -1.0),
        "1 to the first input, -1 to the second",
        ((lambda a, b: (1.0, 1.0), "sub's rule gives the second input +1, not -1"),),
    ),
    LessonOp(
        "div",
        "a / b",
        ((2.0, -3.0),),
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


def points() -> dict[str, Any]:
    """The points the child measures at, as it is sent them: each op's, the upstream factor,
    the lesson's example's and the shared node's."""
    found: dict[str, Any] = {f"op.{op.name}": [list(p) for p in op.points] for op in OPS}
    found.update(chain=CHAIN_FACTOR, lesson=list(LESSON_POINT), shared=SHARED_POINT)
    return found
