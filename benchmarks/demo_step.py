"""One engine's side of the micrograd race: run in a fresh process by ``race.py``.

micrograd's demo step, written out with plain ``Value`` ops so that both engines build the same
graph: MLP(2, [16, 16, 1]) with ReLU hidden layers, 100 moons points, hinge loss + 1e-4 * L2,
forward + backward + SGD update with micrograd's schedule. The weights come from a fixed seed, the
same in both engines. Prints JSON: the loss of every step and the seconds each took.

    python benchmarks/demo_step.py topograd --steps 20
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import math
import random
import time
import tracemalloc
from typing import Any

SIZES = [2, 16, 16, 1]


def moons(n: int, noise: float, seed: int) -> tuple[list[list[float]], list[float]]:
    """Two interleaving half circles, labels -1 / +1 (as scikit-learn's make_moons)."""
    rng = random.Random(seed)
    xs, ys = [], []
    for i in range(n):
        upper = i < n // 2
        t = math.pi * (i if upper else i - n // 2) / max(1, (n // 2 if upper else n - n // 2) - 1)
        x, y = (math.cos(t), math.sin(t)) if upper else (1 - math.cos(t), 0.5 - math.sin(t))
        xs.append([x + rng.gauss(0, noise), y + rng.gauss(0, noise)])
        ys.append(-1.0 if upper else 1.0)
    return xs, ys


def initial_weights(seed: int) -> list[list[tuple[list[float], float]]]:
    """Layer by layer, neuron by neuron: (weights uniform(-1, 1), bias 0)."""
    rng = random.Random(seed)
    return [
        [([rng.uniform(-1, 1) for _ in range(nin)], 0.0) for _ in range(nout)]
        for nin, nout in itertools.pairwise(SIZES)
    ]


def build(value_cls: Any, seed: int) -> list[list[tuple[list[Any], Any]]]:
    return [
        [([value_cls(w) for w in ws], value_cls(b)) for ws, b in layer]
        for layer in initial_weights(seed)
    ]


def parameters(model: list[list[tuple[list[Any], Any]]]) -> list[Any]:
    return [p for layer in model for ws, b in layer for p in [*ws, b]]


def forward(model: list[list[tuple[list[Any], Any]]], x: list[Any]) -> Any:
    for depth, layer in enumerate(model):
        last = depth == len(model) - 1
        outs = []
        for ws, b in layer:
            act = sum((wi * xi for wi, xi in zip(ws, x)), b)
            outs.append(act if last else act.relu())
        x = outs
    return x[0]


def loss_of(
    model: list[list[tuple[list[Any], Any]]], xs: list[list[float]], ys: list[float]
) -> Any:
    scores = [forward(model, x) for x in xs]
    losses = [(1 + -yi * si).relu() for yi, si in zip(ys, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = 1e-4 * sum(p * p for p in parameters(model))
    return data_loss + reg_loss


def step(
    model: list[list[tuple[list[Any], Any]]],
    xs: list[list[float]],
    ys: list[float],
    k: int,
    steps: int,
) -> float:
    loss = loss_of(model, xs, ys)
    params = parameters(model)
    for p in params:
        p.grad = 0.0
    loss.backward()
    lr = 1.0 - 0.9 * k / steps
    for p in params:
        p.data -= lr * p.grad
    return float(loss.data)


def value_class(engine: str) -> Any:
    return importlib.import_module(
        "micrograd.engine" if engine == "micrograd" else "topograd"
    ).Value


def bytes_per_node(value_cls: Any, nodes: int) -> float:
    """tracemalloc's bytes for a chain of ``nodes`` binary ops (alternately + and *) of Values."""
    x, y = value_cls(1.0), value_cls(0.5)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    v = x
    for i in range(nodes):
        v = v * y if i % 2 else v + x
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return used / nodes


def bytes_per_op_with_numbers(value_cls: Any, ops: int) -> float:
    """tracemalloc's bytes per op of a chain y = y * 1.0001 + 0.1: ops with a number operand."""
    y = value_cls(1.0)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for _ in range(ops // 2):
        y = y * 1.0001 + 0.1
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return used / (2 * (ops // 2))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("engine", choices=["micrograd", "topograd"])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1337)
    parser.add_argument("--memory", action="store_true", help="measure bytes per node instead")
    args = parser.parse_args()
    value_cls = value_class(args.engine)
    if args.memory:
        memory = {
            "bytes_per_node": bytes_per_node(value_cls, 100_000),
            "bytes_per_op_with_numbers": bytes_per_op_with_numbers(value_cls, 100_000),
        }
        print(json.dumps(memory))
        return
    xs, ys = moons(100, 0.1, args.seed)
    model = build(value_cls, args.seed)
    losses, seconds = [], []
    for k in range(args.steps):
        start = time.perf_counter()
        losses.append(step(model, xs, ys, k, 100))
        seconds.append(time.perf_counter() - start)
    print(json.dumps({"losses": losses, "seconds": seconds}))


if __name__ == "__main__":
    main()
