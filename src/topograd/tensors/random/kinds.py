"""What the samplers need to know of a dtype, in PyTorch's words (its names in PyTorch's
messages are in ``tensors/dtypes.py``): its range, the bits of its significand, and the order
in which PyTorch's kernels visit an array's elements (memory order).

>>> import numpy as np
>>> digits(np.float16), is_floating(np.int8)
(11, False)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import scalar_name

Array = np.ndarray[Any, Any]


def not_implemented(kernel: str, dtype: Any) -> NotImplementedError:
    """PyTorch's refusal of a dtype that a kernel does not take."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(dtype)}'")


def is_floating(dtype: Any) -> bool:
    return bool(np.dtype(dtype).kind == "f")


def digits(dtype: Any) -> int:
    """The bits of a float dtype's significand, hidden bit included (24 for float32)."""
    return int(np.finfo(dtype).nmant) + 1


def limits(dtype: Any) -> tuple[Any, Any]:
    """(lowest, max) of a dtype, as Python numbers (floats for floats, ints else)."""
    kind = np.dtype(dtype)
    if kind == np.bool_:
        return 0, 1
    if kind.kind == "f":
        info = np.finfo(kind)
        return float(info.min), float(info.max)
    ints = np.iinfo(kind)
    return int(ints.min), int(ints.max)


def cast(values: Array, dtype: Any) -> Array:
    """float64 numbers as PyTorch's ``static_cast`` gives them in ``dtype``: to float16 through
    float32 (c10::Half is built from a float), to the others directly."""
    if np.dtype(dtype) == np.float16:
        return values.astype(np.float32).astype(np.float16)
    return values.astype(dtype)


def memory_axes(array: Array) -> list[int]:
    """``array``'s axes from the slowest in memory to the fastest: PyTorch's kernels visit an
    array's elements in memory order (C order for a contiguous one)."""
    return sorted(range(array.ndim), key=lambda axis: -abs(array.strides[axis]))


def fill(out: Array, values: Array) -> Array:
    """``out`` (any layout) given ``values`` in PyTorch's order, memory order."""
    if out.flags.c_contiguous:
        out[...] = values.reshape(out.shape)
        return out
    in_memory = out.transpose(memory_axes(out))
    in_memory[...] = values.reshape(in_memory.shape)
    return out


def in_order_of(out: Array, values: Array) -> Array:
    """``values`` (broadcast to ``out``'s shape) flat, in ``out``'s memory order."""
    spread = np.broadcast_to(values, out.shape)
    if out.flags.c_contiguous:
        return spread.reshape(-1)
    return spread.transpose(memory_axes(out)).reshape(-1)


def c_number(x: float) -> str:
    """A number as PyTorch's messages print it (C++'s default stream format)."""
    return f"{x:g}"
