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
    tg.Tensor)`` takes it as it is, and what an op makes of it is a plain Tensor. Made from a
    Tensor, it shares that Tensor's numbers and its count of writes, as PyTorch's shares its
    storage: a write to either is seen by both.
    """

    __slots__ = ()
    is_parameter = True  # what Module looks for (its module stays free of NumPy)

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            data = np.empty(0)
        super().__init__(data, requires_grad=requires_grad)  # (a Tensor's numbers shared)

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
    return float_dtype(dtypes.get_default_dtype() if dtype is None else dtype).dtype


def float_dtype(given: Any) -> dtypes.dtype:
    """The float dtype ``given`` names; a TypeError for another: only floats learn.

    >>> float_dtype("float64")
    topograd.float64
    """
    found = dtypes.as_dtype(given)
    if not found.is_floating_point:
        raise TypeError(
            f"a module's parameters and buffers are floats (float16, float32, float64), not "
            f"{found!r}: only Tensors of floating point dtype can require gradients"
        )
    return found


def as_input(given: Any, *others: Tensor | None) -> Tensor:
    """A layer's input as a Tensor: an array or a number (of any real kind: NumPy's points are
    often whole numbers) takes the float dtype of its parameters and statistics ``others``; a
    Tensor keeps its own, for the layer to check against theirs, as PyTorch does.

    >>> as_input(np.arange(2.0), Tensor(np.zeros(2, np.float32))).dtype
    topograd.float32
    """
    if isinstance(given, Tensor):
        return given
    like = next((t for t in others if t is not None), None)
    x = as_tensor(given, like)
    if like is not None and x.array.dtype != like.array.dtype and like.is_floating_point():
        return constant(x.array.astype(like.array.dtype))
    return x
