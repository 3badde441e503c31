"""The lesson's ops as a learner's ``Value`` spells them: the attribute each needs on the
class, and the op built on the learner's Values. The hand maths of each is the grader's
(``grading.lesson``), outside the sandbox.

>>> METHODS["mul"], BUILDS["mul"](2, -3)
('__mul__', -6)
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

METHODS: dict[str, str] = {
    "add": "__add__",
    "mul": "__mul__",
    "tanh": "tanh",
    "neg": "__neg__",
    "pow": "__pow__",
    "exp": "exp",
    "relu": "relu",
    "sub": "__sub__",
    "div": "__truediv__",
}

BUILDS: dict[str, Callable[..., Any]] = {
    "add": operator.add,
    "mul": operator.mul,
    "tanh": lambda x: x.tanh(),
    "neg": operator.neg,
    "pow": lambda x: x**3,
    "exp": lambda x: x.exp(),
    "relu": lambda x: x.relu(),
    "sub": operator.sub,
    "div": operator.truediv,
}
