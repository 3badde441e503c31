"""The optimizer loop, once: every optimizer is a subclass that writes only ``update``.

The base class owns what all share, as ``torch.optim`` does: the parameters, skipping those
without a gradient, ``maximize`` (the gradient negated), weight decay (L2, added to the
gradient; or decoupled, as AdamW: the parameter shrunk by ``1 - lr * weight_decay`` first),
per-parameter state, and ``zero_grad``. It works on anything with ``.data`` and ``.grad``:
scalar Values and Tensors.

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

import contextlib
from collections.abc import Iterable
from typing import Any, Protocol

from ..autograd.engine import gradient, is_leaf, zero_grad
from ..autograd.kinds import kind_of
from ..autograd.versions import wrote


class Parameter(Protocol):
    data: Any
    grad: Any


class Optimizer:
    """Parameters, a learning rate, weight decay, and one state dict per parameter."""

    def __init__(
        self,
        params: Iterable[Parameter],
        lr: float,
        weight_decay: float = 0.0,
        *,
        maximize: bool = False,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if kind_of(params) is not None:
            raise TypeError(
                f"params should be an iterable of parameters, got one {type(params).__name__}: "
                "write [p]"
            )
        self.params = list(params)
        if not self.params:
            raise ValueError("an optimizer needs at least one parameter")
        made = next((p for p in self.params if not is_leaf(p)), None)
        if made is not None:
            raise ValueError(
                f"can't optimize a non-leaf: {type(made).__name__} made by "
                f"{getattr(made, 'op', '?')!r} (optimize the leaves it was made from)"
            )
        if not lr >= 0:  # nan too
            raise ValueError(f"the learning rate must be >= 0, got {lr}")
        nonnegative(weight_decay=weight_decay)
        self.lr = lr
        self.weight_decay = weight_decay
        self.maximize = maximize
        self.decoupled_weight_decay = decoupled_weight_decay
        # the learning rate a schedule started from (PyTorch's group["initial_lr"]): set by
        # the first scheduler, read by one resumed with last_epoch
        self.initial_lr: float | None = None
        self.state: list[dict[str, Any]] = [{} for _ in self.params]

    def zero_grad(self) -> None:
        """Forget the gradients: 0.0 for a scalar, None for an array (as PyTorch)."""
        zero_grad(self.params)

    def step(self) -> None:
        """One update of every parameter that has a gradient: a write in place, so a backward
        through a graph made before it raises rather than differentiate the new values."""
        moved = []
        for p, state in zip(self.params, self.state):
            grad = gradient(p)
            if grad is None:  # no backward reached it since zero_grad: left as it is
                continue
            kind = kind_of(p)
            with kind.ieee() if kind is not None else contextlib.nullcontext():
                self.update(p, self.decayed(p, -grad if self.maximize else grad), state)
            moved.append(p)
        wrote(moved, f"{type(self).__name__}.step")

    def decayed(self, p: Parameter, grad: Any) -> Any:
        """The gradient ``update`` gets: with L2 weight decay, ``grad + weight_decay * p``;
        with decoupled weight decay, ``grad`` as it is, once ``p`` is shrunk in place by
        ``1 - lr * weight_decay``."""
        decay = self.weight_decay
        if not decay:
            return grad
        if self.decoupled_weight_decay:
            p.data *= 1 - self.lr * decay
            return grad
        return grad + decay * p.data

    def update(self, p: Parameter, grad: Any, state: dict[str, Any]) -> None:
        """Move ``p`` given its gradient (weight decay included) and its state: in place for
        an array, a new float for a scalar."""
        raise NotImplementedError(f"{type(self).__name__} must define update()")


def nonnegative(**hyperparameters: float) -> None:
    """Refuse a negative (or nan) hyperparameter, by its name, as ``torch.optim`` does.

    >>> nonnegative(eps=-1.0)
    Traceback (most recent call last):
    ...
    ValueError: eps must be >= 0, got -1.0
    """
    for name, value in hyperparameters.items():
        if not value >= 0:
            raise ValueError(f"{name} must be >= 0, got {value}")
