"""Optimizers for anything with ``.data`` and ``.grad``: scalar Values now, Tensors later.

They follow ``torch.optim`` step for step (PyTorch's formulas, in PyTorch's order), so the same
gradients give the same parameters.

>>> import topograd as tg
>>> w = tg.Value(1.0)
>>> opt = tg.optim.SGD([w], lr=0.1)
>>> (w * w).backward()
>>> opt.step()
>>> w.data
0.8
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Protocol


class Parameter(Protocol):
    data: Any
    grad: Any


class Optimizer:
    def __init__(self, params: Iterable[Parameter], lr: float) -> None:
        self.params = list(params)
        if not self.params:
            raise ValueError("an optimizer needs at least one parameter")
        if lr < 0:
            raise ValueError(f"the learning rate must be >= 0, got {lr}")
        self.lr = lr

    def zero_grad(self) -> None:
        """Forget the gradients: 0.0 for a scalar, None for an array (as PyTorch)."""
        for p in self.params:
            p.grad = 0.0 if isinstance(p.grad, float) else None


class SGD(Optimizer):
    """p -= lr * v, where v = momentum * v + (g + weight_decay * p); v starts at the first g."""

    def __init__(
        self,
        params: Iterable[Parameter],
        lr: float,
        momentum: float = 0.0,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, lr)
        self.momentum, self.weight_decay = momentum, weight_decay
        self.velocity: list[Any] = [None] * len(self.params)

    def step(self) -> None:
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            g = p.grad + self.weight_decay * p.data if self.weight_decay else p.grad
            if self.momentum:
                v = self.velocity[i]
                g = g * 1.0 if v is None else self.momentum * v + g  # a buffer of its own
                self.velocity[i] = g
            p.data -= self.lr * g  # in place for an array, a new float for a scalar


class Adam(Optimizer):
    """Adam (Kingma and Ba) with PyTorch's bias corrections and L2 ``weight_decay``."""

    def __init__(
        self,
        params: Iterable[Parameter],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, lr)
        self.betas, self.eps, self.weight_decay = betas, eps, weight_decay
        self.m: list[Any] = [0.0] * len(self.params)
        self.v: list[Any] = [0.0] * len(self.params)
        self.t = 0

    def step(self) -> None:
        self.t += 1
        beta1, beta2 = self.betas
        correction1, correction2 = 1 - beta1**self.t, 1 - beta2**self.t
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            g = p.grad + self.weight_decay * p.data if self.weight_decay else p.grad
            self.m[i] = self.m[i] + (1 - beta1) * (g - self.m[i])  # PyTorch's lerp
            self.v[i] = beta2 * self.v[i] + (1 - beta2) * (g * g)
            denom = _sqrt(self.v[i]) / math.sqrt(correction2) + self.eps
            p.data -= (self.lr / correction1) * (self.m[i] / denom)


def _sqrt(x: Any) -> Any:
    return math.sqrt(x) if isinstance(x, float) else x**0.5


class LinearDecay:
    """The learning rate moved in a straight line from ``start`` to ``end`` over ``steps``
    calls of ``step()``, as micrograd's demo does (1.0 -> 0.1 over 100 steps).

    >>> import topograd as tg
    >>> opt = tg.optim.SGD([tg.Value(0.0)], lr=1.0)
    >>> schedule = LinearDecay(opt, start=1.0, end=0.1, steps=100)
    >>> schedule.step()
    >>> round(opt.lr, 3)
    0.991
    """

    def __init__(self, optimizer: Optimizer, start: float, end: float, steps: int) -> None:
        self.optimizer, self.start, self.end, self.steps = optimizer, start, end, steps
        self.k = 0
        optimizer.lr = start

    def step(self) -> None:
        self.k = min(self.k + 1, self.steps)
        self.optimizer.lr = self.start + (self.end - self.start) * self.k / self.steps
