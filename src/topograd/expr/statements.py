"""Lines that name what they compute, as the lesson writes them: ``d = a*b; n = d + c; e =
tanh(n)`` (separated by ``;`` or new lines). Each line assigns one new name, once, to an
operation; a later line may use it; the last line is the output, with a name or without.
A name used before any line assigns it is an input, and no line may assign it afterwards.
Every line that is not the last must be used by a later one: the graph is the output's, and
a line it never reaches would be silently dropped.

>>> import ast
>>> body = ast.parse("d = a*b; e = d + c").body
>>> lines, inputs = statements(body, "d = a*b; e = d + c", _used, ())
>>> [(s.name, s.text) for s in lines], inputs
([('d', 'a*b'), ('e', 'd + c')], ('a', 'b', 'c'))
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Statement:
    """One line of what was typed: ``d = a*b`` (its name "d"), or the last line's expression
    on its own (its name "")."""

    name: str
    tree: ast.expr
    text: str  # the expression as typed, right of the = if there is one


class RefusalError(Exception):
    """A node off the whitelist; ``parse`` turns it into an ExpressionError saying where."""

    def __init__(self, node: ast.AST | None, what: str) -> None:
        super().__init__(what)
        self.node, self.what = node, what


Check = Callable[[ast.expr], Sequence[str]]  # checks a tree, returns the names it uses


def statements(
    body: Sequence[ast.stmt], text: str, check: Check, functions: Collection[str]
) -> tuple[tuple[Statement, ...], tuple[str, ...]]:
    """Each line of ``body`` (``ast.parse(text)``'s) checked, as a Statement, and the inputs'
    names in order of appearance. ``check`` checks a line's expression (and a name assigned,
    as typed) and returns the names it uses; ``functions`` may not be assigned."""
    lines: list[Statement] = []
    assigned: dict[str, ast.AST] = {}
    inputs: dict[str, None] = {}
    unused: dict[str, ast.AST] = {}
    for k, line in enumerate(body):
        target, tree = _split(line, last=k == len(body) - 1)
        for name in check(tree):
            if name in assigned:
                unused.pop(name, None)
            else:
                inputs.setdefault(name)
        segment = ast.get_source_segment(text, tree) or ""
        if target is not None:
            _check_target(target, check, functions, assigned, inputs)
            _check_computes(tree, f"{target.id} = {segment}")
            assigned[target.id] = unused[target.id] = line
        lines.append(Statement(target.id if target is not None else "", tree, segment))
    unused.pop(lines[-1].name, None)
    if unused:
        name, where = next(iter(unused.items()))
        raise RefusalError(
            where, f"{name} is never used: every line but the last must be used by a later one"
        )
    return tuple(lines), tuple(inputs)


def _split(line: ast.stmt, last: bool) -> tuple[ast.Name | None, ast.expr]:
    """A line's name (None for an expression on its own, the last line only) and its
    expression."""
    if isinstance(line, ast.Expr):
        if not last:
            raise RefusalError(line, "only the last line may be an expression without a name")
        return None, line.value
    if isinstance(line, ast.Assign):
        if len(line.targets) != 1 or not isinstance(line.targets[0], ast.Name):
            raise RefusalError(line, "a line assigns one name: d = a*b")
        return line.targets[0], line.value
    if isinstance(line, ast.AugAssign):
        raise RefusalError(line, "a name is assigned once: write a new name, f = d + 1")
    raise RefusalError(line, "only lines of the form name = expression are allowed")


def _check_target(
    target: ast.Name,
    check: Check,
    functions: Collection[str],
    assigned: dict[str, ast.AST],
    inputs: dict[str, None],
) -> None:
    name = target.id
    if name in functions:
        raise RefusalError(target, f"{name} is a function: choose another name")
    check(target)  # a name as typed (not folded by NFKC)
    if name in assigned:
        raise RefusalError(target, f"{name} is assigned twice: give each value its own name")
    if name in inputs:
        raise RefusalError(
            target, f"{name} is an input (used before this line): choose another name"
        )


def _check_computes(tree: ast.expr, line: str) -> None:
    """A line must compute: ``d = a`` or ``k = 2`` would only give an input or a number a
    second name (and a named number would be an input)."""
    inner = tree
    while isinstance(inner, ast.UnaryOp) and isinstance(inner.op, ast.UAdd):
        inner = inner.operand
    if isinstance(inner, ast.Name):
        raise RefusalError(tree, f"{line} computes nothing: write {inner.id} itself")
    if isinstance(inner, ast.Constant):
        name = line.split(" ")[0]
        raise RefusalError(
            tree,
            f"{name} names a number: write the number where {name} is used, or give "
            f"{name} a value as an input",
        )


def _used(tree: ast.expr) -> list[str]:
    """The variables a tree uses (for the example)."""
    return [n.id for n in ast.walk(tree) if isinstance(n, ast.Name)]
