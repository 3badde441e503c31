"""Ops on raw NumPy arrays: each op's kernel, found by the name the registry gives it, and the
array kind, in which an op called on arrays (inside a rule, in an ordinary backward) runs its
kernel and records nothing.

>>> import numpy as np
>>> from topograd.autograd.registry import OPS
>>> OPS["tanh"](np.zeros(2))
array([0., 0.])
"""

from __future__ import annotations

import math
import operator
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..autograd.kinds import kind_of, register_array
from ..autograd.registry import Op
from . import dtypes, kernels, picks, windows
from .dtypes import index_numbers
from .quiet import quietly

Array = np.ndarray[Any, Any]


def as_array(data: Any, dtype: Any = None, infer: bool = False) -> Array:
    """A new array of ``data`` for a Tensor: an ndarray's dtype kept (a copy); numbers and
    nested lists of them in ``dtype``, else as PyTorch makes them: inferred as ``torch.tensor``
    does where ``infer`` (bools as bool, whole numbers as int64, any float as the default float
    dtype), else all in the default float dtype, as ``torch.Tensor`` does."""
    found = kind_of(data)
    if found is not None and found.name == "tensor":  # its numbers, as they are (shared)
        return data.array  # type: ignore[no-any-return]
    if found is not None:
        raise TypeError(f"Tensor() takes an array-like, not a {type(data).__name__}")
    if isinstance(data, (str, bytes, dict, set)) or data is None:
        raise TypeError(
            f"Tensor() takes numbers or an array-like of numbers, got {type(data).__name__}"
        )
    given = isinstance(data, (np.ndarray, np.generic))
    array = np.array(data)
    if array.dtype.kind not in "biuf":
        why = ": topograd has no complex numbers" if array.dtype.kind == "c" else ""
        raise TypeError(f"Tensor() takes real numbers, got an array of {array.dtype}{why}")
    if dtype is not None:
        with np.errstate(over="ignore", invalid="ignore"):
            return array.astype(dtypes.as_dtype(dtype).dtype, copy=False)
    if given:
        dtypes.of_numpy(array.dtype)  # (one a Tensor cannot hold is refused)
        return array
    if infer and array.dtype.kind in "bi":
        return array.astype(np.int64 if array.dtype.kind == "i" else np.bool_, copy=False)
    with np.errstate(over="ignore"):  # 1e308 in float32 is inf, as PyTorch makes it
        return array.astype(dtypes.get_default_dtype().dtype, copy=False)


def sizes_or_data(given: tuple[Any, ...]) -> Array:
    """What ``Tensor(...)`` is given, as PyTorch's: whole numbers are sizes (``Tensor(2, 3)``,
    zeros of that shape), anything else the numbers themselves (``Tensor([1, 2])``); nothing
    is an empty Tensor."""
    if not given:
        return np.zeros(0, dtypes.get_default_dtype().dtype)
    if all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in given):
        shape = tuple(int(n) for n in given)
        if any(n < 0 for n in shape):
            raise RuntimeError(f"Trying to create tensor with negative dimension: {list(shape)}")
        return np.zeros(shape, dtypes.get_default_dtype().dtype)
    if len(given) > 1:
        raise TypeError("Tensor() takes the numbers as one argument, or whole numbers as sizes")
    return as_array(given[0])


def whole(n: Any, what: str = "a dim") -> int:
    """An int given as a dim or a size: a Python or NumPy integer, as PyTorch takes one; a bool
    or a float is refused with a TypeError, as PyTorch refuses them.

    >>> whole(2), whole(-1)
    (2, -1)
    """
    if not isinstance(n, (bool, np.bool_)):
        try:
            return operator.index(n)
        except TypeError:
            pass
    raise TypeError(f"{what} must be an int, not {type(n).__name__}")


def dim_index(dim: Any, ndim: int, what: str = "a dim") -> int:
    """``dim`` of a Tensor of ``ndim`` axes, counted from 0 (a negative one from the end); a
    Tensor of no axes takes 0 and -1, as PyTorch's. Outside: an IndexError, as PyTorch's (and
    NumPy's AxisError, which is one).

    >>> dim_index(-1, 3), dim_index(-1, 0)
    (2, 0)
    """
    at, span = whole(dim, what), max(ndim, 1)
    if not -span <= at < span:
        raise np.exceptions.AxisError(
            f"axis {at} is out of bounds for a Tensor of {ndim} axes: Dimension out of range "
            f"(expected to be in range of [{-span}, {span - 1}], but got {at})"
        )
    return at % span


def axis_of(axis: Any, ndim: int = 1) -> Any:
    """None, an int or a tuple of ints (NumPy integers and lists accepted), each within the
    axes (PyTorch's IndexError otherwise). A 0-d array has one axis to reduce, as in PyTorch:
    0 or -1, meaning all of it (None)."""
    if axis is None:
        return None
    axes = axis if isinstance(axis, (list, tuple)) else (axis,)
    for a in axes:  # dim=True or dim=1.0 is no axis, as PyTorch refuses it
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"an axis (dim) is an int or a tuple of ints, got {a!r}")
        dim_index(a, ndim)
    if ndim == 0:
        return None
    if isinstance(axis, (list, tuple)):
        return tuple(int(a) for a in axis)
    return int(axis)


def index_array(index: Any) -> Array:
    """A Tensor used as an index, as PyTorch takes one: integers (int64, int32) pick, booleans
    mask, and so do bytes (uint8), with PyTorch's warning that this is deprecated; any other
    dtype, floats first (even of whole numbers), is refused with PyTorch's IndexError, but
    for one integer of any width (a 0-d Tensor), which PyTorch reads as a Python int (one
    byte: as a mask of one, without a warning)."""
    array = index.array
    if array.ndim == 0 and array.dtype.kind in "iu":
        return np.asarray(array, dtype=bool if array.dtype == np.uint8 else np.int64)
    array = index_numbers(index, ("int64", "int32", "uint8", "bool"), _NOT_AN_INDEX)
    if array.dtype != np.uint8:
        return array
    warnings.warn(
        "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
        UserWarning,
        stacklevel=3,
    )
    return array.astype(bool)


_NOT_AN_INDEX = (
    IndexError,
    lambda dtype: "tensors used as indices must be long, int, byte or bool tensors",
)


def refusal(op: Op, arrays: Sequence[Array], error: ValueError) -> str:
    """What a kernel's refusal says: PyTorch's words for shapes that do not broadcast or do not
    multiply, else NumPy's, named by the op."""
    if op.name in ("linear", "matmul") and "mismatch in its core dimension" in str(error):
        x, y = arrays[0], arrays[1]
        rows, k = math.prod(x.shape[:-1]), x.shape[-1]
        if op.name == "matmul" and y.ndim == 1:  # a vector on the right: PyTorch's dot or mv
            if x.ndim == 1:
                return (
                    f"inconsistent tensor size, expected tensor [{k}] and src [{y.size}] to "
                    f"have the same number of elements, but got {k} and {y.size} elements "
                    "respectively"
                )
            return f"size mismatch, got input ({rows}), mat ({rows}x{k}), vec ({y.size})"
        y_rows, y_cols = (y.shape[-1], y.shape[0]) if op.name == "linear" else y.shape[-2:]
        return f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {y_rows}x{y_cols})"
    if op.elementwise and len(arrays) == 2 and "broadcast" in str(error):
        a, b = arrays[0].shape, arrays[1].shape
        for k in range(1, max(len(a), len(b)) + 1):
            m, n = a[-k] if k <= len(a) else 1, b[-k] if k <= len(b) else 1
            if m != n and 1 not in (m, n):
                return (
                    f"The size of tensor a ({m}) must match the size of tensor b ({n}) at "
                    f"non-singleton dimension {max(len(a), len(b)) - k}"
                )
    if "negative integer powers" in str(error):  # NumPy's words are PyTorch's
        return str(error)
    return f"{op.name}(): {error}"


_KERNELS: dict[str, Callable[..., Any]] = {}


def kernel(op: Op) -> Callable[..., Any]:
    """The op's forward on arrays: a function of ``kernels`` (or ``windows`` and ``picks``, for
    images) or of NumPy, by the name the registry gives."""
    name = op.array
    if name is None:
        raise TypeError(f"{op.name}() works on Values, not on Tensors")
    if callable(name):  # a custom op's forward
        return name
    found = _KERNELS.get(name)
    if found is None:
        found = (
            getattr(kernels, name, None)
            or getattr(windows, name, None)
            or getattr(picks, name, None)
            or getattr(np, name)
        )
        _KERNELS[name] = found
    return found


def value_of(op: Op, found: Any) -> Any:
    """What ``kernel(op)`` gave, as the op's value: an op that keeps an array for its rule
    (``Op.keeps``) gives (out, kept)."""
    return found[0] if op.keeps else found


class ArraysKind:
    """Ops on raw arrays (inside rules, in an ordinary backward): the kernel, nothing recorded."""

    name = "array"
    rank = 2

    def apply(self, op: Op, args: tuple[Any, ...], params: dict[str, Any]) -> Any:
        return value_of(op, quietly(kernel(op), args, params))


register_array(ArraysKind(), np.ndarray, np.generic)
