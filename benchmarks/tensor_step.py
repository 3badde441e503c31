"""One engine's side of the Tensor race, run in a fresh process by ``tensor_race.py``.

One training step of an MLP 784-256-10 (ReLU), batch 128, float32, softmax cross-entropy, SGD
with lr 0.1: forward, loss, backward, update. The same data and initial weights in every engine
(drawn by NumPy from a fixed seed). Prints JSON: the losses and the seconds of each step.

  torch      PyTorch 2.13 (nn.Linear, F.cross_entropy, torch.optim.SGD)
  topograd   tg.nn.Linear, tg.nn.functional.cross_entropy, tg.optim.SGD
  numpy      the forward and the backward written out by hand with NumPy

    python benchmarks/tensor_step.py topograd --steps 200
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from collections.abc import Callable

import numpy as np

BATCH, SIZES, LR = 128, (784, 256, 10), 0.1


def problem() -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(BATCH, SIZES[0])).astype(np.float32)
    y = rng.integers(0, SIZES[2], size=BATCH)
    params = []
    for nin, nout in itertools.pairwise(SIZES):
        bound = 1 / np.sqrt(nin)
        params += [
            rng.uniform(-bound, bound, (nout, nin)).astype(np.float32),
            rng.uniform(-bound, bound, nout).astype(np.float32),
        ]
    return x, y, params


def torch_step() -> Callable[[], float]:
    import torch

    x, y, params = problem()
    model = torch.nn.Sequential(
        torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)
    )
    with torch.no_grad():
        for p, value in zip(model.parameters(), params, strict=True):
            p.copy_(torch.from_numpy(value))
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)

    def step() -> float:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(tx), ty)
        loss.backward()
        optimizer.step()
        return float(loss)

    return step


def topograd_step() -> Callable[[], float]:
    import topograd as tg

    x, y, params = problem()
    model = tg.nn.Sequential(tg.nn.Linear(784, 256), tg.nn.ReLU(), tg.nn.Linear(256, 10))
    for p, value in zip(model.parameters(), params, strict=True):
        p.data = value.copy()
    optimizer = tg.optim.SGD(model.parameters(), lr=LR)

    def step() -> float:
        optimizer.zero_grad()
        loss = tg.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss.item()

    return step


def numpy_step() -> Callable[[], float]:
    x, y, (w1, b1, w2, b2) = problem()
    rows = np.arange(BATCH)

    def step() -> float:
        h = x @ w1.T + b1
        a = np.maximum(h, 0)
        z = a @ w2.T + b2
        shifted = z - z.max(axis=1, keepdims=True)
        e = np.exp(shifted)
        total = e.sum(axis=1, keepdims=True)
        loss = float(np.mean(np.log(total[:, 0]) - shifted[rows, y]))
        dz = e / total
        dz[rows, y] -= 1
        dz /= BATCH
        dw2, db2 = dz.T @ a, dz.sum(axis=0)
        da = dz @ w2
        da[h <= 0] = 0
        dw1, db1 = da.T @ x, da.sum(axis=0)
        for p, g in ((w1, dw1), (b1, db1), (w2, dw2), (b2, db2)):
            p -= LR * g
        return loss

    return step


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("engine", choices=["torch", "topograd", "numpy"])
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    step = {"torch": torch_step, "topograd": topograd_step, "numpy": numpy_step}[args.engine]()
    for _ in range(20):  # warm up
        step()
    losses, seconds = [], []
    for _ in range(args.steps):
        start = time.perf_counter()
        losses.append(step())
        seconds.append(time.perf_counter() - start)
    print(json.dumps({"losses": losses, "seconds": seconds}))


if __name__ == "__main__":
    main()
