"""How long ``import topograd`` takes, this checkout against the baseline commit, side by side.

Each version in its own fresh interpreter, in turns: ``python -X importtime -c "import topograd"``
gives the cumulative microseconds of the package (its own imports and the standard library's
and NumPy's it pulls in); medians over the rounds. Also says whether NumPy was imported.

    python benchmarks/import_time.py [--rounds 15] [--baseline REV]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys

from turns import BASELINE, SOURCE, source_of


def import_time(source: str) -> tuple[int, bool]:
    """(cumulative microseconds of ``import topograd``, whether NumPy came with it)."""
    code = "import sys, topograd; print('numpy' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": source},
    )
    line = next(x for x in reversed(out.stderr.splitlines()) if x.rstrip().endswith("| topograd"))
    return int(line.split("|")[1]), out.stdout.strip() == "True"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--baseline", default=BASELINE, help=f"the commit (default {BASELINE})")
    args = parser.parse_args()
    sources = {"topograd": str(SOURCE), f"topograd@{args.baseline}": str(source_of(args.baseline))}
    times: dict[str, list[int]] = {label: [] for label in sources}
    numpy: dict[str, bool] = {}
    for _ in range(args.rounds):
        for label, source in sources.items():
            microseconds, numpy[label] = import_time(source)
            times[label].append(microseconds)
    ms = {label: statistics.median(t) / 1e3 for label, t in times.items()}
    print(f"import topograd, -X importtime cumulative, median of {args.rounds} turns\n")
    print("| version | ms | loads NumPy |")
    print("|---|---|---|")
    for label in sources:
        print(f"| {label} | {ms[label]:.1f} | {'yes' if numpy[label] else 'no'} |")
    ratio = ms["topograd"] / ms[f"topograd@{args.baseline}"]
    print(
        f"\nthis checkout: {ms['topograd']:.1f} ms (target 80 at most), {ratio:.2f} of the "
        "baseline's time"
    )


if __name__ == "__main__":
    main()
