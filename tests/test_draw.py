"""The drawings: SVG structure and ids, DOT text, escaping, and the layout's geometry."""

from __future__ import annotations

import itertools
import math
import random
import re
import xml.etree.ElementTree as ET

import pytest

import topograd as tg
from topograd.cli.demo import lesson_graph
from topograd.viz.draw import MARGIN, gradient_fill, to_dot, to_svg
from topograd.viz.layout import LONG, VERTEX_GAP, layout

SVG = "{http://www.w3.org/2000/svg}"


def lesson() -> tg.Value:
    e = lesson_graph()
    e.backward()
    return e


def parsed(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def test_lesson_svg_structure() -> None:
    root = parsed(to_svg(lesson()))
    groups = {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}
    assert sorted(groups) == sorted(
        ["tg-n0", "tg-n1", "tg-n2", "tg-n3", "tg-n4", "tg-n5", "tg-n2-op", "tg-n4-op", "tg-n5-op"]
    )
    texts = {i: [t.text for t in g.iter(f"{SVG}text")] for i, g in groups.items()}
    assert texts["tg-n0"] == ["a", "data 2", "grad -0.00402285"]
    assert texts["tg-n5"] == ["e = tanh(n)", "data 0.999329", "grad 1"]
    assert texts["tg-n5-op"] == ["tanh"]
    paths = {
        p.get("id"): p for p in root.iter(f"{SVG}path") if p.get("class", "").startswith("edge")
    }
    assert sorted(paths) == sorted(
        [
            "tg-n2.0",
            "tg-n2.1",
            "tg-n4.0",
            "tg-n4.1",
            "tg-n5.0",
            "tg-n2.out",
            "tg-n4.out",
            "tg-n5.out",
        ]
    )
    assert {p.get("data-node") for p in paths.values()} == {"n2", "n4", "n5"}


def test_one_edge_per_operand() -> None:
    x = tg.Value(3.0, label="x")
    svg = to_svg(x * x)
    assert len(re.findall(r'class="edge operand"', svg)) == 2
    assert 'id="tg-n1.0"' in svg and 'id="tg-n1.1"' in svg


def test_the_same_graph_gives_the_same_svg() -> None:
    assert to_svg(lesson()) == to_svg(lesson())


def test_labels_are_escaped() -> None:
    x = tg.Value(1.0, label='<b>&"x"{|}</b>')
    y = x * 2
    root = parsed(to_svg(y))  # well-formed XML
    assert any(t.text == '<b>&"x"{|}</b>' for t in root.iter(f"{SVG}text"))
    assert r'label="{\<b\>&\"x\"\{\|\}\</b\>|data 1|grad 0}"' in to_dot(y)


def test_dot_of_a_small_graph() -> None:
    x = tg.Value(3.0, label="x")
    y = x * x + x
    y.backward()
    assert to_dot(y) == (
        "digraph topograd {\n"
        "  rankdir=LR;\n"
        '  node [fontname="monospace", fontsize=11];\n'
        '  "n0" [shape=record, label="{x|data 3|grad 7}"];\n'
        '  "n1" [shape=record, label="{d|data 9|grad 1}"];\n'
        '  "n1-op" [shape=ellipse, label="*"];\n'
        '  "n2" [shape=record, label="{e|data 12|grad 1}"];\n'
        '  "n2-op" [shape=ellipse, label="+"];\n'
        '  "n0" -> "n1-op" [id="n1.0"];\n'
        '  "n0" -> "n1-op" [id="n1.1"];\n'
        '  "n1" -> "n2-op" [id="n2.0"];\n'
        '  "n0" -> "n2-op" [id="n2.1"];\n'
        '  "n1-op" -> "n1" [id="n1.out"];\n'
        '  "n2-op" -> "n2" [id="n2.out"];\n'
        "}\n"
    )


@pytest.mark.parametrize("draw", [to_svg, to_dot])
def test_drawing_refuses_what_is_not_a_value(draw) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError, match="Value"):
        draw(3.0)


def random_dag(n: int, seed: int) -> tuple[dict[str, tuple[float, float]], list[tuple[str, str]]]:
    rng = random.Random(seed)
    sizes = {f"v{i}": (rng.uniform(20, 120), rng.uniform(20, 50)) for i in range(n)}
    edges = [
        (f"v{rng.randrange(j)}", f"v{j}") for j in range(1, n) for _ in range(rng.randint(1, 2))
    ]
    return sizes, edges


@pytest.mark.parametrize("seed", range(5))
def test_layout_flows_left_to_right_without_overlaps(seed: int) -> None:
    sizes, edges = random_dag(60, seed)
    placed = layout(sizes, edges)
    for (u, v), route in zip(edges, placed.routes):
        assert placed.centres[u][0] < placed.centres[v][0]
        assert route[0] == placed.centres[u] and route[-1] == placed.centres[v]
        assert all(a[0] < b[0] for a, b in itertools.pairwise(route))
    columns: dict[float, list[str]] = {}
    for v, (x, _) in placed.centres.items():
        columns.setdefault(x, []).append(v)
    for column in columns.values():
        column.sort(key=lambda v: placed.centres[v][1])
        for a, b in itertools.pairwise(column):
            gap = placed.centres[b][1] - placed.centres[a][1] - (sizes[a][1] + sizes[b][1]) / 2
            assert gap >= VERTEX_GAP - 1e-9
    for v, (x, y) in placed.centres.items():
        assert sizes[v][0] / 2 - 1e-9 <= x <= placed.width - sizes[v][0] / 2 + 1e-9
        assert sizes[v][1] / 2 - 1e-9 <= y <= placed.height - sizes[v][1] / 2 + 1e-9


@pytest.mark.parametrize("n", [20, 120])
def test_edges_from_one_vertex_run_together_and_level(n: int) -> None:
    """x used by every operation of a chain (x ** x ** ... ** x): its long edges share one run
    (a bus) in one lane outside the vertices, instead of n lines through every layer; each
    route bends a few times, not once per layer it passes."""
    sizes = {"x": (40.0, 40.0), **{f"c{i}": (60.0, 50.0) for i in range(n)}}
    edges = [(f"c{i}", f"c{i + 1}") for i in range(n - 1)] + [("x", f"c{i}") for i in range(n)]
    placed = layout(sizes, edges)
    assert all(len(route) <= 2 + 2 * LONG for route in placed.routes)  # a few bends each
    laned = placed.routes[n - 1 + LONG :]  # x to c_i, i >= LONG: more than LONG layers apart
    assert all(len(route) == 6 for route in laned)
    assert len({route[2][1] for route in laned}) == 1  # one lane
    lane = laned[0][2][1]
    tops = [placed.centres[v][1] - h / 2 for v, (_, h) in sizes.items()]
    bottoms = [placed.centres[v][1] + h / 2 for v, (_, h) in sizes.items()]
    assert lane < min(tops) or lane > max(bottoms)
    assert placed.height < 3 * 50.0 + 2 * VERTEX_GAP


@pytest.mark.parametrize("seed", range(5))
def test_edges_cross_no_vertex(seed: int) -> None:
    """Every edge keeps clear of every vertex but its ends: each piece of its route (an S-curve
    inside the box its two points span) runs level through a layer, or turns in a gap, or in
    a lane (an edge across more than LONG layers)."""
    sizes, edges = random_dag(80, seed)
    placed = layout(sizes, edges)
    x_of = {v: placed.centres[v][0] for v in sizes}
    routed = [(u, v, route) for (u, v), route in zip(edges, placed.routes)]
    assert any(len(route) == 6 for _, _, route in routed)  # the random graphs have far edges
    for u, v, route in routed:
        for (ax, ay), (bx, by) in itertools.pairwise(route):
            for w, (cx, cy) in placed.centres.items():
                if w in (u, v):
                    continue
                half_w, half_h = sizes[w][0] / 2 - 1e-9, sizes[w][1] / 2 - 1e-9  # touching is clear
                apart_x = max(ax, bx) <= cx - half_w or min(ax, bx) >= cx + half_w
                apart_y = max(ay, by) <= cy - half_h or min(ay, by) >= cy + half_h
                assert apart_x or apart_y, (u, v, w)
        assert x_of[u] < x_of[v]


def test_lanes_are_shared_only_by_runs_that_turn_in_different_gaps() -> None:
    """On a chain c0 ... c13: c0 -> c6 turns out of its lane in the gap where c5 -> c11 turns
    in, so they take two lanes (one would read as c0 -> c11); c7 -> c13 starts later and
    shares c0 -> c6's lane."""
    sizes = {f"c{i}": (40.0, 30.0) for i in range(14)}
    chain = [(f"c{i}", f"c{i + 1}") for i in range(13)]
    placed = layout(sizes, [*chain, ("c0", "c6"), ("c5", "c11"), ("c7", "c13")])
    first, second, third = (route[2][1] for route in placed.routes[13:])
    assert first != second and first == third


def test_layout_of_nothing_but_one_vertex() -> None:
    placed = layout({"a": (10.0, 10.0)}, [])
    assert placed.centres == {"a": (5.0, 5.0)}
    assert (placed.width, placed.height) == (10.0, 10.0)


def test_a_box_is_filled_by_its_gradient_and_shaped_by_its_role() -> None:
    """The playground's meaning: fill is the gradient (white before backward), the corners
    and outline the role, the same for an input and a computed value of equal gradient."""
    x = tg.Value(3.0, label="x")
    y = x * 2.0 + x
    rects = {
        g.get("data-node"): g.find(f"{SVG}rect")
        for g in parsed(to_svg(y)).iter(f"{SVG}g")
        if "value" in g.get("class", "")
    }
    assert {r.get("fill") for r in rects.values()} == {"#ffffff"}  # no gradient yet
    y.backward()
    nodes = {n.id: n for n in tg.trace(y).nodes}
    largest = max(abs(n.grad) for n in nodes.values())
    root = parsed(to_svg(y))
    boxes = {g.get("data-node"): g for g in root.iter(f"{SVG}g") if "value" in g.get("class", "")}
    for node, group in boxes.items():
        assert group.find(f"{SVG}rect").get("fill") == gradient_fill(nodes[node].grad, largest)
    role = {g.get("class").split()[-1]: g.find(f"{SVG}rect") for g in boxes.values()}
    assert role["input"].get("rx") != role["computed"].get("rx")
    assert role["constant"].get("stroke") != role["input"].get("stroke")
    assert gradient_fill(-1.0, 1.0) != gradient_fill(1.0, 1.0) != gradient_fill(0.0, 1.0)
    assert gradient_fill(1e-3, 1.0) != gradient_fill(1.0, 1.0)  # deeper: larger
    assert gradient_fill(math.inf, 1.0) == gradient_fill(math.nan, 1.0) == "#ffffff"


def test_a_graph_drawn_down_runs_from_its_inputs_at_the_top_to_its_output() -> None:
    """For a phone's narrow screen: the layers top to bottom, each edge leaving its source's
    bottom and entering its target's top, the boxes the same and within the margins."""
    a, b = tg.Value(2.0, label="a"), tg.Value(-3.0, label="b")
    e = (a * b + 10.0).tanh()
    across, down = parsed(to_svg(e)), parsed(to_svg(e, down=True))
    assert down.get("data-down") == "true" and across.get("data-down") is None

    sides = ("x", "y", "width", "height")

    def boxes(root: ET.Element) -> dict[str, tuple[float, ...]]:
        return {
            g.get("data-node", ""): tuple(float(r.get(k, "0")) for k in sides)
            for g in root.iter(f"{SVG}g")
            if "value" in (g.get("class") or "").split()
            for r in g.iter(f"{SVG}rect")
        }

    flat, tall = boxes(across), boxes(down)
    output = max(tall, key=lambda node: int(node[1:]))
    assert all(tall[node][1] < tall[output][1] for node in tall if node != output)
    assert all(flat[node][0] < flat[output][0] for node in flat if node != output)
    assert {k: v[2:] for k, v in flat.items()} == {k: v[2:] for k, v in tall.items()}
    width, height = float(down.get("width", "0")), float(down.get("height", "0"))
    assert width < height  # a column, where the other is a row
    for x, y, w, h in tall.values():
        assert x >= MARGIN - 0.1 and y >= MARGIN - 0.1
        assert x + w <= width - MARGIN + 0.1 and y + h <= height - MARGIN + 0.1
