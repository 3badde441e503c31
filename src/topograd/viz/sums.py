"""Long sums as one node: a chain of ``+`` drawn and walked as one n-ary Σ with a term per edge.

``a1*b1 + a2*b2 + a3*b3`` parses as ``(a1*b1 + a2*b2) + a3*b3``: the inner sum is used only by
the outer one. Drawn as it is, 60 terms make a chain of 59 sums, each a layer, and the terms
reach it across ever more layers (lanes over the drawing). Folded, the outermost ``+`` (the
head) takes every term as an operand and the inner sums vanish: one node, one step of the
walk that passes ``1 × its gradient`` to each term (``∂e/∂d = 1`` in the graph's names: the
local rule of ``+``).

An inner sum is folded into its user when it is an unlabelled ``+`` used exactly once, by
another ``+`` (a sum the learner named keeps its box). The walk's running totals must end at
the engine's gradients bit for bit; folding moves the inner sums' ``+=`` to the head's step,
which changes the order in which a term receives its contributions only where the term is
used outside the chain too. A sum of three or more numbers may round differently in another
order, so a chain with such a term (used three or more times in all, at least once outside
the chain) is left as it is.

>>> import topograd as tg
>>> x, y, z = (tg.Value(v, label=k) for k, v in (("x", 1.0), ("y", 2.0), ("z", 3.0)))
>>> from topograd.viz.graph import walk
>>> s = x + y + z
>>> [v.label or v.op for v in walk(s)], [p.label for p in walk(s)[s]]
(['x', 'y', 'z', 'add'], ['x', 'y', 'z'])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping

from ..scalar.value import Value

SUM = "add"
WRITTEN = "Σ"  # how a folded sum's op is drawn and named


def folded_sums(
    graph: Mapping[Value, tuple[Value, ...]], output: Value
) -> dict[Value, tuple[Value, ...]]:
    """``graph`` (every node in forward order, with its operands) with each chain of sums
    folded into its head, whose operands are then the chain's terms, left to right."""
    uses: Counter[Value] = Counter(p for operands in graph.values() for p in operands)
    users = {p: v for v, operands in graph.items() for p in operands}  # the one, where one

    def inner(v: Value) -> bool:
        return (
            v.op == SUM and not v.label and v is not output and uses[v] == 1 and users[v].op == SUM
        )

    terms, gone = {}, set()
    for head in graph:
        if head.op != SUM or inner(head):
            continue
        found, sums = _terms(head, graph, inner)
        if len(found) > 2 and _same_totals(found, uses):
            terms[head] = tuple(found)
            gone.update(sums)
    return {v: terms.get(v, operands) for v, operands in graph.items() if v not in gone}


def _terms(
    head: Value, graph: Mapping[Value, tuple[Value, ...]], inner: Callable[[Value], bool]
) -> tuple[list[Value], list[Value]]:
    """The terms of the chain under ``head``, left to right, and its inner sums (without a
    stack of calls: a chain may be 500 sums long)."""
    found, sums, todo = [], [], list(reversed(graph[head]))
    while todo:
        v = todo.pop()
        if inner(v):
            sums.append(v)
            todo += reversed(graph[v])
        else:
            found.append(v)
    return found, sums


def _same_totals(found: list[Value], uses: Counter[Value]) -> bool:
    """Whether every term's gradient adds up in an order that gives the engine's bits: a term
    used only by the chain receives the same number each time, and two numbers add the same
    either way round."""
    within = Counter(found)
    return all(uses[t] == n or uses[t] <= 2 for t, n in within.items())


def is_folded(v: Value, operands: tuple[Value, ...]) -> bool:
    """Whether ``v`` is a folded sum's head, given its operands in the folded graph."""
    return v.op == SUM and len(operands) > 2
