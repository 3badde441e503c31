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

from collections.abc import Iterable
from typing import Any

from .optimizer import Optimizer, Parameter, nonnegative
from .pointwise import divide, sqrt


class Adagrad(Optimizer):
    """The sum of every squared gradient so far, ``s += g²`` (from
    ``initial_accumulator_value``); ``p -= lr_t * g / (sqrt(s) + eps)``, with
    ``lr_t = lr / (1 + (t - 1) * lr_decay)`` at step ``t``."""

    def __init__(
        self,
        params: Iterable[Parameter],
        lr: float = 1e-2,
        lr_decay: float = 0.0,
        weight_decay: float = 0.0,
        initial_accumulator_value: float = 0.0,
        eps: float = 1e-10,
        *,
        maximize: bool = False,
    ) -> None:
        super().__init__(params, lr, weight_decay, maximize=maximize)
        nonnegative(lr_decay=lr_decay, initial_accumulator_value=initial_accumulator_value, eps=eps)
        self.lr_decay, self.eps = lr_decay, eps
        self.initial_accumulator_value = initial_accumulator_value

    def update(self, p: Parameter, grad: Any, state: dict[str, Any]) -> None:
        t = state["step"] = state.get("step", 0) + 1
        clr = self.lr / (1 + (t - 1) * self.lr_decay)
        total = state["sum"] = state.get("sum", self.initial_accumulator_value) + grad * grad
        p.data += divide(-clr * grad, sqrt(total) + self.eps)
