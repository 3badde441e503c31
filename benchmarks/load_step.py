"""One side of the hostile-load measurement, run in a fresh process by ``hostile_load.py``:
loads FILE into a Linear(2, 3) and prints JSON: the seconds until load returned or raised, the
growth of the process's peak memory meanwhile, and what it raised.

    python benchmarks/load_step.py topograd FILE
"""

from __future__ import annotations

import argparse
import json
import resource
import time

import topograd as tg


def peak_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("engine", choices=["topograd"])
    parser.add_argument("file")
    args = parser.parse_args()
    model = tg.nn.Linear(2, 3)
    before, start = peak_bytes(), time.perf_counter()
    try:
        model.load(args.file)
        outcome = "loaded"
    except Exception as error:  # what a user's program would see
        outcome = f"{type(error).__name__}: {str(error)[:160]}"
    seconds = time.perf_counter() - start
    print(
        json.dumps({"seconds": seconds, "peak growth": peak_bytes() - before, "outcome": outcome})
    )


if __name__ == "__main__":
    main()
