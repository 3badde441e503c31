"""micrograd's demo recipe on a 2-D dataset, one recipe for both engines.

Two classes (moons, circles): MLP(2, [16, 16, 1]), micrograd's max-margin (hinge) loss with
labels -1/+1 plus 1e-4 * L2, full-batch SGD with the learning rate going 1.0 -> 0.1. More classes
(blobs, spiral): MLP(2, [16, 16, k]) and softmax cross-entropy, the learning rate 0.5 -> 0.05.
On the scalar engine the model is micrograd's MLP of Values; on the Tensor engine it is the same
network as Linear layers holding the very same weights, fed the whole batch at once, so both
runs give the same losses.

>>> run = train("moons", steps=3, seed=0)  # (100 steps reach 97 %: tests/test_training.py)
>>> len(run.losses), len(run.accuracies)
(3, 3)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..autograd.modes import no_grad
from ..nn import MLP, Linear, ReLU, Sequential, cross_entropy, hinge, l2
from ..nn import functional as F  # noqa: N812 - PyTorch's own abbreviation
from ..nn.module import Module
from ..optim import SGD, LinearDecay
from ..scalar.value import Value
from ..tensors import Tensor
from .datasets import DATASETS, Points

ALPHA = 1e-4  # weight of the L2 term, as micrograd's demo
Progress = Callable[[Iterable[int]], Any] | None
Step = Callable[[], tuple[float, float]]  # one step of training: (loss, accuracy)


@dataclass
class History:
    """The loss, the accuracy and the seconds of every step."""

    losses: list[float] = field(default_factory=list)
    accuracies: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)


def fit(step: Step, steps: int, progress: Progress = None) -> History:
    """Run ``step`` ``steps`` times, recording each; ``progress`` wraps the range (a tqdm, say)
    and gets ``set_postfix`` calls if it has them."""
    history = History()
    bar = progress(range(steps)) if progress else range(steps)
    for _ in bar:
        start = time.perf_counter()
        loss, accuracy = step()
        history.seconds.append(time.perf_counter() - start)
        history.losses.append(loss)
        history.accuracies.append(accuracy)
        if hasattr(bar, "set_postfix"):
            bar.set_postfix(loss=f"{loss:.4f}", accuracy=f"{accuracy:.0%}")
    return history


@dataclass
class Run:
    """What a training run on a 2-D dataset leaves: the model, its data, the history."""

    engine: str  # "scalar" or "tensor"
    model: Module
    points: Points
    labels: list[int]
    classes: int
    history: History

    @property
    def losses(self) -> list[float]:
        return self.history.losses

    @property
    def accuracies(self) -> list[float]:
        return self.history.accuracies

    @property
    def seconds(self) -> list[float]:
        return self.history.seconds

    def predict(self, points: Points) -> list[int]:
        """The class the model gives each point."""
        with no_grad():
            if isinstance(self.model, MLP):
                return [_scalar_class(self.model(p)) for p in points]
            out = self.model(np.array(points)).array
        classes = (out[:, 0] > 0).astype(int) if out.shape[1] == 1 else out.argmax(axis=1)
        return [int(c) for c in classes]


def _scalar_class(out: Value | list[Value]) -> int:
    if isinstance(out, Value):
        return int(out.data > 0)
    return max(range(len(out)), key=lambda k: out[k].data)


def train(
    dataset: str = "moons",
    steps: int = 100,
    seed: int = 0,
    n: int = 100,
    engine: str = "scalar",
    progress: Progress = None,
) -> Run:
    """Train on ``n`` points of ``dataset`` for ``steps`` full-batch steps, on ``engine``."""
    if engine not in ("scalar", "tensor"):
        raise ValueError(f"engine must be 'scalar' or 'tensor', got {engine!r}")
    points, labels = DATASETS[dataset](n=n, seed=seed)
    classes = len(set(labels))
    scalar = MLP(2, [16, 16, 1 if classes == 2 else classes], seed=seed)
    model: Module = scalar if engine == "scalar" else Sequential(*layers_like(scalar))
    lr = 1.0 if classes == 2 else 0.5  # cross-entropy on wider inputs (blobs) needs a smaller step
    optimizer = SGD(model.parameters(), lr=lr)
    schedule = LinearDecay(optimizer, start=lr, end=lr / 10, steps=steps)
    loss = (
        scalar_loss(scalar, points, labels, classes)
        if engine == "scalar"
        else tensor_loss(model, points, labels, classes)
    )

    def step() -> tuple[float, float]:
        value, accuracy = loss()
        optimizer.zero_grad()
        value.backward()
        optimizer.step()
        schedule.step()
        return value.item(), accuracy

    return Run(engine, model, points, labels, classes, fit(step, steps, progress))


def scalar_loss(
    model: MLP, points: Points, labels: list[int], classes: int
) -> Callable[[], tuple[Value, float]]:
    """The recipe's loss on Values, one sample at a time, and the accuracy."""

    def loss() -> tuple[Value, float]:
        outputs = [model(x) for x in points]
        if classes == 2:
            scores: list[Value] = outputs
            signs = [2 * t - 1 for t in labels]
            data_loss = hinge(scores, signs)
            right = sum((s.data > 0) == (t > 0) for s, t in zip(scores, signs))
        else:
            logits: list[list[Value]] = outputs
            data_loss = cross_entropy(logits, labels)
            right = sum(_scalar_class(z) == t for z, t in zip(logits, labels))
        return data_loss + ALPHA * l2(model.parameters()), right / len(labels)

    return loss


def tensor_loss(
    model: Module, points: Points, labels: list[int], classes: int
) -> Callable[[], tuple[Tensor, float]]:
    """The recipe's loss on Tensors, the whole batch at once, and the accuracy."""
    x, targets = np.array(points), np.array(labels)
    params = model.parameters()

    def loss() -> tuple[Tensor, float]:
        out = model(x)
        if classes == 2:
            signs = targets * 2.0 - 1.0
            data_loss = (1.0 - out[:, 0] * signs).relu().mean()
            right = (out.array[:, 0] > 0) == (signs > 0)
        else:
            data_loss = F.cross_entropy(out, targets)
            right = out.array.argmax(axis=1) == targets
        total = data_loss + ALPHA * sum((p * p).sum() for p in params)
        return total, float(right.mean())

    return loss


def layers_like(scalar: MLP) -> list[Any]:
    """Linear layers holding the weights of a scalar MLP, ReLU between, float64."""
    layers: list[Any] = []
    for k, layer in enumerate(scalar.layers):
        linear = Linear(len(layer.neurons[0].w), len(layer.neurons), dtype=np.float64)
        linear.weight.data = np.array([[w.data for w in n.w] for n in layer.neurons])
        assert linear.bias is not None
        linear.bias.data = np.array([n.b.data for n in layer.neurons])
        layers += [linear, ReLU()] if k < len(scalar.layers) - 1 else [linear]
    return layers
