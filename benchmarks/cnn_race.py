"""topograd's CNN training step against PyTorch 2.13 on CPU, side by side in one run.

The digits' CNN (topograd train --dataset digits --model cnn): Conv2d(1, 16, 3, padding=1),
ReLU, MaxPool2d(2), Conv2d(16, 32, 3, padding=1), ReLU, MaxPool2d(2), Linear(128, 10), float32;
one step is the forward, the cross-entropy, the backward and Adam's update (lr 0.01), on
mini-batches of 128 of scikit-learn's 8x8 digits. Each engine runs in its own fresh process,
in turns, from the same weights (drawn by NumPy) on the same batches; their losses must agree
(relative 1e-4, float32) over the first steps. Both get the same number of threads (PyTorch's
set_num_threads, and OpenBLAS's for NumPy): one by default, since on a shared two-core machine
a thread that waits for another spins, and the timings say more about the neighbours than
about the engines. Prints the median milliseconds per step and their ratio.

    python benchmarks/cnn_race.py [--rounds 3] [--steps 200] [--threads 1]
                                  [--baseline REV | --no-baseline]

The same file is the worker each process runs: ``python benchmarks/cnn_race.py torch``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

ENGINES = ["torch", "topograd"]
BATCH, LR, WARM_UP, CHECKED = 128, 0.01, 20, 10


def problem() -> tuple[Any, Any, list[Any], list[Any]]:
    """The digits as (N, 1, 8, 8) float32 images and labels, a list of batches (indices) and
    the initial weights, PyTorch's initialisation drawn by NumPy from a fixed seed."""
    import numpy as np
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32).reshape(-1, 1, 8, 8)
    y = digits.target.astype(np.int64)
    rng = np.random.default_rng(0)
    batches = [rng.choice(len(y), BATCH, replace=False) for _ in range(50)]
    shapes = [((16, 1, 3, 3), 9), ((32, 16, 3, 3), 144), ((10, 128), 128)]
    weights = []
    for shape, fan_in in shapes:
        bound = 1 / np.sqrt(fan_in)
        weights.append(rng.uniform(-bound, bound, shape).astype(np.float32))
        weights.append(rng.uniform(-bound, bound, shape[0]).astype(np.float32))
    return x, y, batches, weights


def torch_steps(threads: int) -> Callable[[int], float]:
    import torch

    torch.set_num_threads(threads)
    x, y, batches, weights = problem()
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Flatten(),
        torch.nn.Linear(128, 10),
    )
    with torch.no_grad():
        for p, value in zip(model.parameters(), weights, strict=True):
            p.copy_(torch.from_numpy(value))
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    data = [(torch.from_numpy(x[b]), torch.from_numpy(y[b])) for b in batches]

    def step(k: int) -> float:
        images, labels = data[k % len(data)]
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def topograd_steps(threads: int) -> Callable[[int], float]:
    import topograd as tg
    from topograd.train.digits import DigitsCNN

    x, y, batches, weights = problem()
    model = DigitsCNN(seed=0)
    for p, value in zip(model.parameters(), weights, strict=True):
        p.data = value.copy()
    optimizer = tg.optim.Adam(model.parameters(), lr=LR)
    data = [(x[b], y[b]) for b in batches]

    def step(k: int) -> float:
        images, labels = data[k % len(data)]
        optimizer.zero_grad()
        loss = tg.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        return float(loss.item())

    return step


def work(engine: str, steps: int, threads: int) -> None:
    """One engine's side, in its own process: the losses of the first steps and the seconds of
    each step after the warm-up, as JSON."""
    step = {"torch": torch_steps, "topograd": topograd_steps}[engine](threads)
    losses, seconds = [], []
    for k in range(WARM_UP + steps):
        start = time.perf_counter()
        loss = step(k)
        if k >= WARM_UP:
            seconds.append(time.perf_counter() - start)
        if k < CHECKED:
            losses.append(loss)
    print(json.dumps({"losses": losses, "seconds": seconds}))


def race(rounds: int, steps: int, threads: int, baseline: str | None) -> None:
    from turns import contenders, disagreement, in_turns, median_seconds

    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = str(threads)  # every worker's, NumPy's and PyTorch's alike
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):  # as tensor_race.py
        os.environ.pop(name, None)
    chosen = contenders(ENGINES, baseline, {"topograd"})
    results = in_turns(
        "cnn_race.py", chosen, rounds, "--steps", str(steps), "--threads", str(threads)
    )
    worst = disagreement(results, relative=True)
    if worst > 1e-4:
        sys.exit(f"the engines disagree: losses differ by {worst:.3g} (relative)")
    ms = {e: 1e3 * seconds for e, seconds in median_seconds(results).items()}
    ratio = ms["topograd"] / ms["torch"]
    print(
        f"the digits' CNN, training step on batches of 128 (8x8, float32), {threads} thread"
        f"{'s' if threads > 1 else ''} each: {rounds} processes x {steps} steps"
    )
    print(f"losses agree over the first {CHECKED} steps: largest relative difference {worst:.2g}\n")
    print("| engine | ms per step | / PyTorch |")
    print("|---|---|---|")
    for e in [c.label for c in chosen]:
        print(f"| {e} | {ms[e]:.2f} | {ms[e] / ms['torch']:.2f} |")
    print(f"\ntopograd: {ratio:.2f}x PyTorch's time (target 1.0 at most)")


def main() -> None:
    from turns import baseline_argument

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine", nargs="?", choices=ENGINES, help="run one engine's side")
    parser.add_argument("--rounds", type=int, default=3, help="processes per engine")
    parser.add_argument("--steps", type=int, default=200, help="timed steps per process")
    parser.add_argument("--threads", type=int, default=1, help="threads of each engine")
    baseline_argument(parser)
    args = parser.parse_args()
    if args.engine:
        work(args.engine, args.steps, args.threads)
    else:
        race(args.rounds, args.steps, args.threads, args.baseline)


if __name__ == "__main__":
    main()
