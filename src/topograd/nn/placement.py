"""Where a module's numbers are: on the CPU, the only device topograd runs on. ``cpu()`` is the
module itself; ``cuda()`` is refused, naming CUDA, as ``to("cuda")`` is.

>>> import topograd as tg
>>> layer = tg.nn.Linear(2, 1)
>>> layer.cpu() is layer
True
"""

from __future__ import annotations

from typing import Any, Self


class Placement:
    """The device methods of a module (a mixin of ``Module``)."""

    def cpu(self) -> Self:
        """Itself: topograd runs on the CPU."""
        return self

    def cuda(self, device: Any = None) -> Self:
        """Refused: topograd has no CUDA (it runs on the CPU only)."""
        from ..tensors.devices import device_index  # (NumPy only when a module asks)

        device_index("cuda")
        return self
