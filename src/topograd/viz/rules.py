"""Each edge's local rule as text, ``∂d/∂a = b``, written from the op registry's derivative: the
very text ``topograd ops`` prints (the rule's docstring), never a second copy of it.

A derivative's text opens with one formula per input in the op's own variables (``x``, ``y``,
and ``out`` for the output), then says how it is computed: "1 / y and -x / y², as PyTorch
computes them: ...". The formulas end at the first ", " or ": "; two inputs' formulas are
joined by " and " (by "; and " where the first has words of its own). Each variable is then
written as the graph names that node.

>>> from topograd.autograd.registry import OPS
>>> rule(OPS["mul"], "d", ["a", "b"], 0)
'∂d/∂a = b'
>>> rule(OPS["tanh"], "tanh(n)", ["n"], 0)
'∂tanh(n)/∂n = 1 - tanh²(n)'
>>> rule(OPS["div"], "a/b", ["a", "b + 1"], 1)
'∂(a/b)/∂(b + 1) = -a / (b + 1)²'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from ..autograd.registry import Op

_END = re.compile(r", |: ")  # where a formula ends and its words begin
_VARIABLE = re.compile(r"(?<![A-Za-z0-9_.])(x|y|out)(?![A-Za-z0-9_])")  # x in "tanh²(x)" too
_ATOM = re.compile(r"[^\W\d]\w*|\d+(\.\d*)?([eE][+-]?\d+)?|inf|nan")  # needs no brackets


@cache  # read once per op: a trace asks for every edge
def partials(op: Op) -> tuple[str, ...] | None:
    """Each input's local derivative as the registry writes it, in the op's variables; None
    where the derivative's text does not open with one formula per input (an op of any number
    of inputs, a selection described in words).

    >>> from topograd.autograd.registry import OPS
    >>> partials(OPS["pow"]), partials(OPS["relu"]), partials(OPS["maximum"])
    (('y x^(y-1)', 'x^y log(x)'), ('1 where out > 0 and 0 elsewhere',), None)
    """
    text = op.derivative
    parts = text.split("; and ") if "; and " in text else [_END.split(text, 1)[0]]
    if len(parts) == 1 and op.arity == 2:
        parts = parts[0].split(" and ")
    formulas = tuple(_END.split(part, 1)[0].strip() for part in parts)
    if op.arity < 1 or len(formulas) != op.arity or not all(formulas):
        return None
    return formulas


def bracketed(name: str) -> str:
    """A node's name as an operand of a formula: in brackets unless it is one name or a
    number (``a``, ``2.5``, ``tanh(a*b)``, ``(a*b + c)``).

    >>> bracketed("a"), bracketed("tanh(n)"), bracketed("a*b"), bracketed("-3")
    ('a', 'tanh(n)', '(a*b)', '(-3)')
    """
    if _ATOM.fullmatch(name) or _called(name):
        return name
    return f"({name})"


def _called(name: str) -> bool:
    """Whether ``name`` is one call, ``tanh(a*b + c)``: a function's name, then brackets that
    close only at its end."""
    head = re.match(r"[^\W\d]\w*\(", name)
    if not head or not name.endswith(")"):
        return False
    depth = 0
    for k, ch in enumerate(name[head.end() - 1 :], head.end() - 1):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and k < len(name) - 1:
            return False
    return True


def rule(op: Op, out: str, operands: Sequence[str], k: int) -> str:
    """The local rule of the edge to the ``k``-th operand, ``∂out/∂operand = formula``, each
    variable written as the graph names its node; where the registry's text gives no formula
    per input, its first clause, whole (``∂m/∂a: grad to the larger``)."""
    head = f"∂{bracketed(out)}/∂{bracketed(operands[k])}"
    formulas = partials(op)
    if formulas is None:
        return f"{head}: {_END.split(op.derivative, 1)[0]}"
    names = {"out": out, **dict(zip(("x", "y"), operands))}
    return f"{head} = {_written(formulas[k], names)}"


def term_rule(op: Op, out: str, term: str) -> str:
    """The local rule of a term of a chain of sums drawn as one Σ node: the sum's partial for
    its first operand, the same for every term (``∂e/∂x = 1``).

    >>> from topograd.autograd.registry import OPS
    >>> term_rule(OPS["add"], "e", "a*b")
    '∂e/∂(a*b) = 1'
    """
    return rule(op, out, [term, term], 0)


def _written(formula: str, names: dict[str, str]) -> str:
    """The formula with each variable replaced by its node's name, in brackets where the
    formula does not already enclose it alone (``tanh²(x)`` needs none)."""

    def name(found: re.Match[str]) -> str:
        if found.group(1) not in names:
            return found.group(0)
        written = names[found.group(1)]
        before, after = formula[found.start() - 1 : found.start()], formula[found.end() :][:1]
        whole = found.group(0) == formula  # "y": mul's partial is the other operand itself
        return written if whole or (before, after) == ("(", ")") else bracketed(written)

    return _VARIABLE.sub(name, formula)
