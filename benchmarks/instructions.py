"""The MLP race's step counted in instructions (valgrind's callgrind), which a shared machine's
noise does not move: topograd against the baseline commit and the hand-written NumPy step.

Each engine runs benchmarks/tensor_step.py twice under callgrind, one thread, with 5 and with
25 measured steps after its warm-up; the difference over 20 is one step's instructions,
start-up and imports taken out.

    python benchmarks/instructions.py [--baseline REV | --no-baseline]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

from turns import HERE, Contender, baseline_argument, contenders

ENGINES = ["topograd", "numpy"]
STEPS = (5, 25)


def instructions(contender: Contender, steps: int) -> int:
    """All the instructions of one run of the worker with ``steps`` measured steps."""
    env = {**os.environ, "PYTHONPATH": str(contender.source), "OPENBLAS_NUM_THREADS": "1"}
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(name, None)
    worker = [sys.executable, str(HERE / "tensor_step.py"), contender.engine, "--steps", str(steps)]
    run = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *worker],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        sys.exit(f"valgrind printed no count:\n{run.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    baseline_argument(parser)
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian's package valgrind)")
    chosen = contenders(ENGINES, args.baseline, {"topograd"})
    print("MLP 784-256-10, batch 128, float32, one thread: instructions per training step\n")
    print("| engine | million instructions per step |")
    print("|---|---|")
    for c in chosen:
        few, many = (instructions(c, n) for n in STEPS)
        print(f"| {c.label} | {(many - few) / (STEPS[1] - STEPS[0]) / 1e6:.2f} |")


if __name__ == "__main__":
    main()
