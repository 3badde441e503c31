"""The playground end to end, in a real browser: Playwright driving Debian's Chromium.

Skipped, with the reason shown, where Chromium or Playwright is missing; CI installs both.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import topograd as tg
from topograd.expr import parse

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
CHROMIUM = os.environ.get("TOPOGRAD_CHROMIUM") or shutil.which("chromium")
pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
    ),
    pytest.mark.xdist_group("playground"),  # one worker: one server and one Chromium
]
expect = playwright_api.expect


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    from topograd.playground.server import make_server

    server = make_server(0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield chromium
        chromium.close()


def opened(browser: Any, url: str, width: int, height: int) -> Any:
    """A new page of that size, the lesson's answer shown."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(url)
    expect(page.locator("#grads tbody tr")).to_have_count(3)
    return page


@pytest.fixture
def page(browser: Any, url: str) -> Iterator[Any]:
    problems: list[str] = []
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.goto(url)
    expect(page.locator("#grads tbody tr")).to_have_count(3)
    yield page
    # Only the refusals the test provoked may show up (a 4xx answer logs a failed load).
    assert [p for p in problems if "status of 422" not in p] == []
    page.close()


def engine(expr: str, values: dict[str, float]) -> tuple[tg.Value, dict[str, tg.Value]]:
    out, inputs = parse(expr).build(values)
    out.backward()
    return out, inputs


def value_line(expr: str, out: tg.Value) -> str:
    """The line over the graph: the output's name (the last line's, or e as the lesson names
    it), its formula as typed, its value."""
    name, formula = tg.trace(out).nodes[-1].name, parse(expr).formula
    return f"{name} = {formula} = {out.data:.6g}" if formula != name else f"{name} = {out.data:.6g}"


def gradients_on_page(page: Any) -> dict[str, float]:
    rows = page.locator("#grads tbody tr")
    return {
        rows.nth(i).get_attribute("data-name"): float(
            rows.nth(i).locator("td.grad").get_attribute("data-value")
        )
        for i in range(rows.count())
    }


def test_the_lessons_gradients_on_the_page_are_the_engines(page: Any) -> None:
    expect(page.locator("#value")).to_have_text("e = tanh(n) = 0.999329")
    _, inputs = engine("tanh(a*b + c)", {"a": 2, "b": -3, "c": 10})
    assert gradients_on_page(page) == {name: v.grad for name, v in inputs.items()}  # every bit
    assert page.locator("#graph svg .node.value").count() == 6


def test_stepping_walks_the_nodes_in_reverse_topological_order(page: Any) -> None:
    out, _ = engine("tanh(a*b + c)", {"a": 2, "b": -3, "c": 10})
    expected = [step.node for step in tg.trace(out).steps]
    page.uncheck("#skip-inputs")  # every node's step, the inputs' too
    seen = []
    for k in range(len(expected)):
        page.click("#step")
        expect(page.locator("#progress")).to_have_text(f"step {k + 1} of {len(expected)}")
        current = page.locator("#graph .node.value.current")
        expect(current).to_have_count(1)
        seen.append(current.get_attribute("data-node"))
    assert seen == expected
    assert [
        page.locator("#log li").nth(i).get_attribute("data-node") for i in range(len(expected))
    ] == expected
    expect(page.locator("#step")).to_be_disabled()
    page.click("#reset")
    expect(page.locator("#log li")).to_have_count(0)


def test_a_shared_node_visibly_receives_three_contributions(page: Any) -> None:
    page.click("text=shared node: x*x + x")
    expect(page.locator("#value")).to_have_text("e = x*x + x = 12")
    x = page.locator("#graph .node.value[data-node='n0'] text.grad")
    page.click("#step")
    expect(x).to_have_text("grad 1")
    page.click("#step")
    expect(x).to_have_text("grad 7")
    log = page.locator("#log").text_content()
    assert log.count("into x (") == 3  # not "into x*x"
    assert "(now 1)" in log and "(now 4)" in log and "(now 7)" in log


def test_moving_a_slider_updates_the_graph_and_the_gradients(page: Any) -> None:
    slider = page.get_by_label("slider for a")
    slider.focus()
    for _ in range(25):
        slider.press("ArrowRight")  # step 0.01
    expect(page.get_by_label("value of a")).to_have_value("2.25")
    expect(page.locator("#graph .node.value[data-node='n0'] text.data")).to_have_text("data 2.25")
    expect(page.locator("#value")).not_to_have_text("e = tanh(n) = 0.999329")
    _, inputs = engine("tanh(a*b + c)", {"a": 2.25, "b": -3, "c": 10})
    expect(page.locator("#grads tr[data-name='b'] td.grad")).to_have_attribute(
        "data-value", repr(inputs["b"].grad)
    )
    assert gradients_on_page(page) == {name: v.grad for name, v in inputs.items()}


def test_an_error_is_shown_inline_and_the_page_stays(page: Any, tmp_path: Path) -> None:
    page.fill("#expr", "a.b + tanh(c)")
    error = page.locator("#error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("attributes (a.b) are not allowed")
    expect(page.locator("#graph svg")).to_have_count(1)  # the last good graph, dimmed
    page.fill("#expr", "sigmoid(a) * b")
    expect(error).to_be_hidden()
    expect(page.locator("#value")).to_contain_text("sigmoid(a) * b = ")


def test_a_screenshot_of_a_walk_through(page: Any, tmp_path: Path) -> None:
    page.click("text=a larger graph")
    expect(page.locator("#value")).to_contain_text("sigmoid(w1*x1")
    for _ in range(4):
        page.click("#step")
    path = tmp_path / "playground.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert path.stat().st_size > 20_000  # a drawn page, not a blank one


def test_the_page_offers_the_registrys_functions(page: Any) -> None:
    from topograd.expr import functions

    hint = page.locator("#grammar")
    expect(hint).to_contain_text("erf")
    text = hint.text_content()
    assert all(name in text.split() for name in functions())
    titles = dict(  # each name shows its maths and its derivative where the pointer rests
        page.eval_on_selector_all(
            "#grammar span.function", "words => words.map(w => [w.textContent, w.title])"
        )
    )
    assert titles == {
        name: f"{op.maths}; derivative: {op.derivative}" for name, op in functions().items()
    }
    page.fill("#expr", "erf(x) + asinh(x)")
    expect(page.locator("#value")).to_contain_text("erf(x) + asinh(x) =")


FORMATTED = [
    *range(100_000, 1_000_001, 37_013),  # integers 1e5 to 1e6: every digit shown
    100_000,
    1_000_000,
    160_000,
    1e-5,
    1e21,
    5e-324,
    -0.0,
    float("inf"),
    float("-inf"),
    float("nan"),
    0.1 + 0.2,
    1234565.0,  # a tie at the seventh digit: to even, as Python
    -2.5e-7,
]


def test_the_page_formats_numbers_as_the_command_line(page: Any) -> None:
    """One formatter for graph, table and log, with the CLI's rules (its drawings and trace:
    format(x, ".6g")): over a table of edges and 5,000 random doubles."""
    import random
    import struct

    rng = random.Random(0)
    doubles = [struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0] for _ in range(5000)]
    values = [*FORMATTED, *(x for x in doubles if x == x)]
    texts = [repr(float(x)) for x in values]
    to_number = "t => Number(t.replace('inf', 'Infinity').replace('nan', 'NaN'))"
    shown = page.evaluate(f"texts => texts.map(t => number(({to_number})(t)))", texts)
    expected = [format(float(x), ".6g") for x in values]
    assert [(t, s) for t, s, e in zip(texts, shown, expected) if s != e] == []


@pytest.mark.parametrize(
    ("x", "value", "gradient"), [(50_000, "2.5e+09", "100000"), (400, "160000", "800")]
)
def test_large_numbers_read_the_same_in_text_graph_and_table(
    page: Any, x: int, value: str, gradient: str
) -> None:
    page.fill("#expr", "x*x")
    field = page.get_by_label("value of x")
    field.fill(str(x))
    expect(page.locator("#value")).to_have_text(f"e = x*x = {value}")
    expect(page.locator("#graph .node.value[data-node='n1'] text.data")).to_have_text(
        f"data {value}"
    )
    expect(page.locator("#grads tr[data-name='x'] td.grad")).to_have_text(gradient)
    page.click("#step")  # x*x's step; x's own is skipped: it only confirms
    expect(page.locator("#log")).to_contain_text(f"into x (now {gradient})")
    expect(page.locator("#step")).to_be_disabled()


def test_only_the_latest_request_s_answer_is_shown(page: Any) -> None:
    """A slow answer arriving after a newer one is dropped: the slow expression's reply is held
    back 800 ms in the browser (latency cannot be made real per request), a preset is clicked
    meanwhile, and the page keeps the preset's text and graph."""
    page.evaluate(
        """() => {
          const real = window.fetch;
          window.fetch = async (url, options) => {
            const reply = await real(url, options);
            if (options && String(options.body).includes("slow")) {
              await new Promise((done) => setTimeout(done, 800));
            }
            return reply;
          };
        }"""
    )
    page.fill("#expr", "slow * 2 + slow")
    page.wait_for_timeout(400)  # sent (the debounce is 250 ms), its answer held back
    page.click("text=shared node: x*x + x")
    expect(page.locator("#value")).to_have_text("e = x*x + x = 12")
    page.wait_for_timeout(1200)  # the slow answer has arrived by now, and was dropped
    expect(page.locator("#value")).to_have_text("e = x*x + x = 12")
    assert page.locator("#graph .node.value").count() == 3
    assert page.locator("#expr").input_value() == "x*x + x"


def test_holding_a_slider_at_its_end_does_not_widen_it(page: Any) -> None:
    slider = page.get_by_label("slider for c")
    assert (slider.get_attribute("min"), slider.get_attribute("max")) == ("-20", "20")  # c = 10
    slider.focus()
    for _ in range(6):
        slider.press("End")
        page.wait_for_timeout(150)  # an answer comes back each time
    expect(page.get_by_label("value of c")).to_have_value("20")
    n = 2 * -3 + 20  # n = a*b + c, with c at the slider's end
    expect(page.locator("#graph .node.value[data-node='n4'] text.data")).to_have_text(f"data {n}")
    assert (slider.get_attribute("min"), slider.get_attribute("max")) == ("-20", "20")
    page.get_by_label("value of c").fill("300")  # a typed value sets the range
    expect(slider).to_have_attribute("max", "600")


def test_a_gradient_the_central_difference_disagrees_with_is_flagged(page: Any) -> None:
    note = page.locator("#check-note")
    expect(note).to_be_hidden()  # the lesson's six agree
    page.fill("#expr", "sin(x) + y")
    page.get_by_label("value of x").fill("1e300")
    row = page.locator("#grads tr[data-name='x']")
    expect(row).to_have_class("disagrees")
    expect(page.locator("#grads tr[data-name='y']")).not_to_have_class("disagrees")
    expect(note).to_be_visible()
    expect(note).to_contain_text("sin turns countless times")


def six(x: float) -> str:
    return format(x, ".6g")


def test_each_flowing_edge_shows_local_times_upstream_and_points_back(page: Any) -> None:
    out, _ = engine("tanh(a*b + c)", {"a": 2, "b": -3, "c": 10})
    walked = [s for s in tg.trace(out).steps if s.edges]  # the inputs' own steps are skipped
    assert len(walked) == 3  # e's, n's and d's: tanh, + and *
    for k, step in enumerate(walked, 1):
        page.click("#step")
        expect(page.locator("#progress")).to_have_text(f"step {k} of 3")
        labels = page.locator("#graph text.flow-label")
        expect(labels).to_have_count(len(step.edges))
        for edge in step.edges:
            path = page.locator(f"#tg-{step.node}\\.{edge.operand}")
            expect(path).to_have_class(re.compile(r"\bflow\b"))
            assert path.get_attribute("marker-start") == "url(#tg-arrow-back)"
            assert path.get_attribute("marker-end") == ""
            words = page.locator(f"#graph text.flow-label[data-edge='{step.node}.{edge.operand}']")
            expect(words.locator("tspan.numbers")).to_have_text(
                f"{six(edge.partial)} × {six(step.grad)} = {six(edge.contribution)}"
            )
        if k == 2:  # e and n ran, and c's own step with n's (it comes before d's): 3 done
            expect(page.locator("#graph .node.value.done")).to_have_count(3)
            # d = a*b has its gradient, not yet passed on: only a and b wait for theirs
            expect(page.locator("#graph .node.value.waiting")).to_have_count(2)
    expect(page.locator("#graph .node.value.done")).to_have_count(6)  # a's and b's with d's
    expect(page.locator("#graph .node.value.waiting")).to_have_count(0)


def test_the_table_follows_the_step_and_back_undoes_one(page: Any) -> None:
    cell = {n: page.locator(f"#grads tr[data-name='{n}'] td.grad") for n in "abc"}
    page.click("#step")  # e's step: nothing has reached a, b or c
    for name in "abc":
        expect(cell[name]).to_have_text("?")
    page.click("#step")  # n's step: c has its gradient, a and b not yet
    _, inputs = engine("tanh(a*b + c)", {"a": 2, "b": -3, "c": 10})
    expect(cell["c"]).to_have_text(six(inputs["c"].grad))
    expect(cell["a"]).to_have_text("?")
    log_after_two = page.locator("#log").text_content()
    page.click("#step")
    expect(cell["a"]).to_have_text(six(inputs["a"].grad))
    page.click("#back")
    expect(page.locator("#progress")).to_have_text("step 2 of 3")
    expect(cell["a"]).to_have_text("?")
    assert page.locator("#log").text_content() == log_after_two
    page.click("#reset")
    expect(cell["a"]).to_have_text(six(inputs["a"].grad))  # final again


def test_a_shared_node_shows_its_running_sum_on_the_graph(page: Any) -> None:
    page.click("text=shared node: x*x + x")
    expect(page.locator("#value")).to_have_text("e = x*x + x = 12")
    page.click("#step")
    expect(page.locator("#graph text.running-sum")).to_have_count(0)  # one contribution: 1
    page.click("#step")
    expect(page.locator("#graph text.running-sum[data-node='n0']")).to_have_text(
        "Σ 1 + 3 + 3 = 7 (+= one by one: 1 → 4 → 7)"
    )


def test_keys_step_back_and_play(page: Any) -> None:
    page.locator("h1").click()  # the keys belong to the page, not to a field
    page.keyboard.press("ArrowRight")
    expect(page.locator("#progress")).to_have_text("step 1 of 3")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#progress")).to_have_text("step 1 of 3")
    page.get_by_label("value of a").focus()
    page.keyboard.press("ArrowRight")  # in a field the keys are the field's
    expect(page.locator("#progress")).to_have_text("step 1 of 3")
    page.locator("#speed").fill("4")
    page.locator("h1").click()
    page.keyboard.press(" ")
    expect(page.locator("#progress")).to_have_text("step 3 of 3", timeout=3000)
    expect(page.locator("#play")).to_have_text("Play")


def test_play_goes_at_the_speed_chosen(page: Any) -> None:
    page.locator("#speed").fill("0.25")  # a step every 2.8 s
    page.click("#play")
    expect(page.locator("#play")).to_have_text("Pause")
    page.wait_for_timeout(1000)
    expect(page.locator("#progress")).to_have_text("step 1 of 3")
    page.click("#play")  # pause
    page.locator("#speed").fill("4")  # a step every 0.175 s
    page.click("#play")
    expect(page.locator("#progress")).to_have_text("step 3 of 3", timeout=2000)


def test_each_preset_says_what_to_look_at(page: Any) -> None:
    page.click("text=c = 100 (saturation)")
    expect(page.locator("#preset-note")).to_contain_text("tanh saturates")
    page.click("text=shared node: x*x + x")
    expect(page.locator("#preset-note")).to_contain_text("1 + 3 + 3 = 7")
    page.fill("#expr", "x*x*x")
    expect(page.locator("#preset-note")).to_have_text("")


def fill_of(page: Any, node: str) -> tuple[int, int, int]:
    text = page.eval_on_selector(f"#tg-{node} rect", "r => getComputedStyle(r).fill")
    red, green, blue = (int(part) for part in re.findall(r"\d+", text)[:3])
    return red, green, blue


def test_colour_encodes_the_gradient_s_sign_and_size(page: Any) -> None:
    expect(page.locator("#legend")).to_be_visible()
    _, inputs = engine("tanh(a*b + c)", {"a": 2, "b": -3, "c": 10})
    assert inputs["a"].grad < 0 < inputs["b"].grad
    nodes = {
        n.label: n.id
        for n in tg.trace(engine("tanh(a*b + c)", {"a": 2, "b": -3, "c": 10})[0]).nodes
    }
    red, _, blue = fill_of(page, nodes["a"])
    assert blue > red  # below zero: blue
    red, _, blue = fill_of(page, nodes["b"])
    assert red > blue  # above zero: red
    deep = fill_of(page, nodes["e"])  # gradient 1, the largest: the deepest red
    assert sum(deep) < sum(fill_of(page, nodes["b"]))


def test_a_node_tells_its_gradient_as_a_sum_over_its_users(page: Any) -> None:
    page.click("text=shared node: x*x + x")
    expect(page.locator("#value")).to_have_text("e = x*x + x = 12")
    page.locator("#tg-n0").focus()  # x, by the keyboard
    info = page.locator("#node-info")
    expect(info).to_be_visible()
    expect(info).to_contain_text("value 3, gradient ∂e/∂x = 7")
    expect(info).to_contain_text("= 1 × 1 + 3 × 1 + 3 × 1 = 7")  # local derivative × upstream
    expect(info).to_contain_text("from d: ∂d/∂x = x; 3 × 1 = 3")
    page.locator("#tg-n1").hover()
    expect(info).to_contain_text("d = x * x")


def test_on_a_phone_nothing_runs_off_the_side_and_numbers_stay_whole(
    browser: Any, url: str
) -> None:
    phone = opened(browser, url, 390, 844)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    lines = phone.eval_on_selector_all(  # a text's line boxes: one rectangle each
        "#grads td",
        """cells => cells.map(c => {
          const range = document.createRange();
          range.selectNodeContents(c);
          return range.getClientRects().length;
        })""",
    )
    assert set(lines) == {1}  # every number on one line
    graph = phone.locator("#graph svg").bounding_box()
    assert graph["y"] < 844 / 2  # the graph first, not under every control
    phone.close()


def test_the_address_keeps_the_state_for_a_reload_and_a_pasted_link(
    page: Any, browser: Any
) -> None:
    page.click("text=shared node: x*x + x")
    expect(page.locator("#value")).to_have_text("e = x*x + x = 12")
    page.get_by_label("value of x").fill("2.5")
    expect(page.locator("#value")).to_have_text("e = x*x + x = 8.75")
    page.click("#step")
    page.click("#step")
    expect(page.locator("#progress")).to_have_text("step 2 of 2")
    link = page.url
    assert "#" in link and "expr=" in link
    for view in (page, browser.new_page()):
        if view is page:
            view.reload()
        else:
            view.goto(link)
        expect(view.locator("#value")).to_have_text("e = x*x + x = 8.75")
        expect(view.locator("#expr")).to_have_value("x*x + x")
        expect(view.locator("#progress")).to_have_text("step 2 of 2")
        expect(view.locator("#graph text.running-sum")).to_have_text(
            "Σ 1 + 2.5 + 2.5 = 6 (+= one by one: 1 → 3.5 → 6)"
        )
    page.context.pages[-1].close()


def test_a_link_with_a_greek_name_and_a_hostile_value(browser: Any, url: str) -> None:
    view = browser.new_page()
    view.goto(url + "#expr=%CE%BB*2&v.%CE%BB=1.5&v.__proto__=x&step=-3")
    expect(view.locator("#value")).to_have_text("e = λ*2 = 3")
    expect(view.locator("#progress")).to_contain_text("gradients shown are final")
    view.close()


@pytest.mark.parametrize(("button", "start"), [("SVG", b"<svg"), ("PNG", b"\x89PNG\r\n\x1a\n")])
def test_the_graph_downloads_as_shown(page: Any, button: str, start: bytes) -> None:
    page.click("#step")  # with the marks of a step
    with page.expect_download() as waiting:
        page.click(f"text=Download {button}")
    data = Path(waiting.value.path()).read_bytes()
    assert data.startswith(start)
    assert waiting.value.suggested_filename == f"topograd-graph.{button.lower()}"
    if button == "SVG":
        assert b"flow-label" in data and "∂e/∂n = 1 - tanh²(n)".encode() in data
        assert b"var(--" not in data  # the page's colours written out: the marks stay coloured
    else:
        assert len(data) > 10_000  # a drawing, not a blank


def test_the_forward_pass_steps_values_in_topological_order(page: Any) -> None:
    out, _ = engine("tanh(a*b + c)", {"a": 2, "b": -3, "c": 10})
    computed = [n for n in tg.trace(out).nodes if n.op]
    page.select_option("#pass", "forward")
    expect(page.locator("#progress")).to_have_text(
        f"{len(computed)} operations to compute, inputs first"
    )
    for node in computed:
        data = page.locator(f"#tg-{node.id} text.data")
        expect(data).to_have_text("data ?")  # not computed yet
        page.click("#step")
        expect(data).to_have_text(f"data {six(node.data)}")
        expect(page.locator("#graph .node.value.current")).to_have_attribute("data-node", node.id)
    log = page.locator("#log li")
    expect(log).to_have_count(len(computed))
    expect(log.nth(0)).to_have_text("d = 2 * -3 = -6")
    expect(log.nth(2)).to_have_text(f"e = tanh(4) = {six(out.data)}")
    expect(page.locator("#grads tr[data-name='a'] td.grad")).to_have_text("?")  # no gradient yet
    page.select_option("#pass", "backward")
    expect(page.locator(f"#tg-{computed[0].id} text.data")).to_have_text("data -6")


def test_one_step_of_gradient_descent_moves_every_input_downhill(page: Any) -> None:
    out, inputs = engine("tanh(a*b + c)", {"a": 2, "b": -3, "c": 10})
    page.locator("#rate").fill("0.5")
    page.click("#descend")
    moved = {name: v.data - 0.5 * v.grad for name, v in inputs.items()}
    for name, x in moved.items():
        expect(page.get_by_label(f"value of {name}")).to_have_value(repr(x))
    after, _ = engine("tanh(a*b + c)", moved)
    assert after.data < out.data  # downhill
    expect(page.locator("#value")).to_have_text(f"e = tanh(n) = {six(after.data)}")
    expect(page.locator("#descent-note")).to_contain_text("η = 0.5")


def scale_of(page: Any) -> float:
    return float(page.locator("#graph svg").get_attribute("data-scale"))


def view_box(page: Any) -> list[float]:
    return [float(x) for x in page.locator("#graph svg").get_attribute("viewBox").split()]


def test_the_larger_graph_is_readable_at_1280_by_800(browser: Any, url: str) -> None:
    screen = opened(browser, url, 1280, 800)
    screen.click("text=a larger graph")
    expect(screen.locator("#value")).to_contain_text("sigmoid(w1*x1")
    heights = screen.eval_on_selector_all(
        "#graph svg .node.value text.data",
        "texts => texts.map(t => t.getBoundingClientRect().height)",
    )
    assert min(heights) >= 9  # pixels of text on the screen: read, then pan for the rest
    assert view_box(screen)[:2] == [0, 0]  # from the inputs
    screen.close()


def test_zoom_and_pan_by_buttons_wheel_and_drag(page: Any) -> None:
    page.click("text=a larger graph")
    expect(page.locator("#value")).to_contain_text("sigmoid(w1*x1")
    fitted = scale_of(page)
    page.click("#zoom-in")
    assert scale_of(page) == pytest.approx(fitted * 1.25)
    page.click("#zoom-out")
    page.click("#zoom-out")
    assert scale_of(page) == pytest.approx(fitted * 1.25 * 0.8 * 0.8)
    page.click("#zoom-fit")  # the whole graph, however small: at 9 px or less
    assert scale_of(page) <= fitted
    svg = page.locator("#graph svg")
    whole = [0, 0, float(svg.get_attribute("data-width")), float(svg.get_attribute("data-height"))]
    assert view_box(page) == pytest.approx(whole, rel=1e-6)
    fitted = scale_of(page)
    box = page.locator("#graph svg").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.wheel(0, -300)  # towards the reader: larger
    expect(page.locator("#graph svg")).not_to_have_attribute("data-scale", str(fitted))
    assert scale_of(page) > fitted
    x0 = view_box(page)[0]
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 - 120, box["y"] + box["height"] / 2, steps=4)
    page.mouse.up()
    assert view_box(page)[0] == pytest.approx(x0 + 120 / scale_of(page), rel=1e-6)
    zoomed = scale_of(page)
    page.get_by_label("value of b").fill("0.4")  # only values change: the view stays
    expect(page.locator("#value")).not_to_contain_text("= 0.917002")
    assert scale_of(page) == zoomed
    page.fill("#expr", "x*x + x")  # another graph: fitted anew
    expect(page.locator("#value")).to_contain_text("x*x + x =")
    assert scale_of(page) != zoomed


def test_the_chart_of_the_step_h_for_a_chosen_input(page: Any) -> None:
    page.click("#h-details summary")
    page.select_option("#h-input", "c")
    points = page.locator("#h-chart circle.error-point")
    expect(points).to_have_count(15)
    errors = [float(points.nth(k).get_attribute("data-error")) for k in range(15)]
    best = errors.index(min(errors))
    assert errors[0] > 100 * errors[best] < errors[-1] / 100  # a valley: both ends mislead
    expect(page.locator("#h-chart line.check-step")).to_have_count(1)
    expect(page.locator("#h-caption")).to_contain_text("rounding")


def test_two_fingers_pinch_to_zoom(page: Any) -> None:
    """Two touch pointers moving apart zoom in (the events a touch screen sends, dispatched:
    the test machine has no touch screen)."""
    fitted = scale_of(page)
    page.eval_on_selector(
        "#graph",
        """panel => {
          const box = panel.getBoundingClientRect();
          const y = box.top + box.height / 2;
          const send = (type, id, x) => panel.dispatchEvent(new PointerEvent(type, {
            pointerId: id, pointerType: "touch", clientX: x, clientY: y, bubbles: true }));
          send("pointerdown", 1, box.left + 200);
          send("pointerdown", 2, box.left + 300);
          send("pointermove", 2, box.left + 400);  // twice as far apart
          send("pointerup", 2, box.left + 400);
          send("pointerup", 1, box.left + 200);
        }""",
    )
    assert scale_of(page) == pytest.approx(fitted * 2)


def test_a_value_typed_while_an_answer_is_on_its_way_is_kept(page: Any) -> None:
    """Every answer held back 400 ms: a value typed while the answer to the one before is on
    its way must not be overwritten by that answer."""
    page.evaluate(
        """() => {
          const real = window.fetch;
          window.fetch = async (url, options) => {
            const reply = await real(url, options);
            await new Promise((done) => setTimeout(done, 400));
            return reply;
          };
        }"""
    )
    field = page.get_by_label("value of a")
    field.fill("3")
    page.wait_for_timeout(250)  # its request sent (150 ms debounce), its answer held back
    field.fill("5")
    expect(page.locator("#value")).to_have_text(
        f"e = tanh(n) = {six(engine('tanh(a*b + c)', {'a': 5, 'b': -3, 'c': 10})[0].data)}"
    )
    expect(field).to_have_value("5")
    assert "v.a=5" in page.url


def test_the_node_panel_follows_the_values(page: Any) -> None:
    page.click("text=shared node: x*x + x")
    expect(page.locator("#value")).to_have_text("e = x*x + x = 12")
    page.locator("#tg-n0").focus()
    expect(page.locator("#node-info")).to_contain_text("value 3,")
    page.get_by_label("value of x").fill("10")
    expect(page.locator("#node-info")).to_contain_text("value 10,")
    expect(page.locator("#node-info")).to_contain_text("= 21")


def test_a_link_keeps_whether_the_inputs_steps_are_walked(page: Any, browser: Any) -> None:
    page.uncheck("#skip-inputs")
    for _ in range(4):
        page.click("#step")
    expect(page.locator("#progress")).to_have_text("step 4 of 6")
    view = browser.new_page()
    view.goto(page.url)
    expect(view.locator("#progress")).to_have_text("step 4 of 6")
    expect(view.locator("#skip-inputs")).not_to_be_checked()
    view.close()


def test_stepping_never_scrolls_the_page_and_follows_the_running_node(
    browser: Any, url: str
) -> None:
    screen = opened(browser, url, 1280, 800)
    screen.click("text=a larger graph")
    expect(screen.locator("#value")).to_contain_text("sigmoid(w1*x1")
    font = float(
        screen.eval_on_selector("#graph svg", "s => parseFloat(getComputedStyle(s).fontSize)")
    )
    assert font * scale_of(screen) >= 9  # 12-pixel text drawn at 9 pixels or more
    screen.click("#step")  # the output's step, at the far right of the drawing
    running = screen.locator("#graph .node.value.current").bounding_box()
    panel = screen.locator("#graph").bounding_box()
    assert (
        panel["x"] <= running["x"]
        and running["x"] + running["width"] <= panel["x"] + panel["width"]
    )
    for _ in range(5):
        screen.click("#step")
    assert screen.evaluate("window.scrollY") == 0
    screen.close()


def test_labels_stay_inside_the_drawing(page: Any) -> None:
    page.click("text=shared node: x*x + x")
    expect(page.locator("#value")).to_have_text("e = x*x + x = 12")
    page.click("#step")
    page.click("#step")  # x*x's step: two labels, 3 x 1 = 3 each
    labels = page.locator("#graph text.flow-label")
    expect(labels).to_have_count(2)
    tall = float(page.locator("#graph svg").get_attribute("data-height"))
    for k in range(2):
        box = labels.nth(k).evaluate("t => { const b = t.getBBox(); return [b.y, b.height]; }")
        assert box[0] >= 0 and box[0] + box[1] <= tall


def test_a_graph_too_large_to_draw_is_refused_saying_so(page: Any) -> None:
    page.fill("#expr", "+".join(["x"] * 300))
    expect(page.locator("#error")).to_contain_text("the graph has 300 edges; the playground draws")
    expect(page.locator("#graph svg")).to_have_count(1)  # the last good graph, dimmed
    page.fill("#expr", "+".join(["x"] * 150))
    expect(page.locator("#error")).to_be_hidden()


def test_on_a_phone_the_graph_and_the_step_button_are_seen_together(browser: Any, url: str) -> None:
    phone = opened(browser, url, 390, 844)
    graph, step = phone.locator("#graph svg").bounding_box(), phone.locator("#step").bounding_box()
    assert graph["y"] >= 0 and step["y"] + step["height"] <= 844  # both on the first screen
    phone.click("#step")
    assert phone.evaluate("window.scrollY") == 0
    phone.close()


def test_the_forward_pass_hides_the_checks_of_gradients_not_computed_yet(page: Any) -> None:
    check = page.locator("#grads tr[data-name='a'] td.check")
    expect(check).to_be_visible()
    page.select_option("#pass", "forward")
    expect(check).to_be_hidden()
    page.select_option("#pass", "backward")
    expect(check).to_be_visible()
