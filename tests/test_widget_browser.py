"""The stepper widget end to end: JupyterLab (from PyPI) started on 127.0.0.1 by the test, a
notebook opened in Debian's Chromium through Playwright, its widget cell run in a real kernel,
Step clicked, and the running node, an edge's label and a running sum read off the page, and
the step read back in Python; a tanh node's inset read off its panel. Skipped, with the
reason shown, where Chromium is missing; CI installs it."""

from __future__ import annotations

import json
import math
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

import topograd as tg
from topograd.viz.draw import LEGEND, gradient_fill, largest_gradient

playwright_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
pytest.importorskip("jupyterlab", reason="JupyterLab is not installed")
CHROMIUM = os.environ.get("TOPOGRAD_CHROMIUM") or shutil.which("chromium")
pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium)"
    ),
    pytest.mark.xdist_group("widget"),  # one worker: one JupyterLab and one Chromium
]
expect = playwright_api.expect

CELLS = [
    'import topograd as tg\nx = tg.Value(3.0, label="x")\ny = x * x + x\ny.label = "y"\n'
    "w = tg.widget(y)\nw",
    'print("step", w.step, "x.grad", x.grad)',
    "w.step = 1",
    # two more: another graph, and the first one's again (the ids of each must be its own)
    'a, b = tg.Value(2.0, label="a"), tg.Value(-3.0, label="b")\nz = (a * b).tanh()\n'
    "display(tg.widget(z), tg.widget(y))",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """JupyterLab serving a folder with the widget's notebook: its address, token included."""
    root = tmp_path_factory.mktemp("lab")
    notebook = new_notebook(
        cells=[new_code_cell(c) for c in CELLS],
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    )
    nbformat.write(notebook, root / "widget.ipynb")
    port, token = free_port(), secrets.token_hex(16)
    home = tmp_path_factory.mktemp("jupyter")  # its settings and runtime files, of this test
    log = home / "jupyterlab.log"
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
    }
    written = log.open("w")  # a file: a pipe nobody reads would fill and stop the server
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.news_url=",
            "--LabServerApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            *(["--allow-root"] if os.geteuid() == 0 else []),  # CI's containers run as root
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=written,
    )
    written.close()  # the server has its own copy
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5) as r:
                if json.load(r):
                    break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(f"JupyterLab did not start: {log.read_text()[-2000:]}")
            time.sleep(0.5)
    yield f"{base}/lab/tree/widget.ipynb?token={token}"
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


@pytest.fixture(scope="module")
def page(
    lab: str, tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Any]:
    """The notebook in Chromium, its first cell run: at 1400 x 1000, or the size a module
    that imports this fixture names as its VIEWPORT."""
    folder = tmp_path_factory.mktemp("shots")
    size = getattr(request.module, "VIEWPORT", {"width": 1400, "height": 1000})
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--disable-gpu", "--no-first-run"]
        )
        page = browser.new_page(viewport=size)
        problems: list[str] = []
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto(lab)
        page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=120_000)
        idle = page.get_by_text("Python 3 (ipykernel) | Idle")  # the status bar's
        expect(idle).to_be_visible(timeout=120_000)
        page.locator(".jp-Notebook .jp-Cell .jp-InputArea-editor").first.click()
        page.keyboard.press("Shift+Enter")
        try:
            page.locator(".topograd-widget .topograd-graph").wait_for(timeout=120_000)
        except playwright_api.TimeoutError:
            page.screenshot(path=str(folder / "no-widget.png"))
            raise AssertionError(f"no widget (see {folder}/no-widget.png): {problems}") from None
        page.problems = problems
        yield page
        browser.close()


def run_cell(page: Any, index: int) -> Any:
    cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
    cell.locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    return cell


def part(widget: Any, name: str) -> Any:
    """An element of one widget by the name its template gives it (its id has a prefix)."""
    return widget.locator(f'[data-id="{name}"]')


def test_the_widget_steps_and_shares_its_step_with_python(page: Any, tmp_path: Path) -> None:
    widget = page.locator(".topograd-widget").first
    expect(part(widget, "progress")).to_have_text("2 steps; gradients shown are final")
    # d: x*x, named as the lesson names it
    expect(part(widget, "value")).to_have_text("y = d + x = 12")
    drawing = part(widget, "graph").locator("svg")
    expect(drawing).not_to_have_attribute("data-down", "true")  # a wide cell: left to right
    part(widget, "step").click()
    current = widget.locator(".topograd-graph g.node.current:not(.op)")  # its box, not its op
    expect(current).to_have_attribute("data-node", "n2")  # y, the output, runs first
    expect(widget.locator(".flow-label .numbers")).to_have_text(["1 × 1 = 1", "1 × 1 = 1"])
    part(widget, "step").click()
    expect(current).to_have_attribute("data-node", "n1")  # then x * x
    expect(widget.locator(".flow-label .numbers")).to_have_text(["3 × 1 = 3", "3 × 1 = 3"])
    x = tg.Value(3.0, label="x")  # the cell's graph, here: its rules as the trace writes them
    y = x * x + x
    y.label = "y"
    rules = [e.rule for e in tg.trace(y).steps[1].edges]
    assert rules[0].endswith("= x")  # mul's partial for one operand is the other: x
    expect(widget.locator(".flow-label .rule")).to_have_text(rules)
    expect(widget.locator("g.travelling")).to_have_count(0)  # the contributions travel, here too
    traced = tg.trace(y)  # x's fill: its gradient so far, 7, as tg.draw fills it
    colour = gradient_fill(traced.nodes[0].grad, largest_gradient(traced.nodes))
    fill = part(widget, "tg-n0").locator("rect").evaluate("r => getComputedStyle(r).fill")
    assert fill == "rgb({}, {}, {})".format(*(int(colour[k : k + 2], 16) for k in (1, 3, 5)))
    expect(part(widget, "legend")).to_contain_text(LEGEND)
    expect(widget.locator(".running-sum")).to_have_text(
        "Σ 1 + 3 + 3 = 7 (+= one by one: 1 → 4 → 7)"
    )
    expect(part(widget, "progress")).to_have_text("step 2 of 2")
    page.screenshot(path=str(tmp_path / "widget.png"))
    screenshot = os.environ.get("TOPOGRAD_SCREENSHOT")  # to look at it: a path to keep it in
    if screenshot:
        shutil.copy(tmp_path / "widget.png", screenshot)
    # the page's step reaches Python, and Python's reaches the page; no .grad was touched
    output = run_cell(page, 1).locator(".jp-OutputArea-output")
    expect(output).to_have_text("step 2 x.grad 0.0", timeout=60_000)
    run_cell(page, 2)
    expect(part(widget, "progress")).to_have_text("step 1 of 2", timeout=60_000)
    expect(current).to_have_attribute("data-node", "n2")
    assert page.problems == []


# Every id in the document that a widget holds, and how often the document holds it; and the
# arrows each widget's edges point with, found in that widget or not.
IDS = """() => {
  const widgets = [...document.querySelectorAll(".topograd-widget")];
  const ids = widgets.flatMap((w) => [...w.querySelectorAll("[id]")].map((e) => e.id));
  const held = (id) => document.querySelectorAll(`[id="${CSS.escape(id)}"]`).length;
  const counts = ids.map((id) => [id, held(id)]);
  const refs = (w) => [...w.querySelectorAll("[marker-end], [marker-start]")].flatMap((path) =>
    ["marker-end", "marker-start"].map((name) => path.getAttribute(name)).filter(Boolean));
  const arrows = widgets.map((w) => refs(w).length > 0 && refs(w).every((ref) =>
    w.querySelector(`marker[id="${CSS.escape(ref.slice(5, -1))}"]`) !== null));
  return { counts, arrows, widgets: widgets.length };
}"""


def test_several_widgets_in_one_notebook_share_no_id_and_step_apart(page: Any) -> None:
    run_cell(page, 3)
    widgets = page.locator(".topograd-widget")
    expect(widgets).to_have_count(3, timeout=60_000)
    first, other, again = (widgets.nth(k) for k in range(3))
    expect(part(again, "progress")).to_have_text("2 steps; gradients shown are final")
    # z = tanh(a*b), nothing named: the lesson's names, e the output and n tanh's operand
    expect(part(other, "value")).to_have_text(f"e = tanh(n) = {math.tanh(-6.0):.6g}")
    found = page.evaluate(IDS)
    assert found["widgets"] == 3 and len(found["counts"]) > 3 * 20
    assert [id_ for id_, count in found["counts"] if count != 1] == []
    assert found["arrows"] == [True, True, True]
    shown_first = part(first, "progress").text_content()
    part(again, "step").click()  # the same graph as the first: only this one moves
    expect(part(again, "progress")).to_have_text("step 1 of 2")
    expect(again.locator("g.node.current:not(.op)")).to_have_attribute("data-node", "n2")
    expect(part(first, "progress")).to_have_text(shown_first)
    expect(part(other, "progress")).to_have_text("2 steps; gradients shown are final")
    again.locator(".topograd-graph").click(position={"x": 2, "y": 2})  # the focus, by a click
    page.keyboard.press("ArrowRight")
    expect(part(again, "progress")).to_have_text("step 2 of 2")
    found = page.evaluate(IDS)  # the marks of a step drawn: their arrow is this widget's own
    assert [id_ for id_, count in found["counts"] if count != 1] == []
    assert found["arrows"] == [True, True, True]
    assert page.problems == []


# The contrast (WCAG's ratio) of each visible text of a widget outside its drawing against
# the ground it is shown on, the first opaque one among its ancestors.
CONTRASTS = """(widget) => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ground = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const texts = widget.querySelectorAll(`[data-id=value], [data-id=progress], button:enabled,
    label, select, [data-id=log] li, [data-id=grads] th, [data-id=grads] td,
    [data-id=legend] .legend-text, [data-id=node-info]`);
  return [...texts].filter((el) => el.offsetParent !== null && el.textContent.trim()).map((el) => {
    const [hi, lo] = [lum(rgb(getComputedStyle(el).color)), lum(ground(el))].sort((x, y) => y - x);
    return [el.dataset.id || `${el.tagName} ${el.textContent.trim().slice(0, 24)}`,
      Math.round(100 * (hi + 0.05) / (lo + 0.05)) / 100, Math.round(1000 * lum(ground(el))) / 1000];
  });
}"""


def choose_theme(page: Any, theme: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    page.locator(".lm-Menu-itemLabel", has_text=theme).first.click()


def test_the_widget_is_readable_in_jupyterlab_s_dark_theme_as_in_its_light(
    page: Any, tmp_path: Path
) -> None:
    widget = page.locator(".topograd-widget").first
    part(widget, "tg-n0").focus()  # the node panel shown too
    expect(part(widget, "node-info")).to_be_visible()
    light = widget.evaluate(CONTRASTS)
    assert len(light) > 10 and all(ratio >= 4.5 for _, ratio, _ in light), light
    assert all(ground > 0.8 for _, _, ground in light)  # on JupyterLab's light ground
    before = part(widget, "value").evaluate("v => getComputedStyle(v).color")
    choose_theme(page, "JupyterLab Dark")
    expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false", timeout=30_000)
    try:
        expect(part(widget, "value")).not_to_have_css("color", before)  # the theme has come
        dark = widget.evaluate(CONTRASTS)
        expect(page.locator("#jupyterlab-splash")).to_have_count(0, timeout=30_000)
        page.screenshot(path=str(tmp_path / "widget-dark.png"))  # to look at
        assert [name for name, *_ in dark] == [name for name, *_ in light]
        assert all(ratio >= 4.5 for _, ratio, _ in dark), dark
        assert all(ground < 0.1 for _, _, ground in dark), dark  # it follows the theme
        drawing = part(widget, "graph").evaluate("g => getComputedStyle(g).backgroundColor")
        assert drawing == "rgb(255, 255, 255)"  # the figure keeps its white ground
    finally:
        choose_theme(page, "JupyterLab Light")
        expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "true")


def test_outside_jupyterlab_the_widget_follows_the_reader_s_colour_scheme(page: Any) -> None:
    """Where no theme variables are set (another notebook's frontend), the widget's styles
    take prefers-color-scheme."""
    from topograd.notebook.stepper import Stepper

    bare = page.context.browser.new_page()
    try:
        bare.set_content(
            f"<style>{Stepper._css}</style><div class='topograd-widget'>"
            "<span data-id='value'>e = 1</span></div>"
        )
        colours = {}
        for scheme in ("light", "dark"):
            bare.emulate_media(color_scheme=scheme)
            colours[scheme] = bare.locator("[data-id=value]").evaluate(
                "v => [getComputedStyle(v).color, "
                "getComputedStyle(v.parentElement).getPropertyValue('--tg-ground').trim()]"
            )
        assert colours["light"] == ["rgb(29, 35, 41)", "#ffffff"]
        assert colours["dark"] == ["rgb(233, 236, 239)", "#1e2227"]
    finally:
        bare.close()


def test_the_widget_s_tanh_node_shows_its_inset(page: Any) -> None:
    """The node panel's inset in the widget, as on the page: tanh(a*b) at a*b = -6, marked on
    the function and its slope with the engine's numbers, and what gets through."""
    widgets = page.locator(".topograd-widget")
    if widgets.count() < 3:  # the cell of several widgets, if no test ran it before
        run_cell(page, 3)
    expect(widgets).to_have_count(3, timeout=60_000)
    other = widgets.nth(1)  # z = tanh(a*b), a = 2, b = -3
    a, b = tg.Value(2.0, label="a"), tg.Value(-3.0, label="b")
    traced = tg.trace((a * b).tanh())
    tanh = next(n for n in traced.nodes if n.op == "tanh")
    part(other, f"tg-{tanh.id}").focus()
    inset = part(other, "node-info").locator("figure.curve-inset")
    expect(inset).to_be_visible()
    for kind, y in [("value", math.tanh(-6.0)), ("slope", 1 - math.tanh(-6.0) ** 2)]:
        dot = inset.locator(f"circle.at.{kind}")
        assert float(dot.get_attribute("data-x")) == -6.0
        assert float(dot.get_attribute("data-y")) == pytest.approx(y, rel=1e-12)
    assert inset.locator("polyline.function").count() == 1
    assert inset.locator("polyline.derivative").count() == 1
    caption = inset.locator("figcaption")
    expect(caption).to_contain_text("tanh(n) at n = -6: tanh = ")
    expect(caption).to_contain_text("almost nothing gets through")
    box, panel = inset.bounding_box(), part(other, "node-info").bounding_box()
    assert box["width"] > 100 and box["height"] > 60  # drawn, inside the widget's panel
    assert panel["x"] <= box["x"] and box["x"] + box["width"] <= panel["x"] + panel["width"]
    part(other, "tg-n2").focus()  # n = a*b: no inset
    expect(part(other, "node-info")).to_contain_text("n = a * b")
    expect(part(other, "node-info").locator("figure.curve-inset")).to_have_count(0)
    assert page.problems == []
