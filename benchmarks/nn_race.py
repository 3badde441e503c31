"""topograd's nn against micrograd's nn on micrograd's demo step, and against a hand-written
forward + backward with no graph at all, side by side in one run.

Each engine runs in its own fresh process, in turns, under default interpreter settings; all
start from micrograd's weights; the loss of every step must agree to 1e-9 across all. topograd
runs twice: with its own loss and optimizer ("topograd") and with micrograd's notebook code
around tg.nn.MLP ("plain"), and both also as of the baseline commit (--baseline). Prints the
median milliseconds per step and the ratios.

    python benchmarks/nn_race.py [--rounds 3] [--steps 10] [--baseline REV | --no-baseline]
"""

from __future__ import annotations

import argparse
import sys

from turns import baseline_argument, contenders, disagreement, in_turns, median_seconds

ENGINES = ["micrograd", "topograd", "plain", "hand"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="turns per engine")
    parser.add_argument("--steps", type=int, default=10, help="training steps per process")
    baseline_argument(parser)
    args = parser.parse_args()
    chosen = contenders(ENGINES, args.baseline, {"topograd", "plain"})
    results = in_turns("nn_step.py", chosen, args.rounds, "--steps", str(args.steps))
    worst = disagreement(results)
    if worst > 1e-9:
        sys.exit(f"the engines disagree: losses differ by {worst:.3g}")
    ms = {e: 1e3 * seconds for e, seconds in median_seconds(results).items()}
    print(f"micrograd's demo step, each library's nn, {args.rounds} processes x {args.steps} steps")
    print(f"losses agree: largest difference {worst:.2g}\n")
    print("| engine | ms per step | micrograd / engine | engine / hand-written |")
    print("|---|---|---|---|")
    for c in chosen:
        e = c.label
        print(f"| {e} | {ms[e]:.1f} | {ms['micrograd'] / ms[e]:.1f}x | {ms[e] / ms['hand']:.1f}x |")
    for e, what in [("topograd", "with tg.nn's loss"), ("plain", "with the notebook's loss")]:
        print(f"\ntopograd {what}: {ms['micrograd'] / ms[e]:.1f}x faster than micrograd", end="")
        print(f" (target 45x), {ms[e] / ms['hand']:.1f}x the hand-written step")


if __name__ == "__main__":
    main()
