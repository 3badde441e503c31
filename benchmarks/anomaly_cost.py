"""What anomaly mode costs: nothing while it is off, and how much while it is on.

One process, in turns: micrograd's demo step (forward + backward, demo_step.py) with
  shipped    the engine as it is, anomaly mode off;
  without    the node factory replaced by one that has no anomaly branch at all, i.e. the
             engine as if the feature did not exist;
  on         inside tg.detect_anomaly().
"shipped / without" near 1.00 shows the mode is free while off.

    python benchmarks/anomaly_cost.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import demo_step

import topograd as tg
from topograd.scalar import value

shipped = value.new_node


def without_anomaly_branch(data, op, x=None, y=None):  # type: ignore[no-untyped-def]
    out = value._new(value.Value)
    out.data = data
    out.grad = 0.0
    out.label = ""
    if value.grad_mode.record:
        out._op = op
        out._x = x
        out._y = y
    else:
        out._op = value.LEAF
        out._x = out._y = None
    return out


def timed(factory: Callable[..., tg.Value], anomaly: bool) -> float:
    value.new_node = factory
    xs, ys = demo_step.moons(100, 0.1, 1337)
    model = demo_step.build(tg.Value, 1337)
    with tg.detect_anomaly() if anomaly else nullcontext():
        start = time.perf_counter()
        demo_step.loss_of(model, xs, ys).backward()
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    runs: dict[str, list[float]] = {"shipped": [], "without": [], "on": []}
    for _ in range(args.rounds):
        runs["without"].append(timed(without_anomaly_branch, False))
        runs["shipped"].append(timed(shipped, False))
        runs["on"].append(timed(shipped, True))
    value.new_node = shipped
    ms = {k: statistics.median(v) * 1e3 for k, v in runs.items()}
    print(f"demo step, forward + backward, median of {args.rounds} turns")
    print("| engine | ms per step | ratio to without |")
    print("|---|---|---|")
    for name, label in [
        ("without", "no anomaly branch"),
        ("shipped", "shipped, mode off"),
        ("on", "shipped, mode on"),
    ]:
        print(f"| {label} | {ms[name]:.1f} | {ms[name] / ms['without']:.2f} |")


if __name__ == "__main__":
    main()
