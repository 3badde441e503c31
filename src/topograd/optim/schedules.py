"""Learning-rate schedules: ``LinearDecay``, micrograd's 1.0 -> 0.1.

>>> import topograd as tg
>>> opt = tg.optim.SGD([tg.Value(0.0)], lr=1.0)
>>> schedule = LinearDecay(opt, start=1.0, end=0.1, steps=100)
>>> schedule.step()
>>> round(opt.lr, 3)
0.991
"""

from __future__ import annotations

from .optimizer import Optimizer


class LinearDecay:
    """The learning rate moved in a straight line from ``start`` to ``end`` over ``steps``
    calls of ``step()``, as micrograd's demo does (1.0 -> 0.1 over 100 steps)."""

    def __init__(self, optimizer: Optimizer, start: float, end: float, steps: int) -> None:
        self.optimizer, self.start, self.end, self.steps = optimizer, start, end, steps
        self.k = 0
        optimizer.lr = start

    def step(self) -> None:
        self.k = min(self.k + 1, self.steps)
        self.optimizer.lr = self.start + (self.end - self.start) * self.k / self.steps
