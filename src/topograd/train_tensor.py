"""Training on Tensors: scikit-learn's bundled 8x8 digits, and micrograd's demo on Tensors.

>>> run = train_2d_tensor("moons", steps=100, seed=0)
>>> run.accuracies[-1] >= 0.97
True
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .autograd.modes import no_grad
from .datasets import DATASETS
from .nn import MLP, Linear, ReLU, Sequential
from .nn.functional import cross_entropy
from .optim import SGD, Adam, LinearDecay
from .train import ALPHA

Progress = Callable[[Iterable[int]], Any] | None


class MissingExtraError(Exception):
    """An optional package the command needs is not installed."""


@dataclass
class TensorRun:
    model: Sequential
    losses: list[float] = field(default_factory=list)
    accuracies: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    test_accuracy: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def predict(self, points: np.ndarray) -> np.ndarray:
        with no_grad():
            out = self.model(points).data
        return np.asarray((out[:, 0] > 0).astype(int) if out.shape[1] == 1 else out.argmax(axis=1))


def _steps(
    run: TensorRun, steps: int, progress: Progress, step: Callable[[], tuple[float, float]]
) -> None:
    bar = progress(range(steps)) if progress else range(steps)
    for _ in bar:
        start = time.perf_counter()
        loss, accuracy = step()
        run.seconds.append(time.perf_counter() - start)
        run.losses.append(loss)
        run.accuracies.append(accuracy)
        if hasattr(bar, "set_postfix"):
            bar.set_postfix(loss=f"{loss:.4f}", accuracy=f"{accuracy:.0%}")


def load_digits() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """scikit-learn's bundled digits: 1797 images of 8x8 as 64 floats in [0, 1], and labels."""
    try:
        from sklearn.datasets import load_digits as sklearn_digits
    except ImportError:
        raise MissingExtraError(
            "the digits dataset ships with scikit-learn, which is not installed: "
            "pip install 'topograd[digits]' (or pip install scikit-learn)"
        ) from None
    digits = sklearn_digits()
    return (digits.data / 16.0).astype(np.float32), digits.target.astype(np.intp), digits.images


def train_digits(steps: int = 300, seed: int = 0, progress: Progress = None) -> TensorRun:
    """MLP 64-64-10 with Adam on mini-batches of 128 from 80 % of the digits; tested on the rest."""
    x, y, images = load_digits()
    order = np.random.default_rng(seed).permutation(len(y))
    cut = int(0.8 * len(y))
    train, test = order[:cut], order[cut:]
    model = Sequential(Linear(64, 64, seed=seed), ReLU(), Linear(64, 10, seed=seed + 1))
    optimizer = Adam(model.parameters(), lr=0.01)
    rng = np.random.default_rng(seed + 2)
    run = TensorRun(model)

    def step() -> tuple[float, float]:
        batch = rng.choice(train, 128, replace=False)
        optimizer.zero_grad()
        logits = model(x[batch])
        loss = cross_entropy(logits, y[batch])
        loss.backward()
        optimizer.step()
        return loss.item(), float((logits.data.argmax(axis=1) == y[batch]).mean())

    _steps(run, steps, progress, step)
    predicted = run.predict(x[test])
    run.test_accuracy = float((predicted == y[test]).mean())
    run.extra = {"images": images[test], "labels": y[test], "predicted": predicted}
    return run


def train_2d_tensor(
    dataset: str = "moons", steps: int = 100, seed: int = 0, n: int = 100, progress: Progress = None
) -> TensorRun:
    """The scalar training of ``train.py`` on Tensors: the same model with the scalar model's
    very weights, the same loss, optimizer and schedule, in float64, the whole batch at once."""
    points, labels = DATASETS[dataset](n=n, seed=seed)
    x, targets = np.array(points), np.array(labels)
    classes = len(set(labels))
    scalar = MLP(2, [16, 16, 1 if classes == 2 else classes], seed=seed)
    model = Sequential(*_layers_like(scalar))
    params = model.parameters()
    lr = 1.0 if classes == 2 else 0.5
    optimizer = SGD(params, lr=lr)
    schedule = LinearDecay(optimizer, start=lr, end=lr / 10, steps=steps)
    run = TensorRun(model)

    def step() -> tuple[float, float]:
        out = model(x)
        if classes == 2:
            signs = targets * 2.0 - 1.0
            data_loss = (1.0 - out[:, 0] * signs).relu().mean()
            right = (out.data[:, 0] > 0) == (signs > 0)
        else:
            data_loss = cross_entropy(out, targets)
            right = out.data.argmax(axis=1) == targets
        loss = data_loss + ALPHA * sum((p * p).sum() for p in params)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        return loss.item(), float(right.mean())

    _steps(run, steps, progress, step)
    run.extra = {"points": x, "labels": targets, "classes": classes}
    return run


def _layers_like(scalar: MLP) -> list[Any]:
    """Linear layers holding the weights of a scalar MLP, ReLU between, float64."""
    layers: list[Any] = []
    for k, layer in enumerate(scalar.layers):
        linear = Linear(len(layer.neurons[0].w), len(layer.neurons), dtype=np.float64)
        linear.weight.data = np.array([[w.data for w in n.w] for n in layer.neurons])
        assert linear.bias is not None
        linear.bias.data = np.array([n.b.data for n in layer.neurons])
        layers += [linear, ReLU()] if k < len(scalar.layers) - 1 else [linear]
    return layers


def plot_digits(run: TensorRun, path: str, title: str) -> None:
    """The confusion matrix, and some of the misclassified test images."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels, predicted, images = run.extra["labels"], run.extra["predicted"], run.extra["images"]
    confusion = np.zeros((10, 10), dtype=int)
    np.add.at(confusion, (labels, predicted), 1)
    wrong = np.flatnonzero(labels != predicted)[:8]
    figure = plt.figure(figsize=(10, 5), dpi=110)
    axes = figure.add_subplot(1, 2, 1)
    axes.imshow(confusion, cmap="Blues")
    for (i, j), count in np.ndenumerate(confusion):
        if count:
            axes.text(
                j,
                i,
                str(count),
                ha="center",
                va="center",
                fontsize=8,
                color="white" if count > confusion.max() / 2 else "black",
            )
    axes.set_xlabel("predicted")
    axes.set_ylabel("true")
    axes.set_xticks(range(10))
    axes.set_yticks(range(10))
    axes.set_title(title)
    for k, index in enumerate(wrong):
        small = figure.add_subplot(4, 8, 8 * (k // 4) + 5 + k % 4)
        small.imshow(images[index], cmap="gray_r")
        small.set_title(f"{labels[index]} as {predicted[index]}", fontsize=8)
        small.axis("off")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
