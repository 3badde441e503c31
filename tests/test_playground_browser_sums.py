"""A long sum on the page, in Chromium: 60 products a1*b1 + ... + a60*b60 are drawn as one Σ
node fed by an edge per term, in a drawing a fraction of the chain's size, with no edge run
in a lane over the boxes; the walk passes 1 × the sum's gradient to every term in one step,
and every gradient shown equals ``topograd grad --trace``'s. Fixtures as the page's tests."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any
from urllib.parse import urlencode

import test_playground_browser as shared

import topograd as tg
from topograd.expr import parse

pytestmark = shared.pytestmark  # Chromium or a reason to skip; one worker
url, browser, page = shared.url, shared.browser, shared.page  # the page's fixtures
expect = shared.expect

TERMS = 60
EXPR = " + ".join(f"a{k}*b{k}" for k in range(1, TERMS + 1))
VALUES = {
    f"{c}{k}": round(0.1 * (k % 7) - 0.3 + (c == "b") * 0.05, 2) for k in range(1, 61) for c in "ab"
}
CHAIN_AREA = 10_607 * 4_656  # px², the drawing of the chain of 59 sums this replaces

# Each edge's path sampled every 4 px: the boxes it passes through (not its own ends) and how
# far it strays above or below every box (a lane runs there).
EDGES_AND_BOXES = """() => {
  const svg = document.querySelector("#graph svg");
  const boxes = [...svg.querySelectorAll("g.node")].map((g) => [g.id, g.getBBox()]);
  const top = Math.min(...boxes.map(([, b]) => b.y));
  const bottom = Math.max(...boxes.map(([, b]) => b.y + b.height));
  const crossed = [];
  let stray = 0;
  const sources = Object.fromEntries(state.data.edges.map((e) => [e.id, `tg-${e.source}`]));
  for (const path of svg.querySelectorAll("path.edge")) {
    const [node, end] = [path.dataset.node, path.dataset.edge];
    const source = sources[end];
    const length = path.getTotalLength();
    for (let at = 6; at < length - 6; at += 4) {
      const p = path.getPointAtLength(at);
      stray = Math.max(stray, top - p.y, p.y - bottom);
      for (const [id, b] of boxes) {
        const own = id === `tg-${node}` || id === `tg-${node}-op` || id === source;
        const inside = p.x > b.x + 1 && p.x < b.x + b.width - 1 && p.y > b.y + 1
          && p.y < b.y + b.height - 1;
        if (!own && inside) {
          crossed.push(`${end} through ${id}`);
        }
      }
    }
  }
  return { crossed: [...new Set(crossed)], stray };
}"""


def opened_at(page: Any, url: str, expr: str, values: dict[str, float]) -> None:
    """The page at a link that carries the expression and its values."""
    fields = {"expr": expr, **{f"v.{name}": repr(x) for name, x in values.items()}}
    page.goto(f"{url}#{urlencode(fields)}")
    page.reload()  # (a new fragment alone loads nothing)
    out, _ = parse(expr).build(values)
    expect(page.locator("#value")).to_have_text(shared.value_line(expr, out))


def cli_gradients(expr: str, values: dict[str, float]) -> dict[str, float]:
    args = [f"{name}={x!r}" for name, x in values.items()]
    command = [sys.executable, "-m", "topograd", "grad", expr, *args, "--trace", "--json"]
    report = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
    grads: dict[str, float] = report["grads"]
    return grads


def test_sixty_products_are_one_sum_node_in_a_drawing_a_tenth_the_size(page: Any, url: str) -> None:
    opened_at(page, url, EXPR, VALUES)
    sigma = page.locator("#graph g.node.op text", has_text="Σ")
    expect(sigma).to_have_count(1)
    out = page.locator("#graph g.node.value").last.get_attribute("data-node")
    expect(page.locator(f"#graph path.edge.operand[data-node='{out}']")).to_have_count(TERMS)
    expect(page.locator("#graph g.node.op")).to_have_count(TERMS + 1)  # 60 products, one Σ
    svg = page.locator("#graph svg")
    width, height = (float(svg.get_attribute(f"data-{side}")) for side in ("width", "height"))
    assert width * height < CHAIN_AREA / 8 and width < 1_000
    found = page.evaluate(EDGES_AND_BOXES)
    assert found["crossed"] == [] and found["stray"] <= 0  # no lane above or below the boxes


def test_the_sum_passes_one_to_every_term_in_one_step(page: Any, url: str) -> None:
    opened_at(page, url, EXPR, VALUES)
    out, _ = parse(EXPR).build(VALUES)
    walked = [s for s in tg.trace(out).steps if s.edges]
    assert len(walked) == TERMS + 1  # the Σ's step, then each product's
    expect(page.locator("#progress")).to_have_text(f"{TERMS + 1} steps; gradients shown are final")
    page.click("#step")
    labels = page.locator("#graph text.flow-label")
    expect(labels).to_have_count(TERMS)
    rules = labels.locator("tspan.rule").all_text_contents()
    assert rules == [e.rule for e in walked[0].edges] and rules[0] == "∂e/∂d = 1"
    assert set(labels.locator("tspan.numbers").all_text_contents()) == {"1 × 1 = 1"}
    line = page.locator("#log li").last
    said = f"e: gradient 1; Σ passes 1 × 1 = 1 to each of its {TERMS} terms, += into d (now 1),"
    expect(line).to_contain_text(said)  # the number once, then where it goes
    expect(line).to_contain_text(f", into {tg.trace(out).nodes[-2].name} (now 1)")
    expect(line).not_to_contain_text("; +=")
    cli = cli_gradients(EXPR, VALUES)
    assert shared.gradients_on_page(page) == cli  # every bit
    while not page.locator("#step").is_disabled():
        page.click("#step")
    for name, grad in cli.items():
        node = page.locator(f"#grads tr[data-name='{name}']").get_attribute("data-node")
        expect(page.locator(f"#tg-{node} text.grad")).to_have_text(f"grad {grad:.6g}")
