"""``tg.optim.lr_scheduler``, spelt as ``torch.optim.lr_scheduler``: the schedulers of
``schedulers.py`` under the module name most PyTorch code imports them by.

>>> import topograd as tg
>>> from topograd.optim.lr_scheduler import StepLR
>>> StepLR(tg.optim.SGD([tg.Value(0.0)], lr=1.0), step_size=2).get_last_lr()
[1.0]
"""

from __future__ import annotations

from .schedulers import CosineAnnealingLR, LinearLR, LRScheduler, StepLR

__all__ = ["CosineAnnealingLR", "LRScheduler", "LinearLR", "StepLR"]
