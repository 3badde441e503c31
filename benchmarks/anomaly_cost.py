"""What anomaly mode costs: nothing while it is off, and how much while it is on.

micrograd's demo step (forward + backward, demo_step.py), each mode in its own fresh process, in
turns (anomaly_step.py):
  without    the node factory replaced by one that has no anomaly branch at all, i.e. the
             engine as if the feature did not exist;
  off        topograd as shipped, anomaly mode off;
  on         inside tg.detect_anomaly();
and off and on as of the baseline commit (--baseline). "off / without" near 1.00 shows the mode
is free while off.

    python benchmarks/anomaly_cost.py [--rounds 5] [--steps 5] [--baseline REV | --no-baseline]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from turns import SOURCE, Contender, baseline_argument, in_turns, median_seconds, source_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5)
    baseline_argument(parser)
    args = parser.parse_args()
    chosen = [Contender(mode, mode, SOURCE) for mode in ("without", "off", "on")]
    if args.baseline:
        old: Path = source_of(args.baseline)
        chosen += [Contender(f"{m}@{args.baseline}", m, old) for m in ("off", "on")]
    results = in_turns("anomaly_step.py", chosen, args.rounds, "--steps", str(args.steps))
    ms = {label: 1e3 * s for label, s in median_seconds(results).items()}
    print(f"demo step, forward + backward, {args.rounds} processes x {args.steps} steps per mode\n")
    print("| mode | ms per step | / without |")
    print("|---|---|---|")
    for c in chosen:
        print(f"| {c.label} | {ms[c.label]:.1f} | {ms[c.label] / ms['without']:.2f} |")


if __name__ == "__main__":
    main()
