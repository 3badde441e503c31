"""The += made visible, in Chromium: a step's contributions travel along their edges and the
receiver's gradient ticks as each arrives (1 → 4 → 7 at the x of x*x + x), what earlier steps
delivered stays on the graph, dimmed, stepping fast never leaves a number half-updated, and a
reader who prefers reduced motion sees the final state at once. Fixtures as the page's tests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import test_playground_browser as shared

import topograd as tg
from topograd.expr import parse

pytestmark = shared.pytestmark  # Chromium or a reason to skip; one worker
url, browser, page = shared.url, shared.browser, shared.page  # the page's fixtures
expect = shared.expect

SHARED = ("x*x + x", {"x": 3.0})
LARGER = "text=a larger graph"

# What the learner sees of a step under way: one node's gradient text and where the travelling
# dot is (and whether it lies on its edge), or no dot once the step is over.
READING = """([id]) => {
  const svg = document.querySelector("#graph svg");
  const grad = svg.querySelector(`[id="tg-${id}"] text.grad`).textContent;
  const dot = svg.querySelector("g.travelling circle.travel-dot");
  if (!dot) return { grad, dot: null };
  const path = svg.querySelector(`path[data-edge="${dot.dataset.edge}"]`);
  const at = new DOMPoint(Number(dot.getAttribute("cx")), Number(dot.getAttribute("cy")));
  const words = svg.querySelector("g.travelling text.travel-words").textContent;
  return { grad, dot: [at.x, at.y], edge: dot.dataset.edge, words,
           onEdge: path.isPointInStroke(at) };
}"""
CLICK_AND_READ = f"""([id]) => {{
  document.getElementById("step").click();
  return ({READING})([id]);
}}"""
FRAME = 16  # ms of the page's clock between two readings: a frame at 60 Hz


def watch(page: Any, node: str) -> list[Any]:
    """Click Step, then read at every frame until the dot has gone. The first reading is taken
    in the click's own task: what the learner sees as the step begins. The page's clock is
    Playwright's and moves only a frame at a time here, so a slow machine skips no arrival."""
    page.clock.install()
    seen = [page.evaluate(CLICK_AND_READ, [node])]
    while seen[-1]["dot"] is not None:
        page.clock.run_for(FRAME)
        seen.append(page.evaluate(READING, [node]))
        assert len(seen) < 1000  # the journey ends
    return seen


@pytest.fixture
def still(browser: Any, url: str) -> Iterator[Any]:
    """The page for a reader who prefers reduced motion."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
    shown = context.new_page()
    shown.goto(url)
    expect(shown.locator("#grads tbody tr")).to_have_count(3)
    yield shown
    context.close()


def walked(expr: str, values: dict[str, float]) -> list[Any]:
    out, _ = parse(expr).build(values)
    return [step for step in tg.trace(out).steps if step.edges]


def totals_after(expr: str, values: dict[str, float], count: int) -> dict[str, str]:
    """Every node's gradient text after `count` walked steps: its running total, or ?."""
    out, _ = parse(expr).build(values)
    traced = tg.trace(out)
    shown = {node.id: "grad ?" for node in traced.nodes}
    steps = walked(expr, values)
    last = traced.steps.index(steps[count]) if count < len(steps) else len(traced.steps)
    for step in traced.steps[:last]:
        shown[step.node] = f"grad {step.grad:.6g}"
        for edge in step.edges:
            shown[edge.parent] = f"grad {edge.total:.6g}"
    return shown


def grads_on_graph(page: Any) -> dict[str, str]:
    return page.eval_on_selector_all(
        "#graph g.node.value",
        "gs => Object.fromEntries(gs.map(g => [g.dataset.node,"
        " g.querySelector('.grad').textContent]))",
    )


def settled(page: Any) -> None:
    expect(page.locator("#graph g.travelling")).to_have_count(0)


def test_contributions_travel_and_the_shared_node_ticks_1_4_7(page: Any) -> None:
    page.click("text=shared node: x*x + x")
    expect(page.locator("#value")).to_have_text("e = x*x + x = 12")
    page.click("#step")  # e = d + x: 1 into d, 1 into x
    settled(page)
    x = next(n.id for n in tg.trace(parse(SHARED[0]).build(SHARED[1])[0]).nodes if n.label == "x")
    seen = watch(page, x)
    step = walked(*SHARED)[1]  # d = x*x: x += 3, twice
    ticks = [f"grad {walked(*SHARED)[0].edges[1].total:.6g}"]
    ticks += [f"grad {edge.total:.6g}" for edge in step.edges]
    shown = [r["grad"] for k, r in enumerate(seen) if k == 0 or r["grad"] != seen[k - 1]["grad"]]
    assert shown == ticks == ["grad 1", "grad 4", "grad 7"]
    moving = [r for r in seen if r["dot"] is not None]
    assert moving and all(r["onEdge"] for r in moving)  # the dot runs along its edge
    edges = [f"{step.node}.{e.operand}" for e in step.edges]
    assert list(dict.fromkeys(r["edge"] for r in moving)) == edges  # one after the other
    # while a contribution is on its way, the receiver reads the total before it arrives
    assert all(r["grad"] == ticks[edges.index(r["edge"])] for r in moving)
    assert len({tuple(r["dot"]) for r in moving}) > 2  # it moves
    assert {r["words"] for r in moving} == {f"+= {step.edges[0].contribution:.6g}"}
    # the running sum grew with the arrivals, and now reads whole
    expect(page.locator(f"#graph text.running-sum[data-node='{x}']")).to_have_text(
        "Σ 1 + 3 + 3 = 7 (+= one by one: 1 → 4 → 7)"
    )
    expect(page.locator("#grads tr[data-name='x'] td.grad")).to_have_text("7")


def test_earlier_contributions_stay_dimmed(page: Any) -> None:
    page.click("text=shared node: x*x + x")
    expect(page.locator("#value")).to_have_text("e = x*x + x = 12")
    first, second = walked(*SHARED)[:2]
    page.click("#step")
    page.click("#step")
    settled(page)
    opacity = "t => Number(getComputedStyle(t).opacity)"
    for edge in first.edges:  # e's two edges: 1 each, delivered at the step before
        earlier = page.locator(f"#graph text.delivered[data-edge='{first.node}.{edge.operand}']")
        expect(earlier).to_have_text(f"+= {edge.contribution:.6g}")
        expect(earlier).to_be_visible()
        assert 0.3 <= earlier.evaluate(opacity) < 0.8  # dimmed, still read
        assert earlier.bounding_box()["width"] > 0
    for edge in second.edges:  # the step's own labels, at full strength
        label = page.locator(f"#graph text.flow-label[data-edge='{second.node}.{edge.operand}']")
        assert label.evaluate(opacity) == 1
    page.click("#back")  # one step back: only e's step has run, nothing earlier
    expect(page.locator("#graph text.delivered")).to_have_count(0)


def test_with_reduced_motion_nothing_travels_and_the_sum_appears_at_once(still: Any) -> None:
    still.click("text=shared node: x*x + x")
    expect(still.locator("#value")).to_have_text("e = x*x + x = 12")
    still.click("#step")
    seen = watch(still, "n0")
    assert seen == [{"grad": "grad 7", "dot": None}]  # in the click's own task: final
    expect(still.locator("#graph g.travelling")).to_have_count(0)
    expect(still.locator("#graph text.running-sum[data-node='n0']")).to_have_text(
        "Σ 1 + 3 + 3 = 7 (+= one by one: 1 → 4 → 7)"
    )
    expect(still.locator("#graph text.delivered")).to_have_count(2)  # dimmed, kept


def test_a_step_shows_its_dot_mid_step_only_with_motion(page: Any, still: Any) -> None:
    for shown, dots in [(page, 1), (still, 0)]:
        shown.click(LARGER)
        expect(shown.locator("#value")).to_contain_text("sigmoid(w1*x1")
        count = shown.evaluate(
            """() => { document.getElementById("step").click();
                       return document.querySelectorAll("#graph g.travelling circle").length; }"""
        )
        assert count == dots


@pytest.mark.parametrize("presses", [3, None])  # three steps, or the whole walk
def test_stepping_fast_leaves_no_number_half_updated(page: Any, presses: int | None) -> None:
    page.click(LARGER)
    expect(page.locator("#value")).to_contain_text("sigmoid(w1*x1")
    button = page.locator(LARGER)
    expr = button.get_attribute("data-expr")
    values = json.loads(button.get_attribute("data-values"))
    steps = walked(expr, values)
    count = len(steps) if presses is None else presses
    page.locator("h1").click()
    for _ in range(count if presses else count + 2):  # the whole walk: past its end too
        page.keyboard.press("ArrowRight")
    expect(page.locator("#progress")).to_have_text(f"step {count} of {len(steps)}")
    settled(page)
    assert grads_on_graph(page) == {
        k: v for k, v in totals_after(expr, values, count).items() if k in grads_on_graph(page)
    }
    if presses is None:  # the walk's end: every gradient the engine's, in the table too
        _, inputs = shared.engine(expr, values)
        assert shared.gradients_on_page(page) == {name: v.grad for name, v in inputs.items()}
