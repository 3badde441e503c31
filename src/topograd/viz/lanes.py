"""Lanes for the long edges of a layered drawing.

An edge across many layers (a name used again far away) takes no part in the layers: it leaves
its source level to the edge of the source's layer, turns in the gap after it into a lane above
or below every vertex, runs level there, and turns back in the gap before its target's layer.
It crosses no vertex, and costs nothing per layer it passes. The edges from one vertex share
one run (a bus, branching off to each target); runs that do not overlap, nor turn in the same
gap, share a lane (first fit, by where they start); a run goes above the drawing when the mean
height of its ends is in the upper half, else below.

>>> centres = {"a": (10.0, 10.0), "b": (500.0, 10.0)}
>>> columns = {"a": (0.0, 20.0), "b": (490.0, 510.0)}
>>> placed = route_long([(0, "a", "b", 68.0, 442.0)], centres, columns, 40.0, 48.0)
>>> placed.shift, placed.height, placed.routes[0]
(10.0, 50.0, [(10.0, 20.0), (20.0, 20.0), (68.0, 0.0), (442.0, 0.0), (490.0, 20.0), (500.0, 20.0)])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

LANE_GAP = 10.0  # between lanes, and between the vertices and the nearest lane

Point = tuple[float, float]
LongEdge = tuple[int, str, str, float, float]  # key, source, target, x of the lane's start, end


@dataclass(frozen=True)
class Laned:
    routes: dict[int, list[Point]]  # per key: the points the edge bends at, moved by ``shift``
    shift: float  # how far every vertex moves down to leave room for the lanes above
    height: float  # of the whole drawing, lanes included


@dataclass(frozen=True)
class _Run:
    source: str
    above: bool
    start: float
    end: float


def route_long(
    edges: Sequence[LongEdge],
    centres: Mapping[str, Point],
    columns: Mapping[str, tuple[float, float]],
    height: float,
    turn: float,
) -> Laned:
    """Lanes for ``edges``, among vertices at ``centres`` whose layers span ``columns``
    (left, right) across, in a drawing ``height`` tall whose gaps between layers (where the
    edges turn) are ``turn`` wide."""
    runs = _runs(edges, centres, height)
    lane = {
        side: _first_fit([r for r in runs.values() if r.above == side], turn)
        for side in (True, False)
    }
    shift = LANE_GAP * (max(lane[True].values(), default=-1) + 1)
    below = LANE_GAP * (max(lane[False].values(), default=-1) + 1)
    routes = {}
    for key, source, target, _, end in edges:
        run = runs[source]
        k = lane[run.above][source]
        y = -LANE_GAP * (k + 1) if run.above else height + LANE_GAP * (k + 1)
        (x0, y0), (x1, y1) = centres[source], centres[target]
        points = [(x0, y0), (columns[source][1], y0), (run.start, y), (end, y)]
        points += [(columns[target][0], y1), (x1, y1)]
        routes[key] = [(x, py + shift) for x, py in points]
    return Laned(routes, shift, shift + height + below)


def _runs(
    edges: Sequence[LongEdge], centres: Mapping[str, Point], height: float
) -> dict[str, _Run]:
    """One run per source: from its start to its furthest target, on the side where its ends
    mostly are."""
    ends: dict[str, list[float]] = {}
    reach: dict[str, tuple[float, float]] = {}
    for _, source, target, start, end in edges:
        ends.setdefault(source, [centres[source][1]]).append(centres[target][1])
        reach[source] = (start, max(end, reach.get(source, (start, end))[1]))
    return {s: _Run(s, sum(ys) / len(ys) < height / 2, *reach[s]) for s, ys in sorted(ends.items())}


def _first_fit(runs: list[_Run], turn: float) -> dict[str, int]:
    """Each run's lane, 0 nearest the vertices: the first whose last run ends before it starts,
    and turns out of the lane in an earlier gap than this one turns in (else the two would
    read as one run crossing itself)."""
    last_end: list[float] = []
    lane = {}
    for run in sorted(runs, key=lambda r: (r.start, r.end, r.source)):
        k = next((i for i, e in enumerate(last_end) if e + 2 * turn < run.start), len(last_end))
        if k == len(last_end):
            last_end.append(run.end)
        last_end[k] = run.end
        lane[run.source] = k
    return lane
