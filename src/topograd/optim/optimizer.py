"""The optimizer loop, once: every optimizer is a subclass that writes only ``update``.

The base class owns what all share, as ``torch.optim`` does: the parameters, skipping those
without a gradient, L2 ``weight_decay`` (added to the gradient), per-parameter state, and
``zero_grad``. It works on anything with ``.data`` and ``.grad``: scalar Values and Tensors.

>>> import topograd as tg
>>> class HalfStep(Optimizer):
...     def update(self, p, grad, state):
...         p.data -= self.lr * grad / 2
>>> w = tg.Value(1.0)
>>> (w * w).backward()
>>> HalfStep([w], lr=0.1).step()
>>> w.data
0.9
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from ..autograd.engine import gradient, is_leaf, zero_grad
from ..autograd.versions import wrote


class Parameter(Protocol):
    data: Any
    grad: Any


class Optimizer:
    """Parameters, a learning rate, L2 weight decay, and one state dict per parameter."""

    def __init__(self, params: Iterable[Parameter], lr: float, weight_decay: float = 0.0) -> None:
        self.params = list(params)
        if not self.params:
            raise ValueError("an optimizer needs at least one parameter")
        made = next((p for p in self.params if not is_leaf(p)), None)
        if made is not None:
            raise ValueError(
                f"can't optimize a non-leaf: {type(made).__name__} made by "
                f"{getattr(made, 'op', '?')!r} (optimize the leaves it was made from)"
            )
        if lr < 0:
            raise ValueError(f"the learning rate must be >= 0, got {lr}")
        if weight_decay < 0:
            raise ValueError(f"weight_decay must be >= 0, got {weight_decay}")
        self.lr = lr
        self.weight_decay = weight_decay
        self.state: list[dict[str, Any]] = [{} for _ in self.params]

    def zero_grad(self) -> None:
        """Forget the gradients: 0.0 for a scalar, None for an array (as PyTorch)."""
        zero_grad(self.params)

    def step(self) -> None:
        """One update of every parameter that has a gradient: a write in place, so a backward
        through a graph made before it raises rather than differentiate the new values."""
        decay = self.weight_decay
        moved = []
        for p, state in zip(self.params, self.state):
            grad = gradient(p)
            if grad is None:  # no backward reached it since zero_grad: left as it is
                continue
            self.update(p, grad + decay * p.data if decay else grad, state)
            moved.append(p)
        wrote(moved, f"{type(self).__name__}.step")

    def update(self, p: Parameter, grad: Any, state: dict[str, Any]) -> None:
        """Move ``p`` given its gradient (weight decay included) and its state: in place for
        an array, a new float for a scalar."""
        raise NotImplementedError(f"{type(self).__name__} must define update()")
