"""Learning-rate schedulers as ``torch.optim.lr_scheduler``'s (``tg.optim.lr_scheduler``):
``StepLR``, ``CosineAnnealingLR``, ``LinearLR``, each a subclass that writes only ``next_lr``
(or, as PyTorch's, ``get_lr``).

A scheduler reads and writes every ``group["lr"]`` of its optimizer, once when it is made
(epoch 0) and at every ``step()``, each new rate made from the one before with PyTorch's own
formula, so the rates are PyTorch's to the last bit, and two schedulers on one optimizer
compose as PyTorch's do. The loop is PyTorch's:

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
import numbers
import warnings
from typing import Any

from .optimizer import Optimizer

# PyTorch's words for a deprecated ``step(epoch)``.
EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


class LRScheduler:
    """The loop all schedulers share: ``last_epoch`` counts the calls of ``step()`` (0 once
    made), ``base_lrs`` holds each group's ``initial_lr`` (its rate when the first scheduler
    was made), ``get_last_lr()`` the rates set last. ``last_epoch`` other than -1 resumes a
    schedule, from the ``initial_lr`` in each group. ``state_dict()`` has PyTorch's keys."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        for i, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", group["lr"])
            elif "initial_lr" not in group:
                raise KeyError(
                    f"param 'initial_lr' is not specified in param_groups[{i}] when resuming "
                    f"a schedule at last_epoch={last_epoch}: a scheduler made with "
                    "last_epoch=-1 records it, and the optimizer's state_dict keeps it"
                )
        self.base_lrs: list[float] = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        # PyTorch's bookkeeping, by its names, so that the state dicts have the same keys
        self._step_count = 1  # the first step, the one made here
        self._is_initial = True
        self._get_lr_called_within_step = False
        self._last_lr: list[float] = []
        try:
            self._update_lr(None)  # not step(): a compiled function records step() calls
        finally:
            self._is_initial = False

    def step(self, epoch: int | None = None) -> None:
        """Move to the next epoch and set each group's learning rate for it: call it after
        ``optimizer.step()``. ``epoch`` (deprecated, as in PyTorch) jumps to that epoch, by
        the closed form."""
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def get_last_lr(self) -> list[float]:
        """The learning rates set last, one per parameter group.

        >>> import topograd as tg
        >>> LinearLR(tg.optim.SGD([tg.Value(0.0)], lr=0.3), start_factor=0.5).get_last_lr()
        [0.15]
        """
        return self._last_lr

    def get_lr(self) -> list[float]:
        """The learning rates of epoch ``last_epoch``, one per group, made from each group's
        current rate (the chainable form ``step()`` uses); called outside ``step()`` it
        warns, as PyTorch's: ``get_last_lr()`` gives the rates in use."""
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use "
                "`get_last_lr()`.",
                UserWarning,
                stacklevel=2,
            )
        groups = self.optimizer.param_groups
        return [
            self.next_lr(group["lr"], base_lr, self._is_initial)
            for group, base_lr in zip(groups, self.base_lrs, strict=True)
        ]

    def next_lr(self, lr: float, base_lr: float, initial: bool) -> float:
        """The learning rate at epoch ``last_epoch`` given the one before (``lr``), the rate
        the schedule started from (``base_lr``), and whether this is the scheduler's first
        epoch (``initial``, when it is made)."""
        raise NotImplementedError(f"{type(self).__name__} must define next_lr() or get_lr()")

    def closed_form_lr(self, base_lr: float) -> float | None:
        """The learning rate at epoch ``last_epoch`` from ``base_lr`` alone, for
        ``step(epoch)``; None where there is none (then ``get_lr()`` is used)."""
        return None

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state, everything but the optimizer, as PyTorch's."""
        return {key: value for key, value in vars(self).items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take up a state that ``state_dict()`` gave."""
        vars(self).update(state_dict)

    def _update_lr(self, epoch: int | None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = [self.closed_form_lr(base_lr) for base_lr in self.base_lrs]
                values = [lr for lr in closed if lr is not None]
                if len(values) != len(closed):
                    values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]


class StepLR(LRScheduler):
    """The learning rate times ``gamma`` every ``step_size`` epochs (a float too, as PyTorch:
    the epochs that are multiples of it).

    >>> import topograd as tg
    >>> opt = tg.optim.SGD([tg.Value(0.0)], lr=1.0)
    >>> sched = StepLR(opt, step_size=3)
    >>> for _ in range(3):
    ...     sched.step()
    >>> opt.lr
    0.1
    """

    def __init__(
        self, optimizer: Optimizer, step_size: float, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        # PyTorch takes 0 and negative sizes too, and fails or decays at every other epoch
        if isinstance(step_size, bool) or not isinstance(step_size, numbers.Real):
            raise TypeError(f"step_size must be a number, got {step_size!r}")
        if not step_size > 0:
            raise ValueError(f"step_size must be > 0, got {step_size!r}")
        self.step_size: float = step_size
        self.gamma: float = gamma
        super().__init__(optimizer, last_epoch)

    def next_lr(self, lr: float, base_lr: float, initial: bool) -> float:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return lr
        return lr * self.gamma

    def closed_form_lr(self, base_lr: float) -> float:
        decays: float = self.gamma ** (self.last_epoch // self.step_size)
        return base_lr * decays


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

    def closed_form_lr(self, base_lr: float) -> float:
        low = self.eta_min
        return low + (base_lr - low) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


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

    def closed_form_lr(self, base_lr: float) -> float:
        start, end, total = self.start_factor, self.end_factor, self.total_iters
        return base_lr * (start + (end - start) * min(total, self.last_epoch) / total)
