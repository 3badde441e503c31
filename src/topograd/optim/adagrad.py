"""Adagrad (Duchi, Hazan and Singer), as ``torch.optim.Adagrad``: the same operations in the
same order, with its ``lr_decay`` and ``initial_accumulator_value``.

>>> import topograd as tg
>>> w = tg.Value(1.0)
>>> (w * w).backward()
>>> Adagrad([w], lr=0.1).step()
>>> round(w.data, 6)  # 1 - 0.1 * 2 / sqrt(2**2)
0.9
"""

from __future__ import annotations

from typing import Any

from ..autograd.kinds import kind_of
from .groups import nonnegative
from .optimizer import Optimizer, Parameter, Params
from .pointwise import divide, full_like, sqrt


class Adagrad(Optimizer):
    """The sum of every squared gradient so far, ``s += g²`` (from
    ``initial_accumulator_value``); ``p -= lr_t * g / (sqrt(s) + eps)``, with
    ``lr_t = lr / (1 + (t - 1) * lr_decay)`` at step ``t``. As PyTorch's, each parameter's
    state (``step`` 0, ``sum``) is there from the start."""

    def __init__(
        self,
        params: Params,
        lr: float = 1e-2,
        lr_decay: float = 0.0,
        weight_decay: float = 0.0,
        initial_accumulator_value: float = 0.0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        nonnegative(lr_decay=lr_decay, initial_accumulator_value=initial_accumulator_value, eps=eps)
        super().__init__(
            params,
            lr,
            weight_decay,
            lr_decay=lr_decay,
            eps=eps,
            initial_accumulator_value=initial_accumulator_value,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        for group in self.param_groups:
            start = group["initial_accumulator_value"]
            for p in group["params"]:
                kind = kind_of(p)
                numbers = p.data if kind is None else kind.moved(p).data
                self.state[p] = {"step": 0, "sum": full_like(numbers, start)}

    def update(self, p: Parameter, grad: Any, state: dict[str, Any]) -> None:
        group = self.group
        t = state["step"] = state.get("step", 0) + 1
        clr = group["lr"] / (1 + (t - 1) * group["lr_decay"])
        start = group["initial_accumulator_value"]  # for a parameter added after
        total = state["sum"] = state.get("sum", start) + grad * grad
        p.data += divide(-clr * grad, sqrt(total) + group["eps"])
