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

from typing import Any

from .groups import nonnegative
from .optimizer import Optimizer, Parameter, Params


class SGD(Optimizer):
    """p -= lr * v, where v = momentum * v + (1 - dampening) * g; v starts at the first g.
    ``nesterov`` steps along g + momentum * v instead. ``foreach``, ``differentiable`` and
    ``fused`` are PyTorch's keywords with its defaults (see ``groups.UNSUPPORTED``)."""

    def __init__(
        self,
        params: Params,
        lr: float = 1e-3,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        nonnegative(momentum=momentum)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum needs a momentum > 0 and zero dampening")
        super().__init__(
            params,
            lr,
            weight_decay,
            momentum=momentum,
            dampening=dampening,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )

    def update(self, p: Parameter, grad: Any, state: dict[str, Any]) -> None:
        group = self.group
        momentum = group["momentum"]
        if momentum:
            v = state.get("momentum_buffer")  # the first: a copy of g, a buffer of its own
            v = grad * 1.0 if v is None else v * momentum + (1 - group["dampening"]) * grad
            state["momentum_buffer"] = v
            grad = grad + momentum * v if group["nesterov"] else v
        p.data -= group["lr"] * grad  # in place for an array, a new float for a scalar
