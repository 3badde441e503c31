"""The pictures of a training run, with matplotlib (the ``demo`` extra): decision regions of a
2-D run; the confusion matrix and the misclassified images of the digits, and the loss curves
of two models on the same mini-batches."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .datasets import Points
from .digits import DigitsRun
from .recipe import Run


def plot_run(run: Run, path: str | Path, title: str) -> bytes:
    """The decision regions of a 2-D run's model, with the training points: the file's bytes
    for ``path`` (its format from its name), to be written with the run's other outputs."""
    return plot_regions(run.points, run.labels, run.classes, run.predict, path, title)


def plot_regions(
    points: Points,
    labels: Any,
    classes: int,
    predict: Callable[[Points], Any],
    path: str | Path,
    title: str,
) -> bytes:
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
    data = figure_bytes(figure, path)
    plt.close(figure)
    return data


def plot_digits(
    run: DigitsRun, path: str | Path, title: str, curves: dict[str, DigitsRun] | None = None
) -> bytes:
    """The confusion matrix and some of the misclassified test images (the file's bytes); with
    ``curves`` (runs by name on the same mini-batches, this one among them), their loss
    curves step by step, in a panel between the two."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = 3 if curves else 2
    figure = plt.figure(figsize=(5 * panels, 5), dpi=110)
    grid = figure.add_gridspec(1, panels)
    _confusion(figure.add_subplot(grid[0]), run, title)
    if curves:
        _losses(figure.add_subplot(grid[1]), curves)
    images = grid[-1].subgridspec(4, 4)  # eight, in the upper half of the last panel
    for k, index in enumerate(np.flatnonzero(run.labels != run.predicted)[:8]):
        small = figure.add_subplot(images[k // 4, k % 4])
        small.imshow(run.images[index], cmap="gray_r")
        small.set_title(f"{run.labels[index]} as {run.predicted[index]}", fontsize=8)
        small.axis("off")
    figure.tight_layout()
    data = figure_bytes(figure, path)
    plt.close(figure)
    return data


def _confusion(axes: Any, run: DigitsRun, title: str) -> None:
    """The confusion matrix of the held-out images, with its counts."""
    confusion = np.zeros((10, 10), dtype=int)
    np.add.at(confusion, (run.labels, run.predicted), 1)
    axes.imshow(confusion, cmap="Blues")
    for (i, j), count in np.ndenumerate(confusion):
        if count:
            color = "white" if count > confusion.max() / 2 else "black"
            axes.text(j, i, str(count), ha="center", va="center", fontsize=8, color=color)
    axes.set_xlabel("predicted")
    axes.set_ylabel("true")
    axes.set_xticks(range(10))
    axes.set_yticks(range(10))
    axes.set_title(title)


def _losses(axes: Any, runs: dict[str, DigitsRun]) -> None:
    """Each run's training loss by step (log scale), labelled with its held-out accuracy."""
    for name, each in runs.items():
        label = f"{name}: {each.test_accuracy:.1%} held out"
        axes.plot(range(1, len(each.history.losses) + 1), each.history.losses, label=label, lw=1)
    axes.set_yscale("log")
    axes.set_xlabel("step (mini-batch of 128)")
    axes.set_ylabel("training loss (cross-entropy)")
    axes.set_title("loss, the same mini-batches")
    axes.legend()


def figure_bytes(figure: Any, path: str | Path) -> bytes:
    """The figure's file, in the format its name says (PNG if none), ready to be written.

    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> figure_bytes(plt.figure(), "loss.svg")[:5], figure_bytes(plt.figure(), "loss")[:4]
    (b'<?xml', b'\x89PNG')
    """
    import io

    buffer = io.BytesIO()
    figure.savefig(buffer, format=Path(path).suffix[1:].lower() or "png")
    return buffer.getvalue()
