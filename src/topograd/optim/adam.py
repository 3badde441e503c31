"""Adam (Kingma and Ba) with PyTorch's bias corrections, as ``torch.optim.Adam``.

>>> import topograd as tg
>>> w = tg.Value(1.0)
>>> (w * w).backward()
>>> Adam([w], lr=0.1).step()
>>> round(w.data, 6)
0.9
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from .optimizer import Optimizer, Parameter


class Adam(Optimizer):
    """Moving averages of the gradient and its square, bias-corrected; L2 ``weight_decay``."""

    def __init__(
        self,
        params: Iterable[Parameter],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, lr, weight_decay)
        self.betas, self.eps = betas, eps

    def update(self, p: Parameter, grad: Any, state: dict[str, Any]) -> None:
        beta1, beta2 = self.betas
        t = state["step"] = state.get("step", 0) + 1
        m, v = state.get("m", 0.0), state.get("v", 0.0)
        m = state["m"] = m + (1 - beta1) * (grad - m)  # PyTorch's lerp
        v = state["v"] = beta2 * v + (1 - beta2) * (grad * grad)
        denom = _sqrt(v) / math.sqrt(1 - beta2**t) + self.eps
        p.data -= (self.lr / (1 - beta1**t)) * (m / denom)


def _sqrt(x: Any) -> Any:
    return math.sqrt(x) if isinstance(x, float) else x**0.5
