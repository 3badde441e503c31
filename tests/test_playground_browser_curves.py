"""Why a gradient vanishes, on the page in Chromium: the panel of a tanh, sigmoid or relu node
holds an inset of the function and its derivative around the node's input, the input marked on
both (4, -6 and 94 in the lesson's presets), its numbers the engine's. Fixtures as the page's
tests."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
import test_playground_browser as shared

import topograd as tg
from topograd.autograd.registry import OPS
from topograd.expr import parse
from topograd.viz.graph import walk

pytestmark = shared.pytestmark  # Chromium or a reason to skip; one worker
url, browser, page = shared.url, shared.browser, shared.page  # the page's fixtures
expect = shared.expect


def inset_of(page: Any, node: str) -> Any:
    page.locator(f"#tg-{node}").focus()
    inset = page.locator("#node-info figure.curve-inset")
    expect(inset).to_be_visible()
    return inset


def marked(inset: Any, kind: str) -> tuple[float, float]:
    dot = inset.locator(f"circle.at.{kind}")
    return float(dot.get_attribute("data-x")), float(dot.get_attribute("data-y"))


@pytest.mark.parametrize(
    ("preset", "at", "caption"),
    [
        ("lesson: a=2, b=-3, c=10", 4.0, "almost nothing gets through"),
        ("c = 0", -6.0, "almost nothing gets through"),
        ("c = 100 (saturation)", 94.0, "is 0 × e's: nothing gets through"),
    ],
)
def test_tanh_s_inset_marks_its_input_on_the_function_and_its_slope(
    page: Any, preset: str, at: float, caption: str
) -> None:
    button = page.locator("#presets button", has_text=preset)
    button.click()
    values = {k: float(v) for k, v in json.loads(button.get_attribute("data-values")).items()}
    out, _ = parse(button.get_attribute("data-expr")).build(values)
    expect(page.locator("#value")).to_have_text(
        shared.value_line(button.get_attribute("data-expr"), out)
    )
    traced = tg.trace(out)
    tanh = next(n for n in traced.nodes if n.op == "tanh")
    inset = inset_of(page, tanh.id)
    assert marked(inset, "value") == (at, math.tanh(at))
    assert marked(inset, "slope") == (at, OPS["tanh"].rule(1.0, at, math.tanh(at))[0])
    expect(inset.locator("figcaption")).to_contain_text(f"tanh(n) at n = {at:g}: tanh = ")
    expect(inset.locator("figcaption")).to_contain_text(caption)
    # the two curves, and the input inside the span drawn
    assert (
        inset.locator("polyline.function").count()
        == inset.locator("polyline.derivative").count()
        == 1
    )
    ticks = [float(t) for t in inset.locator("text.tick").all_text_contents()[:3]]
    assert ticks[0] < at < ticks[2] and ticks[1] == 0
    page.locator(f"#tg-{traced.nodes[2].id}").focus()  # d = a*b: no inset
    expect(page.locator("#node-info")).to_contain_text("d = a * b")
    expect(page.locator("#node-info figure.curve-inset")).to_have_count(0)


def test_sigmoid_and_relu_have_their_insets_too(page: Any) -> None:
    button = page.locator("#presets button", has_text="a larger graph")
    button.click()
    expr = button.get_attribute("data-expr")
    values = {k: float(v) for k, v in json.loads(button.get_attribute("data-values")).items()}
    out, _ = parse(expr).build(values)
    expect(page.locator("#value")).to_have_text(shared.value_line(expr, out))
    graph = walk(out)  # the nodes the trace names, a chain of sums one Σ
    traced = tg.trace(out)
    for node, value in zip(traced.nodes, graph):
        if node.op not in ("sigmoid", "relu"):
            continue
        at = value.parents[0].data
        inset = inset_of(page, node.id)
        expect(inset).to_have_attribute("data-op", node.op)
        assert marked(inset, "value") == (at, value.data)
        assert marked(inset, "slope") == (at, OPS[node.op].rule(1.0, at, value.data)[0])
