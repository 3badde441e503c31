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

from collections.abc import Iterable
from typing import Any

from .optimizer import Optimizer, Parameter, nonnegative
from .pointwise import divide, lerp, sqrt


class RMSprop(Optimizer):
    """A moving average of the squared gradient, ``v = alpha * v + (1 - alpha) * g²``;
    ``p -= lr * g / (sqrt(v) + eps)``. ``centered`` takes the variance instead,
    ``v - mean(g)²``; ``momentum`` accumulates ``g / (sqrt(v) + eps)`` in a buffer and steps
    along that."""

    def __init__(
        self,
        params: Iterable[Parameter],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        momentum: float = 0.0,
        centered: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        super().__init__(params, lr, weight_decay, maximize=maximize)
        nonnegative(eps=eps, momentum=momentum, alpha=alpha)
        self.alpha, self.eps, self.momentum, self.centered = alpha, eps, momentum, centered

    def update(self, p: Parameter, grad: Any, state: dict[str, Any]) -> None:
        alpha = self.alpha
        state["step"] = state.get("step", 0) + 1
        v = state["square_avg"] = state.get("square_avg", 0.0) * alpha + (1 - alpha) * grad * grad
        if self.centered:
            mean = state["grad_avg"] = lerp(state.get("grad_avg", 0.0), grad, 1 - alpha)
            avg = sqrt(v - mean * mean)
        else:
            avg = sqrt(v)
        avg = avg + self.eps
        if self.momentum > 0:
            buf = state.get("momentum_buffer", 0.0) * self.momentum + divide(grad, avg)
            state["momentum_buffer"] = buf
            p.data -= self.lr * buf
        else:
            p.data += divide(-self.lr * grad, avg)
