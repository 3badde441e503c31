"""Smaller things a learner does and reads on the page, in Chromium: the arrows step the walk
once Step has been clicked (its button keeps the focus); a node's panel writes each term as
the edges' labels do, local derivative × upstream gradient; the chart of the step h has a
title on each axis and a mark at every decade. Fixtures as the page's tests."""

from __future__ import annotations

import math
import re
from typing import Any

import test_playground_browser as shared

import topograd as tg
from topograd.expr import parse

pytestmark = shared.pytestmark  # Chromium or a reason to skip; one worker
url, browser, page = shared.url, shared.browser, shared.page  # the page's fixtures
expect = shared.expect


def test_the_arrows_step_after_step_was_clicked(page: Any) -> None:
    progress = page.locator("#progress")
    page.click("#step")
    expect(progress).to_have_text("step 1 of 3")
    assert page.evaluate("document.activeElement.id") == "step"  # the button kept the focus
    page.keyboard.press("ArrowRight")
    expect(progress).to_have_text("step 2 of 3")
    page.click("#back")
    expect(progress).to_have_text("step 1 of 3")
    page.keyboard.press("ArrowRight")  # from Back's focus too
    page.keyboard.press("ArrowRight")
    expect(progress).to_have_text("step 3 of 3")
    page.keyboard.press("ArrowLeft")
    expect(progress).to_have_text("step 2 of 3")
    page.focus("#step")
    page.keyboard.press(" ")  # space is the button's own: one click, one step (not Play)
    expect(progress).to_have_text("step 3 of 3")
    expect(page.locator("#play")).to_have_text("Play")
    page.get_by_label("value of a").focus()
    page.keyboard.press("ArrowLeft")  # a field keeps its own arrows
    expect(progress).to_have_text("step 3 of 3")


def test_a_nodes_panel_writes_its_terms_as_its_edges_labels(page: Any) -> None:
    out, _ = parse("tanh(a*b + c)").build({"a": 2, "b": -3, "c": 10})
    traced = tg.trace(out)
    a = next(n for n in traced.nodes if n.label == "a")
    (user, edge), *_ = [(s, e) for s in traced.steps for e in s.edges if e.parent == a.id]
    label = f"{edge.partial:.6g} × {user.grad:.6g} = {edge.contribution:.6g}"
    page.locator(f"#tg-{a.id}").focus()
    info = page.locator("#node-info")
    expect(info).to_contain_text(f"gradient ∂e/∂a = {a.grad:.6g}")
    expect(info).to_contain_text("Σ over its users of (local derivative × user's gradient)")
    expect(info).to_contain_text(f"from d: {edge.rule}; {label}")
    for _ in range(3):  # the walk's last step: d = a*b's, whose edge to a says the same
        page.click("#step")
    words = page.locator(f"#graph text.flow-label[data-edge='{user.node}.{edge.operand}']")
    expect(words.locator("tspan.numbers")).to_have_text(label)
    expect(words.locator("tspan.rule")).to_have_text(edge.rule)


def ticks(page: Any, kind: str) -> list[tuple[int, float]]:
    """The chart's numbers on one axis: (the decade, its position along the axis)."""
    found = page.eval_on_selector_all(
        f"#h-chart text.{kind}-tick",
        "ts => ts.map(t => [t.textContent, Number(t.getAttribute('x')),"
        " Number(t.getAttribute('y'))])",
    )
    return [
        (int(re.fullmatch(r"1e(-?\d+)", text).group(1)), x if kind == "x" else y)
        for text, x, y in found
    ]


def test_the_step_chart_has_axis_titles_and_a_tick_per_decade(page: Any) -> None:
    page.click("#h-details summary")
    page.select_option("#h-input", "c")
    points = page.locator("#h-chart circle.error-point")
    expect(points).to_have_count(15)
    expect(page.locator("#h-chart text.x-title")).to_contain_text("step h")
    expect(page.locator("#h-chart text.y-title")).to_contain_text("error")
    xs, ys = ticks(page, "x"), ticks(page, "y")
    assert len(xs) >= 7 and len(ys) >= 4  # not two
    for axis in (xs, ys):  # one decade apart, evenly spaced, in order
        (k0, at0), (k1, at1) = axis[0], axis[1]
        per_decade = (at1 - at0) / (k1 - k0)
        for k, at in axis:
            assert math.isclose(at, at0 + (k - k0) * per_decade, abs_tol=3.5)  # y: its baseline
    dots = points.evaluate_all(
        "cs => cs.map(c => [Number(c.dataset.h), Number(c.dataset.error),"
        " Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))])"
    )
    (kx, x0), (kx1, x1) = xs[0], xs[1]
    (ky, y0), (ky1, y1) = ys[0], ys[1]
    for h, error, cx, cy in dots:  # each point where the axes' numbers put it
        assert math.isclose(cx, x0 + (math.log10(h) - kx) * (x1 - x0) / (kx1 - kx), abs_tol=0.5)
        if error > 0:
            expected = y0 - 3 + (math.log10(error) - ky) * (y1 - y0) / (ky1 - ky)
            assert math.isclose(cy, expected, abs_tol=0.5)
    lowest, highest = min(ys)[0], max(ys)[0]
    errors = [e for _, e, _, _ in dots if e > 0]
    assert 10 ** (lowest - 3) <= min(errors) and max(errors) <= 10**highest
