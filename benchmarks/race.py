"""topograd against micrograd 0.1.0 on micrograd's demo step, side by side in one run.

Each engine runs in its own fresh process, in turns (micrograd, topograd, micrograd, ...), under
default interpreter settings (the cyclic garbage collector on). The losses of every step must
agree to 1e-9; the table gives the median seconds per step and the ratio. A second table gives
tracemalloc's bytes per graph node over a 100 000-node graph.

    python benchmarks/race.py [--rounds 3] [--steps 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ENGINES = ("micrograd", "topograd")


def run(engine: str, *args: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src")}
    out = subprocess.run(
        [sys.executable, str(HERE / "demo_step.py"), engine, *args],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="turns per engine")
    parser.add_argument("--steps", type=int, default=10, help="training steps per process")
    args = parser.parse_args()

    seconds: dict[str, list[float]] = {e: [] for e in ENGINES}
    losses: dict[str, list[float]] = {}
    for _ in range(args.rounds):
        for engine in ENGINES:
            result = run(engine, "--steps", str(args.steps))
            seconds[engine] += result["seconds"]
            losses[engine] = result["losses"]
    worst = max(abs(a - b) for a, b in zip(losses["micrograd"], losses["topograd"]))
    if worst > 1e-9:
        sys.exit(f"the engines disagree: losses differ by {worst:.3g}")

    memory = {e: run(e, "--memory")["bytes_per_node"] for e in ENGINES}
    step = {e: statistics.median(seconds[e]) for e in ENGINES}
    print(f"micrograd demo step, {args.rounds} processes x {args.steps} steps per engine")
    print(f"losses agree: largest difference {worst:.2g} over {args.steps} steps\n")
    print(f"| {'engine':<10} | {'ms per step':>11} | {'bytes per node':>14} |")
    print(f"|{'-' * 12}|{'-' * 13}|{'-' * 16}|")
    for e in ENGINES:
        print(f"| {e:<10} | {step[e] * 1e3:>11.1f} | {memory[e]:>14.0f} |")
    speed = step["micrograd"] / step["topograd"]
    lean = memory["micrograd"] / memory["topograd"]
    print(f"\ntopograd is {speed:.1f}x faster per step (target 10x) and uses {lean:.1f}x fewer")
    print("bytes per graph node (target 6x)")


if __name__ == "__main__":
    main()
