"""Running benchmark workers each in a fresh process, in turns, and reading their JSON.

A contender is an engine of a worker and the topograd source it imports: this checkout's, or
that of an earlier commit (``--baseline REV``, exported with ``git archive``), so that a race
shows the same benchmark on both versions side by side, in one run.
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "src"
BASELINE = "87d2cce"  # main before the op registry (issue 10): the figures it is measured against


@dataclass(frozen=True)
class Contender:
    label: str  # as the tables name it: "topograd", "topograd@87d2cce"
    engine: str  # the worker's engine argument
    source: Path  # the src folder whose topograd it imports


def source_of(revision: str) -> Path:
    """The src folder of ``revision`` of this repository, exported into a temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="topograd-baseline-"))
    atexit.register(shutil.rmtree, folder, True)
    archive = subprocess.run(
        ["git", "archive", revision, "src"], cwd=HERE.parent, capture_output=True, check=True
    ).stdout
    archive_path = folder / "src.tar"
    archive_path.write_bytes(archive)
    with tarfile.open(archive_path) as tar:
        tar.extractall(folder, filter="data")
    return folder / "src"


def contenders(engines: list[str], baseline: str | None, ours: set[str]) -> list[Contender]:
    """Every engine on this checkout; those in ``ours`` (topograd's) also on the baseline."""
    chosen = [Contender(e, e, SOURCE) for e in engines]
    if baseline:
        old = source_of(baseline)
        chosen += [Contender(f"{e}@{baseline}", e, old) for e in engines if e in ours]
    return chosen


def run(worker: str, contender: Contender, *args: str) -> dict[str, Any]:
    """``python benchmarks/WORKER ENGINE args...`` in a fresh interpreter; its stdout is JSON."""
    env = {**os.environ, "PYTHONPATH": str(contender.source)}
    out = subprocess.run(
        [sys.executable, str(HERE / worker), contender.engine, *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def in_turns(
    worker: str, chosen: list[Contender], rounds: int, *args: str
) -> dict[str, list[dict[str, Any]]]:
    """Every contender once per round, round after round, so that a slow spell of the shared
    machine falls on all of them alike."""
    results: dict[str, list[dict[str, Any]]] = {c.label: [] for c in chosen}
    for _ in range(rounds):
        for contender in chosen:
            results[contender.label].append(run(worker, contender, *args))
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
    """Each contender's median step, over every step of every round."""
    return {
        e: statistics.median(s for r in runs for s in r["seconds"]) for e, runs in results.items()
    }


def baseline_argument(parser: Any) -> None:
    """``--baseline REV`` (default: the commit before the op registry), ``--no-baseline``."""
    parser.add_argument(
        "--baseline",
        default=BASELINE,
        help=f"also run topograd as of this commit, side by side (default {BASELINE})",
    )
    parser.add_argument(
        "--no-baseline", dest="baseline", action="store_const", const=None, help="skip it"
    )
