"""The steps of a backward pass, as a learner wants to see them.

In reverse topological order, each node with the gradient that has arrived at it; then, for each
operand, the local partial, the contribution (partial x gradient), the operand's running
total after the ``+=``, and the local rule the partial comes from (``∂d/∂a = b``, written from
the registry's derivative: ``rules.py``). A node used several times receives several
contributions. A number operand (the 2.0 of ``x * 2.0``) is shown as a constant with its
contribution, though no gradient is kept for it.

>>> import topograd as tg
>>> x = tg.Value(3.0, label="x")
>>> steps = trace(x * x + x).steps
>>> [(e.parent, e.contribution, e.total) for s in steps for e in s.edges if e.parent == "n0"]
[('n0', 1.0, 1.0), ('n0', 3.0, 4.0), ('n0', 3.0, 7.0)]
>>> [e.rule for s in steps for e in s.edges if e.parent == "n0"]
['∂e/∂x = 1', '∂d/∂x = x', '∂d/∂x = x']
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..autograd.engine import observe_backward
from ..autograd.kinds import kind_of
from ..scalar.value import Value
from .graph import EdgeInfo, NodeInfo, as_json, describe, ids, json_number, walk
from .rules import bracketed, rule, term_rule
from .sums import is_folded


@dataclass(frozen=True)
class Contribution:
    parent: str  # the operand's id
    operand: int  # its position among the node's operands
    partial: float  # d node / d operand
    contribution: float  # partial x the node's gradient
    total: float  # the operand's gradient after this +=
    rule: str  # the local rule, "∂d/∂a = b", in the graph's names


@dataclass(frozen=True)
class Step:
    node: str  # id
    grad: float  # d output / d node, complete when the node is processed
    edges: tuple[Contribution, ...]


@dataclass(frozen=True)
class Trace:
    """What ``trace`` returns: the graph, and the backward steps over it."""

    nodes: list[NodeInfo]
    edges: list[EdgeInfo]
    steps: list[Step]

    def rows(self) -> list[tuple[str, ...]]:
        """The steps as rows of text, a header first: a row per contribution, the node's own
        columns on its first row only."""
        names = {n.id: n.name for n in self.nodes}
        ops = {n.id: op_column(n) for n in self.nodes}
        rows: list[tuple[str, ...]] = [
            ("step", "node", "op", "gradient", "-> operand", "partial", "contribution", "total")
        ]
        for k, step in enumerate(self.steps, 1):
            head = (str(k), names[step.node], ops[step.node], _num(step.grad))
            if not step.edges:
                rows.append((*head, "", "", "", ""))
            for i, e in enumerate(step.edges):
                lead = head if i == 0 else ("", "", "", "")
                rows.append(
                    (
                        *lead,
                        "-> " + names[e.parent],
                        _num(e.partial),
                        _num(e.contribution),
                        _num(e.total),
                    )
                )
        return rows

    def table(self) -> str:
        """The steps as an aligned table of text."""
        widest_name = max(len(n.name) for n in self.nodes)
        return aligned(self.rows(), RIGHT, least={1: widest_name})

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """The table as IPython prints a cell's value."""
        printer.text(self.table())

    def _repr_html_(self) -> str:
        """The table in a notebook (Jupyter's display protocol)."""
        head, *body = self.rows()

        def row(cells: tuple[str, ...], tag: str) -> str:
            return (
                "<tr>"
                + "".join(
                    f'<{tag} style="text-align:{"right" if c in RIGHT else "left"}">'
                    f"{html.escape(cell)}</{tag}>"
                    for c, cell in enumerate(cells)
                )
                + "</tr>"
            )

        return (
            '<table class="topograd-trace" style="font-family:monospace">'
            f"<thead>{row(head, 'th')}</thead><tbody>"
            + "".join(row(r, "td") for r in body)
            + "</tbody></table>"
        )

    def to_json(self) -> dict[str, Any]:
        """JSON-ready: ``nodes`` (each with its name ``bracketed`` as formulas write an
        operand), ``edges`` and ``steps``; inf and nan as strings."""
        names = [{"bracketed": bracketed(n.name)} for n in self.nodes]
        return {
            "nodes": [{**row, **name} for row, name in zip(as_json(self.nodes), names)],
            "edges": as_json(self.edges),
            "steps": [
                {
                    "node": s.node,
                    "grad": json_number(s.grad),
                    "edges": [{k: json_number(v) for k, v in vars(e).items()} for e in s.edges],
                }
                for s in self.steps
            ],
        }


RIGHT = {0, 3, 5, 6, 7}  # the columns of numbers


def op_column(node: NodeInfo) -> str:
    """A node's op as a table shows it: the op's symbol, or "input" (a labelled leaf) or
    "const"."""
    return node.op or ("input" if node.label else "const")


def aligned(
    rows: Sequence[Sequence[str]], right: Iterable[int], least: dict[int, int] | None = None
) -> str:
    """Rows of text as a table: each column as wide as its widest cell (or as ``least`` says,
    column -> width), the columns in ``right`` aligned right and the others left."""
    right = set(right)
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    for c, width in (least or {}).items():
        widths[c] = max(widths[c], width)
    return "\n".join(
        "  ".join(
            cell.rjust(w) if c in right else cell.ljust(w)
            for c, (cell, w) in enumerate(zip(r, widths))
        ).rstrip()
        for r in rows
    )


def _num(x: float) -> str:
    return f"{x:.6g}"


def trace(output: Value, grad: float = 1.0) -> Trace:
    """Run a backward pass from ``output`` and record its steps; no ``.grad`` is touched.

    The order is the engine's own: each node appears once, after every node that uses it.
    """
    if not isinstance(output, Value):
        raise TypeError(f"trace() takes a Value, got {type(output).__name__}")
    kind = kind_of(output)
    assert kind is not None
    graph = walk(output)
    named = ids(graph)
    nodes, edges = describe(output, graph)
    names = {n.id: n.name for n in nodes}
    totals: dict[Value, float] = {}
    steps: list[Step] = []

    def observe(node: Value, g: float, parents: Sequence[Value], found: Sequence[Any]) -> None:
        op = kind.op(node)
        if node not in named:  # an inner sum of a chain: its head's step passed its terms on
            return
        if op is None:  # an input: nothing to pass on
            steps.append(Step(named[node], g, ()))
            return
        # Every operand's partial and contribution, as the rule gives them; a number given as
        # a number (the 2.0 of x * 2.0) is shown too, though no gradient is kept for it. A
        # chain of sums passes its own gradient to every term (each inner sum's is the same).
        operands, folded = graph[node], is_folded(node, graph[node])
        datas = [o.data for o in (node.parents if folded else operands)]
        partials, contributions = op.rule(1.0, *datas, node.data), op.rule(g, *datas, node.data)
        if folded:  # add's rule, the same for every term
            partials, contributions = (
                (partials[0],) * len(operands),
                (contributions[0],) * len(operands),
            )
        written = [names[named[o]] for o in operands]
        flows = []
        for k, (operand, partial, c) in enumerate(zip(operands, partials, contributions)):
            totals[operand] = c if operand not in totals else totals[operand] + c  # as the engine
            out = names[named[node]]
            local = term_rule(op, out, written[k]) if folded else rule(op, out, written, k)
            flows.append(Contribution(named[operand], k, partial, c, totals[operand], local))
        steps.append(Step(named[node], g, tuple(flows)))

    observe_backward(output, float(grad), observe)
    grads = {s.node: s.grad for s in steps}  # this backward's gradients, not the stored .grad
    return Trace([replace(n, grad=grads.get(n.id, 0.0)) for n in nodes], edges, steps)
