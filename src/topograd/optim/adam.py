"""Adam (Kingma and Ba) and AdamW (Loshchilov and Hutter), as ``torch.optim.Adam`` and
``torch.optim.AdamW``: the same operations in the same order, PyTorch's bias corrections, and
AMSGrad's running maximum of the second moment.

>>> import topograd as tg
>>> w = tg.Value(1.0)
>>> (w * w).backward()
>>> Adam([w], lr=0.1).step()
>>> round(w.data, 6)
0.9
"""

from __future__ import annotations

from typing import Any

from .groups import nonnegative
from .optimizer import Optimizer, Parameter, Params
from .pointwise import divide, lerp, maximum, sqrt


class Adam(Optimizer):
    """Moving averages of the gradient (``exp_avg``) and of its square (``exp_avg_sq``),
    bias-corrected; ``p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)``.
    ``weight_decay`` is L2 (added to the gradient) unless ``decoupled_weight_decay``;
    ``amsgrad`` divides by the largest ``v`` seen so far."""

    def __init__(
        self,
        params: Params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        nonnegative(eps=eps)
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"betas[{i}] must be in [0, 1), got {beta}")
        super().__init__(
            params,
            lr,
            weight_decay,
            betas=betas,
            eps=eps,
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay,
        )

    def update(self, p: Parameter, grad: Any, state: dict[str, Any]) -> None:
        group = self.group
        beta1, beta2 = group["betas"]
        t = state["step"] = state.get("step", 0) + 1
        m = state["exp_avg"] = lerp(state.get("exp_avg", 0.0), grad, 1 - beta1)
        v = state["exp_avg_sq"] = state.get("exp_avg_sq", 0.0) * beta2 + (1 - beta2) * grad * grad
        if group["amsgrad"]:
            v = state["max_exp_avg_sq"] = maximum(state.get("max_exp_avg_sq", 0.0), v)
        step_size = group["lr"] / (1 - beta1**t)
        denom = sqrt(v) / (1 - beta2**t) ** 0.5 + group["eps"]
        p.data += divide(-step_size * m, denom)


class AdamW(Adam):
    """Adam with decoupled weight decay, on by default (``weight_decay=1e-2``): each step
    first shrinks ``p`` by ``1 - lr * weight_decay``, and the moments never see the decay.

    >>> import topograd as tg
    >>> w = tg.Value(1.0)
    >>> (w * w).backward()
    >>> AdamW([w], lr=0.1).step()
    >>> round(w.data, 6)  # 1 * (1 - 0.1 * 0.01) - 0.1
    0.899
    """

    def __init__(
        self,
        params: Params,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
