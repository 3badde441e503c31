"""The words the backward walk writes on the graph, in Chromium: each edge's label is its local
rule (from the registry's derivative, as ``topograd ops`` prints it) over its numbers, and no
label or running sum ever lies over a node's box or over another's words: on every preset, on
a 60-term graph and on random graphs, at every step, and on a phone's screen (390 x 844) too.
Fixtures as the page's tests."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
import test_playground_browser as shared

import topograd as tg
from topograd.autograd.registry import OPS
from topograd.expr import parse
from topograd.playground.api import MAX_DRAWN
from topograd.viz.rules import partials, rule

pytestmark = shared.pytestmark  # Chromium or a reason to skip; one worker
url, browser, page = shared.url, shared.browser, shared.page  # the page's fixtures
expect = shared.expect

# Every step walked by Step's own button; after each, each word's box (its text's) against
# every node's box (values and ops), every other word's, and the drawing's bounds.
WALK_AND_CHECK = """() => {
  const svg = document.querySelector("#graph svg");
  const overlap = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width
    && a.y < b.y + b.height && b.y < a.y + a.height;
  const clashes = [];
  let words = 0;
  let steps = 0;
  const button = document.getElementById("step");
  while (!button.disabled) {
    button.click();
    steps += 1;
    const nodes = [...svg.querySelectorAll("g.node")].map((g) => [g.id, g.getBBox()]);
    const texts = [...svg.querySelectorAll("g.marks text")];
    const boxes = texts.map((t) => [t.dataset.edge ?? t.dataset.node, t.getBBox()]);
    words += texts.length;
    const tall = Number(svg.dataset.height);
    const wide = Number(svg.dataset.width);
    boxes.forEach(([name, box], k) => {
      for (const [id, node] of nodes) {
        if (overlap(box, node)) clashes.push(`step ${steps}: ${name} over ${id}`);
      }
      for (const [other, second] of boxes.slice(k + 1)) {
        if (overlap(box, second)) clashes.push(`step ${steps}: ${name} over ${other}`);
      }
      if (box.x < 0 || box.y < 0 || box.x + box.width > wide || box.y + box.height > tall) {
        clashes.push(`step ${steps}: ${name} outside the drawing`);
      }
    });
  }
  return { clashes, words, steps };
}"""


def walked_words(expr: str, values: dict[str, float]) -> tuple[int, int]:
    """The steps the page walks (the inputs' own skipped) and the words it writes on them: an
    edge's label per contribution, a running sum per node reached twice or more so far, and
    what each earlier step delivered (dimmed), but for what flows into a constant."""
    out, _ = parse(expr).build(values)
    traced = tg.trace(out)
    constants = {n.id for n in traced.nodes if n.op == "" and n.label == ""}
    steps = [s for s in traced.steps if s.edges]
    words = earlier = 0
    arrived: dict[str, int] = {}
    for step in steps:
        for edge in step.edges:
            arrived[edge.parent] = arrived.get(edge.parent, 0) + 1
        words += len(step.edges) + sum(1 for n in arrived.values() if n > 1) + earlier
        earlier += sum(1 for edge in step.edges if edge.parent not in constants)
    return len(steps), words


def check_every_step(page: Any, expr: str, values: dict[str, float]) -> None:
    walked = page.evaluate(WALK_AND_CHECK)
    assert walked["clashes"] == []
    assert (walked["steps"], walked["words"]) == walked_words(expr, values)


def show(page: Any, expr: str, values: dict[str, float]) -> None:
    """The page at the expression and values typed, its walk at the start."""
    page.fill("#expr", expr)
    expect(page.locator("#variables .variable")).to_have_count(len(values))
    if len(values) > 8:  # the list shows the first eight
        page.click("#more-variables")
    for name, x in values.items():
        page.get_by_label(f"value of {name}", exact=True).fill(repr(x))
    out, _ = parse(expr).build(values)
    expect(page.locator("#value")).to_have_text(shared.value_line(expr, out))
    expect(page.locator("#progress")).to_contain_text("gradients shown are final")


def test_each_label_says_its_rule_then_its_numbers(page: Any) -> None:
    out, _ = parse("tanh(a*b + c)").build({"a": 2, "b": -3, "c": 10})
    walked = [s for s in tg.trace(out).steps if s.edges]
    for k, step in enumerate(walked, 1):
        page.click("#step")
        expect(page.locator("#progress")).to_have_text(f"step {k} of {len(walked)}")
        for edge in step.edges:
            label = page.locator(f"#graph text.flow-label[data-edge='{step.node}.{edge.operand}']")
            expect(label.locator("tspan.rule")).to_have_text(edge.rule)
            numbers = f"{edge.partial:.6g} × {step.grad:.6g} = {edge.contribution:.6g}"
            expect(label.locator("tspan.numbers")).to_have_text(numbers)
            rule_box, numbers_box = (
                label.locator(f"tspan.{line}").evaluate("t => t.getBoundingClientRect().y")
                for line in ("rule", "numbers")
            )
            assert rule_box < numbers_box  # two lines: the rule above its numbers
    # the last step is d = a*b's: its edge to a says ∂d/∂a = b, in the graph's names
    a_label = page.locator("#graph text.flow-label tspan.rule").first
    expect(a_label).to_have_text(rule(OPS["mul"], "d", ["a", "b"], 0))
    assert partials(OPS["mul"]) == ("y", "x") and "y and x" in OPS["mul"].derivative


@pytest.mark.parametrize("preset", range(6))
def test_no_word_lies_over_a_box_on_the_presets(page: Any, preset: int) -> None:
    button = page.locator("#presets button").nth(preset)
    expr = button.get_attribute("data-expr")
    values = {k: float(v) for k, v in json.loads(button.get_attribute("data-values")).items()}
    button.click()
    out, _ = parse(expr).build(values)
    expect(page.locator("#value")).to_have_text(shared.value_line(expr, out))
    check_every_step(page, expr, values)


def test_no_word_lies_over_a_box_on_a_60_term_graph(page: Any) -> None:
    terms = [f"x{k}" if k % 2 else f"tanh(x{k})" for k in range(60)]
    values = {f"x{k}": round(0.1 * (k % 7) - 0.3, 2) for k in range(60)}
    expr = " + ".join(terms)
    show(page, expr, values)
    check_every_step(page, expr, values)


def random_expression(rng: random.Random) -> str:
    """A random expression of the page's operators and some of its functions, its names
    shared (a name used more than once is one node reached by several paths)."""
    functions = ["tanh", "sin", "exp", "relu", "sigmoid", "cos", "atan"]

    def grown(depth: int) -> str:
        if depth == 0 or rng.random() < 0.2:
            return rng.choice(["a", "b", "c", "d", "2", "0.5"])
        if rng.random() < 0.3:
            return f"{rng.choice(functions)}({grown(depth - 1)})"
        left, right = grown(depth - 1), grown(depth - 1)
        return f"({left} {rng.choice('+-*/')} {right})"

    return grown(5)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_no_word_lies_over_a_box_on_random_graphs(page: Any, seed: int) -> None:
    rng = random.Random(seed)
    while True:
        expr = random_expression(rng)
        names = parse(expr).names
        values = {name: rng.choice([-1, 1]) * round(rng.uniform(0.1, 2), 2) for name in names}
        out, _ = parse(expr).build(values)
        if 8 <= len(tg.trace(out).nodes) <= MAX_DRAWN and len(names) >= 2:
            break
    show(page, expr, values)
    check_every_step(page, expr, values)


def test_no_word_lies_over_a_box_on_a_phone(browser: Any, url: str) -> None:
    phone = shared.opened(browser, url, 390, 844)
    for preset in (0, 4, 5):  # the lesson, x*x + x, the larger graph
        button = phone.locator("#presets button").nth(preset)
        expr = button.get_attribute("data-expr")
        values = {k: float(v) for k, v in json.loads(button.get_attribute("data-values")).items()}
        button.click()
        out, _ = parse(expr).build(values)
        expect(phone.locator("#value")).to_have_text(shared.value_line(expr, out))
        check_every_step(phone, expr, values)
        phone.click("#reset")
    phone.close()


def test_the_page_speaks_the_lesson_s_names_typed_or_not(page: Any) -> None:
    """Lines name the graph's values as the learner wrote them; one expression gets the
    lesson's names (d, n, e): in the boxes, the edges' rules, the log and the node panel."""
    values = {"a": 2.0, "b": -3.0, "c": 10.0}
    for expr, names in [
        ("prod = a*b; net = prod + c; out = tanh(net)", ("prod", "net", "out")),
        ("tanh(a*b + c)", ("d", "n", "e")),
    ]:
        product, net, output = names
        page.fill("#expr", expr)
        out, _ = parse(expr).build(values)
        expect(page.locator("#value")).to_have_text(shared.value_line(expr, out))
        traced = tg.trace(out)
        ids = {n.name: n.id for n in traced.nodes}
        assert set(names) <= set(ids)  # the engine's trace names them so too
        for name in names:
            expect(page.locator(f"#tg-{ids[name]} text.label")).to_have_text(name)
        page.click("#step")  # the output's step: its rule in its operand's name
        rule_text = page.locator(f"#graph text.flow-label[data-edge='{ids[output]}.0'] tspan.rule")
        expect(rule_text).to_have_text(f"∂{output}/∂{net} = 1 - tanh²({net})")
        page.click("#reset")
        while not page.locator("#step").is_disabled():
            page.click("#step")
        a_rule = page.locator(f"#graph text.flow-label[data-edge='{ids[product]}.0'] tspan.rule")
        expect(a_rule).to_have_text(f"∂{product}/∂a = b")
        page.locator(f"#tg-{ids[product]}").focus()
        expect(page.locator("#node-info")).to_contain_text(f"{product} = a * b")
        expect(page.locator("#node-info")).to_contain_text(f"∂{output}/∂{product} = ")
        page.select_option("#pass", "forward")
        page.click("#step")
        expect(page.locator("#log li").first).to_have_text(f"{product} = 2 * -3 = -6")
        page.select_option("#pass", "backward")


def test_lines_the_parser_refuses_are_refused_aloud_and_the_graph_stays(page: Any) -> None:
    page.fill("#expr", "d = a*b; e = c + 1")
    expect(page.locator("#error")).to_have_text(
        "d is never used: every line but the last must be used by a later one (at column 1)"
    )
    expect(page.locator("#graph")).to_have_class(re.compile("stale"))
    page.fill("#expr", "d = a*b; e = tanh(d + c)")
    expect(page.locator("#error")).to_be_hidden()
    out, _ = parse("d = a*b; e = tanh(d + c)").build({"a": 2, "b": -3, "c": 10})
    expect(page.locator("#value")).to_have_text(f"e = tanh(d + c) = {out.data:.6g}")
