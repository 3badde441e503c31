"""One engine's side of the function-transform race, run in a fresh process by
``func_race.py``.

- jacrev, jacfwd: the 100 x 100 Jacobian of an MLP 100 -> 100 -> 100 (Linear, Tanh, Linear,
  float64) at one input, by reverse mode and by forward mode;
- hessian: the 100 x 100 Hessian of a scalar function of 100 inputs,
  sum(tanh(W x + b) ** 2) + sum(x ** 3) / 100 (W 100 x 100), forward over reverse.

The same weights and points in both engines (drawn by NumPy from a fixed seed). Prints JSON:
for each task the seconds of each call and the result, flattened.

  torch      torch.func.jacrev / jacfwd / hessian on torch.nn modules, PyTorch 2.13 CPU
  topograd   tg.func.jacrev / jacfwd / hessian on tg.nn modules

    python benchmarks/func_step.py topograd --calls 50
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np

N = 100


def problem() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    bound = 1 / np.sqrt(N)
    return {
        "w1": rng.uniform(-bound, bound, (N, N)),
        "b1": rng.uniform(-bound, bound, N),
        "w2": rng.uniform(-bound, bound, (N, N)),
        "b2": rng.uniform(-bound, bound, N),
        "w": rng.normal(size=(N, N)) / np.sqrt(N),
        "b": rng.normal(size=N),
        "x": rng.normal(size=N),
    }


def torch_tasks() -> dict[str, Callable[[], Any]]:
    import torch
    from torch.func import hessian, jacfwd, jacrev

    p = {k: torch.from_numpy(v) for k, v in problem().items()}
    mlp = torch.nn.Sequential(torch.nn.Linear(N, N), torch.nn.Tanh(), torch.nn.Linear(N, N))
    mlp = mlp.double()
    with torch.no_grad():
        for param, name in zip(mlp.parameters(), ("w1", "b1", "w2", "b2"), strict=True):
            param.copy_(p[name])

    def scalar(x: Any) -> Any:
        return (torch.tanh(x @ p["w"].T + p["b"]) ** 2).sum() + (x**3).sum() / N

    x = p["x"]
    return {
        "jacrev": lambda: jacrev(mlp)(x).detach().numpy(),
        "jacfwd": lambda: jacfwd(mlp)(x).detach().numpy(),
        "hessian": lambda: hessian(scalar)(x).detach().numpy(),
    }


def topograd_tasks() -> dict[str, Callable[[], Any]]:
    import topograd as tg

    p = problem()
    mlp = tg.nn.Sequential(tg.nn.Linear(N, N), tg.nn.Tanh(), tg.nn.Linear(N, N))
    for param, name in zip(mlp.parameters(), ("w1", "b1", "w2", "b2"), strict=True):
        param.data = p[name].copy()

    def scalar(x: Any) -> Any:
        return ((x @ p["w"].T + p["b"]).tanh() ** 2).sum() + (x**3).sum() / N

    x = p["x"]
    return {
        "jacrev": lambda: tg.func.jacrev(mlp)(x),
        "jacfwd": lambda: tg.func.jacfwd(mlp)(x),
        "hessian": lambda: tg.func.hessian(scalar)(x),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine", choices=["torch", "topograd"])
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    tasks = torch_tasks() if args.engine == "torch" else topograd_tasks()
    report: dict[str, Any] = {}
    for name, task in tasks.items():
        result = task()  # the first call warms up
        seconds = []
        for _ in range(args.calls):
            start = time.perf_counter()
            task()
            seconds.append(time.perf_counter() - start)
        report[name] = {"seconds": seconds, "result": np.asarray(result).ravel().tolist()}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
