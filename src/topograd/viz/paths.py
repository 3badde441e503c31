"""The chain rule as a sum over paths: every path from an input to the output, the local
derivatives along it and their product; the products add up to the input's gradient, which
is what backprop's ``+=`` at each shared node computes without listing them.

>>> import topograd as tg
>>> x = tg.Value(3.0, label="x")
>>> found = paths(x * x + x, "n0")
>>> [(p["rules"], p["product"]) for p in found["paths"]]
[(['∂e/∂d = 1', '∂d/∂x = x'], 3.0), (['∂e/∂d = 1', '∂d/∂x = x'], 3.0), (['∂e/∂x = 1'], 1.0)]
>>> found["count"], found["sum"]
(3, 7.0)
"""

from __future__ import annotations

from typing import Any

from ..scalar.value import Value
from .trace import Contribution, trace

MAX_LISTED = 64  # paths written out; a graph of n diamonds has 2**n of them, all counted


def paths(output: Value, source: str, limit: int = MAX_LISTED) -> dict[str, Any]:
    """The paths from the node ``source`` (an id, "n0") to ``output``: ``count`` (all of
    them), ``paths`` (the first ``limit``, in the backward pass's order: each with its
    ``edges`` and ``nodes`` from the output down to the source, the local ``partials`` and
    ``rules`` of its edges, and their ``product``; ordered by the operands they pass through,
    the output's first operand first), the ``sum`` of the products listed,
    whether that is all of them (``complete``) and backprop's ``gradient``."""
    traced = trace(output)
    out = traced.nodes[-1].id
    into: dict[str, list[tuple[str, Contribution]]] = {}  # node -> (its user, the edge)
    for step in traced.steps:
        for edge in step.edges:
            into.setdefault(edge.parent, []).append((step.node, edge))
    count = _count(traced.nodes[-1].id, source, into, [n.id for n in traced.nodes])
    listed: list[dict[str, Any]] = []
    todo: list[tuple[str, tuple[tuple[str, Contribution], ...]]] = [(source, ())]
    while todo and len(listed) < limit:  # depth first, from the source up to the output
        node, walked = todo.pop()
        if node == out:
            listed.append(_path(walked))
            continue
        todo += [(user, ((user, edge), *walked)) for user, edge in reversed(into.get(node, []))]
    listed.sort(key=lambda p: [int(e.split(".")[1]) for e in p["edges"]])
    grads = {n.id: n.grad for n in traced.nodes}
    return {
        "count": count,
        "paths": listed,
        "sum": sum(p["product"] for p in listed),
        "complete": len(listed) == count,
        "gradient": grads[source],
    }


def _path(walked: tuple[tuple[str, Contribution], ...]) -> dict[str, Any]:
    """A path from the output down: its edges' ids and local derivatives, and their product
    in the backward pass's order (the seed 1, times each partial from the output down)."""
    product = 1.0
    for _, edge in walked:
        product *= edge.partial
    return {
        "edges": [f"{user}.{edge.operand}" for user, edge in walked],
        "nodes": [user for user, _ in walked] + ([walked[-1][1].parent] if walked else []),
        "partials": [edge.partial for _, edge in walked],
        "rules": [edge.rule for _, edge in walked],
        "product": product,
    }


def _count(
    out: str, source: str, into: dict[str, list[tuple[str, Contribution]]], order: list[str]
) -> int:
    """How many paths lead from ``source`` to ``out``: for each node in reverse forward
    order, the sum over its uses of its users' counts (no listing, so 2**60 is quick)."""
    reaching = {out: 1}
    for node in reversed(order):
        if node != out:
            reaching[node] = sum(reaching.get(user, 0) for user, _ in into.get(node, []))
    return reaching.get(source, 0)
