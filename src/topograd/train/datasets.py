"""Small 2-D datasets for training demos, in pure Python: moons, circles, blobs, a spiral.

Each returns ``(X, y)``: a list of ``[x1, x2]`` points and a list of integer class labels, in a
random order drawn from ``seed`` (the same seed, the same data).

>>> X, y = make_moons(100, noise=0.1, seed=0)
>>> len(X), sorted(set(y)), y.count(1)
(100, [0, 1], 50)
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

Points = list[list[float]]


def _shuffled(points: Points, labels: list[int], rng: random.Random) -> tuple[Points, list[int]]:
    order = list(range(len(points)))
    rng.shuffle(order)
    return [points[i] for i in order], [labels[i] for i in order]


def _noisy(x: float, y: float, noise: float, rng: random.Random) -> list[float]:
    return [x + rng.gauss(0.0, noise), y + rng.gauss(0.0, noise)] if noise else [x, y]


def _check(n: int, noise: float) -> None:
    if not isinstance(n, int) or n < 2:
        raise ValueError(f"n must be an int of at least 2, got {n!r}")
    if noise < 0:
        raise ValueError(f"noise must be >= 0, got {noise!r}")


def make_moons(n: int = 100, noise: float = 0.1, seed: int = 0) -> tuple[Points, list[int]]:
    """Two interleaving half circles (as scikit-learn's make_moons): class 0 the upper one."""
    _check(n, noise)
    rng = random.Random(seed)
    outer, inner = n - n // 2, n // 2
    points, labels = [], []
    for k in range(outer):
        t = math.pi * k / max(1, outer - 1)
        points.append(_noisy(math.cos(t), math.sin(t), noise, rng))
        labels.append(0)
    for k in range(inner):
        t = math.pi * k / max(1, inner - 1)
        points.append(_noisy(1 - math.cos(t), 0.5 - math.sin(t), noise, rng))
        labels.append(1)
    return _shuffled(points, labels, rng)


def make_circles(
    n: int = 100, noise: float = 0.05, factor: float = 0.5, seed: int = 0
) -> tuple[Points, list[int]]:
    """A circle of radius 1 (class 0) around one of radius ``factor`` (class 1)."""
    _check(n, noise)
    if not 0 < factor < 1:
        raise ValueError(f"factor must be between 0 and 1, got {factor!r}")
    rng = random.Random(seed)
    points, labels = [], []
    for k in range(n):
        label = k % 2
        t = 2 * math.pi * (k // 2) / ((n + 1 - label) // 2)
        r = factor if label else 1.0
        points.append(_noisy(r * math.cos(t), r * math.sin(t), noise, rng))
        labels.append(label)
    return _shuffled(points, labels, rng)


def make_blobs(
    n: int = 100, centers: int = 3, std: float = 0.6, seed: int = 0
) -> tuple[Points, list[int]]:
    """``centers`` Gaussian blobs, centres drawn in [-4, 4]^2 at least 2.5 apart (room for 8)."""
    _check(n, std)
    if not 2 <= centers <= 8:
        raise ValueError(f"centers must be from 2 to 8, got {centers!r}")
    if n < centers:
        raise ValueError(f"n must be at least centers ({centers}), got {n!r}")
    rng = random.Random(seed)
    middles: list[tuple[float, float]] = []
    while len(middles) < centers:
        c = (rng.uniform(-4, 4), rng.uniform(-4, 4))
        if all(math.dist(c, m) >= 2.5 for m in middles):
            middles.append(c)
    points, labels = [], []
    for k in range(n):
        label = k % centers
        points.append(_noisy(*middles[label], std, rng))
        labels.append(label)
    return _shuffled(points, labels, rng)


def make_spiral(
    n: int = 150, classes: int = 3, noise: float = 0.2, seed: int = 0
) -> tuple[Points, list[int]]:
    """``classes`` arms of a spiral winding out from the centre (as in CS231n)."""
    _check(n, noise)
    if classes < 2:
        raise ValueError(f"classes must be at least 2, got {classes!r}")
    if n < classes:
        raise ValueError(f"n must be at least classes ({classes}), got {n!r}")
    rng = random.Random(seed)
    points, labels = [], []
    per = n // classes
    for k in range(n):
        label, i = min(k // per, classes - 1), k % per
        r = i / max(1, per - 1)
        t = label * 4.0 + 4.0 * r + rng.gauss(0.0, noise)
        points.append([r * math.sin(t), r * math.cos(t)])
        labels.append(label)
    return _shuffled(points, labels, rng)


DATASETS: dict[str, Callable[..., tuple[Points, list[int]]]] = {
    "moons": make_moons,
    "circles": make_circles,
    "blobs": make_blobs,
    "spiral": make_spiral,
}
