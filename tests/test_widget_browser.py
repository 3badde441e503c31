"""The stepper widget end to end: JupyterLab (from PyPI) started on 127.0.0.1 by the test, a
notebook opened in Debian's Chromium through Playwright, its widget cell run in a real kernel,
Step clicked, and the running node, an edge's label and a running sum read off the page, and
the step read back in Python. Skipped, with the reason shown, where Chromium is missing; CI
installs it."""

from __future__ import annotations

import json
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
def page(lab: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("shots")
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--disable-gpu", "--no-first-run"]
        )
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
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


def test_the_widget_steps_and_shares_its_step_with_python(page: Any, tmp_path: Path) -> None:
    widget = page.locator(".topograd-widget")
    expect(widget.locator("#progress")).to_have_text("2 steps; gradients shown are final")
    expect(widget.locator("#value")).to_have_text(
        "y = d + x = 12"
    )  # d: x*x, named as the lesson names it
    widget.locator("#step").click()
    current = widget.locator(".topograd-graph g.node.current:not(.op)")  # its box, not its op
    expect(current).to_have_attribute("id", "tg-n2")  # y, the output, runs first
    expect(widget.locator(".flow-label .numbers")).to_have_text(["1 × 1 = 1", "1 × 1 = 1"])
    widget.locator("#step").click()
    expect(current).to_have_attribute("id", "tg-n1")  # then x * x
    expect(widget.locator(".flow-label .numbers")).to_have_text(["3 × 1 = 3", "3 × 1 = 3"])
    x = tg.Value(3.0, label="x")  # the cell's graph, here: its rules as the trace writes them
    y = x * x + x
    y.label = "y"
    rules = [e.rule for e in tg.trace(y).steps[1].edges]
    assert rules[0].endswith("= x")  # mul's partial for one operand is the other: x
    expect(widget.locator(".flow-label .rule")).to_have_text(rules)
    traced = tg.trace(y)  # x's fill: its gradient so far, 7, as tg.draw fills it
    colour = gradient_fill(traced.nodes[0].grad, largest_gradient(traced.nodes))
    fill = widget.locator("#tg-n0 rect").evaluate("r => getComputedStyle(r).fill")
    assert fill == "rgb({}, {}, {})".format(*(int(colour[k : k + 2], 16) for k in (1, 3, 5)))
    expect(widget.locator("#legend")).to_contain_text(LEGEND)
    expect(widget.locator(".running-sum")).to_have_text(
        "Σ 1 + 3 + 3 = 7 (+= one by one: 1 → 4 → 7)"
    )
    expect(widget.locator("#progress")).to_have_text("step 2 of 2")
    page.screenshot(path=str(tmp_path / "widget.png"))
    screenshot = os.environ.get("TOPOGRAD_SCREENSHOT")  # to look at it: a path to keep it in
    if screenshot:
        shutil.copy(tmp_path / "widget.png", screenshot)
    # the page's step reaches Python, and Python's reaches the page; no .grad was touched
    output = run_cell(page, 1).locator(".jp-OutputArea-output")
    expect(output).to_have_text("step 2 x.grad 0.0", timeout=60_000)
    run_cell(page, 2)
    expect(widget.locator("#progress")).to_have_text("step 1 of 2", timeout=60_000)
    expect(current).to_have_attribute("id", "tg-n2")
    assert page.problems == []
