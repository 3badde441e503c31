"""topograd against micrograd 0.1.0 on micrograd's demo step, side by side in one run.

Each engine runs in its own fresh process, in turns (micrograd, topograd, micrograd, ...), under
default interpreter settings (the cyclic garbage collector on). The losses of every step must
agree to 1e-9; the table gives the median seconds per step and the ratio. A second table gives
tracemalloc's bytes per graph node over a 100 000-node graph.

    python benchmarks/race.py [--rounds 3] [--steps 10]
"""

from __future__ import annotations

import argparse
import sys

from turns import disagreement, in_turns, median_seconds, run

ENGINES = ["micrograd", "topograd"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="turns per engine")
    parser.add_argument("--steps", type=int, default=10, help="training steps per process")
    args = parser.parse_args()

    results = in_turns("demo_step.py", ENGINES, args.rounds, "--steps", str(args.steps))
    worst = disagreement(results)
    if worst > 1e-9:
        sys.exit(f"the engines disagree: losses differ by {worst:.3g}")

    memory = {e: run("demo_step.py", e, "--memory")["bytes_per_node"] for e in ENGINES}
    step = median_seconds(results)
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
