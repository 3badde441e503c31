"""``topograd.distributed``, in the place of ``torch.distributed``: topograd trains in one
process, on the CPU. ``is_available()`` is False (and ``is_initialized()`` too), so that a
program that asks first goes on alone; any other use is refused, naming distributed training.

>>> import topograd.distributed as dist
>>> dist.is_available(), dist.is_initialized()
(False, False)
>>> try:
...     dist.init_process_group("gloo")
... except NotImplementedError as error:
...     print(error)
topograd.distributed.init_process_group: topograd has no distributed training (one process)
"""

from __future__ import annotations

from typing import Any

from ..autograd.errors import FeatureError

NO_DISTRIBUTED = "topograd has no distributed training (one process)"


def is_available() -> bool:
    """False: topograd has no distributed training."""
    return False


def is_initialized() -> bool:
    """False: no process group is ever made."""
    return False


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise FeatureError(f"topograd.distributed.{name}: {NO_DISTRIBUTED}")
