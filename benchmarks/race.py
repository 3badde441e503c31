"""topograd against micrograd 0.1.0 on micrograd's demo step, side by side in one run.

Each engine runs in its own fresh process, in turns (micrograd, topograd, micrograd, ...), under
default interpreter settings (the cyclic garbage collector on); topograd also as of the
baseline commit (--baseline). The losses of every step must agree to 1e-9; the table gives the
median milliseconds per step. A second table gives tracemalloc's bytes per graph node over a
chain of 100 000 ops of two Values (+ and *), and per op of y = y * 1.0001 + 0.1 (an op with
a number operand).

    python benchmarks/race.py [--rounds 3] [--steps 10] [--baseline REV | --no-baseline]
"""

from __future__ import annotations

import argparse
import sys

from turns import baseline_argument, contenders, disagreement, in_turns, median_seconds, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="turns per engine")
    parser.add_argument("--steps", type=int, default=10, help="training steps per process")
    baseline_argument(parser)
    args = parser.parse_args()
    chosen = contenders(["micrograd", "topograd"], args.baseline, {"topograd"})
    results = in_turns("demo_step.py", chosen, args.rounds, "--steps", str(args.steps))
    worst = disagreement(results)
    if worst > 1e-9:
        sys.exit(f"the engines disagree: losses differ by {worst:.3g}")
    memory = {c.label: run("demo_step.py", c, "--memory") for c in chosen}
    ms = {label: 1e3 * s for label, s in median_seconds(results).items()}
    print(f"micrograd demo step, {args.rounds} processes x {args.steps} steps per engine")
    print(f"losses agree: largest difference {worst:.2g} over {args.steps} steps\n")
    print(
        "| engine | ms per step | micrograd / engine | bytes per node | bytes per op, x * 1.0001 |"
    )
    print("|---|---|---|---|---|")
    for c in chosen:
        m = memory[c.label]
        print(
            f"| {c.label} | {ms[c.label]:.1f} | {ms['micrograd'] / ms[c.label]:.1f}x | "
            f"{m['bytes_per_node']:.0f} | {m['bytes_per_op_with_numbers']:.0f} |"
        )
    lean = memory["micrograd"]["bytes_per_node"] / memory["topograd"]["bytes_per_node"]
    print(f"\ntopograd is {ms['micrograd'] / ms['topograd']:.1f}x faster per step (target 12x),")
    print(f"uses {lean:.1f}x fewer bytes per graph node (target 6x) and")
    print(
        f"{memory['topograd']['bytes_per_op_with_numbers']:.0f} bytes per op with a number operand"
    )
    print("(target 120 at most)")


if __name__ == "__main__":
    main()
