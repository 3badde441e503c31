"""A graph of Values as plain records with stable ids, shared by the trace and the drawings.

Ids follow the forward (topological) order: ``n0, n1, ...``; the edge from the k-th operand of
node ``n5`` is ``n5.k``. The same graph built the same way gets the same ids, so a page can
highlight a node of the drawing named by a step of the trace.

>>> import topograd as tg
>>> x = tg.Value(3.0, label="x")
>>> nodes, edges = describe(x * x)
>>> [(n.id, n.label, n.op) for n in nodes], [(e.id, e.source, e.target) for e in edges]
([('n0', 'x', ''), ('n1', '', '*')], [('n1.0', 'n0', 'n1'), ('n1.1', 'n0', 'n1')])
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from ..engine import topological_order
from ..value import Value


@dataclass(frozen=True)
class NodeInfo:
    id: str
    label: str
    op: str  # "" for a leaf
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


def ids(output: Value) -> dict[Value, str]:
    """Every node the output depends on, with its id, in forward order."""
    return {node: f"n{i}" for i, node in enumerate(topological_order([output]))}


def describe(output: Value) -> tuple[list[NodeInfo], list[EdgeInfo]]:
    """The nodes in forward order and one edge per operand (``x * x`` has two)."""
    named = ids(output)
    nodes = [NodeInfo(i, v.label, v.op, v.data, v.grad) for v, i in named.items()]
    edges = [
        EdgeInfo(f"{named[v]}.{k}", named[p], named[v], k)
        for v in named
        for k, p in enumerate(v.parents)
    ]
    return nodes, edges


def as_json(records: list[NodeInfo] | list[EdgeInfo]) -> list[dict[str, Any]]:
    """JSON-ready dicts; non-finite floats as the strings "inf", "-inf", "nan"."""
    return [{k: json_number(v) for k, v in asdict(r).items()} for r in records]


def json_number(x: object) -> object:
    if isinstance(x, float) and (x != x or x in (float("inf"), float("-inf"))):
        return "nan" if x != x else ("inf" if x > 0 else "-inf")
    return x
