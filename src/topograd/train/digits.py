"""scikit-learn's bundled 8x8 digits, on Tensors: an MLP 64-64-10 with Adam on mini-batches.

scikit-learn is needed for the data alone (the ``digits`` extra).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..autograd.modes import no_grad
from ..nn import Linear, ReLU, Sequential
from ..nn import functional as F  # noqa: N812 - PyTorch's own abbreviation
from ..optim import Adam
from .recipe import History, Progress, fit


class MissingExtraError(Exception):
    """An optional package the command needs is not installed."""


@dataclass
class DigitsRun:
    """What the digits leave: the model, its history, and the held-out images it was tested on
    with their labels and the model's answers."""

    model: Sequential
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


def train_digits(steps: int = 300, seed: int = 0, progress: Progress = None) -> DigitsRun:
    """MLP 64-64-10 with Adam on mini-batches of 128 from 80 % of the digits; tested on the rest.

    >>> run = train_digits(steps=300, seed=0)
    >>> run.test_accuracy >= 0.95, len(run.labels)
    (True, 360)
    """
    x, y, images = load_digits()
    order = np.random.default_rng(seed).permutation(len(y))
    cut = int(0.8 * len(y))
    train, test = order[:cut], order[cut:]
    model = Sequential(Linear(64, 64, seed=seed), ReLU(), Linear(64, 10, seed=seed + 1))
    optimizer = Adam(model.parameters(), lr=0.01)
    rng = np.random.default_rng(seed + 2)

    def step() -> tuple[float, float]:
        batch = rng.choice(train, 128, replace=False)
        optimizer.zero_grad()
        logits = model(x[batch])
        loss = F.cross_entropy(logits, y[batch])
        loss.backward()
        optimizer.step()
        return loss.item(), float((logits.data.argmax(axis=1) == y[batch]).mean())

    history = fit(step, steps, progress)
    with no_grad():
        predicted = model(x[test]).data.argmax(axis=1)
    return DigitsRun(model, history, images[test], y[test], predicted)
