"""topograd's Tensor against PyTorch 2.13 and a hand-written NumPy step, side by side.

One training step of an MLP 784-256-10 (ReLU), batch 128, float32, cross-entropy, SGD lr 0.1,
each engine in its own fresh process, in turns; the losses of all three must agree to 1e-5
(relative, float32).
NumPy runs without the OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE this workplace sets on some
processors (they slow a current NumPy), in every engine alike.

``--threads N`` gives every engine N threads (OpenBLAS's and PyTorch's, through the environment
each process starts with); without it each takes its library's default (two on a two-core
machine). With two threads each engine's second thread spins while the first runs Python, so
on a shared machine the figures move with the neighbours' load: run both, and report both.

    python benchmarks/tensor_race.py [--rounds 3] [--steps 300] [--threads N]
                                     [--baseline REV | --no-baseline]
"""

from __future__ import annotations

import argparse
import os
import sys

from turns import baseline_argument, contenders, disagreement, in_turns, median_seconds

ENGINES = ["torch", "topograd", "numpy"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--threads", type=int, help="threads of each engine (default: its own)")
    baseline_argument(parser)
    args = parser.parse_args()
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        os.environ.pop(name, None)
    if args.threads:
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[name] = str(args.threads)  # every worker's, NumPy's and PyTorch's alike
    chosen = contenders(ENGINES, args.baseline, {"topograd"})
    results = in_turns("tensor_step.py", chosen, args.rounds, "--steps", str(args.steps))
    worst = disagreement(results, relative=True)
    if worst > 1e-5:
        sys.exit(f"the engines disagree: losses differ by {worst:.3g} (relative)")
    us = {e: 1e6 * seconds for e, seconds in median_seconds(results).items()}
    threads = f"{args.threads} thread(s) each" if args.threads else "each library's threads"
    print(
        f"MLP 784-256-10, batch 128, float32, {threads}: {args.rounds} processes x "
        f"{args.steps} steps"
    )
    print(f"losses agree: largest relative difference {worst:.2g}\n")
    print("| engine | µs per step | / PyTorch | / hand-written NumPy |")
    print("|---|---|---|---|")
    for e in [c.label for c in chosen]:
        print(f"| {e} | {us[e]:.0f} | {us[e] / us['torch']:.2f} | {us[e] / us['numpy']:.2f} |")
    print(
        f"\ntopograd: {us['topograd'] / us['torch']:.2f}x PyTorch's time (target 0.9 at most), "
        f"{us['topograd'] / us['numpy']:.2f}x NumPy's (target 1.0 at most)"
    )


if __name__ == "__main__":
    main()
