"""The page's numbers in Chromium, as a learner reads them: a value too large for a float is
refused naming its field, the differences are relative where large, a nan is blamed on the
function's domain, and a constant receives nothing in the log. Fixtures as the page's tests."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
import test_playground_browser as shared

from topograd.playground.api import graph_request

pytestmark = shared.pytestmark  # Chromium or a reason to skip; one worker
url, browser, page = shared.url, shared.browser, shared.page  # the page's fixtures
expect = shared.expect


def test_1e309_in_a_value_field_is_refused_naming_the_field(page: Any) -> None:
    field = page.get_by_label("value of a")
    field.fill("1e309")
    error = page.locator("#error")
    expect(error).to_be_visible()
    expect(error).to_have_text(
        "the value of a, 1e309, is too large: beyond 1.79769e+308 a float is inf"
    )
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#value")).to_have_text("e = tanh(n) = 0.999329")  # a stays 2
    field.fill("abc")
    expect(error).to_have_text("the value of a, abc, is not a number")
    field.fill("3")
    expect(error).to_be_hidden()
    expect(field).not_to_have_attribute("aria-invalid", "true")
    expect(page.locator("#value")).to_have_text(f"e = tanh(n) = {math.tanh(3 * -3 + 10):.6g}")


def test_the_table_shows_the_servers_relative_difference(page: Any) -> None:
    page.fill("#expr", "x*y")
    page.get_by_label("value of x").fill("1")
    page.get_by_label("value of y").fill("1e21")
    _, reply = graph_request(json.dumps({"expr": "x*y", "values": {"x": 1, "y": 1e21}}).encode())
    cell = page.locator("#grads tr[data-name='x'] td.gap")
    expect(cell).to_have_text(format(reply["differences"]["x"], ".6g"))
    header = page.locator("#grads th").nth(3)
    expect(header).to_have_text("rel. diff")
    assert "max(1, |backprop|" in header.get_attribute("title")
    expect(page.locator("#grads tr[data-name='x']")).not_to_have_class("disagrees")


@pytest.mark.parametrize("function", ["log", "sqrt"])
def test_log_of_a_negative_number_blames_the_domain_not_the_step(page: Any, function: str) -> None:
    page.fill("#expr", f"{function}(x)")
    page.get_by_label("value of x").fill("-1")
    note = page.locator("#domain-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text(f"{function}(-1) is nan: -1 is outside the domain of {function}")
    expect(page.locator("#check-note")).to_be_hidden()  # not "the step h grows with x"
    # the step-size chart: no step gives an estimate, and its caption says why, not h
    page.locator("#h-details summary").click()
    caption = page.locator("#h-caption")
    expect(caption).to_contain_text(f"-1 is outside the domain of {function}")
    expect(caption).to_contain_text("No step h gives x an estimate")
    expect(caption).not_to_contain_text("curvature")
    expect(page.locator("#h-chart circle.error-point")).to_have_count(0)  # no mark for a nan
    page.get_by_label("value of x").fill("2")
    expect(note).to_be_hidden()
    expect(caption).to_contain_text("curvature")  # where there is a number, h matters again
    expect(page.locator("#h-chart circle.error-point")).not_to_have_count(0)


@pytest.mark.parametrize("all_steps", [False, True])
def test_a_constant_receives_nothing_in_the_log(page: Any, all_steps: bool) -> None:
    page.fill("#expr", "2*x")
    page.get_by_label("value of x").fill("1")  # (a new name starts at random)
    expect(page.locator("#value")).to_have_text("e = 2*x = 2")
    if all_steps:
        page.uncheck("#skip-inputs")
    for _ in range(3 if all_steps else 1):
        page.click("#step")
    log = page.locator("#log")
    expect(log).to_contain_text("2 is a constant: nothing flows into it")
    expect(log).to_contain_text("into x (now 2)")
    expect(log).not_to_contain_text("into 2")
    if all_steps:
        expect(log).to_contain_text("2: a constant, it keeps no gradient")
