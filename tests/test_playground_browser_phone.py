"""The playground on a phone's screen (390 x 844), in Chromium: the graph drawn top to bottom,
its output in view at load, the running node and as many of the nodes it sends to as fit beside
it in view at each step (the nearest first), and every text a learner can see at least 12 pixels
high. Fixtures as the page's tests."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
import test_playground_browser as shared

import topograd as tg
from topograd.expr import parse

pytestmark = shared.pytestmark  # Chromium or a reason to skip; one worker
url, browser, page = shared.url, shared.browser, shared.page  # the page's fixtures
expect = shared.expect

# Every element that shows text of its own (an HTML element with a text node, an SVG text or
# tspan) and is drawn (a box on the screen), with the size its letters have there: the CSS
# font size, times the drawing's scale for the SVG's (not if `unscaled`: the CSS size alone).
# Within the page, or within `root`.
TEXTS = """(root, unscaled) => {
  const small = [];
  let read = 0;
  for (const el of (root ?? document.body).querySelectorAll("*")) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || ["SCRIPT", "STYLE", "OPTION", "NOSCRIPT"].includes(el.tagName)) continue;
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    // a tspan has no client rects in Chromium: an SVG text's box is its bounding box
    const drawn = el instanceof SVGGraphicsElement ? el.getBBox().height > 0
      : el.getClientRects().length > 0 && box.height > 0;
    if (!drawn || style.visibility === "hidden") continue;
    const m = el instanceof SVGElement ? el.getScreenCTM() : null;
    const scale = m && !unscaled ? Math.hypot(m.a, m.b) : 1; // a turned axis title too
    const size = parseFloat(style.fontSize) * scale;
    read += 1;
    if (size < 11.99) small.push(`${el.tagName}.${el.className.baseVal ?? el.className}: ${
      el.textContent.trim().slice(0, 30)} at ${size.toFixed(1)} px`);
  }
  return { small, read };
}"""


@pytest.fixture
def phone(browser: Any, url: str) -> Iterator[Any]:
    shown = shared.opened(browser, url, 390, 844)
    yield shown
    shown.close()


def box(page: Any, selector: str) -> dict[str, float]:
    found: dict[str, float] = page.locator(selector).bounding_box()
    return found


def inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        outer["x"] - 0.5 <= inner["x"]
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + 0.5
        and outer["y"] - 0.5 <= inner["y"]
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 0.5
    )


def seen(page: Any, node: str) -> bool:
    """Whether a node's box is wholly in the graph's window and on the screen, above the
    walk's buttons (fixed at the bottom of a phone's screen)."""
    screen = {"x": 0, "y": 0, "width": 390, "height": box(page, "#stepper")["y"]}
    shown = box(page, f"#graph #tg-{node} rect")
    return inside(shown, box(page, "#graph svg")) and inside(shown, screen)


def fit_together(page: Any, nodes: list[str]) -> bool:
    """Whether the nodes' boxes, as drawn, fit in the graph's window all at once."""
    boxes = [box(page, f"#graph #tg-{node} rect") for node in nodes]
    window = box(page, "#graph svg")
    wide = max(b["x"] + b["width"] for b in boxes) - min(b["x"] for b in boxes)
    tall = max(b["y"] + b["height"] for b in boxes) - min(b["y"] for b in boxes)
    return wide <= window["width"] and tall <= window["height"]


def nearest_first(page: Any, node: str, others: list[str]) -> list[str]:
    """The nodes `others`, once each, by how far their boxes are from `node`'s on the screen."""
    at = box(page, f"#graph #tg-{node} rect")
    boxes = {other: box(page, f"#graph #tg-{other} rect") for other in others}
    return sorted(boxes, key=lambda o: math.hypot(boxes[o]["x"] - at["x"], boxes[o]["y"] - at["y"]))


def glimpsed(page: Any, node: str) -> bool:
    """Whether half of a node's box at least, either way, shows in the graph's window: its
    name, where the edge from the running node arrives."""
    shown, window = box(page, f"#graph #tg-{node} rect"), box(page, "#graph svg")
    wide = min(shown["x"] + shown["width"], window["x"] + window["width"]) - max(
        shown["x"], window["x"]
    )
    tall = min(shown["y"] + shown["height"], window["y"] + window["height"]) - max(
        shown["y"], window["y"]
    )
    return wide >= shown["width"] / 2 and tall >= shown["height"] / 2


def no_small_text(page: Any) -> int:
    texts = page.evaluate(TEXTS)
    assert texts["small"] == []
    return int(texts["read"])


def test_on_a_phone_the_graph_runs_top_to_bottom_its_output_in_view(phone: Any) -> None:
    out, _ = parse("tanh(a*b + c)").build({"a": 2, "b": -3, "c": 10})
    ids = {n.name: n.id for n in tg.trace(out).nodes}
    expect(phone.locator("#graph svg")).to_have_attribute("data-down", "true")
    a, d, e = (box(phone, f"#graph #tg-{ids[name]} rect") for name in ("a", "d", "e"))
    assert a["y"] + a["height"] < d["y"] < d["y"] + d["height"] < e["y"]  # inputs at the top
    assert seen(phone, ids["e"])  # the output, where the backward pass starts
    assert phone.evaluate("window.scrollY") == 0


def test_on_a_wide_screen_the_graph_runs_left_to_right(page: Any) -> None:
    expect(page.locator("#graph svg")).not_to_have_attribute("data-down", "true")
    a, e = (box(page, f"#graph #tg-{node} rect") for node in ("n0", "n5"))
    assert a["x"] + a["width"] < e["x"]


@pytest.mark.parametrize("preset", [0, 4, 5])  # the lesson, x*x + x, the larger graph
def test_on_a_phone_each_step_shows_its_node_and_its_receivers(phone: Any, preset: int) -> None:
    button = phone.locator("#presets button").nth(preset)
    expr = button.get_attribute("data-expr")
    values = json.loads(button.get_attribute("data-values"))
    button.click()
    out, _ = parse(expr).build(values)
    expect(phone.locator("#value")).to_have_text(shared.value_line(expr, out))
    phone.evaluate("window.scrollTo(0, 0)")  # back up from the presets, to the graph
    traced = tg.trace(out)
    assert seen(phone, traced.nodes[-1].id)
    walked = [step for step in traced.steps if step.edges]
    for k, step in enumerate(walked, 1):
        phone.locator("#step").click()
        expect(phone.locator("#progress")).to_have_text(f"step {k} of {len(walked)}")
        expect(phone.locator("#graph g.travelling")).to_have_count(0)
        assert seen(phone, step.node), k  # the running node
        receivers = nearest_first(phone, step.node, [edge.parent for edge in step.edges])
        beside = [step.node]  # and as many as fit beside it at 12 px, the nearest first
        for node in receivers:
            if fit_together(phone, [*beside, node]):
                beside.append(node)
        assert all(seen(phone, node) for node in beside), k
        if receivers and beside == [step.node]:  # not even the nearest fits: leant towards it
            assert glimpsed(phone, receivers[0]), k


def test_on_a_phone_every_text_is_12_pixels_at_least(phone: Any) -> None:
    read = no_small_text(phone)  # at load
    assert read > 40
    phone.click("text=shared node: x*x + x")
    expect(phone.locator("#value")).to_have_text("e = x*x + x = 12")
    for _ in range(2):  # labels, a running sum, the dimmed earlier contributions
        phone.locator("#step").click()
        expect(phone.locator("#graph g.travelling")).to_have_count(0)
        no_small_text(phone)
    expect(phone.locator("#graph text.running-sum")).to_have_count(1)
    phone.click("text=a larger graph")  # drawn at its own size, the labels too
    expect(phone.locator("#value")).to_contain_text("sigmoid(w1*x1")
    for _ in range(3):
        phone.locator("#step").click()
        expect(phone.locator("#graph g.travelling")).to_have_count(0)
        no_small_text(phone)
    phone.click("text=lesson: a=2, b=-3, c=10")
    expect(phone.locator("#value")).to_have_text("e = tanh(n) = 0.999329")
    phone.locator("#graph g.node.value[data-node='n5']").focus()  # tanh's inset
    expect(phone.locator("#node-info .curve-inset")).to_be_visible()
    no_small_text(phone)
    phone.locator("#h-details summary").click()  # the step-size chart
    expect(phone.locator("#h-chart svg")).to_be_visible()
    no_small_text(phone)
    phone.emulate_media(reduced_motion="reduce")
    phone.fill("#descent-count", "5")
    phone.click("#descend-run")  # the descent's table and curve
    expect(phone.locator("#descent-table tbody tr")).to_have_count(5)
    no_small_text(phone)
