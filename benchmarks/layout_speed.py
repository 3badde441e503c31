"""How fast graphs are drawn: topograd's own layered layout (tg.to_svg), this checkout and the
baseline commit side by side (each in fresh processes, in turns), and Graphviz ``dot`` on the
same graphs where it is installed (given 120 s).

Graphs: a random expression DAG with shared nodes and long edges, and micrograd's neuron
graph, each of about 500 and 750 nodes; then typed expressions as large as the parser accepts:
one leaf used by 199 operations, a hundred names each used twice far apart, and 30 random ones
at the parser's limits, of which the slowest is shown (layout_step.py). The bar: every accepted
expression drawn in under 0.3 s.

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
    print()
    print(f"| typed expression | nodes | {' | '.join(labels)} | SVG size |")
    print(f"|---|---|{'---|' * len(labels)}---|")
    medians = {
        lb: {
            k: statistics.median(r[k]["seconds"] for r in results[lb])
            for k in layout_step.EXPRESSIONS
        }
        for lb in labels
    }
    slowest = max((k for k in layout_step.EXPRESSIONS if k.startswith("random")),
                  key=medians[labels[0]].__getitem__)  # fmt: skip
    shown = [k for k in layout_step.EXPRESSIONS if not k.startswith("random")] + [slowest]
    for key in shown:
        first = results[labels[0]][0][key]
        name = (
            f"slowest of {layout_step.RANDOM_EXPRESSIONS} random ({key})" if key == slowest else key
        )
        cells = " | ".join(f"{medians[lb][key]:.3f} s" for lb in labels)
        print(f"| {name} | {first['nodes']} | {cells} | {first['svg bytes'] / 1e3:.0f} kB |")
    worst = max(medians[labels[0]].values())
    print(f"\nthe slowest accepted expression drawn: {worst:.3f} s (bar: 0.3 s)")


if __name__ == "__main__":
    main()
