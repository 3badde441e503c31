"""Learning-rate schedulers as ``torch.optim.lr_scheduler``'s: ``StepLR``,
``CosineAnnealingLR``, ``LinearLR``, each a subclass that writes only ``next_lr``.

A scheduler reads and writes its optimizer's ``lr`` (PyTorch's: every ``group["lr"]``), once
when it is made (epoch 0) and at every ``step()``, each new rate made from the one before with
PyTorch's own formula, so the rates are PyTorch's to the last bit, and two schedulers on one
optimizer compose as PyTorch's do. The loop is PyTorch's:

>>> import topograd as tg
>>> opt = tg.optim.SGD([tg.Value(0.0)], lr=1.0)
>>> sched = StepLR(opt, step_size=2, gamma=0.5)
>>> for epoch in range(5):
...     opt.step()  # (a parameter no backward reached is left as it is)
...     sched.step()
...     print(sched.last_epoch, sched.get_last_lr())
1 [1.0]
2 [0.5]
3 [0.5]
4 [0.25]
5 [0.25]
"""

from __future__ import annotations

import math
from typing import Any

from .optimizer import Optimizer


class LRScheduler:
    """The loop all schedulers share: ``last_epoch`` counts the calls of ``step()`` (0 once
    made), ``base_lrs`` holds the rate the schedule started from, ``get_last_lr()`` the rate
    set last. ``last_epoch`` other than -1 resumes a schedule, from the ``initial_lr`` the
    first scheduler of this optimizer recorded."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if last_epoch == -1 and optimizer.initial_lr is None:
            optimizer.initial_lr = optimizer.lr
        start = optimizer.initial_lr
        if start is None:
            raise KeyError(
                f"resuming a schedule at last_epoch={last_epoch} needs the optimizer's "
                "initial_lr, which a scheduler made with last_epoch=-1 records"
            )
        self.optimizer = optimizer
        self.base_lrs: list[float] = [start]
        self.last_epoch = last_epoch
        self._set(initial=True)

    def step(self) -> None:
        """Move to the next epoch and set the optimizer's learning rate for it: call it after
        ``optimizer.step()``."""
        self._set(initial=False)

    def get_last_lr(self) -> list[float]:
        """The learning rates set last, one per parameter group (topograd has one).

        >>> import topograd as tg
        >>> LinearLR(tg.optim.SGD([tg.Value(0.0)], lr=0.3), start_factor=0.5).get_last_lr()
        [0.15]
        """
        return list(self._last_lr)

    def next_lr(self, lr: float, base_lr: float, initial: bool) -> float:
        """The learning rate at epoch ``last_epoch`` given the one before (``lr``), the rate
        the schedule started from (``base_lr``), and whether this is the scheduler's first
        epoch (``initial``, when it is made)."""
        raise NotImplementedError(f"{type(self).__name__} must define next_lr()")

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state, everything but the optimizer, as PyTorch's."""
        return {key: value for key, value in vars(self).items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take up a state that ``state_dict()`` gave."""
        vars(self).update(state_dict)

    def _set(self, initial: bool) -> None:
        self.last_epoch += 1
        self.optimizer.lr = self.next_lr(self.optimizer.lr, self.base_lrs[0], initial)
        self._last_lr = [self.optimizer.lr]


class StepLR(LRScheduler):
    """The learning rate times ``gamma`` every ``step_size`` epochs.

    >>> import topograd as tg
    >>> opt = tg.optim.SGD([tg.Value(0.0)], lr=1.0)
    >>> sched = StepLR(opt, step_size=3)
    >>> for _ in range(3):
    ...     sched.step()
    >>> opt.lr
    0.1
    """

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        if isinstance(step_size, bool) or not isinstance(step_size, int) or step_size < 1:
            raise ValueError(f"step_size must be a whole number >= 1, got {step_size!r}")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def next_lr(self, lr: float, base_lr: float, initial: bool) -> float:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return lr
        return lr * self.gamma


class CosineAnnealingLR(LRScheduler):
    """From the starting rate down to ``eta_min`` along half a cosine over ``T_max`` epochs,
    and back up along the other half (SGDR without restarts): ``eta_min + (base - eta_min) *
    (1 + cos(pi * epoch / T_max)) / 2``, each rate made from the one before as PyTorch does.

    >>> import topograd as tg
    >>> opt = tg.optim.SGD([tg.Value(0.0)], lr=1.0)
    >>> sched = CosineAnnealingLR(opt, T_max=4)
    >>> for _ in range(2):
    ...     sched.step()
    >>> round(opt.lr, 12)
    0.5
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_max: int,  # noqa: N803 (PyTorch's name)
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if not T_max > 0:
            raise ValueError(f"T_max must be > 0, got {T_max!r}")
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def next_lr(self, lr: float, base_lr: float, initial: bool) -> float:
        epoch, period, low = self.last_epoch, self.T_max, self.eta_min
        if initial:
            return lr
        if (epoch - 1 - period) % (2 * period) == 0:  # at the bottom: no ratio of cosines
            return lr + (base_lr - low) * (1 - math.cos(math.pi / period)) / 2
        ratio = 1 + math.cos(math.pi * epoch / period)
        return ratio / (1 + math.cos(math.pi * (epoch - 1) / period)) * (lr - low) + low


class LinearLR(LRScheduler):
    """The learning rate times a factor that goes in a straight line from ``start_factor``
    (epoch 0) to ``end_factor`` (epoch ``total_iters`` and after).

    >>> import topograd as tg
    >>> opt = tg.optim.SGD([tg.Value(0.0)], lr=1.0)
    >>> sched = LinearLR(opt, start_factor=0.25, total_iters=3)
    >>> rates = [opt.lr]
    >>> for _ in range(4):
    ...     sched.step()
    ...     rates.append(opt.lr)
    >>> rates
    [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if not 0 < start_factor <= 1:
            raise ValueError(f"start_factor must be in (0, 1], got {start_factor!r}")
        if not 0 <= end_factor <= 1:
            raise ValueError(f"end_factor must be in [0, 1], got {end_factor!r}")
        if not total_iters >= 0:
            raise ValueError(f"total_iters must be >= 0, got {total_iters!r}")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def next_lr(self, lr: float, base_lr: float, initial: bool) -> float:
        start, end, epoch = self.start_factor, self.end_factor, self.last_epoch
        if epoch == 0:
            return lr * start
        if initial or epoch > self.total_iters:
            return lr
        return lr * (1.0 + (end - start) / (self.total_iters * start + (epoch - 1) * (end - start)))
