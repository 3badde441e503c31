"""scikit-learn's bundled 8x8 digits, on Tensors: an MLP 64-64-10, or a small CNN, with Adam on
mini-batches.

Both models see the same split (80 % to train, the rest held out, from ``seed``) and the same
mini-batches of 128, so that their runs compare step by step. scikit-learn is needed for the
data alone (the ``digits`` extra).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..autograd.modes import no_grad
from ..nn import Linear, ReLU, Sequential
from ..nn import functional as F  # noqa: N812 - PyTorch's own abbreviation
from ..nn.conv import Conv2d
from ..nn.module import Module
from ..optim import Adam
from ..tensors import Tensor
from .recipe import History, Progress, fit

MODELS = ("mlp", "cnn")


class MissingExtraError(Exception):
    """An optional package the command needs is not installed."""


class DigitsCNN(Module):
    """A small CNN for 8x8 images given as rows of 64 pixels: Conv2d(1, 16, 3, padding=1),
    ReLU, 2x2 max pool, Conv2d(16, 32, 3, padding=1), ReLU, 2x2 max pool, Linear(128, 10).

    >>> import numpy as np
    >>> DigitsCNN(seed=0)(np.zeros((5, 64), dtype=np.float32)).shape
    topograd.Size([5, 10])
    """

    def __init__(self, seed: int | None = None) -> None:
        self.conv1 = Conv2d(1, 16, 3, padding=1, seed=seed)
        self.conv2 = Conv2d(16, 32, 3, padding=1, seed=None if seed is None else seed + 1)
        self.out = Linear(128, 10, seed=None if seed is None else seed + 2)

    def __call__(self, x: Any) -> Tensor:
        images = (x if isinstance(x, Tensor) else Tensor(x)).reshape(-1, 1, 8, 8)
        found = F.max_pool2d(self.conv1(images).relu(), 2)
        found = F.max_pool2d(self.conv2(found).relu(), 2)
        return self.out(found.reshape(found.shape[0], -1))

    def __repr__(self) -> str:
        return (
            f"DigitsCNN(\n  (conv1): {self.conv1!r}\n  (conv2): {self.conv2!r}\n"
            f"  (out): {self.out!r}\n)"
        )


def make_model(model: str, seed: int) -> Module:
    """The digits' model by name: "mlp" (64-64-10) or "cnn" (``DigitsCNN``)."""
    if model == "mlp":
        return Sequential(Linear(64, 64, seed=seed), ReLU(), Linear(64, 10, seed=seed + 1))
    if model == "cnn":
        return DigitsCNN(seed)
    raise ValueError(f"model must be one of {', '.join(MODELS)}, got {model!r}")


@dataclass
class DigitsRun:
    """What the digits leave: the model, its history, and the held-out images it was tested on
    with their labels and the model's answers."""

    model: Module
    history: History
    images: np.ndarray[Any, Any]
    labels: np.ndarray[Any, Any]
    predicted: np.ndarray[Any, Any]

    @property
    def test_accuracy(self) -> float:
        return float((self.predicted == self.labels).mean())


def load_digits() -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
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


def train_digits(
    steps: int = 300, seed: int = 0, progress: Progress = None, model: str = "mlp"
) -> DigitsRun:
    """The model (``make_model``) trained with Adam (lr 0.01) on mini-batches of 128 from 80 %
    of the digits; tested on the rest. The split and the batches depend on ``seed`` alone, so
    an MLP and a CNN of one seed see the same ones.

    >>> run = train_digits(steps=20, seed=0)  # (300 steps reach 95 %: tests/test_training.py)
    >>> len(run.history.losses), len(run.labels)
    (20, 360)
    """
    x, y, images = load_digits()
    order = np.random.default_rng(seed).permutation(len(y))
    cut = int(0.8 * len(y))
    train, test = order[:cut], order[cut:]
    network = make_model(model, seed)
    optimizer = Adam(network.parameters(), lr=0.01)
    rng = np.random.default_rng(seed + 2)

    def step() -> tuple[float, float]:
        batch = rng.choice(train, 128, replace=False)
        optimizer.zero_grad()
        logits = network(x[batch])
        loss = F.cross_entropy(logits, y[batch])
        loss.backward()
        optimizer.step()
        return loss.item(), float((logits.array.argmax(axis=1) == y[batch]).mean())

    history = fit(step, steps, progress)
    with no_grad():
        predicted = network(x[test]).array.argmax(axis=1)
    return DigitsRun(network, history, images[test], y[test], predicted)
