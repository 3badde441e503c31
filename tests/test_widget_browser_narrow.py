"""The stepper widget in a phone's screen (390 x 844), in JupyterLab and Chromium: nothing of
it runs off its side, the log stacks above the gradients, every text is 12 pixels at least,
the drawing is never shown below its own size, and each step shows its node and the nodes it
sends to; a cell as narrow in a wide window reads the same, its labels and running sums at 12
pixels. Fixtures as the widget's tests (JupyterLab, the notebook, its first cell run)."""

from __future__ import annotations

import re
from typing import Any

import test_playground_browser_phone as phone_texts
import test_widget_browser as shared

import topograd as tg

pytestmark = shared.pytestmark  # Chromium and JupyterLab, or a reason to skip; one worker
lab, page = shared.lab, shared.page  # the widget's fixtures, at this module's size
expect = shared.expect
part = shared.part
VIEWPORT = {"width": 390, "height": 844}


def inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return phone_texts.inside(inner, outer)


def test_the_widget_reads_on_a_phone_and_follows_its_steps(page: Any) -> None:
    folded = page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current")
    if folded.count():  # the file browser folded away: the notebook takes the screen
        folded.first.click()
    widget = page.locator(".topograd-widget").first
    part(widget, "zoom-fit").click()  # fitted to the cell as it now is
    expect(part(widget, "progress")).to_have_text("2 steps; gradients shown are final")
    area = widget.bounding_box()
    assert widget.evaluate("w => w.scrollWidth <= w.clientWidth + 1")  # nothing off its side
    log, grads = part(widget, "log").bounding_box(), part(widget, "grads").bounding_box()
    assert log["y"] + log["height"] <= grads["y"]  # stacked, not side by side
    drawing = part(widget, "graph").locator("svg")
    expect(drawing).to_have_attribute("data-down", "true")  # top to bottom in a narrow cell
    scale = float(drawing.get_attribute("data-scale"))
    assert scale >= 1  # its 12-pixel text at 12 pixels or more
    x = tg.Value(3.0, label="x")  # the cell's graph
    y = x * x + x
    walked = [step for step in tg.trace(y).steps if step.edges]
    window = part(widget, "graph").locator("svg")
    for k, step in enumerate(walked, 1):
        part(widget, "step").click()
        expect(part(widget, "progress")).to_have_text(f"step {k} of {len(walked)}")
        expect(widget.locator("g.travelling")).to_have_count(0)
        boxes = {
            node: part(widget, f"tg-{node}").locator("rect").bounding_box()
            for node in [step.node, *(edge.parent for edge in step.edges)]
        }
        seen = {node: inside(b, window.bounding_box()) for node, b in boxes.items()}
        assert seen.pop(step.node), k  # the running node
        together = {"x": min(b["x"] for b in boxes.values())}  # all of them, side by side
        together["width"] = max(b["x"] + b["width"] for b in boxes.values()) - together["x"]
        if together["width"] <= window.bounding_box()["width"]:
            assert all(seen.values()), k  # and every node it sends to
        else:  # too far apart for 12-pixel text: the nearest beside it
            assert any(seen.values()), k
    small = widget.evaluate(phone_texts.TEXTS)  # every text of the widget
    assert small["small"] == [] and small["read"] > 20
    assert area["x"] >= 0 and area["x"] + area["width"] <= VIEWPORT["width"]
    assert page.problems == []


# A narrow cell in a wide browser (the notebook beside a side panel, say): the cell's output
# area held to a phone's width while the window is a laptop's.
CELL = 480  # px of the output area, under the widget's narrow width


def test_a_narrow_cell_in_a_wide_window_reads_as_on_a_phone(page: Any) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    widget = page.locator(".topograd-widget").first
    widget.evaluate(f"w => {{ w.closest('.jp-OutputArea-output').style.maxWidth = '{CELL}px'; }}")
    expect(widget).to_have_class(re.compile(r"\btg-narrow\b"))
    drawing = part(widget, "graph").locator("svg")
    expect(drawing).to_have_attribute("data-down", "true")  # top to bottom, as on a phone
    assert widget.bounding_box()["width"] <= CELL
    part(widget, "reset").click()
    x = tg.Value(3.0, label="x")  # the cell's graph
    walked = [step for step in tg.trace(x * x + x).steps if step.edges]
    for k in range(1, len(walked) + 1):  # every step's labels and running sums, as shown
        part(widget, "step").click()
        expect(part(widget, "progress")).to_have_text(f"step {k} of {len(walked)}")
        expect(widget.locator("g.travelling")).to_have_count(0)
        expect(widget.locator("text.flow-label").first).to_be_visible()
        for unscaled in [True, False]:  # its CSS size, and the size it has on the screen
            texts = widget.evaluate(phone_texts.TEXTS, unscaled)  # every visible text
            assert texts["small"] == [] and texts["read"] > 20, (k, unscaled)
    expect(widget.locator("text.running-sum:visible")).not_to_have_count(0)  # x's, read above
    assert page.problems == []
