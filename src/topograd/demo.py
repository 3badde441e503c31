"""The lesson's example, told step by step: e = tanh(a*b + c) at a = 2, b = -3, c = 10."""

from __future__ import annotations

from .engine import topological_order
from .numeric import central_difference
from .value import Value


def lesson_graph(a: float = 2.0, b: float = -3.0, c: float = 10.0) -> Value:
    """e = tanh(a*b + c), every node labelled."""
    va, vb, vc = Value(a, label="a"), Value(b, label="b"), Value(c, label="c")
    d = va * vb
    d.label = "d = a*b"
    n = d + vc
    n.label = "n = d + c"
    e = n.tanh()
    e.label = "e = tanh(n)"
    return e


def run() -> str:
    """The demo's text: the forward values, then every gradient beside its numerical check."""
    e = lesson_graph()
    e.backward()
    nodes = topological_order([e])
    width = max(len(node.label) for node in nodes)
    lines = [
        "topograd: e = tanh(a*b + c) at a = 2, b = -3, c = 10",
        "",
        "Forward pass, each node after its parents:",
    ]
    for node in nodes:
        how = f"{node.op}({', '.join(p.label.split(' ')[0] for p in node.parents)})"
        lines.append(
            f"  {node.label:<{width}}  {node.data:>22.17g}   {how if node.op else 'input'}"
        )
    lines += [
        "",
        "Backward pass: de/dnode from backprop, and by central differences",
        f"  {'node':<{width}}  {'backprop':>22}  {'central difference':>22}  {'difference':>10}",
    ]
    for node in reversed(nodes):
        numeric = central_difference(e, node)
        gap = abs(node.grad - numeric)
        lines.append(
            f"  {node.label:<{width}}  {node.grad:>22.17g}  {numeric:>22.17g}  {gap:>10.1e}"
        )
    return "\n".join(lines)
