"""``topograd demo``: the lesson's example, told step by step: e = tanh(a*b + c) at a = 2,
b = -3, c = 10.

Forward values, the order of the backward pass, each step of it, every gradient beside its
central difference (and PyTorch's, where torch is installed), then three experiments.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..autograd.engine import topological_order
from ..scalar.value import Value
from ..verify.numeric import central_difference
from ..viz.draw import to_svg
from ..viz.trace import trace
from .common import check_folder, write_into


def add(commands: Any) -> None:
    demo = commands.add_parser(
        "demo",
        help="the lesson: e = tanh(a*b + c), forward, backward, checks, three experiments",
        description="Build e = tanh(a*b + c) at a=2, b=-3, c=10, run backprop step by step, "
        "check every gradient against central differences (and PyTorch where installed), try "
        "three experiments, and draw the graph as SVG.",
    )
    demo.add_argument("--out", default="out", help="folder for the drawing (default: out)")
    demo.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    check_folder(args.out, "--out")
    text, drawing = lesson()
    (path,) = write_into(args.out, "--out", {"lesson.svg": drawing.encode("utf-8")})
    print(text)
    print(f"\nThe graph, with every value and gradient, is drawn in {path}")
    return 0


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


def inputs_of(e: Value) -> dict[str, Value]:
    return {v.label: v for v in topological_order([e]) if not v.parents}


def torch_gradients(a: float, b: float, c: float) -> dict[str, float] | None:
    """PyTorch's de/da, de/db, de/dc in float64, or None where torch is not installed."""
    try:
        import torch
    except ImportError:
        return None
    leaves = {
        k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
        for k, v in zip("abc", (a, b, c))
    }
    torch.tanh(leaves["a"] * leaves["b"] + leaves["c"]).backward()  # type: ignore[no-untyped-call]
    return {k: float(t.grad) for k, t in leaves.items()}  # type: ignore[arg-type]


def _forward(e: Value) -> list[str]:
    nodes = topological_order([e])
    width = max(len(node.label) for node in nodes)
    lines = ["1. Forward pass: each node is computed after its operands.", ""]
    for node in nodes:
        how = f"{node.op}({', '.join(p.label.split(' ')[0] for p in node.parents)})"
        lines.append(
            f"   {node.label:<{width}}  {node.data:>20.17g}   {how if node.op else 'input'}"
        )
    order = " -> ".join(node.label.split(" ")[0] for node in reversed(nodes))
    return [
        *lines,
        "",
        "2. Backward pass order: the forward order reversed, so that a node runs only after",
        f"   every node that uses it has passed back its contribution: {order}",
    ]


def _gradients(e: Value) -> list[str]:
    nodes = list(reversed(topological_order([e])))
    width = max(len(node.label) for node in nodes)
    theirs = torch_gradients(*(inputs_of(e)[k].data for k in "abc"))
    head = f"   {'de/d':<{width + 5}} {'backprop':>22}  {'central difference':>22}  {'|diff|':>7}"
    if theirs is not None:
        head += f"  {'PyTorch float64':>22}"
    lines = [
        "4. Every gradient, checked against central differences of the forward pass:",
        "",
        head,
    ]
    for node in nodes:
        numeric = central_difference(e, node)
        gap = abs(node.grad - numeric)
        row = f"   de/d {node.label:<{width}} {node.grad:>22.17g}  {numeric:>22.17g}  {gap:>7.1e}"
        if theirs is not None and node.label in theirs:
            row += f"  {theirs[node.label]:>22.17g}"
        lines.append(row)
    if theirs is None:
        lines.append("   (install torch==2.13.0 to see PyTorch's gradients beside these)")
    return lines


def _gradients_at(a: float, b: float, c: float) -> tuple[Value, dict[str, float]]:
    e = lesson_graph(a, b, c)
    e.backward()
    return e, {k: v.grad for k, v in inputs_of(e).items()}


def _experiments() -> list[str]:
    _, g0 = _gradients_at(2, -3, 10)
    e1, g1 = _gradients_at(2, -3, 0)
    _, steep = _gradients_at(2, -3, 6)
    _, g2 = _gradients_at(0, -3, 10)
    e3, g3 = _gradients_at(2, -3, 100)
    g3 = {k: g + 0.0 for k, g in g3.items()}  # -0.0 (b times 0) printed as 0
    n1, n3 = e1.parents[0].data, e3.parents[0].data
    return [
        "5. Three experiments, each changing one input:",
        "",
        f"   c = 0     de/dc = {g1['c']:.3g}, was {g0['c']:.3g} at c = 10. n = a*b = {n1:g} lies",
        "             deeper in the flat tail of tanh; its steep region is n near 0",
        f"             (c = 6 makes n = 0 and de/dc = {steep['c']:g}).",
        f"   a = 0     de/db = {g2['b']:g}: b reaches e only through a*b, whose partial for b is",
        f"             a = 0; de/da = b * tanh'(n) = {g2['a']:.3g} still flows.",
        f"   c = 100   e = {e3.data!r}; de/da = {g3['a']:g}, de/db = {g3['b']:g}, "
        f"de/dc = {g3['c']:g}: tanh saturates,",
        f"             tanh'({n3:g}) = 1 - tanh({n3:g})² rounds to 0 in float64, and the output",
        "             stops responding to its inputs.",
    ]


def lesson() -> tuple[str, str]:
    """The demo's text, and its graph drawn as SVG."""
    e = lesson_graph()
    steps = trace(e)
    e.backward()
    lines = ["topograd demo: e = tanh(a*b + c) at a = 2, b = -3, c = 10", ""]
    lines += _forward(e)
    lines += [
        "",
        "3. Backward pass, step by step: each node's gradient, then each += into an operand:",
        "",
    ]
    lines += ["   " + row for row in steps.table().splitlines()]
    lines += ["", *_gradients(e), "", *_experiments()]
    return "\n".join(lines), to_svg(e)
