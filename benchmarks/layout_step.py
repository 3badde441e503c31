"""One side of the layout race, run in a fresh process by ``layout_speed.py``: draws each graph
with tg.to_svg and prints JSON: per graph, its nodes, the median seconds of three drawings and
the SVG's size. Uses only the public API, so that an earlier commit of topograd runs it too.

Graphs: built in Python (a random expression DAG, micrograd's neuron layers), and typed, the
largest expressions the parser accepts in the shapes that cost a layered layout most (one
leaf used by every operation; a hundred names each used twice, far apart) and random ones at
the parser's limits.

    python benchmarks/layout_step.py topograd
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import string
import time

import topograd as tg
from topograd.expr import ExpressionError, parse

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


def random_expression(seed: int) -> str:
    """A random expression as large as the parser takes (up to 400 parts, 1000 characters, 200
    levels): 120 to 190 leaves from 1 to 52 names, combined pairwise at random places or, with
    some probability, always at the end (a deep chain with long edges back to early leaves)."""
    rng = random.Random(seed)
    names = string.ascii_letters[: rng.choice([1, 4, 16, 52])]
    deep = rng.choice([0.0, 0.5, 0.95])
    while True:
        terms = [rng.choice(names) for _ in range(rng.randint(120, 190))]
        while len(terms) > 1:
            k = len(terms) - 2 if rng.random() < deep else rng.randrange(len(terms) - 1)
            a, b = terms[k], terms[k + 1]
            a = f"tanh({a})" if rng.random() < 0.1 else a
            terms[k : k + 2] = [f"({a}{rng.choice(['+', '-', '*', '/', '**'])}{b})"]
        try:
            parse(terms[0])
        except ExpressionError:
            continue
        return terms[0]


RANDOM_EXPRESSIONS = 30

EXPRESSIONS = {
    "x**x**...**x, 199 operations": "**".join(["x"] * 200),
    "x+x+...+x, 199 operations": "+".join(["x"] * 200),
    "a0+...+a99+a0+...+a99": "+".join([f"a{i}" for i in range(100)] * 2),
    **{f"random {seed}": random_expression(seed) for seed in range(RANDOM_EXPRESSIONS)},
}


def typed(text: str) -> tg.Value:
    expression = parse(text)
    out, _ = expression.build(dict.fromkeys(expression.names, 0.5))
    return out


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
    made = {f"{name} {n}": make(n) for name, make in GRAPHS.items() for n in SIZES}
    made.update({name: typed(text) for name, text in EXPRESSIONS.items()})
    result = {}
    for name, out in made.items():
        out.backward()
        result[name] = {
            "nodes": nodes(out),
            "seconds": seconds(out),
            "svg bytes": len(tg.to_svg(out).encode()),
        }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
