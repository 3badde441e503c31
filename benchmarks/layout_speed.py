"""How fast graphs are drawn: topograd's own layered layout (tg.to_svg), this checkout and the
baseline commit side by side (each in fresh processes, in turns), and Graphviz ``dot`` on the
same graphs where it is installed (given 120 s).

Graphs: a random expression DAG with shared nodes and long edges, and micrograd's neuron
graph, each of about 500 and 750 nodes (layout_step.py).

    python benchmarks/layout_speed.py [--rounds 3] [--baseline REV | --no-baseline]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import time

import layout_step
from turns import baseline_argument, contenders, in_turns

import topograd as tg


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    baseline_argument(parser)
    args = parser.parse_args()
    chosen = contenders(["topograd"], args.baseline, {"topograd"})
    results = in_turns("layout_step.py", chosen, args.rounds)
    labels = [c.label for c in chosen]
    print(f"| graph | nodes | {' | '.join(labels)} | Graphviz dot -Tsvg |")
    print(f"|---|---|{'---|' * len(labels)}---|")
    for name, make in layout_step.GRAPHS.items():
        for n in layout_step.SIZES:
            key = f"{name} {n}"
            size = results["topograd"][0][key]["nodes"]
            times = [statistics.median(r[key]["seconds"] for r in results[lb]) for lb in labels]
            cells = " | ".join(f"{t:.2f} s" for t in times)
            print(f"| {name} | {size} | {cells} | {dot_seconds(tg.to_dot(make(n)))} |", flush=True)


if __name__ == "__main__":
    main()
