"""topograd's random draws against PyTorch 2.13's, the same numbers on both sides (checked).

Each draw is timed in turns (topograd, PyTorch, ...) in one process, from generators of the same
seed, and the median of the rounds is reported with the ratio topograd / PyTorch.

    python benchmarks/random_race.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

import topograd as tg

N = 784 * 256  # the MLP's first weight


def _draws(m: Any, g: Any) -> dict[str, Callable[[], Any]]:
    probs = m.tensor(np.full(27, 1 / 27, np.float32))
    return {
        f"randn({N}) float32": lambda: m.randn(N, generator=g),
        f"rand({N}) float32": lambda: m.rand(N, generator=g),
        f"randn({N}) float64": lambda: m.randn(N, generator=g, dtype=m.float64),
        f"randint(0, 10, ({N},))": lambda: m.randint(0, 10, (N,), generator=g),
        "randperm(60000)": lambda: m.randperm(60000, generator=g),
        "randn(3) (the small way)": lambda: m.randn(3, generator=g),
        "multinomial(27 weights, 1)": lambda: m.multinomial(probs, 1, True, generator=g),
    }


def _numbers(x: Any) -> np.ndarray:
    return x.numpy() if isinstance(x, torch.Tensor) else np.asarray(x.data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    torch.set_num_threads(1)
    ours, theirs = tg.Generator().manual_seed(1), torch.Generator().manual_seed(1)
    mine, pytorchs = _draws(tg, ours), _draws(torch, theirs)
    print(f"median of {args.rounds} rounds, one thread; the same numbers on both sides\n")
    print("| draw | topograd µs | PyTorch µs | topograd / PyTorch |")
    print("|---|---|---|---|")
    for name in mine:
        times: dict[str, list[float]] = {"ours": [], "theirs": []}
        for _ in range(args.rounds):
            for side, draw in (("ours", mine[name]), ("theirs", pytorchs[name])):
                start = time.perf_counter()
                out = draw()
                times[side].append(time.perf_counter() - start)
                if side == "ours":
                    drawn = _numbers(out)
                elif drawn.tobytes() != _numbers(out).tobytes():
                    raise SystemExit(f"{name}: the numbers differ")
        a, b = (1e6 * statistics.median(times[s]) for s in ("ours", "theirs"))
        print(f"| {name} | {a:,.0f} | {b:,.0f} | {a / b:.1f} |")


if __name__ == "__main__":
    main()
