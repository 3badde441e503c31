"""A graph of Values as plain records with stable ids, shared by the trace and the drawings.

Ids follow the forward (topological) order: ``n0, n1, ...``; the edge from the k-th operand of
node ``n5`` is ``n5.k`` (the k-th term, for a chain of sums drawn as one Σ: ``sums.py``). The
same graph built the same way gets the same ids, so a page can highlight a node of the drawing
named by a step of the trace.

>>> import topograd as tg
>>> x = tg.Value(3.0, label="x")
>>> nodes, edges = describe(x * x)
>>> [(n.id, n.label, n.op) for n in nodes], [(e.id, e.source, e.target) for e in edges]
([('n0', 'x', ''), ('n1', 'e', '*')], [('n1.0', 'n0', 'n1'), ('n1.1', 'n0', 'n1')])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from ..autograd.engine import topological_order
from ..autograd.registry import OPS
from ..scalar.value import Value
from .names import lesson_names
from .sums import WRITTEN, folded_sums, is_folded


@dataclass(frozen=True)
class NodeInfo:
    id: str
    label: str
    op: str  # as formulas write it ("+", "tanh"); "" for a leaf
    data: float
    grad: float

    @property
    def name(self) -> str:
        """How text refers to the node: its label (cut short), a constant's value, or its id."""
        if self.label:
            return self.label if len(self.label) <= 28 else self.label[:27] + "…"
        return f"{self.data:g}" if not self.op else self.id


@dataclass(frozen=True)
class EdgeInfo:
    id: str
    source: str  # the operand
    target: str  # the node computed from it
    operand: int  # its position among the target's operands


def walk(output: Value) -> dict[Value, tuple[Value, ...]]:
    """Every node the output depends on, in forward order, with its operands; a number given
    as an operand (the 2.0 of x * 2.0) becomes a constant leaf of its own, and a chain of sums
    one Σ node with an operand per term (``sums.py``)."""
    operands: dict[Value, tuple[Value, ...]] = {}

    def parents(v: Value) -> tuple[Value, ...]:
        if v not in operands:
            operands[v] = v.parents  # numbers boxed once, so that each is one node
        return operands[v]

    return folded_sums({v: operands[v] for v in topological_order([output], parents)}, output)


def ids(nodes: Iterable[Value]) -> dict[Value, str]:
    """Each node's id, in the order given (forward order)."""
    return {node: f"n{i}" for i, node in enumerate(nodes)}


def describe(
    output: Value, graph: dict[Value, tuple[Value, ...]] | None = None
) -> tuple[list[NodeInfo], list[EdgeInfo]]:
    """The nodes in forward order and one edge per operand (``x * x`` has two); ``graph`` is
    ``walk(output)`` where the caller has walked it already. An operation without a label
    is named as the lesson names it (``names.py``: d, n, e), its Value left as it is."""
    graph = walk(output) if graph is None else graph
    named = ids(graph)
    lesson = lesson_names(output, graph)
    nodes = [
        NodeInfo(i, lesson.get(v, v.label), _written(v, graph[v]), v.data, v.grad)
        for v, i in named.items()
    ]
    edges = [
        EdgeInfo(f"{named[v]}.{k}", named[p], named[v], k)
        for v, parents in graph.items()
        for k, p in enumerate(parents)
    ]
    return nodes, edges


def _written(v: Value, operands: tuple[Value, ...]) -> str:
    """How a drawing writes the op that made ``v``: its symbol ("+", "Σ" for a chain of sums
    folded into one), or its name."""
    if is_folded(v, operands):
        return WRITTEN
    op = OPS.get(v.op)
    return op.written if op is not None else v.op


def as_json(records: list[NodeInfo] | list[EdgeInfo]) -> list[dict[str, Any]]:
    """JSON-ready dicts; non-finite floats as the strings "inf", "-inf", "nan"."""
    return [{k: json_number(v) for k, v in asdict(r).items()} for r in records]


def json_number(x: object) -> object:
    if isinstance(x, float) and (x != x or x in (float("inf"), float("-inf"))):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    return x
