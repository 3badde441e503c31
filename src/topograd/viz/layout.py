"""A layered (Sugiyama-style) layout of a DAG, left to right, in pure Python.

1. Layers: each vertex one layer right of its furthest predecessor; sources are then pulled
   right, next to their first user, so that constants do not stretch across the page.
2. Edges across a few layers get a dummy vertex per layer crossed, so that they are ordered
   and routed like the others; edges leaving one vertex share their dummies while they run
   side by side (a bus). An edge across more than ``LONG`` layers (a name used again far
   away) takes no part in the layers: it runs in a lane above or below the drawing
   (``lanes.py``), so that its cost and its crossings do not grow with its length.
3. Order within layers: barycentre sweeps, right then left, keeping the order with the fewest
   crossings (counted by inversions, O(E log E) per pair of layers); they stop as soon as a
   round trip finds no fewer.
4. Coordinates: layers side by side; in a layer, vertices move towards the mean height of their
   neighbours (a hub of many neighbours weighed less) while keeping their order and a
   minimum gap.

Deterministic: the same graph gives the same picture.

>>> box = {"a": (40, 20), "b": (40, 20), "c": (40, 20)}
>>> placed = layout(box, [("a", "c"), ("b", "c")])
>>> (ax, ay), (bx, by), (cx, cy) = (placed.centres[v] for v in "abc")
>>> ax < cx, ay != by
(True, True)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from .lanes import route_long

LAYER_GAP = 48.0  # horizontal space between layers
VERTEX_GAP = 18.0  # vertical space between vertices of a layer
LONG = 4  # an edge from layer i to a layer beyond i + LONG runs in a lane
ROUND_TRIPS = 6  # of barycentre sweeps, at most
LEVEL = 2.0  # a route within this height of its last bend runs level
HUB = 4  # a vertex of more neighbours pulls each of them less (``_pulled``)


@dataclass(frozen=True)
class Placed:
    centres: dict[str, tuple[float, float]]  # every vertex's centre
    routes: list[list[tuple[float, float]]]  # per edge, in input order: the points it bends at
    width: float
    height: float


def layout(sizes: Mapping[str, tuple[float, float]], edges: Sequence[tuple[str, str]]) -> Placed:
    """Place vertices of the given (width, height) and route the edges, sources on the left."""
    layer = _layers(list(sizes), edges)
    long = {k for k, (u, v) in enumerate(edges) if layer[v] - layer[u] > LONG}
    chains, size = _with_dummies([e for k, e in enumerate(edges) if k not in long], layer, sizes)
    layers = _order(_initial_layers(layer, chains), chains)
    centres, columns, height = _coordinates(layers, chains, size)
    low = min(layer.values(), default=0)
    # a long edge's lane runs from the left of the layer after its source to the right of the
    # layer before its target
    far = [
        (k, u, v, columns[layer[u] - low + 1][0], columns[layer[v] - low - 1][1])
        for k, (u, v) in enumerate(edges)
        if k in long
    ]
    column = {v: columns[layer[v] - low] for v in sizes}
    laned = route_long(far, centres, column, height, LAYER_GAP)
    near = [k for k in range(len(edges)) if k not in long]  # in the order of ``chains``
    routes = dict(laned.routes)
    for k, chain in zip(near, chains, strict=True):
        points = _through_gaps(chain, centres, [columns[layer[v] - low] for v in chain])
        routes[k] = [(x, y + laned.shift) for x, y in _bends(points)]
    placed = {v: (centres[v][0], centres[v][1] + laned.shift) for v in sizes}
    width = columns[-1][1] if columns else 0.0
    return Placed(placed, [routes[k] for k in range(len(edges))], width, laned.height)


def _layers(vertices: list[str], edges: Sequence[tuple[str, str]]) -> dict[str, int]:
    preds: dict[str, list[str]] = defaultdict(list)
    succs: dict[str, list[str]] = defaultdict(list)
    for u, v in edges:
        preds[v].append(u)
        succs[u].append(v)
    layer: dict[str, int] = {}
    for v in _topological(vertices, preds, succs):
        layer[v] = max((layer[u] + 1 for u in preds[v]), default=0)
    for v in vertices:
        if not preds[v] and succs[v]:
            layer[v] = min(layer[w] for w in succs[v]) - 1
    return layer


def _topological(
    vertices: list[str], preds: Mapping[str, list[str]], succs: Mapping[str, list[str]]
) -> list[str]:
    waiting = {v: len(preds[v]) for v in vertices}
    ready = [v for v in vertices if not waiting[v]]
    order = []
    while ready:
        v = ready.pop(0) if len(ready) < 64 else ready.pop()
        order.append(v)
        for w in succs[v]:
            waiting[w] -= 1
            if not waiting[w]:
                ready.append(w)
    return order


def _with_dummies(
    edges: Sequence[tuple[str, str]],
    layer: dict[str, int],
    sizes: Mapping[str, tuple[float, float]],
) -> tuple[list[list[str]], dict[str, tuple[float, float]]]:
    """Each edge as a chain of vertices one layer apart; edges from one vertex share the dummy
    of each layer they cross (a bus). Dummies are thin and short."""
    size = dict(sizes)
    chains = []
    for u, v in edges:
        chain = [u]
        for step in range(layer[u] + 1, layer[v]):
            dummy = f"\0{u}\0{step}"
            layer[dummy] = step
            size[dummy] = (0.0, 6.0)
            chain.append(dummy)
        chains.append([*chain, v])
    return chains, size


def _initial_layers(layer: dict[str, int], chains: list[list[str]]) -> list[list[str]]:
    low = min(layer.values(), default=0)
    layers: list[list[str]] = [[] for _ in range(max(layer.values(), default=0) - low + 1)]
    for v, i in layer.items():
        layers[i - low].append(v)
    return layers


def _segments(chains: list[list[str]]) -> list[tuple[str, str]]:
    """Each step of each chain, a bus's steps once (x * x keeps both of its edges)."""
    segments, shared = [], set()
    for chain in chains:
        for segment in pairwise(chain):
            if len(chain) == 2 or segment not in shared:
                segments.append(segment)
                shared.add(segment)
    return segments


def _order(layers: list[list[str]], chains: list[list[str]]) -> list[list[str]]:
    """Barycentre sweeps; the best order seen by crossing count."""
    up: dict[str, list[str]] = defaultdict(list)
    down: dict[str, list[str]] = defaultdict(list)
    for a, b in _segments(chains):
        down[a].append(b)
        up[b].append(a)
    best, fewest = [list(layer) for layer in layers], _crossings(layers, down)
    for _ in range(ROUND_TRIPS if fewest else 0):
        for i in range(1, len(layers)):  # rightwards: edges arrive from the fixed layer
            position = {v: p for p, v in enumerate(layers[i - 1])}
            layers[i] = _by_barycentre(layers[i], up, position)
        for i in range(len(layers) - 2, -1, -1):  # leftwards: edges leave to the fixed layer
            position = {v: p for p, v in enumerate(layers[i + 1])}
            layers[i] = _by_barycentre(layers[i], down, position)
        count = _crossings(layers, down)
        if count >= fewest:
            break
        best, fewest = [list(layer) for layer in layers], count
    return best


def _by_barycentre(
    vertices: list[str], neighbours: Mapping[str, list[str]], position: Mapping[str, int]
) -> list[str]:
    """Sorted by the mean position of their neighbours in the fixed layer (stable: a vertex
    without neighbours there keeps its place)."""
    keys = []
    for p, v in enumerate(vertices):
        near = neighbours.get(v)
        keys.append((sum(position[n] for n in near) / len(near) if near else float(p), p, v))
    keys.sort()
    return [v for _, _, v in keys]


def _crossings(layers: list[list[str]], down: Mapping[str, list[str]]) -> int:
    total = 0
    for left, right in pairwise(layers):
        position = {v: p for p, v in enumerate(right)}
        ends = []
        for v in left:
            targets = down.get(v, ())
            if len(targets) == 1:
                ends.append(position[targets[0]])
            else:
                ends += sorted(position[w] for w in targets)
        total += _inversions(ends, len(right))
    return total


def _inversions(xs: list[int], bound: int) -> int:
    """Pairs i < j with xs[i] > xs[j], 0 <= x < bound, with a Fenwick tree."""
    tree = [0] * (bound + 1)
    count = 0
    for seen, x in enumerate(xs):
        i, not_greater = x + 1, 0
        while i > 0:
            not_greater += tree[i]
            i -= i & -i
        count += seen - not_greater
        i = x + 1
        while i <= bound:
            tree[i] += 1
            i += i & -i
    return count


def _coordinates(
    layers: list[list[str]],
    chains: list[list[str]],
    size: Mapping[str, tuple[float, float]],
) -> tuple[dict[str, tuple[float, float]], list[tuple[float, float]], float]:
    """Every centre, each layer's left and right, and the height of the whole."""
    neighbours: dict[str, list[str]] = defaultdict(list)
    for a, b in _segments(chains):
        neighbours[a].append(b)
        neighbours[b].append(a)
    ys = {v: y for layer in layers for v, y in _stacked(layer, size).items()}
    for _ in range(8):
        for layer in layers:
            wanted = {v: _pulled(v, neighbours, ys) for v in layer}
            ys.update(_spread(layer, wanted, size))
    top = min((ys[v] - size[v][1] / 2 for v in ys), default=0.0)
    xs, x, columns = {}, 0.0, []
    for layer in layers:
        width = max((size[v][0] for v in layer), default=0.0)
        for v in layer:
            xs[v] = x + width / 2
        columns.append((x, x + width))
        x += width + LAYER_GAP
    bottom = max((ys[v] + size[v][1] / 2 for v in ys), default=0.0)
    centres = {v: (xs[v], ys[v] - top) for v in ys}
    return centres, columns, bottom - top


def _stacked(layer: list[str], size: Mapping[str, tuple[float, float]]) -> dict[str, float]:
    ys, y = {}, 0.0
    for v in layer:
        ys[v] = y + size[v][1] / 2
        y += size[v][1] + VERTEX_GAP
    return ys


def _pulled(v: str, neighbours: Mapping[str, list[str]], ys: Mapping[str, float]) -> float:
    """Where ``v``'s neighbours pull it: their mean height, a hub (a neighbour of more than
    ``HUB`` neighbours, the Σ of 60 terms) weighed by ``HUB`` over its number of them, so that
    it holds each of its own less than the one product that term belongs to, and the terms
    stay beside their inputs."""
    near = neighbours[v]
    if not near:
        return ys[v]
    weights = [min(1.0, HUB / len(neighbours[n])) for n in near]
    return sum(w * ys[n] for w, n in zip(weights, near)) / sum(weights)


def _mean(values: list[float], default: float) -> float:
    return sum(values) / len(values) if values else default


def _spread(
    layer: list[str], wanted: Mapping[str, float], size: Mapping[str, tuple[float, float]]
) -> dict[str, float]:
    """Positions as near ``wanted`` as the order and the gaps allow: a sweep down, a sweep up,
    and their average, shifted so that the layer keeps its mean where its vertices want it."""
    want = [wanted[v] for v in layer]
    gaps = [(size[a][1] + size[b][1]) / 2 + VERTEX_GAP for a, b in pairwise(layer)]
    down = want[:1]
    for w, g in zip(want[1:], gaps):
        down.append(max(w, down[-1] + g))
    up = want[-1:]
    for w, g in zip(reversed(want[:-1]), reversed(gaps)):
        up.append(min(w, up[-1] - g))
    up.reverse()
    ys = [(a + b) / 2 for a, b in zip(down, up)]
    for i, g in enumerate(gaps, 1):  # the average may still be too tight: push down
        ys[i] = max(ys[i], ys[i - 1] + g)
    shift = _mean(want, 0.0) - _mean(ys, 0.0)
    return {v: y + shift for v, y in zip(layer, ys)}


def _through_gaps(
    chain: list[str],
    centres: Mapping[str, tuple[float, float]],
    columns: list[tuple[float, float]],
) -> list[tuple[float, float]]:
    """An edge runs level out of its source's layer, through each layer it crosses, and into
    its target's layer, and changes height only in the gaps between layers, where no vertex is:
    so it crosses no box (a curve from centre to centre would cut across half-columns, where a
    wider neighbour of its end may be)."""
    (x, y), right = centres[chain[0]], columns[0][1]
    points = [(x, y), (right, y)] if right > x else [(x, y)]
    for v, (left, right) in zip(chain[1:-1], columns[1:-1]):
        level = centres[v][1]
        points += [(left, level), (right, level)] if right > left else [(left, level)]
    x, y = centres[chain[-1]]
    left = columns[-1][0]
    return [*points, *([(left, y)] if left < x else []), (x, y)]


def _bends(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The route with each level run (along dummies, within ``LEVEL`` of the height where it
    started) cut to its ends: the drawing passes straight through it anyway."""
    kept = points[:1]
    for (x, y), (_, after) in pairwise(points[1:]):
        if abs(y - kept[-1][1]) > LEVEL or abs(after - kept[-1][1]) > LEVEL:
            kept.append((x, y))
    return [*kept, points[-1]] if len(points) > 1 else kept
