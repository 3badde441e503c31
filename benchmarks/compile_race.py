"""tg.compile on micrograd's demo step, against the same step uncompiled and against the
step written out by hand in plain floats, side by side in one run.

The step: MLP(2, [16, 16, 1]) on 100 moons points, hinge loss + 1e-4 * L2, forward + backward
+ SGD update (benchmarks/nn_step.py). "compiled" compiles topograd's whole step (the loss, its
backward, the SGD step and the schedule inside the function); "compiled-plain" compiles the
loss of micrograd's notebook, its update done by hand outside. Each engine runs in its own
fresh process, in turns; a compiled engine's losses must equal its uncompiled twin's bit for
bit at every step. Its first call traces the step (running it once), writes the code and
compiles it: that time is reported apart, and amortised over 100 steps.

    python benchmarks/compile_race.py [--rounds 3] [--steps 20] [--baseline REV | --no-baseline]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from typing import Any

from turns import baseline_argument, contenders, disagreement, in_turns

ENGINES = ["hand", "topograd", "compiled", "plain", "compiled-plain"]
TWINS = {"compiled": "topograd", "compiled-plain": "plain"}
AMORTISED = 100  # steps the first call's cost is spread over


def medians(runs: list[dict[str, Any]]) -> tuple[float, float]:
    """The median step after the first, and the median first step, in seconds."""
    later = statistics.median(s for r in runs for s in r["seconds"][1:])
    return later, statistics.median(r["seconds"][0] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="turns per engine")
    parser.add_argument("--steps", type=int, default=20, help="training steps per process")
    baseline_argument(parser)
    args = parser.parse_args()
    chosen = contenders(ENGINES, args.baseline, set(TWINS) | set(TWINS.values()))
    twins = dict(TWINS)
    if args.baseline:
        twins |= {f"{f}@{args.baseline}": f"{s}@{args.baseline}" for f, s in TWINS.items()}
    results = in_turns("nn_step.py", chosen, args.rounds, "--steps", str(args.steps))
    for fast, slow in twins.items():
        for a, b in zip(results[fast], results[slow], strict=True):
            if [x.hex() for x in a["losses"]] != [x.hex() for x in b["losses"]]:
                sys.exit(f"{fast} and {slow} differ: the compiled code is not the engine's")
    worst = disagreement(results)
    if worst > 1e-9:
        sys.exit(f"the engines disagree: losses differ by {worst:.3g}")
    times = {e: medians(runs) for e, runs in results.items()}
    hand = times["hand"][0]
    print(f"micrograd's demo step, {args.rounds} processes x {args.steps} steps")
    print(f"compiled losses equal the engine's bit for bit; all agree to {worst:.2g}\n")
    print("| engine | ms per step | / hand-written |")
    print("|---|---|---|")
    for e in [c.label for c in chosen]:
        print(f"| {e} | {1e3 * times[e][0]:.2f} | {times[e][0] / hand:.2f}x |")
    print()
    for fast in twins:
        step, first = times[fast]
        spread = (first + (AMORTISED - 1) * step) / AMORTISED
        print(
            f"{fast}: {step / hand:.2f}x the hand-written step (target 2x at most); its first "
            f"call (trace, running the step once, code, compile) {1e3 * first:.0f} ms (target "
            f"under 1000); over {AMORTISED} steps {1e3 * spread:.2f} ms a step, "
            f"{spread / hand:.2f}x the hand-written step"
        )


if __name__ == "__main__":
    main()
