"""Running benchmark workers each in a fresh process, in turns, and reading their JSON."""

from __future__ import annotations

import itertools
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def run(worker: str, *args: str) -> dict[str, Any]:
    """``python benchmarks/WORKER args...`` in a fresh interpreter; its stdout is JSON."""
    env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src")}
    out = subprocess.run(
        [sys.executable, str(HERE / worker), *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def in_turns(
    worker: str, engines: list[str], rounds: int, *args: str
) -> dict[str, list[dict[str, Any]]]:
    """Every engine once per round, round after round, so that a slow spell of the shared
    machine falls on all of them alike."""
    results: dict[str, list[dict[str, Any]]] = {e: [] for e in engines}
    for _ in range(rounds):
        for engine in engines:
            results[engine].append(run(worker, engine, *args))
    return results


def disagreement(results: dict[str, list[dict[str, Any]]], relative: bool = False) -> float:
    """The largest gap between the losses of any two engines at one step of one round
    (relative to the larger loss when ``relative``)."""
    worst = 0.0
    for runs in zip(*results.values()):
        for a, b in itertools.combinations(runs, 2):
            for x, y in zip(a["losses"], b["losses"], strict=True):
                scale = max(abs(x), abs(y), 1e-12) if relative else 1.0
                worst = max(worst, abs(x - y) / scale)
    return worst


def median_seconds(results: dict[str, list[dict[str, Any]]]) -> dict[str, float]:
    """Each engine's median step, over every step of every round."""
    return {
        e: statistics.median(s for r in runs for s in r["seconds"]) for e, runs in results.items()
    }
