"""One meaning for colour on the page, in Chromium, as in tg.draw: a box's fill is its gradient
so far (at rest and at every step of the walk, with the legend), its role is its shape, and an
edge is as wide as the |contribution| that flowed along it, its arrowhead the same size on
every edge. Fixtures as the page's tests."""

from __future__ import annotations

import math
import random
from typing import Any

import test_playground_browser as shared

import topograd as tg
from topograd.expr import parse
from topograd.viz.draw import LEGEND, gradient_fill, largest_gradient

pytestmark = shared.pytestmark  # Chromium or a reason to skip; one worker
url, browser, page = shared.url, shared.browser, shared.page  # the page's fixtures
expect = shared.expect

LESSON = ("tanh(a*b + c)", {"a": 2.0, "b": -3.0, "c": 10.0})


def rgb(colour: str) -> str:
    """'#84b5f5' as getComputedStyle writes it: 'rgb(132, 181, 245)'."""
    return "rgb({}, {}, {})".format(*(int(colour[k : k + 2], 16) for k in (1, 3, 5)))


def fills(page: Any) -> dict[str, str]:
    return page.eval_on_selector_all(
        "#graph g.node.value",
        "gs => Object.fromEntries(gs.map(g => [g.dataset.node,"
        " getComputedStyle(g.querySelector('rect')).fill]))",
    )


def totals_after(traced: tg.Trace, k: int) -> dict[str, float]:
    """Each node's gradient so far once the page has walked ``k`` steps (the inputs' own steps
    run with the step before them, as the page skips them)."""
    steps = traced.steps
    order = [i for i, s in enumerate(steps) if s.edges]
    last = len(steps) - 1 if k >= len(order) else order[k] - 1
    totals: dict[str, float] = {}
    for step in steps[: last + 1]:
        totals[step.node] = step.grad
        for edge in step.edges:
            totals[edge.parent] = edge.total
    return totals


def test_the_pages_colours_are_the_drawings(page: Any) -> None:
    rng = random.Random(32)
    grads = [0.0, -0.0, 1.0, -1.0, 1e-4, -1e-5, 3.5, 1e300, -2e-308, 5e-324]
    grads += [rng.choice([-1, 1]) * 10 ** rng.uniform(-6, 2) for _ in range(300)]
    cases = [(g, largest) for g in grads for largest in (1.0, 7.25, 1e-3)]
    on_page = page.evaluate("cases => cases.map(([g, l]) => gradientColour(g, l))", cases)
    assert on_page == [gradient_fill(g, largest) for g, largest in cases]


def test_a_box_is_filled_by_its_gradient_so_far_at_every_step(page: Any) -> None:
    expr, values = LESSON
    out, _ = parse(expr).build(values)
    traced = tg.trace(out)
    largest = largest_gradient(traced.nodes)
    names = {n.label: n.id for n in traced.nodes}
    walked = sum(1 for s in traced.steps if s.edges)
    for k in range(walked + 1):
        if k:
            page.click("#step")
            expect(page.locator("#progress")).to_have_text(f"step {k} of {walked}")
            expect(page.locator("#graph g.travelling")).to_have_count(0)  # all arrived
        so_far = totals_after(traced, k) if k else {n.id: n.grad for n in traced.nodes}
        expected = {n.id: rgb(gradient_fill(so_far.get(n.id, 0.0), largest)) for n in traced.nodes}
        assert fills(page) == expected, k
        shown = fills(page)
        if names["c"] in so_far:  # c, an input, and c's user a*b + c share their gradient
            assert shown[names["c"]] == shown[names["n"]] != rgb("#ffffff")
        waiting = page.eval_on_selector_all(
            "#graph g.node.value.waiting", "gs => gs.map(g => g.dataset.node)"
        )
        assert sorted(waiting) == sorted(n.id for n in traced.nodes if n.id not in so_far)


def test_a_boxs_role_is_its_shape_and_stays_so_while_stepping(page: Any) -> None:
    def corners() -> dict[str, str]:
        return page.eval_on_selector_all(
            "#graph g.node.value",
            "gs => Object.fromEntries(gs.map(g => [g.classList.contains('input') ?"
            " 'input' : g.dataset.node, g.querySelector('rect').getAttribute('rx')]))",
        )

    at_rest = corners()
    assert at_rest["input"] != at_rest["n5"]  # an input's corners against the output's
    for _ in range(3):
        page.click("#step")
        assert corners() == at_rest
    expect(page.locator("#legend")).to_contain_text(LEGEND)


def widths(page: Any) -> dict[str, float]:
    return page.eval_on_selector_all(
        "#graph path.edge.operand",
        "ps => Object.fromEntries(ps.map(p => [p.dataset.edge,"
        " parseFloat(getComputedStyle(p).strokeWidth)]))",
    )


def test_an_edge_is_as_wide_as_what_flowed_along_it(page: Any) -> None:
    page.click("text=a larger graph")
    expect(page.locator("#value")).to_contain_text("sigmoid(w1*x1")
    button = page.locator("#presets button").nth(5)
    out, _ = parse(button.get_attribute("data-expr")).build(
        {"w1": 0.5, "x1": 1.5, "w2": -1.2, "x2": 0.8, "b": 0.1}
    )
    flowed = {f"{s.node}.{e.operand}": e.contribution for s in tg.trace(out).steps for e in s.edges}
    shown = widths(page)
    assert set(shown) == set(flowed)
    by_size = sorted(flowed, key=lambda edge: abs(flowed[edge]))
    assert [shown[e] for e in by_size] == sorted(shown[e] for e in by_size)  # wider: larger
    assert shown[by_size[0]] < shown[by_size[-1]]


def test_a_vanishing_gradient_flows_along_a_thin_edge(page: Any) -> None:
    page.click("#step")  # e's step, c = 10: tanh'(4) x 1 flows along n's edge
    flowing = "#graph path.edge.flow"
    expect(page.locator(flowing)).to_have_count(1)
    lesson = page.eval_on_selector(flowing, "p => parseFloat(getComputedStyle(p).strokeWidth)")
    page.click("text=c = 100 (saturation)")
    expect(page.locator("#value")).to_have_text(f"e = tanh(n) = {math.tanh(94):.6g}")
    expect(page.locator("#progress")).to_have_text("step 1 of 3")  # new values: the walk stays
    expect(page.locator(flowing)).to_have_count(1)
    saturated = page.eval_on_selector(flowing, "p => parseFloat(getComputedStyle(p).strokeWidth)")
    assert saturated < lesson  # tanh'(94) rounds to 0: nothing flows, and the edge shows it


# The drawing with only its arrowheads painted (the edges' strokes, the boxes and the walk's
# marks hidden), and each edge's width and where its arrow's tip is on the screen.
ARROWS_ONLY = """() => {
  const svg = document.querySelector("#graph svg");
  for (const g of svg.querySelectorAll("g.nodes, g.marks")) g.style.visibility = "hidden";
  const edges = [...svg.querySelectorAll("path.edge.operand")];
  const tips = edges.map((p) => {
    const at = p.getPointAtLength(p.getTotalLength());
    const m = p.getScreenCTM();
    return [parseFloat(getComputedStyle(p).strokeWidth), at.x * m.a + m.e, at.y * m.d + m.f];
  });
  for (const p of svg.querySelectorAll("path.edge")) p.style.strokeOpacity = "0";
  return tips;
}"""


def test_an_arrowhead_keeps_its_size_on_a_wide_edge(page: Any) -> None:
    """The painted pixels of each arrowhead that stands alone, on edges 1 to 5 pixels wide:
    the same, within a fifth, where the arrow once grew with the edge's width."""
    from io import BytesIO

    from PIL import Image

    page.fill("#expr", "exp(x) + tanh(y)")  # exp'(3) = 20 and tanh'(3) = 0.0099 flow
    for name in "xy":
        page.get_by_label(f"value of {name}").fill("3")
    expect(page.locator("#value")).to_have_text(
        f"e = exp(x) + tanh(y) = {math.exp(3) + math.tanh(3):.6g}"
    )
    tips = page.evaluate(ARROWS_ONLY)
    shot = Image.open(BytesIO(page.screenshot())).convert("L")
    alone = [
        (width, x, y)
        for k, (width, x, y) in enumerate(tips)
        if all(math.hypot(x - u, y - v) > 45 for j, (_, u, v) in enumerate(tips) if j != k)
        and 25 < x < shot.width - 25
        and 25 < y < shot.height - 25
    ]
    painted = {
        width: sum(shot.crop((x - 22, y - 22, x + 22, y + 22)).histogram()[:180])
        for width, x, y in alone
    }
    assert max(painted) >= 2 * min(painted)  # edges of very different widths
    assert min(painted.values()) > 20  # an arrowhead is there
    assert max(painted.values()) <= 1.2 * min(painted.values())
