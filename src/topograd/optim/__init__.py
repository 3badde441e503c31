"""Optimizers for anything with ``.data`` and ``.grad`` (Values and Tensors), step for step as
``torch.optim``: the loop in ``Optimizer``, one update per subclass, and schedules."""

from .adam import Adam
from .optimizer import Optimizer
from .schedules import LinearDecay
from .sgd import SGD

__all__ = ["SGD", "Adam", "LinearDecay", "Optimizer"]
