"""How fast graphs are drawn: topograd's own layered layout (to_svg) against Graphviz ``dot``
on the same graphs (dot runs only where it is installed; it is given 120 s).

Graphs: a random expression DAG with shared nodes and long edges, and micrograd's neuron
graph (one layer of MLP(2, [16, 16, 1]) on one point), each of about 500 and 750 nodes.

    python benchmarks/layout_speed.py
"""

from __future__ import annotations

import random
import shutil
import statistics
import subprocess
import time

import topograd as tg
from topograd.autograd.engine import topological_order
from topograd.viz.draw import to_dot, to_svg


def random_graph(n: int, seed: int = 0) -> tg.Value:
    rng = random.Random(seed)
    nodes = [tg.Value(rng.uniform(-1, 1), label=f"x{i}") for i in range(6)]
    while len(topological_order([nodes[-1]])) < n:
        a, b = rng.choice(nodes[-12:]), rng.choice(nodes)
        kind = rng.randrange(3)
        nodes.append(a + b if kind == 0 else a * b if kind == 1 else a.tanh())
    return nodes[-1]


def neuron_graph(n: int, seed: int = 0) -> tg.Value:
    """Sums of weights times inputs through ReLUs, layer after layer, until n nodes."""
    rng = random.Random(seed)
    xs = [tg.Value(rng.uniform(-1, 1), label=f"x{i}") for i in range(2)]
    while True:
        out = [
            sum((tg.Value(rng.uniform(-1, 1)) * x for x in xs), tg.Value(0.0)).relu()
            for _ in range(8)
        ]
        total = sum(out, tg.Value(0.0))
        if len(topological_order([total])) >= n:
            return total
        xs = out


def seconds(run: object, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def dot_seconds(dot_text: str) -> str:
    if shutil.which("dot") is None:
        return "not installed"
    start = time.perf_counter()
    try:
        subprocess.run(
            ["dot", "-Tsvg"],
            input=dot_text,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return "> 120 s"
    return f"{time.perf_counter() - start:.2f} s"


def main() -> None:
    print("| graph | nodes | topograd to_svg | Graphviz dot -Tsvg |")
    print("|---|---|---|---|")
    for name, make in [("random DAG", random_graph), ("neurons", neuron_graph)]:
        for n in (500, 750):
            out = make(n)
            out.backward()
            size = len(topological_order([out]))
            ours = seconds(lambda out=out: to_svg(out))
            print(f"| {name} | {size} | {ours:.2f} s | {dot_seconds(to_dot(out))} |", flush=True)


if __name__ == "__main__":
    main()
