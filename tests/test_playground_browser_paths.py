"""The chain rule as a sum over paths, on the page in Chromium: for the input chosen, every
path from it to the output with its rules and the product of its local derivatives, their sum
beside backprop's gradient, each path's edges lit on the graph when pointed at; the numbers
are the API's. Fixtures as the page's tests."""

from __future__ import annotations

import json
from typing import Any

import test_playground_browser as shared

from topograd.playground.api import graph_request

pytestmark = shared.pytestmark  # Chromium or a reason to skip; one worker
url, browser, page = shared.url, shared.browser, shared.page  # the page's fixtures
expect = shared.expect
six = shared.six


def api_paths(expr: str, values: dict[str, float], name: str) -> dict[str, Any]:
    body = {"expr": expr, "values": values, "paths_for": name}
    status, reply = graph_request(json.dumps(body).encode())
    assert status == 200, reply
    return reply["paths"]


def open_paths(page: Any, name: str) -> Any:
    page.locator("#paths-details summary").click()
    page.select_option("#paths-input", name)
    return page.locator("#paths li")


def test_the_lesson_s_one_path_from_a_is_its_gradient(page: Any) -> None:
    found = api_paths("tanh(a*b + c)", {"a": 2, "b": -3, "c": 10}, "a")
    items = open_paths(page, "a")
    expect(items).to_have_count(1)
    (path,) = found["paths"]
    numbers = " × ".join(six(p) for p in path["partials"])
    expect(items.first).to_have_text(
        "a → d → n → e: ∂e/∂n · ∂n/∂d · ∂d/∂a = 1 - tanh²(n) · 1 · b = "
        f"{numbers} = {six(path['product'])}"
    )
    assert float(items.first.get_attribute("data-product")) == path["product"]
    expect(page.locator("#paths-sum")).to_have_text(
        f"Σ over the 1 path = {six(path['product'])} = {six(found['sum'])}: ∂e/∂a "
        f"(backprop's += at each shared node: {six(found['gradient'])})"
    )
    items.first.hover()  # its edges lit on the graph, and only they
    lit = page.eval_on_selector_all("#graph .path-lit", "els => els.map(e => e.dataset.edge)")
    assert sorted(lit) == sorted(path["edges"])


def test_a_shared_node_s_paths_add_up_to_its_gradient(page: Any) -> None:
    page.click("text=shared node: x*x + x")
    expect(page.locator("#value")).to_have_text("e = x*x + x = 12")
    found = api_paths("x*x + x", {"x": 3}, "x")
    items = open_paths(page, "x")
    expect(items).to_have_count(3)
    products = [float(items.nth(k).get_attribute("data-product")) for k in range(3)]
    assert products == [p["product"] for p in found["paths"]] == [3.0, 3.0, 1.0]
    expect(items.nth(2)).to_have_text("x → e: ∂e/∂x = 1 = 1 = 1")
    expect(page.locator("#paths-sum")).to_have_text(
        "Σ over the 3 paths = 3 + 3 + 1 = 7: ∂e/∂x (backprop's += at each shared node: 7)"
    )
    for k, path in enumerate(found["paths"]):
        items.nth(k).hover()  # (a focus would scroll the list under a resting pointer)
        lit = page.eval_on_selector_all("#graph .path-lit", "els => els.map(e => e.dataset.edge)")
        assert sorted(lit) == sorted(path["edges"])
    page.get_by_label("value of x", exact=True).fill("5")  # new values: the paths follow
    expect(page.locator("#paths-sum")).to_contain_text("= 11: ∂e/∂x")
