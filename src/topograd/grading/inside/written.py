"""Which of a learner's methods are not written yet, read from their bytecode without calling
them (a call might hang): a body that is only ``pass``, ``...``, a docstring or ``return
None``, or one that only raises ``NotImplementedError``, as a skeleton handed out with the
exercise has them.

>>> class Skeleton:
...     def __mul__(self, other):
...         raise NotImplementedError("write me")
...     def backward(self):
...         '''The topological order, then each _backward.'''
...     def __add__(self, other):
...         return self
>>> written(Skeleton, {})
{'__mul__': 'only raises NotImplementedError', 'backward': 'its body is empty'}
"""

from __future__ import annotations

import dis
from typing import Any

from .ops import METHODS

Numbers = dict[str, float | str | bool]

PLUMBING = {"RESUME", "NOP", "CACHE", "PUSH_NULL", "PRECALL", "KW_NAMES", "EXTENDED_ARG"}
RETURNS_NONE = (
    [("LOAD_CONST", None), ("RETURN_VALUE", None)],
    [("RETURN_CONST", None)],  # Python 3.12 and later
)
RAISING = {"LOAD_GLOBAL", "LOAD_NAME", "LOAD_CONST", "CALL", "RAISE_VARARGS"}


def instructions(function: Any) -> list[tuple[str, Any]] | None:
    """The function's instructions, without the interpreter's plumbing; None for what has no
    Python code (a builtin, a class's default method)."""
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    if code is None:
        return None
    return [(i.opname, i.argval) for i in dis.get_instructions(code) if i.opname not in PLUMBING]


def unwritten(function: Any) -> str:
    """Why ``function`` is not written yet, or "" when it is."""
    found = instructions(function)
    if found is None:
        return ""
    if found in RETURNS_NONE:
        return "its body is empty"
    names = [value for op, value in found if op in ("LOAD_GLOBAL", "LOAD_NAME")]
    if (
        found[-1][0] == "RAISE_VARARGS"
        and names == ["NotImplementedError"]
        and {op for op, _ in found} <= RAISING
    ):
        return "only raises NotImplementedError"
    return ""


def written(cls: Any, at: Any) -> Numbers:
    """Each of the lesson's methods the class has but has not written yet, and why; "missing"
    for an ``__add__``, ``__mul__`` or ``backward`` it does not have at all."""
    found: Numbers = {}
    for name in (*METHODS.values(), "backward"):
        method = getattr(cls, name, None)
        if method is None:
            if name in ("__add__", "__mul__", "backward"):
                found[name] = "missing"
            continue
        why = unwritten(method)
        if why:
            found[name] = why
    return found
