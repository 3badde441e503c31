"""Training a model on a 2-D dataset, as micrograd's demo does, with a progress bar and a plot.

Two classes (moons, circles): MLP(2, [16, 16, 1]), micrograd's max-margin (hinge) loss with
labels -1/+1 plus 1e-4 * L2, full-batch SGD with the learning rate going 1.0 -> 0.1. More classes
(blobs, spiral): MLP(2, [16, 16, k]) and softmax cross-entropy, the learning rate 0.5 -> 0.05.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .autograd.modes import no_grad
from .datasets import DATASETS, Points
from .nn import MLP, cross_entropy, hinge, l2
from .optim import SGD, LinearDecay
from .scalar.value import Value

ALPHA = 1e-4  # weight of the L2 term, as micrograd's demo


@dataclass
class Run:
    """What a training run leaves: the model, its data, and the history."""

    model: MLP
    points: Points
    y: list[int]
    classes: int
    losses: list[float] = field(default_factory=list)
    accuracies: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def predict(self, point: list[float]) -> int:
        with no_grad():
            out = self.model(point)
        if isinstance(out, Value):
            return int(out.data > 0)
        return max(range(len(out)), key=lambda k: out[k].data)


def loss_and_accuracy(
    model: MLP, points: Points, y: list[int], classes: int
) -> tuple[Value, float]:
    outputs = [model(x) for x in points]
    if classes == 2:
        scores: list[Value] = outputs  # type: ignore[assignment]
        labels = [2 * t - 1 for t in y]
        data_loss = hinge(scores, labels)
        right = sum((s.data > 0) == (t > 0) for s, t in zip(scores, labels))
    else:
        logits: list[list[Value]] = outputs  # type: ignore[assignment]
        data_loss = cross_entropy(logits, y)
        right = sum(max(range(classes), key=lambda k: z[k].data) == t for z, t in zip(logits, y))
    return data_loss + ALPHA * l2(model.parameters()), right / len(y)


def train(
    dataset: str = "moons",
    steps: int = 100,
    seed: int = 0,
    n: int = 100,
    progress: Callable[[Iterable[int]], Any] | None = None,
) -> Run:
    """Train on ``n`` points of ``dataset`` for ``steps`` full-batch steps.

    ``progress`` wraps the step range (a tqdm, say) and gets ``set_postfix`` calls if it has them.
    """
    points, y = DATASETS[dataset](n=n, seed=seed)
    classes = len(set(y))
    model = MLP(2, [16, 16, 1 if classes == 2 else classes], seed=seed)
    lr = 1.0 if classes == 2 else 0.5  # cross-entropy on wider inputs (blobs) needs a smaller step
    optimizer = SGD(model.parameters(), lr=lr)
    schedule = LinearDecay(optimizer, start=lr, end=lr / 10, steps=steps)
    run = Run(model, points, y, classes)
    bar = progress(range(steps)) if progress else range(steps)
    for _ in bar:
        start = time.perf_counter()
        loss, accuracy = loss_and_accuracy(model, points, y, classes)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        run.seconds.append(time.perf_counter() - start)
        run.losses.append(loss.data)
        run.accuracies.append(accuracy)
        if hasattr(bar, "set_postfix"):
            bar.set_postfix(loss=f"{loss.data:.4f}", accuracy=f"{accuracy:.0%}")
    return run


def plot(run: Run, path: str | Path, title: str) -> None:
    """The decision regions of a scalar run's model, with the training points, as a PNG."""
    plot_regions(
        run.points, run.y, run.classes, lambda grid: [run.predict(p) for p in grid], path, title
    )


def plot_regions(
    points: Any,
    labels: Any,
    classes: int,
    predict: Callable[[list[list[float]]], Any],
    path: str | Path,
    title: str,
) -> None:
    """Decision regions (``predict`` maps a list of points to their classes) and the points."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs, ys = [p[0] for p in points], [p[1] for p in points]
    pad = 0.5
    x0, x1, y0, y1 = min(xs) - pad, max(xs) + pad, min(ys) - pad, max(ys) + pad
    size = 100
    gx = [x0 + (x1 - x0) * i / (size - 1) for i in range(size)]
    gy = [y0 + (y1 - y0) * j / (size - 1) for j in range(size)]
    flat = list(predict([[a, b] for b in gy for a in gx]))
    regions = [flat[j * size : (j + 1) * size] for j in range(size)]
    figure, axes = plt.subplots(figsize=(6, 5), dpi=120)
    levels = [k - 0.5 for k in range(classes + 1)]
    axes.contourf(gx, gy, regions, levels=levels, cmap="coolwarm", alpha=0.35)
    axes.scatter(xs, ys, c=list(labels), cmap="coolwarm", edgecolors="black", linewidths=0.6, s=36)
    axes.set_title(title)
    axes.set_xlim(x0, x1)
    axes.set_ylim(y0, y1)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
