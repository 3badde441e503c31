"""Running benchmark workers each in a fresh process, in turns, and reading their JSON."""

from __future__ import annotations

import json
import os
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


def worst_gap(a: list[float], b: list[float]) -> float:
    return max(abs(x - y) for x, y in zip(a, b, strict=True))
