"""The window onto a big graph, in Chromium: Fit shows every box of 60 products summed inside
the graph panel as the learner sees it (at 1280 x 800 and 390 x 844), zooming out keeps the
window's centre, and the minimap (the whole drawing, the window on it) moves the view where it
is clicked or dragged. Fixtures as the page's tests."""

from __future__ import annotations

from typing import Any

import pytest
import test_playground_browser as shared
from test_playground_browser_sums import EXPR, VALUES, opened_at

pytestmark = shared.pytestmark  # Chromium or a reason to skip; one worker
url, browser, page = shared.url, shared.browser, shared.page  # the page's fixtures
expect = shared.expect

# Every box's rectangle on the screen, and the part of the graph panel the browser shows.
BOXES_AND_PANEL = """() => {
  const panel = document.getElementById("graph").getBoundingClientRect();
  const seen = {
    left: Math.max(panel.left, 0), top: Math.max(panel.top, 0),
    right: Math.min(panel.right, window.innerWidth),
    bottom: Math.min(panel.bottom, window.innerHeight),
  };
  const boxes = [...document.querySelectorAll("#graph g.node")].map((g) => {
    const r = g.getBoundingClientRect();
    return { id: g.id, left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  });
  return { seen, boxes };
}"""


def within(box: dict[str, float], seen: dict[str, float]) -> bool:
    """Whether a box on the screen is wholly inside `seen`, the part of the panel shown."""
    across = seen["left"] <= box["left"] and box["right"] <= seen["right"]
    return across and seen["top"] <= box["top"] and box["bottom"] <= seen["bottom"]


def window_centre(page: Any) -> tuple[float, float]:
    x, y, width, height = view_box(page)
    return x + width / 2, y + height / 2


def view_box(page: Any) -> list[float]:
    return [float(v) for v in page.locator("#graph svg").get_attribute("viewBox").split()]


def drawing_size(page: Any) -> tuple[float, float]:
    svg = page.locator("#graph svg")
    return float(svg.get_attribute("data-width")), float(svg.get_attribute("data-height"))


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_fit_shows_every_box_inside_the_panel(
    browser: Any, url: str, width: int, height: int
) -> None:
    screen = shared.opened(browser, url, width, height)
    opened_at(screen, url, EXPR, VALUES)
    before = screen.evaluate(BOXES_AND_PANEL)
    outside = [box for box in before["boxes"] if not within(box, before["seen"])]
    # read at 9 px from the inputs (on a phone at 12 px, top to bottom, from the output), most
    # of the 181 boxes are out of view, on whichever side of it
    assert len(outside) > len(before["boxes"]) / 2
    screen.click("#zoom-fit")
    found = screen.evaluate(BOXES_AND_PANEL)
    seen = found["seen"]
    assert len(found["boxes"]) == 60 * 3 + 1 + 61  # values and ops
    for box in found["boxes"]:
        assert within(box, seen), box
    expect(screen.locator("#minimap")).to_be_hidden()  # nothing left to find
    screen.close()


def test_zooming_out_keeps_the_window_s_centre(page: Any, url: str) -> None:
    opened_at(page, url, EXPR, VALUES)
    tall = drawing_size(page)[1]
    minimap = page.locator("#minimap svg")
    expect(minimap).to_be_visible()
    box = minimap.bounding_box()
    minimap.click(position={"x": box["width"] / 2, "y": box["height"] / 2})
    centre = window_centre(page)
    assert centre[1] == pytest.approx(tall / 2, abs=tall / 100)
    for _ in range(3):
        page.click("#zoom-out")
        assert window_centre(page) == pytest.approx(centre, abs=1.0)
    while not page.locator("#minimap").is_hidden():
        page.click("#zoom-out")  # until the whole drawing is in the window
    assert view_box(page)[:2] == [0, 0]
    assert view_box(page)[3] == pytest.approx(tall, rel=1e-3)


def test_the_minimap_moves_the_view_where_it_is_clicked_or_dragged(page: Any, url: str) -> None:
    opened_at(page, url, EXPR, VALUES)
    tall = drawing_size(page)[1]
    minimap = page.locator("#minimap svg")
    frame = page.locator("#minimap rect.window")
    assert float(frame.get_attribute("y")) == 0  # the window is at the inputs, at the top
    box = minimap.bounding_box()
    minimap.click(position={"x": box["width"] / 2, "y": box["height"] * 0.75})
    y = window_centre(page)[1]
    assert y == pytest.approx(0.75 * tall, abs=tall / 100)
    assert float(frame.get_attribute("y")) == pytest.approx(view_box(page)[1])
    # the boxes drawn around that point of the drawing are now on the screen, in the panel
    nearest = page.evaluate(
        """(y) => [...document.querySelectorAll("#graph g.node.value")]
          .map((g) => { const b = g.getBBox(); return [Math.abs(b.y + b.height / 2 - y), g.id]; })
          .sort((a, b) => a[0] - b[0])[0][1]""",
        y,
    )
    panel = page.locator("#graph").bounding_box()
    seen = page.locator(f"[id='{nearest}']").bounding_box()
    assert panel["y"] <= seen["y"] and seen["y"] + seen["height"] <= panel["y"] + panel["height"]
    box = minimap.bounding_box()  # where the click has scrolled it
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.75)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.25, steps=5)
    page.mouse.up()
    assert window_centre(page)[1] == pytest.approx(0.25 * tall, abs=tall / 100)
