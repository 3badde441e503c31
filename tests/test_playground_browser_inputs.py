"""Many inputs on the page, in Chromium: past eight variables the list shows the first eight
and a toggle for the rest; the graph panel stays on the screen while the page or the list
scrolls, so that Step and the graph are seen together and clicking Step never scrolls the
graph away. Fixtures as the page's tests."""

from __future__ import annotations

from typing import Any

import test_playground_browser as shared
from test_playground_browser_sums import EXPR, VALUES, opened_at

pytestmark = shared.pytestmark  # Chromium or a reason to skip; one worker
url, browser, page = shared.url, shared.browser, shared.page  # the page's fixtures
expect = shared.expect

SHOWN = 8  # variables listed before the toggle


def on_screen(box: dict[str, float], height: int) -> bool:
    return box["y"] >= 0 and box["y"] + box["height"] <= height


def test_past_eight_variables_the_list_folds_behind_a_toggle(page: Any, url: str) -> None:
    opened_at(page, url, EXPR, VALUES)
    rows = page.locator("#variables .variable")
    expect(rows).to_have_count(len(VALUES))
    names = [rows.nth(k).get_attribute("data-name") for k in range(SHOWN + 1)]
    for k, name in enumerate(names):
        field = page.get_by_label(f"value of {name}", exact=True)
        (expect(field).to_be_visible if k < SHOWN else expect(field).to_be_hidden)()
    toggle = page.locator("#more-variables")
    expect(toggle).to_have_text(f"{len(VALUES) - SHOWN} more variables")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    toggle.click()
    expect(page.get_by_label(f"value of {names[SHOWN]}", exact=True)).to_be_visible()
    expect(toggle).to_have_text(f"show the first {SHOWN} only")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    toggle.click()
    expect(page.get_by_label(f"value of {names[SHOWN]}", exact=True)).to_be_hidden()
    page.click("text=shared node: x*x + x")  # one variable: no toggle
    expect(page.locator("#value")).to_have_text("e = x*x + x = 12")
    expect(toggle).to_be_hidden()


def test_step_and_the_graph_stay_in_view_while_the_page_and_the_list_scroll(
    browser: Any, url: str
) -> None:
    screen = shared.opened(browser, url, 1280, 800)
    opened_at(screen, url, EXPR, VALUES)
    screen.click("#more-variables")  # all 120 listed: the list scrolls in its own box
    screen.locator("#step").scroll_into_view_if_needed()
    step, graph = screen.locator("#step"), screen.locator("#graph svg")
    assert on_screen(step.bounding_box(), 800) and on_screen(graph.bounding_box(), 800)
    listed = screen.locator("#variables")
    assert listed.evaluate("list => list.scrollHeight > list.clientHeight")
    step_at = step.bounding_box()["y"]
    listed.evaluate("list => { list.scrollTop = list.scrollHeight; }")
    assert step.bounding_box()["y"] == step_at  # the list scrolled, not the page
    assert on_screen(graph.bounding_box(), 800)
    scrolled = screen.evaluate("window.scrollY")
    for k in range(1, 4):
        step.click()
        expect(screen.locator("#progress")).to_have_text(f"step {k} of 61")
        assert screen.evaluate("window.scrollY") == scrolled  # Step never scrolls the page
        assert on_screen(graph.bounding_box(), 800)
        running = screen.locator("#graph .node.value.current").bounding_box()
        panel = screen.locator("#graph").bounding_box()
        assert (
            panel["y"] <= running["y"]
            and running["y"] + running["height"] <= panel["y"] + panel["height"]
        )
    screen.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # to the foot of the page
    assert on_screen(graph.bounding_box(), 800)  # the graph panel stays on the screen
    screen.close()
