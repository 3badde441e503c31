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

from .optimizer import Optimizer, Parameter, nonnegative


class SGD(Optimizer):
    """p -= lr * v, where v = momentum * v + (1 - dampening) * g; v starts at the first g.
    ``nesterov`` steps along g + momentum * v instead."""

    def __init__(
        self,
        params: Iterable[Parameter],
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        super().__init__(params, lr, weight_decay, maximize=maximize)
        nonnegative(momentum=momentum)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum needs a momentum > 0 and zero dampening")
        self.momentum, self.dampening, self.nesterov = momentum, dampening, nesterov

    def update(self, p: Parameter, grad: Any, state: dict[str, Any]) -> None:
        if self.momentum:
            v = state.get("momentum_buffer")  # the first: a copy of g, a buffer of its own
            v = grad * 1.0 if v is None else v * self.momentum + (1 - self.dampening) * grad
            state["momentum_buffer"] = v
            grad = grad + self.momentum * v if self.nesterov else v
        p.data -= self.lr * grad  # in place for an array, a new float for a scalar
