"""``Parameter``: a Tensor that a module learns, as ``torch.nn.Parameter``.

>>> import topograd as tg
>>> w = tg.nn.Parameter(tg.ones(2))
>>> w.requires_grad, isinstance(w, tg.Tensor), type(w * 2.0).__name__
(True, True, 'Tensor')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensors import Tensor, dtypes
from ..tensors.devices import device_index
from ..tensors.tensor import as_tensor, constant


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
            data = data.array
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


def float_dtype(given: Any) -> np.dtype[Any]:
    """The NumPy float dtype ``given`` names (``tg.float32``, ``np.float64``, "float16"); a
    TypeError for another: only floats learn.

    >>> float_dtype("float64")
    dtype('float64')
    """
    found = dtypes.as_dtype(given)
    if not found.is_floating_point:
        raise TypeError(
            f"a module's parameters and buffers are floats (float16, float32, float64), not "
            f"{found!r}: only Tensors of floating point dtype can require gradients"
        )
    return found.dtype


def as_input(given: Any, *others: Tensor | None) -> Tensor:
    """A layer's input as a Tensor: an array or a number takes the dtype of its parameters and
    statistics ``others`` (a Tensor keeps its own, for the layer to check against theirs).

    >>> as_input(np.arange(2.0), Tensor(np.zeros(2, np.float32))).dtype
    topograd.float32
    """
    if isinstance(given, Tensor):
        return given
    like = next((t for t in others if t is not None), None)
    x = as_tensor(given, like)
    if like is not None and x.dtype != like.dtype:
        return constant(x.array.astype(like.array.dtype)) if x.is_floating_point() else x
    return x
