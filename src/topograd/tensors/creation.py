"""Making Tensors, in PyTorch's spelling: ``zeros``, ``ones``, ``full``, ``eye``,
``arange``, ``linspace``, ``zeros_like``, ``ones_like`` (the random ones, PyTorch's numbers for
the same seed, are in ``tensors.random``). Sizes are given as PyTorch takes them,
``zeros(2, 3)`` or ``zeros((2, 3))``; ``dtype`` is a NumPy dtype (``tg.float32``,
``tg.float64``, the default, as every Tensor of topograd's) and ``requires_grad`` makes a leaf
that wants a gradient.

A Tensor made of numbers holds floats: ``arange(5)`` gives float64 where PyTorch gives int64.
An integer ``dtype`` (``tg.int64``, also ``tg.long``, and ``tg.int32``) makes a Tensor of
integers, which wants no gradient (refused, as by PyTorch): indices, as PyTorch's index-taking
functions ask, which refuse floats.

>>> import topograd as tg
>>> tg.zeros(2, 3).shape, tg.ones((2,)).tolist(), tg.arange(0, 1, 0.25).tolist()
((2, 3), [1.0, 1.0], [0.0, 0.25, 0.5, 0.75])
>>> tg.tensor([[1, 2]], requires_grad=True).dtype, tg.tensor([0, 2], dtype=tg.int64).dtype
(dtype('float64'), dtype('int64'))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..autograd.errors import RuntimeValueError
from .shaping import as_sizes
from .tensor import Tensor, constant

float16, float32, float64 = np.float16, np.float32, np.float64
int32, int64 = np.int32, np.int64
long = np.int64  # PyTorch's other name of int64


def _size(size: tuple[Any, ...]) -> tuple[int, ...]:
    return checked_shape(as_sizes(size))


def checked_shape(shape: Sequence[int]) -> tuple[int, ...]:
    """``shape`` for a new Tensor (or a layer's parameter), refused as PyTorch refuses a
    negative size (a RuntimeError naming it), where NumPy would raise a ValueError of its own.

    >>> checked_shape((2, 3))
    (2, 3)
    """
    for size in shape:
        if size < 0:
            raise RuntimeValueError(
                f"Trying to create tensor with negative dimension {size}: {list(shape)}"
            )
    return tuple(shape)


def _made(data: Any, dtype: Any, requires_grad: bool) -> Tensor:
    """A new leaf of ``data`` in ``dtype``: floats may want a gradient; integers (or booleans)
    are kept as they are, and refuse one, as PyTorch's."""
    array = np.asarray(data, dtype=np.float64 if dtype is None else dtype)
    if array.dtype.kind == "f":
        return Tensor(array, requires_grad=requires_grad)
    if requires_grad:
        raise RuntimeValueError(
            "Only Tensors of floating point and complex dtype can require gradients"
        )
    if array.dtype.kind not in "biu":
        raise TypeError(f"Tensor() takes real numbers, got an array of {array.dtype}")
    return constant(np.array(array))  # (a copy, as torch.tensor's)


def tensor(data: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    """A new leaf holding a copy of ``data`` (numbers, nested lists, an array, a Tensor), as
    ``torch.tensor``: float64 unless ``data`` is already float32/float16 or ``dtype`` says;
    booleans stay booleans (a mask), a Tensor's integers integers."""
    if not isinstance(data, Tensor) and dtype is None and _booleans(data):
        return _made(data, np.bool_, requires_grad)  # a mask, as torch.tensor([True, False])
    made = data if isinstance(data, Tensor) else Tensor(data)  # (its integers kept, if any)
    return _made(made.data, dtype or made.dtype, requires_grad)  # a copy, as torch.tensor's


def _booleans(data: Any) -> bool:
    """Whether ``data`` holds booleans only (True, a list of them, an array of bool)."""
    if isinstance(data, (bool, np.bool_)):
        return True
    return isinstance(data, (list, tuple, np.ndarray)) and np.asarray(data).dtype == np.bool_


def zeros(*size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _made(np.zeros(_size(size)), dtype, requires_grad)


def ones(*size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _made(np.ones(_size(size)), dtype, requires_grad)


def full(size: Any, fill_value: float, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _made(np.full(_size((size,)), float(fill_value)), dtype, requires_grad)


def eye(n: int, m: int | None = None, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    return _made(np.eye(int(n), None if m is None else int(m)), dtype, requires_grad)


def arange(
    start: float,
    end: float | None = None,
    step: float = 1,
    dtype: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``start`` (0 where only ``end`` is given) up to ``end``, not included, by ``step``."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeValueError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeValueError("upper bound and lower bound inconsistent with step sign")
    return _made(np.arange(start, end, step), dtype, requires_grad)


def linspace(
    start: float, end: float, steps: int, dtype: Any = None, requires_grad: bool = False
) -> Tensor:
    """``steps`` numbers from ``start`` to ``end``, both included, evenly spaced."""
    if int(steps) < 0:
        raise RuntimeValueError(f"linspace(): number of steps must be non-negative, got {steps}")
    return _made(np.linspace(start, end, int(steps)), dtype, requires_grad)


def zeros_like(t: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    like = t.data if isinstance(t, Tensor) else np.asarray(t)
    return _made(np.zeros(like.shape), dtype or like.dtype, requires_grad)


def ones_like(t: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
    like = t.data if isinstance(t, Tensor) else np.asarray(t)
    return _made(np.ones(like.shape), dtype or like.dtype, requires_grad)
