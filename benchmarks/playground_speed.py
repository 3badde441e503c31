"""What the playground costs to answer and to draw: the larger preset and the largest graphs it
draws (160 values; larger ones get a 422 saying so), on this checkout's server and page and on
those of the commit before issues 12 and 13 (d64185c: before the layout's and the playground's
second editions), side by side in one run.

Request: POST /api/graph, median of 15, with the answer's size. Render: in Chromium, from the
expression typed to the page showing its value and graph, median of 5 (the debounce, 250 ms,
included alike).

    python benchmarks/playground_speed.py [--baseline REV | --no-baseline]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

from turns import SOURCE, source_of

BEFORE_ISSUES_12_AND_13 = "d64185c"
LARGER = "sigmoid(w1*x1 + w2*x2 + b) * tanh(x1*x2) + relu(w1 - w2) / (1 + x1*x1)"
EXPRESSIONS = {  # the preset, and the largest graphs the page draws (160 values at most)
    "the larger preset": LARGER,
    "x+x+...+x, 158 operations": "+".join(["x"] * 159),
    "a0+...+a52+a0+...+a52": "+".join([f"a{i}" for i in range(53)] * 2),
}


@contextmanager
def server(source: str) -> Iterator[str]:
    """The playground of the topograd in ``source``, in its own process; its URL."""
    env = {**os.environ, "PYTHONPATH": source}
    process = subprocess.Popen(
        [sys.executable, "-m", "topograd", "playground", "--no-browser", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip()
    finally:
        process.terminate()
        process.wait()


def request_seconds(url: str, expr: str) -> tuple[float, int]:
    body = json.dumps({"expr": expr, "values": {}}).encode()
    times, size = [], 0
    for _ in range(15):
        ask = urllib.request.Request(
            url + "api/graph", data=body, headers={"Content-Type": "application/json"}
        )
        start = time.perf_counter()
        with urllib.request.urlopen(ask) as reply:
            size = len(reply.read())
        times.append(time.perf_counter() - start)
    return statistics.median(times), size


def render_seconds(page, url: str, expr: str) -> float:  # type: ignore[no-untyped-def]
    page.goto(url)
    page.wait_for_selector("#grads tbody tr")
    times = []
    for k in range(5):
        text = expr if k % 2 == 0 else expr + " "  # a new text each time, the same graph
        start = time.perf_counter()
        page.fill("#expr", text)
        page.wait_for_function(
            "text => document.getElementById('value').textContent.startsWith(text + ' =')", arg=text
        )
        page.wait_for_selector("#graph svg")
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BEFORE_ISSUES_12_AND_13)
    parser.add_argument("--no-baseline", dest="baseline", action="store_const", const=None)
    args = parser.parse_args()
    sources = {"topograd": str(SOURCE)}
    if args.baseline:
        sources[f"topograd@{args.baseline}"] = str(source_of(args.baseline))
    from playwright.sync_api import sync_playwright

    results = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=shutil.which("chromium"), args=["--disable-gpu"]
        )
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        for label, source in sources.items():
            with server(source) as url:
                for name, expr in EXPRESSIONS.items():
                    seconds, size = request_seconds(url, expr)
                    results[label, name] = (seconds, size, render_seconds(page, url, expr))
        browser.close()
    labels = list(sources)
    print(
        "| expression | "
        + " | ".join(f"{lb}: request, answer, typed to drawn" for lb in labels)
        + " |"
    )
    print("|---|" + "---|" * len(labels))
    for name in EXPRESSIONS:
        cells = [
            f"{results[lb, name][0] * 1e3:.0f} ms, {results[lb, name][1] / 1e3:.0f} kB, "
            f"{results[lb, name][2] * 1e3:.0f} ms"
            for lb in labels
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
