"""``Size``: a Tensor's shape, as PyTorch's ``torch.Size``: a tuple of ints (equal to the
tuple of the same ints), whose slices are Sizes too, with ``numel()``; printed as PyTorch
prints it, under topograd's name as its dtypes are (``topograd.float32``).

>>> import topograd as tg
>>> shape = tg.zeros(2, 3).shape
>>> shape, shape == (2, 3), shape[1:], shape.numel()
(topograd.Size([2, 3]), True, topograd.Size([3]), 6)
"""

from __future__ import annotations

import math
from typing import Any, SupportsIndex, overload


class Size(tuple[int, ...]):
    """The sizes of a Tensor's axes."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"topograd.Size({list(self)})"

    __str__ = __repr__

    @overload
    def __getitem__(self, index: SupportsIndex) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> Size: ...

    def __getitem__(self, index: Any) -> Any:
        found = tuple.__getitem__(self, index)
        return Size(found) if isinstance(index, slice) else found

    def numel(self) -> int:
        """The number of elements of a Tensor of this shape."""
        return math.prod(self)
