"""One side of the anomaly race, run in a fresh process by ``anomaly_cost.py``: micrograd's demo
step (forward + backward, demo_step.py) with anomaly mode off, on, or (``without``) with
topograd's node factory replaced by one that has no anomaly branch at all. Prints JSON.

    python benchmarks/anomaly_step.py off --steps 10
"""

from __future__ import annotations

import argparse
import json
import time
import types
from contextlib import nullcontext
from typing import Any

import demo_step

import topograd as tg


def new_node(data: float, op: Any, x: Any = None, y: Any = None) -> Any:
    """topograd's node factory without the anomaly branch (run with value.py's globals)."""
    out = _new(Value)  # noqa: F821 - names of topograd.scalar.value
    out.data = data
    out.grad = 0.0
    out.label = ""
    if grad_mode.record:  # noqa: F821
        out._made_by = op
        out._x = x
        out._y = y
    else:
        out._made_by = LEAF  # noqa: F821
        out._x = out._y = None
    return out


def without_anomaly_branch() -> None:
    """The engine as if anomaly mode did not exist: new_node with no anomaly branch, looking up
    the same globals as the shipped one, so that only the branch differs."""
    from topograd.scalar import value

    shipped = value.new_node
    value.new_node = types.FunctionType(
        new_node.__code__, vars(value), "new_node", shipped.__defaults__
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["without", "off", "on"])
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    if args.mode == "without":
        without_anomaly_branch()
    xs, ys = demo_step.moons(100, 0.1, 1337)
    model = demo_step.build(tg.Value, 1337)
    seconds, losses = [], []
    for _ in range(args.steps):
        with tg.detect_anomaly() if args.mode == "on" else nullcontext():
            start = time.perf_counter()
            loss = demo_step.loss_of(model, xs, ys)
            loss.backward()
            seconds.append(time.perf_counter() - start)
        losses.append(loss.data)
    print(json.dumps({"seconds": seconds, "losses": losses}))


if __name__ == "__main__":
    main()
