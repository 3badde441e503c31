"""Many inputs on the page, in Chromium: past eight variables the list shows the first eight
and a toggle for the rest; the graph panel stays on the screen while the page or the list
scrolls, so that Step and the graph are seen together and clicking Step never scrolls the
graph away; a typed expression's new names start at small random values, drawn once per name
and stated on the page, and the numbers shown are ``topograd grad``'s for them. Fixtures as
the page's tests."""

from __future__ import annotations

from typing import Any

import test_playground_browser as shared
from test_playground_browser_sums import EXPR, VALUES, cli_gradients, opened_at

from topograd.expr import parse

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


NEURON = "tanh(w1*x1 + w2*x2 + w3*x3 + u)"  # (the page has b: the lesson's)


def values_on_page(page: Any, names: list[str]) -> dict[str, float]:
    return {n: float(page.get_by_label(f"value of {n}", exact=True).input_value()) for n in names}


def test_typed_names_start_small_and_random_and_the_page_says_so(page: Any) -> None:
    page.fill("#expr", NEURON)
    names = list(parse(NEURON).names)
    expect(page.locator("#variables .variable")).to_have_count(len(names))
    values = values_on_page(page, names)
    for x in values.values():
        assert -1 <= x <= 1 and round(x, 2) == x
    note = page.locator("#random-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text(
        "w1, x1, w2, x2 and 3 more start at random: uniform in [\N{MINUS SIGN}1, 1]"
    )
    out, _ = parse(NEURON).build(values)
    expect(page.locator("#value")).to_have_text(shared.value_line(NEURON, out))
    assert shared.gradients_on_page(page) == cli_gradients(NEURON, values)  # every bit
    for name, grad in cli_gradients(NEURON, values).items():
        expect(page.locator(f"#grads tr[data-name='{name}'] td.grad")).to_have_text(f"{grad:.6g}")
    page.get_by_label("value of u", exact=True).fill("0.5")  # typed: no longer a random start
    expect(note).to_contain_text("and 2 more start at random")
    page.click("#presets button >> nth=0")  # a preset keeps its own values, and says nothing
    expect(page.locator("#value")).to_have_text("e = tanh(n) = 0.999329")
    expect(note).to_be_hidden()
    page.fill("#expr", NEURON)  # drawn once per name: the same starts again
    expect(page.locator("#variables .variable")).to_have_count(len(names))
    expect(page.get_by_label("value of w1", exact=True)).to_have_value(_typed(values["w1"]))
    assert values_on_page(page, names) == values  # (the preset's values replaced u's typed one)
    expect(note).to_contain_text("w1, x1, w2, x2 and 3 more start at random")


def _typed(x: float) -> str:
    """How the page writes a value in its field: JavaScript's String(x)."""
    return str(int(x)) if x == int(x) else repr(x)
