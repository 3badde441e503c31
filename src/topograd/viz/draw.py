"""The graph of a Value drawn: Graphviz DOT text, or SVG from topograd's own layout.

Both show a box per Value (label, data, grad), an op node between a Value and its operands, and
one edge per operand: ``x * x`` has two edges from ``x``. A box's fill is its gradient (blue
below 0, red above, deeper the larger, white at 0: ``gradient_fill``, the playground's colours
too); its shape is its role: an input's corners are round, a computed Value's square, and a
constant has round corners and a thin grey outline. Ids are stable (see ``graph.py``):
a Value's box is ``tg-n4``, its op node ``tg-n4-op``, the edge of its k-th operand ``tg-n4.k``
and the edge from op to box ``tg-n4.out``; each also carries ``data-node`` / ``data-edge``.

>>> import topograd as tg
>>> x = tg.Value(3.0, label="x")
>>> svg = to_svg(x * x)
>>> svg.count('class="edge operand"'), 'id="tg-n1-op"' in svg
(2, True)
"""

from __future__ import annotations

import html
import math
from colorsys import hls_to_rgb
from dataclasses import dataclass

from ..scalar.value import Value
from .graph import EdgeInfo, NodeInfo, describe
from .layout import Placed, layout

CHAR = 7.4  # width of a character of the 12px monospace font
LINE = 15.0
MARGIN = 12.0

# A box's role, by its shape and outline: corner radius, stroke, stroke width.
INPUT = (12.0, "#55606b", 1.5)
CONSTANT = (12.0, "#8a929b", 1.0)
COMPUTED = (2.0, "#55606b", 1.5)
OP = ("#ffffff", "#55606b")
DECADES = 4  # a gradient this many decades below the largest is drawn as pale as 0
LEGEND = (
    "Fill: the gradient that has arrived, blue below 0, red above, deeper the larger (white: 0 "
    "or none yet). Corners: round for an input (a thin grey outline: a constant), square for a "
    "computed value."
)


def gradient_fill(grad: float, largest: float) -> str:
    """A box's fill for its gradient: blue below 0, red above, deeper the larger next to the
    largest in the graph (on a log scale over four decades, so that 1e-3 and 1 both show),
    never too deep for its text; white for 0, nan, inf, or a graph without gradients. The
    playground's page computes the same (nodes.js), a test holds the two together.

    >>> gradient_fill(-1.0, 1.0), gradient_fill(0.001, 1.0), gradient_fill(0.0, 1.0)
    ('#84b5f5', '#fcd7d5', '#ffffff')
    """
    if not math.isfinite(grad) or grad == 0 or not largest > 0:
        return "#ffffff"
    ratio = abs(grad) / largest  # 0 where it underflows: as pale as can be
    depth = max(0.0, min(1.0, 1 + math.log10(ratio) / DECADES)) if ratio > 0 else 0.0
    light = math.floor(96 - 22 * depth + 0.5)
    red, green, blue = hls_to_rgb((4 if grad > 0 else 214) / 360, light / 100, 0.85)
    return "#" + "".join(f"{math.floor(255 * c + 0.5):02x}" for c in (red, green, blue))


def largest_gradient(nodes: list[NodeInfo]) -> float:
    """The largest finite |gradient| of the graph: the scale of its colours."""
    return max((abs(n.grad) for n in nodes if math.isfinite(n.grad)), default=0.0)


def number(x: float) -> str:
    """Short and exact enough for a picture: 6 significant digits."""
    return f"{x:.6g}"


def _lines(node: NodeInfo) -> list[str]:
    lines = [node.name] if node.label else []
    return [*lines, f"data {number(node.data)}", f"grad {number(node.grad)}"]


def _op_size(op: str) -> tuple[float, float]:
    return max(30.0, CHAR * len(op) + 16.0), 26.0


@dataclass(frozen=True)
class _Scene:
    nodes: list[NodeInfo]
    edges: list[EdgeInfo]
    sizes: dict[str, tuple[float, float]]
    wires: list[tuple[str, str, str]]  # (id, source vertex, target vertex) to lay out and draw


def _scene(output: Value) -> _Scene:
    """What to lay out: a box per Value, an op vertex per computed Value, their edges."""
    nodes, edges = describe(output)
    sizes: dict[str, tuple[float, float]] = {}
    wires = []
    for n in nodes:
        lines = _lines(n)
        sizes[n.id] = (CHAR * max(map(len, lines)) + 16.0, LINE * len(lines) + 10.0)
        if n.op:
            sizes[f"{n.id}-op"] = _op_size(n.op)
            wires.append((f"{n.id}.out", f"{n.id}-op", n.id))
    wires = [(e.id, e.source, f"{e.target}-op") for e in edges] + wires
    return _Scene(nodes, edges, sizes, wires)


def to_svg(output: Value, down: bool = False) -> str:
    """The graph as a standalone SVG document, laid out left to right (``down``: top to
    bottom, the inputs at the top, for a narrow screen); deterministic."""
    if not isinstance(output, Value):
        raise TypeError(f"to_svg() takes a Value, got {type(output).__name__}")
    scene = _scene(output)
    placed = _placed(scene, down)
    width, height = placed.width + 2 * MARGIN, placed.height + 2 * MARGIN
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="topograd-graph" '
        f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
        'font-family="DejaVu Sans Mono, Menlo, Consolas, monospace" font-size="12"'
        + (' data-down="true">' if down else ">"),
        # the arrow in the drawing's units, not the edge's width: the same on every edge
        '<defs><marker id="tg-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="11" '
        'markerHeight="11" markerUnits="userSpaceOnUse" orient="auto">'
        '<path d="M0,1 L9,5 L0,9 z" fill="#55606b"/></marker></defs>',
        '<rect width="100%" height="100%" fill="#ffffff"/>',
        '<g class="edges">',
    ]
    offsets = _parallel_offsets(scene.wires)
    for (wire_id, source, target), route in zip(scene.wires, placed.routes):
        ends = _ends(route, offsets[wire_id], scene.sizes[source], scene.sizes[target], down)
        kind = "out" if wire_id.endswith(".out") else "operand"
        node = wire_id.split(".")[0]
        parts.append(
            f'<path id="tg-{wire_id}" class="edge {kind}" data-edge="{wire_id}" data-node="{node}" '
            f'd="{_curve(ends, down)}" fill="none" stroke="#55606b" '
            'stroke-width="1.4" marker-end="url(#tg-arrow)"/>'
        )
    parts.append("</g>")
    parts.append('<g class="nodes">')
    largest = largest_gradient(scene.nodes)
    for n in scene.nodes:
        if n.op:
            parts.append(_op_svg(n, placed.centres[f"{n.id}-op"], scene.sizes[f"{n.id}-op"]))
        parts.append(_box_svg(n, placed.centres[n.id], scene.sizes[n.id], largest))
    parts += ["</g>", "</svg>"]
    return "\n".join(parts) + "\n"


def _placed(scene: _Scene, down: bool) -> Placed:
    """The scene laid out, moved in by the margin; ``down`` lays it out on its side (each
    box's width its height) and turns the result, so that the layers run top to bottom."""
    turn = (lambda p: (p[1], p[0])) if down else (lambda p: p)
    sizes = {v: turn(size) for v, size in scene.sizes.items()}
    placed = layout(sizes, [(s, t) for _, s, t in scene.wires])

    def at(point: tuple[float, float]) -> tuple[float, float]:
        x, y = turn(point)
        return x + MARGIN, y + MARGIN

    width, height = turn((placed.width, placed.height))
    centres = {v: at(c) for v, c in placed.centres.items()}
    return Placed(centres, [[at(p) for p in route] for route in placed.routes], width, height)


def _ends(
    route: list[tuple[float, float]],
    shift: float,
    source: tuple[float, float],
    target: tuple[float, float],
    down: bool,
) -> list[tuple[float, float]]:
    """An edge's points from its source's side to its target's, moved aside by ``shift`` (the
    edges between the same two vertices, x * x, stay apart all the way). A bend within a box
    (where the edge enters the layer of a narrower one) is left out, so that the edge never
    turns back at its end and its arrow points into its target."""
    axis = 1 if down else 0
    points = [(x + shift, y) if down else (x, y + shift) for x, y in route]
    start, end = list(points[0]), list(points[-1])
    start[axis] += source[axis] / 2
    end[axis] -= target[axis] / 2 + 2
    between = [p for p in points[1:-1] if start[axis] <= p[axis] <= end[axis]]
    return [(start[0], start[1]), *between, (end[0], end[1])]


class Drawing:
    """What ``draw`` returns: the graph's SVG, shown inline by Jupyter (and anything that
    honours IPython's display protocol); ``svg`` is the text ``to_svg`` gives."""

    def __init__(self, svg: str) -> None:
        self.svg = svg

    def _repr_svg_(self) -> str:
        return self.svg

    def _repr_html_(self) -> str:  # a wide graph scrolls in its cell rather than shrinking
        return (
            f'<div class="topograd-drawing" style="overflow:auto">{self.svg}</div>'
            f'<p class="topograd-legend" style="font-size:12px;opacity:0.8">{LEGEND}</p>'
        )

    def __repr__(self) -> str:
        return f"<topograd drawing, {len(self.svg):,} characters of SVG: shown in a notebook>"


def draw(output: Value) -> Drawing:
    """The graph of ``output``, drawn for a notebook: ``tg.draw(e)`` as a cell's last line
    shows it inline. The SVG is ``to_svg(output)``."""
    return Drawing(to_svg(output))


def _parallel_offsets(wires: list[tuple[str, str, str]]) -> dict[str, float]:
    """Several edges between the same two vertices (x * x) are drawn side by side, 7 px
    apart, closer where many (x + x + ... as one Σ) would spread beyond an op's height."""
    groups: dict[tuple[str, str], list[str]] = {}
    for wire_id, source, target in wires:
        groups.setdefault((source, target), []).append(wire_id)
    offsets = {}
    for ids in groups.values():
        apart = min(7.0, 24.0 / max(1, len(ids) - 1))
        for k, wire_id in enumerate(ids):
            offsets[wire_id] = (k - (len(ids) - 1) / 2) * apart
    return offsets


def _curve(points: list[tuple[float, float]], down: bool = False) -> str:
    """A smooth path through the points, leaving and arriving horizontally (``down``:
    vertically)."""
    (x, y), *rest = points
    d = [f"M{x:.1f},{y:.1f}"]
    for nx, ny in rest:
        if down:
            mid = (ny - y) / 2
            d.append(f"C{x:.1f},{y + mid:.1f} {nx:.1f},{ny - mid:.1f} {nx:.1f},{ny:.1f}")
        else:
            mid = (nx - x) / 2
            d.append(f"C{x + mid:.1f},{y:.1f} {nx - mid:.1f},{ny:.1f} {nx:.1f},{ny:.1f}")
        x, y = nx, ny
    return " ".join(d)


def _box_svg(
    n: NodeInfo, centre: tuple[float, float], size: tuple[float, float], largest: float
) -> str:
    corner, stroke, width = COMPUTED if n.op else INPUT if n.label else CONSTANT
    fill = gradient_fill(n.grad, largest)
    kind = "computed" if n.op else "input" if n.label else "constant"
    (cx, cy), (w, h) = centre, size
    x, y = cx - w / 2, cy - h / 2
    texts = []
    for k, line in enumerate(_lines(n)):
        bold = ' font-weight="bold"' if n.label and k == 0 else ""
        role = "label" if n.label and k == 0 else line.split(" ")[0]
        texts.append(
            f'<text class="{role}" x="{x + 8:.1f}" y="{y + 5 + LINE * (k + 1) - 3:.1f}"{bold} '
            f'fill="#1d2329">{html.escape(line)}</text>'
        )
    return (
        f'<g id="tg-{n.id}" class="node value {kind}" data-node="{n.id}">'
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{corner:g}" '
        f'fill="{fill}" stroke="{stroke}" stroke-width="{width:g}"/>' + "".join(texts) + "</g>"
    )


def _op_svg(n: NodeInfo, centre: tuple[float, float], size: tuple[float, float]) -> str:
    (cx, cy), (w, h) = centre, size
    fill, stroke = OP
    return (
        f'<g id="tg-{n.id}-op" class="node op" data-node="{n.id}">'
        f'<ellipse cx="{cx:.1f}" cy="{cy:.1f}" rx="{w / 2:.1f}" ry="{h / 2:.1f}" '
        f'fill="{fill}" stroke="{stroke}" stroke-width="1.3"/>'
        f'<text x="{cx:.1f}" y="{cy + 4:.1f}" text-anchor="middle" fill="#1d2329">'
        f"{html.escape(n.op)}</text></g>"
    )


def to_dot(output: Value) -> str:
    """The graph as Graphviz DOT text, left to right, with the same ids as ``to_svg``.

    >>> import topograd as tg
    >>> print(to_dot(tg.Value(2.0, label="x").tanh()), end="")
    digraph topograd {
      rankdir=LR;
      node [fontname="monospace", fontsize=11];
      "n0" [shape=record, label="{x|data 2|grad 0}"];
      "n1" [shape=record, label="{e|data 0.964028|grad 0}"];
      "n1-op" [shape=ellipse, label="tanh"];
      "n0" -> "n1-op" [id="n1.0"];
      "n1-op" -> "n1" [id="n1.out"];
    }
    """
    if not isinstance(output, Value):
        raise TypeError(f"to_dot() takes a Value, got {type(output).__name__}")
    scene = _scene(output)
    lines = ["digraph topograd {", "  rankdir=LR;", '  node [fontname="monospace", fontsize=11];']
    for n in scene.nodes:
        record = "|".join(_dot_escape(line) for line in _lines(n))
        lines.append(f'  "{n.id}" [shape=record, label="{{{record}}}"];')
        if n.op:
            lines.append(f'  "{n.id}-op" [shape=ellipse, label="{_dot_escape(n.op)}"];')
    lines += [f'  "{s}" -> "{t}" [id="{wire_id}"];' for wire_id, s, t in scene.wires]
    return "\n".join([*lines, "}"]) + "\n"


def _dot_escape(text: str) -> str:
    """Escape what is special in a record label: braces, bars, angle brackets, quotes."""
    out = text.replace("\\", "\\\\")
    for ch in '{}|<>"':
        out = out.replace(ch, "\\" + ch)
    return out
