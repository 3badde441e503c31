"""topograd.func against torch.func (PyTorch 2.13, CPU), side by side: jacrev and jacfwd of an
MLP 100 -> 100 -> 100, and the Hessian of a scalar function of 100 inputs (float64). Each engine
runs in its own fresh process, in turns; their results must agree to 1e-10 (relative to the
largest entry). Reports the median call and the ratio to PyTorch's (target 1.5 at most).

    python benchmarks/func_race.py [--rounds 3] [--calls 50] [--baseline REV | --no-baseline]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from turns import SOURCE, Contender, baseline_argument, run, source_of

TASKS = ("jacrev", "jacfwd", "hessian")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=50)
    baseline_argument(parser)
    args = parser.parse_args()
    engines = [Contender(e, e, SOURCE) for e in ("torch", "topograd")]
    if args.baseline:
        engines.append(Contender(f"topograd@{args.baseline}", "topograd", source_of(args.baseline)))
    seconds: dict[str, dict[str, list[float]]] = {e.label: {t: [] for t in TASKS} for e in engines}
    for _ in range(args.rounds):
        reports = {e.label: run("func_step.py", e, "--calls", str(args.calls)) for e in engines}
        for task in TASKS:
            theirs = reports["torch"][task]["result"]
            scale = max(abs(v) for v in theirs)
            for label in list(reports)[1:]:
                ours = reports[label][task]["result"]
                worst = max(abs(a - b) for a, b in zip(ours, theirs, strict=True)) / scale
                if worst > 1e-10:
                    sys.exit(f"{task}: {label} and PyTorch disagree by {worst:.3g} of the largest")
            for label, report in reports.items():
                seconds[label][task] += report[task]["seconds"]
    print(f"torch.func against topograd.func: {args.rounds} processes x {args.calls} calls each")
    print("(results agree to 1e-10 of the largest entry)\n")
    ours = [e.label for e in engines[1:]]
    print("| task | PyTorch ms | " + " | ".join(f"{e} ms | / PyTorch" for e in ours) + " |")
    print("|---|---|" + "---|---|" * len(ours))
    for task in TASKS:
        theirs = 1e3 * statistics.median(seconds["torch"][task])
        row = [f"| {task} | {theirs:.3f} |"]
        for label in ours:
            mine = 1e3 * statistics.median(seconds[label][task])
            row.append(f" {mine:.3f} | {mine / theirs:.2f} |")
        print("".join(row))
    print(f"\n(target: 1.5 at most; {Path(__file__).name})")


if __name__ == "__main__":
    main()
