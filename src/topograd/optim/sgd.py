"""Stochastic gradient descent with momentum, as ``torch.optim.SGD``.

>>> import topograd as tg
>>> w = tg.Value(1.0)
>>> opt = SGD([w], lr=0.1)
>>> (w * w).backward()
>>> opt.step()
>>> w.data
0.8
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .optimizer import Optimizer, Parameter


class SGD(Optimizer):
    """p -= lr * v, where v = momentum * v + g; v starts at the first g."""

    def __init__(
        self,
        params: Iterable[Parameter],
        lr: float,
        momentum: float = 0.0,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, lr, weight_decay)
        self.momentum = momentum

    def update(self, p: Parameter, grad: Any, state: dict[str, Any]) -> None:
        if self.momentum:
            v = state.get("momentum")
            grad = grad * 1.0 if v is None else self.momentum * v + grad  # a buffer of its own
            state["momentum"] = grad
        p.data -= self.lr * grad  # in place for an array, a new float for a scalar
