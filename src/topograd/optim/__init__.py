"""Optimizers for anything with ``.data`` and ``.grad`` (Values and Tensors), step for step as
``torch.optim``: the loop in ``Optimizer``, one update per subclass; learning-rate schedulers
as ``torch.optim.lr_scheduler``'s (here and in ``lr_scheduler``), and micrograd's
``LinearDecay``."""

from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .schedulers import CosineAnnealingLR, LinearLR, LRScheduler, StepLR
from .schedules import LinearDecay
from .sgd import SGD

__all__ = [
    "SGD",
    "Adagrad",
    "Adam",
    "AdamW",
    "CosineAnnealingLR",
    "LRScheduler",
    "LinearDecay",
    "LinearLR",
    "Optimizer",
    "RMSprop",
    "StepLR",
    "lr_scheduler",
]
