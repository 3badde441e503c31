"""RMSprop (Hinton's lecture 6e), as ``torch.optim.RMSprop``: the same operations in the same
order, with its ``centered`` variance and ``momentum`` buffer.

>>> import topograd as tg
>>> w = tg.Value(1.0)
>>> (w * w).backward()
>>> RMSprop([w], lr=0.01).step()
>>> round(w.data, 6)  # 1 - 0.01 * 2 / sqrt(0.01 * 2**2)
0.9
"""

from __future__ import annotations

from typing import Any

from .groups import nonnegative
from .optimizer import Optimizer, Parameter, Params
from .pointwise import divide, lerp, sqrt


class RMSprop(Optimizer):
    """A moving average of the squared gradient, ``v = alpha * v + (1 - alpha) * g²``;
    ``p -= lr * g / (sqrt(v) + eps)``. ``centered`` takes the variance instead,
    ``v - mean(g)²``; ``momentum`` accumulates ``g / (sqrt(v) + eps)`` in a buffer and steps
    along that. The arguments are PyTorch's, in its order (none keyword-only)."""

    def __init__(
        self,
        params: Params,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        momentum: float = 0.0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        nonnegative(eps=eps, momentum=momentum, alpha=alpha)
        super().__init__(
            params,
            lr,
            weight_decay,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )

    def update(self, p: Parameter, grad: Any, state: dict[str, Any]) -> None:
        group = self.group
        alpha, momentum, lr = group["alpha"], group["momentum"], group["lr"]
        state["step"] = state.get("step", 0) + 1
        v = state["square_avg"] = state.get("square_avg", 0.0) * alpha + (1 - alpha) * grad * grad
        if group["centered"]:
            mean = state["grad_avg"] = lerp(state.get("grad_avg", 0.0), grad, 1 - alpha)
            avg = sqrt(v - mean * mean)
        else:
            avg = sqrt(v)
        avg = avg + group["eps"]
        if momentum > 0:
            buf = state.get("momentum_buffer", 0.0) * momentum + divide(grad, avg)
            state["momentum_buffer"] = buf
            p.data -= lr * buf
        else:
            p.data += divide(-lr * grad, avg)
