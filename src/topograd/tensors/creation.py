"""Making Tensors, in PyTorch's spelling: ``tensor``, ``as_tensor``, ``from_numpy``, ``zeros``,
``ones``, ``empty``, ``full``, ``eye``, ``arange``, ``linspace`` and their ``_like`` forms (the
random ones, PyTorch's numbers for the same seed, are in ``tensors.random``). Sizes are given as
PyTorch takes them, ``zeros(2, 3)`` or ``zeros((2, 3))``; the dtype is PyTorch's: the default
float dtype (float32) for floats, int64 for whole numbers, bool for truths, unless ``dtype``
says otherwise; ``device`` is the CPU; ``requires_grad`` makes a leaf that wants a gradient.

>>> import topograd as tg
>>> tg.zeros(2, 3).shape, tg.ones((2,)).tolist(), tg.arange(0, 1, 0.25).tolist()
(topograd.Size([2, 3]), [1.0, 1.0], [0.0, 0.25, 0.5, 0.75])
>>> tg.tensor([1, 2]).dtype, tg.tensor([1.5]).dtype, tg.arange(3).dtype, tg.full((2,), True).dtype
(topograd.int64, topograd.float32, topograd.int64, topograd.bool)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..autograd.errors import RuntimeValueError
from . import dtypes
from .arrays import as_array
from .devices import device_index
from .random.capability import vectorised
from .random.libm import fma32, fma64
from .shaping import as_sizes
from .tensor import Tensor, constant


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


def leaf(array: Any, requires_grad: bool = False, device: Any = None) -> Tensor:
    """A new leaf of these numbers (as they are), wanting a gradient if asked (floats only)."""
    if device is not None:
        device_index(str(device))
    out = constant(array)
    if requires_grad and out.array.dtype.kind != "f":
        raise RuntimeValueError(  # PyTorch's words, as its factories say them
            "Only Tensors of floating point and complex dtype can require gradients"
        )
    return out.requires_grad_(True) if requires_grad else out


def _dtype(dtype: Any) -> np.dtype[Any]:
    """The NumPy dtype of a maker's ``dtype=`` (the default float dtype where None)."""
    return (dtypes.get_default_dtype() if dtype is None else dtypes.as_dtype(dtype)).dtype


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A new leaf holding a copy of ``data`` (numbers, nested lists, an array, a Tensor), its
    dtype inferred as ``torch.tensor``'s: bool, int64 for whole numbers, the default float
    dtype for floats; an array's (or a Tensor's) own."""
    if isinstance(data, Tensor):
        data = data.array
    return leaf(as_array(data, dtype, infer=True), requires_grad, device)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """``data`` as a Tensor: a Tensor itself (cast where ``dtype`` differs), an ndarray sharing
    its memory (as ``from_numpy``), anything else as ``tensor``."""
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or dtypes.as_dtype(dtype) == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype, device)


def from_numpy(array: Any) -> Tensor:
    """A Tensor sharing ``array``'s memory and dtype, as ``torch.from_numpy``: a write to either
    is seen by the other."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtypes.of_numpy(array.dtype)  # (one a Tensor cannot hold is refused)
    return constant(array)


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return leaf(np.zeros(_size(size), _dtype(dtype)), requires_grad, device)


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return leaf(np.ones(_size(size), _dtype(dtype)), requires_grad, device)


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """A Tensor whose numbers are to be written (zeros here; PyTorch leaves memory as it is)."""
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def full(
    size: Any,
    fill_value: Any,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``fill_value`` everywhere, its dtype inferred from it as PyTorch's (bool, int64, float)."""
    if dtype is None:
        dtype = dtypes.result_type(getattr(fill_value, "array", fill_value))
    return leaf(np.full(_size((size,)), fill_value, _dtype(dtype)), requires_grad, device)


def eye(
    n: int,
    m: int | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    return leaf(
        np.eye(int(n), None if m is None else int(m), dtype=_dtype(dtype)), requires_grad, device
    )


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``start`` (0 where only ``end`` is given) up to ``end``, not included, by ``step``:
    int64 where all three are whole numbers, else the default float dtype, as PyTorch's."""
    if end is None:
        start, end = 0, start
    given = [getattr(v, "item", lambda v=v: v)() for v in (start, end, step)]
    if given[2] == 0:
        raise RuntimeValueError("step must be nonzero")
    if (given[1] - given[0]) * given[2] < 0:
        raise RuntimeValueError("upper bound and lower bound inconsistent with step sign")
    whole = all(isinstance(v, (int, np.integer)) for v in given)
    target = _dtype(dtype if dtype is not None else (dtypes.int64 if whole else None))
    numbers = np.arange(*given, dtype=np.int64 if whole else np.float64)
    return leaf(numbers.astype(target), requires_grad, device)


def linspace(
    start: Any,
    end: Any,
    steps: int,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``steps`` numbers from ``start`` to ``end``, both included, evenly spaced, computed as
    PyTorch's: the first half up from ``start``, the second half down from ``end`` (each a
    fused multiply-add where PyTorch's AVX2 kernels fuse it, in float32 and float64; integers
    in float64 from the ends made integers first)."""
    count = int(steps)
    if count < 0:
        raise RuntimeValueError(f"linspace(): number of steps must be non-negative, got {steps}")
    target = _dtype(dtype)
    if count == 1:  # (PyTorch's: start itself)
        return leaf(np.full(1, start, target), requires_grad, device)
    kind = target if target.kind == "f" else np.dtype(np.float64)
    ends = (
        [start, end] if target.kind == "f" else [np.asarray(x).astype(target) for x in (start, end)]
    )
    first, last = (np.asarray(x, kind) for x in ends)
    step = (last - first) / kind.type(max(count - 1, 1))
    index = np.arange(count)
    with np.errstate(all="ignore"):
        up, down = _from_the_ends(first, last, step, index, count)
    numbers = np.where(index < count // 2, up, down).astype(target)
    return leaf(numbers, requires_grad, device)


def _from_the_ends(first: Any, last: Any, step: Any, index: Any, count: int) -> tuple[Any, Any]:
    """first + step i and last - step (count - 1 - i), fused where PyTorch fuses them."""
    ups, downs = index.astype(step.dtype), (count - 1 - index).astype(step.dtype)
    fused = {np.dtype(np.float32): fma32, np.dtype(np.float64): fma64}.get(step.dtype)
    if fused is None or not vectorised():
        return first + step * ups, last - step * downs
    return fused(step, ups, first), fused(-step, downs, last)


def _like(t: Any) -> np.ndarray[Any, Any]:
    return t.array if isinstance(t, Tensor) else np.asarray(t)


def zeros_like(
    t: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    like = _like(t)
    return leaf(
        np.zeros(like.shape, like.dtype if dtype is None else _dtype(dtype)), requires_grad, device
    )


def ones_like(t: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    like = _like(t)
    return leaf(
        np.ones(like.shape, like.dtype if dtype is None else _dtype(dtype)), requires_grad, device
    )


def empty_like(
    t: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    return zeros_like(t, dtype, device, requires_grad)


def full_like(
    t: Any, fill_value: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    like = _like(t)
    target = like.dtype if dtype is None else _dtype(dtype)
    return leaf(np.full(like.shape, fill_value, target), requires_grad, device)
