"""``Parameter``: a Tensor that a module learns, as ``torch.nn.Parameter``.

>>> import topograd as tg
>>> w = tg.nn.Parameter(tg.ones(2))
>>> w.requires_grad, isinstance(w, tg.Tensor), type(w * 2.0).__name__
(True, True, 'Tensor')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..tensors import Tensor
from ..tensors.pointwise import device_index, float_dtype


class Parameter(Tensor):
    """A leaf Tensor that a ``Module`` finds and registers, wanting a gradient unless
    ``requires_grad=False`` (a frozen parameter, still listed by ``parameters()`` and saved by
    ``state_dict()``, as PyTorch's).

    It is a subclass of ``Tensor``, as PyTorch's: every op, method and ``isinstance(p,
    tg.Tensor)`` takes it as it is, and what an op makes of it is a plain Tensor. Unlike
    PyTorch's, it holds a copy of the numbers it is given (a write to the Tensor it was made
    from does not change it): topograd counts writes in place per Tensor, and two Tensors
    sharing their numbers would let one change behind the other's back.
    """

    __slots__ = ()
    is_parameter = True  # what Module looks for (its module stays free of NumPy)

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            data = np.empty(0)
        elif isinstance(data, Tensor):
            data = data.data
        super().__init__(data, requires_grad=requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


def factory_dtype(device: Any = None, dtype: Any = None) -> np.dtype[Any]:
    """The dtype of a layer's parameters from PyTorch's ``device=`` and ``dtype=`` keywords:
    float32 unless ``dtype`` says otherwise; a device other than the CPU is refused, as a
    Tensor's ``to`` refuses it.

    >>> factory_dtype("cpu"), factory_dtype(dtype=np.float64)
    (dtype('float32'), dtype('float64'))
    """
    if device is not None:
        device_index(device)
    return float_dtype(np.float32 if dtype is None else dtype)


def checked_shape(shape: Sequence[int]) -> tuple[int, ...]:
    """``shape`` for a new parameter, refused as PyTorch refuses a negative size (a
    RuntimeError naming it), where NumPy would raise a ValueError of its own.

    >>> checked_shape((2, 3))
    (2, 3)
    """
    for size in shape:
        if size < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {size}: {list(shape)}"
            )
    return tuple(shape)
