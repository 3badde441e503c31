"""The time to grade one file, and the sandbox's share of it: ``topograd grade`` on the lesson's
correct engine (tests/engines/lesson_engine.py) in a sandbox and without one
(--unsafe-no-sandbox), each a fresh process, in turns; and the time to make an empty sandbox
(bwrap around ``python -I -S -c pass``) against the same interpreter bare.

    python benchmarks/grade_time.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from topograd.grading import sandbox

ENGINE = Path(__file__).parent.parent / "tests" / "engines" / "lesson_engine.py"


def seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="turns per way")
    args = parser.parse_args()
    why = sandbox.unavailable()
    if why:
        sys.exit(f"no sandbox here: {why}")
    grade = [sys.executable, "-m", "topograd", "grade", str(ENGINE)]
    empty = [*sandbox.command(sandbox.Submission(file=ENGINE), sandboxed=True)[:-1], "pass"]
    ways = {
        "grade, sandboxed": grade,
        "grade, --unsafe-no-sandbox": [*grade, "--unsafe-no-sandbox"],
        "python -I -S -c pass, in bwrap": empty,
        "python -I -S -c pass, bare": [sandbox.python(), "-I", "-S", "-c", "pass"],
    }
    times: dict[str, list[float]] = {way: [] for way in ways}
    for _ in range(args.rounds):
        for way, command in ways.items():
            times[way].append(seconds(command))
    median = {way: statistics.median(found) for way, found in times.items()}
    for way, value in median.items():
        print(f"{way:<34} {value * 1000:8.1f} ms")
    whole, plain = median["grade, sandboxed"], median["grade, --unsafe-no-sandbox"]
    print(
        f"the sandbox's share of a grade: {(whole - plain) * 1000:.1f} ms of {whole:.2f} s "
        f"({(whole - plain) / whole:.1%})"
    )


if __name__ == "__main__":
    main()
