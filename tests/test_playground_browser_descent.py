"""Gradient descent as a loop on the page, in Chromium: Run takes N steps x ← x - η·∂e/∂x,
each step's output, its change Δe and the first-order prediction -η‖∇e‖² shown beside it,
and a curve of the output; every number equals what the playground's API (and `topograd grad`)
answers for the same inputs, Stop ends a run with every step taken shown whole, divergence at
a large η is shown, and a preset clears it all. Fixtures as the page's tests."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import test_playground_browser as shared

from topograd.playground.api import graph_request

pytestmark = shared.pytestmark  # Chromium or a reason to skip; one worker
url, browser, page = shared.url, shared.browser, shared.page  # the page's fixtures
expect = shared.expect


def answer(expr: str, values: dict[str, float]) -> dict[str, Any]:
    status, reply = graph_request(json.dumps({"expr": expr, "values": values}).encode())
    assert status == 200, reply
    return reply


def descended(
    expr: str, values: dict[str, float], rate: float, steps: int
) -> tuple[list[tuple[float, float, float]], dict[str, float]]:
    """Each step's output, its change and -η‖∇e‖², from the API's gradients; the last inputs."""
    reply, rows = answer(expr, values), []
    for _ in range(steps):
        grads = reply["grads"]
        values = {name: values[name] - rate * grads[name] for name in reply["names"]}
        after = answer(expr, values)
        predicted = -rate * sum(grads[name] ** 2 for name in reply["names"])
        rows.append((after["value"], after["value"] - reply["value"], predicted))
        reply = after
    return rows, values


def run(page: Any, rate: float, steps: int) -> list[tuple[float, float, float]]:
    page.locator("#rate").fill(repr(rate))
    page.locator("#descent-count").fill(str(steps))
    page.click("#descend-run")
    rows = page.locator("#descent-table tbody tr")
    expect(rows).to_have_count(steps, timeout=30_000)
    expect(page.locator("#descend-run")).to_have_text("Run")  # the loop is over
    return rows_shown(page)


def rows_shown(page: Any) -> list[tuple[float, float, float]]:
    """The table's rows: each step's output, its change and the prediction, as held."""
    shown = page.eval_on_selector_all(
        "#descent-table tbody tr",
        "rows => rows.map(r => [...r.cells].slice(1).map(c => Number(c.dataset.value)))",
    )
    return [tuple(row) for row in shown]


def test_a_run_of_steps_shows_the_api_s_numbers_and_the_first_order_prediction(
    page: Any,
) -> None:
    start = {"a": 2.0, "b": -3.0, "c": 10.0}  # the lesson, at load
    expected, last = descended("tanh(a*b + c)", start, 2.0, 6)
    assert run(page, 2.0, 6) == expected  # the same bits: the page steps as the API's caller
    for name, x in last.items():
        expect(page.get_by_label(f"value of {name}", exact=True)).to_have_value(repr(x))
    for _, change, predicted in expected:  # a small step: the first-order prediction holds
        assert change < 0 and abs(change - predicted) < 0.1 * abs(predicted)
    note = page.locator("#descent-note")
    _, fifth = descended("tanh(a*b + c)", start, 2.0, 5)
    expect(note).to_contain_text(f"step 6: a {shared.six(fifth['a'])} → {shared.six(last['a'])}")
    change, predicted = (shared.six(x) for x in expected[-1][1:])
    expect(note).to_contain_text(f"Δe = {change} beside \N{MINUS SIGN}η‖∇e‖² = {predicted}")
    expect(note).not_to_contain_text("went up")
    points = page.locator("#descent-chart circle.output")
    expect(points).to_have_count(7)  # before the first step, and after each
    heights = [float(points.nth(k).get_attribute("cy")) for k in range(7)]
    assert heights == sorted(heights)  # downhill: each point lower on the chart (y grows down)
    expect(page.locator("#descent-chart circle.predicted")).to_have_count(6)
    expect(page.locator("#descent-chart circle.rises")).to_have_count(0)


def test_stop_ends_a_run_and_the_page_keeps_the_steps_taken(page: Any) -> None:
    page.locator("#rate").fill("0.5")
    page.locator("#descent-count").fill("500")  # paced: a minute and more to the end
    button = page.locator("#descend-run")
    button.click()
    expect(button).to_have_text("Stop")
    rows = page.locator("#descent-table tbody tr")
    expect(rows.nth(2)).to_be_attached()  # three steps taken
    stopping = "b => { b.click(); return b.textContent; }"
    assert button.evaluate(stopping) == "Stopping…"  # in the click's own task: the run is ending
    # "Run" once the step under way is shown and the loop has returned: no step comes after it
    expect(button).to_have_text("Run")
    taken = rows.count()
    assert 3 <= taken < 500
    start = {"a": 2.0, "b": -3.0, "c": 10.0}  # the lesson, at load
    expected, last = descended("tanh(a*b + c)", start, 0.5, taken)
    assert rows_shown(page) == expected  # every step taken, whole, and no other
    for name, x in last.items():
        expect(page.get_by_label(f"value of {name}", exact=True)).to_have_value(repr(x))
    expect(page.locator("#value")).to_have_text(f"e = tanh(n) = {shared.six(expected[-1][0])}")
    expect(page.locator("#descent-note")).to_contain_text(f"step {taken}:")
    page.click("#descend")  # one more step goes on from there
    expect(rows).to_have_count(taken + 1)
    assert rows_shown(page) == descended("tanh(a*b + c)", start, 0.5, taken + 1)[0]


def test_a_large_rate_diverges_and_the_page_shows_it(page: Any) -> None:
    page.emulate_media(reduced_motion="reduce")  # no pause between the steps: the same numbers
    page.click("text=shared node: x*x + x")
    expect(page.locator("#value")).to_have_text("e = x*x + x = 12")
    expected, last = descended("x*x + x", {"x": 3.0}, 1.2, 6)
    assert run(page, 1.2, 6) == expected
    assert all(change > 0 > predicted for _, change, predicted in expected)  # it climbs
    expect(page.locator("#descent-table tbody tr.rises")).to_have_count(6)
    expect(page.locator("#descent-chart circle.rises")).to_have_count(6)
    expect(page.locator("#descent-note")).to_contain_text("e went up at 6 of 6 steps")
    command = [sys.executable, "-m", "topograd", "grad", "x*x + x", f"x={last['x']!r}", "--json"]
    cli = json.loads(subprocess.run(command, capture_output=True, check=True, text=True).stdout)
    assert cli["value"] == expected[-1][0]  # topograd grad agrees with the last point


def test_a_preset_that_changes_the_expression_clears_the_descent(page: Any) -> None:
    run(page, 0.5, 2)
    expect(page.locator("#descent-note")).not_to_be_empty()
    page.click("text=shared node: x*x + x")
    expect(page.locator("#value")).to_have_text("e = x*x + x = 12")
    expect(page.locator("#descent-note")).to_be_empty()
    expect(page.locator("#descent-table")).to_be_hidden()
    expect(page.locator("#descent-chart svg")).to_have_count(0)
    page.click("#descend")  # one step: a new story of this expression
    expect(page.locator("#descent-table tbody tr")).to_have_count(1)
    page.fill("#expr", "x*x*x")  # typed: cleared too
    expect(page.locator("#descent-table tbody tr")).to_have_count(0)
    expect(page.locator("#descent-note")).to_be_empty()
