"""One side of the layout race, run in a fresh process by ``layout_speed.py``: draws each graph
with tg.to_svg and prints JSON: per graph, its nodes and the median seconds of three drawings.
Uses only the public API, so that an earlier commit of topograd runs it too.

    python benchmarks/layout_step.py topograd
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

import topograd as tg

SIZES = (500, 750)


def nodes(out: tg.Value) -> int:
    """The Values the drawing shows (its DOT text has one record per Value)."""
    return tg.to_dot(out).count("shape=record")


def reachable(out: tg.Value) -> int:
    """How many Values ``out`` depends on (itself included), by its public ``parents``."""
    seen, stack = {out}, [out]
    while stack:
        for parent in stack.pop().parents:
            if parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return len(seen)


def random_graph(n: int, seed: int = 0) -> tg.Value:
    """A random expression DAG with shared nodes and long edges, of at least n nodes."""
    rng = random.Random(seed)
    made = [tg.Value(rng.uniform(-1, 1), label=f"x{i}") for i in range(6)]
    while reachable(made[-1]) < n:
        a, b = rng.choice(made[-12:]), rng.choice(made)
        kind = rng.randrange(3)
        made.append(a + b if kind == 0 else a * b if kind == 1 else a.tanh())
    return made[-1]


def neuron_graph(n: int, seed: int = 0) -> tg.Value:
    """Sums of weights times inputs through ReLUs, layer after layer, until about n nodes."""
    rng = random.Random(seed)
    xs = [tg.Value(rng.uniform(-1, 1), label=f"x{i}") for i in range(2)]
    count = 2
    while True:
        out = [
            sum((tg.Value(rng.uniform(-1, 1)) * x for x in xs), tg.Value(0.0)).relu()
            for _ in range(8)
        ]
        count += 8 * (4 * len(xs) + 2)
        total = sum(out, tg.Value(0.0))
        if count >= n:
            return total
        xs = out


GRAPHS = {"random DAG": random_graph, "neurons": neuron_graph}


def seconds(out: tg.Value, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        tg.to_svg(out)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("engine", choices=["topograd"])
    parser.parse_args()
    result = {}
    for name, make in GRAPHS.items():
        for n in SIZES:
            out = make(n)
            out.backward()
            result[f"{name} {n}"] = {"nodes": nodes(out), "seconds": seconds(out)}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
