"""Whole numbers as PyTorch's CPU kernels draw them, in place in NumPy arrays: ``random_`` with
its three ranges (the dtype's default, [from, to), [from, the dtype's max]), on which
``randint`` stands. A draw is a 32-bit word (``random()``), or a 64-bit one (``random64()``)
where the range reaches 2**28 or the dtype is int64 or float64, reduced modulo the range.

>>> import numpy as np
>>> from topograd.tensors.random.generator import Generator
>>> random_(np.empty(3, np.int64), 0, 10, generator=Generator().manual_seed(0)).tolist()
[4, 9, 3]
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ...autograd.errors import RuntimeValueError
from ..dtypes import c_name
from .generator import Generator
from .kinds import digits, fill, is_floating, limits, not_implemented
from .seeding import chosen

Array = np.ndarray[Any, Any]
INT64_MIN = -(2**63)
WIDE_RANGE = 2**28  # from here on a draw takes 64 bits, so the modulo's skew stays small


def _cast_ints(values: Array, dtype: Any) -> Array:
    """int64 numbers as C's cast makes them ``dtype``: wrapped for narrower integers, the
    nearest for floats, nonzero for bool."""
    return values.astype(dtype)


def _default_range(dtype: Any, source: Generator, n: int) -> Array:
    """``random_()``: [0, max] for integers (bool: the lowest bit), [0, 2**digits] for
    floats, 64-bit draws for int64 and float64 only."""
    kind = np.dtype(dtype)
    if kind == np.bool_:
        return (source.words(n) & np.uint64(1)).astype(np.bool_)
    wide = kind in (np.dtype(np.int64), np.dtype(np.float64))
    draws = source.words64(n) if wide else source.words(n)
    modulus = 2 ** digits(kind) + 1 if is_floating(kind) else limits(kind)[1] + 1
    return _cast_ints((draws % np.uint64(modulus)).astype(np.int64), kind)


def _through(value: int, dtype: Any) -> int:
    """``value`` cast to the float ``dtype`` and back to int64, as C on x86-64 does it (a
    number the dtype cannot hold becomes infinity, which becomes -2**63)."""
    through = np.float32 if np.dtype(dtype) == np.float16 else dtype  # (Half: from a float)
    with np.errstate(over="ignore"):
        rounded = float(np.array(value).astype(through).astype(dtype))
    return int(rounded) if abs(rounded) < 2.0**63 else INT64_MIN


def _moved_from(low: int, dtype: Any) -> int:
    """``low`` moved up past the numbers that the dtype would round below it (PyTorch's
    update_from: floats of few digits cannot hold every whole number)."""
    rounded = _through(low + 1, dtype)
    if rounded < low:
        return rounded + (1 << ((abs(low + 1).bit_length() - 1) - digits(dtype) + 1))
    return low


def _moved_to(high: int, dtype: Any) -> int:
    """``high`` moved down likewise (PyTorch's update_to)."""
    rounded = _through(high - 1, dtype)
    if rounded >= high:
        return rounded - (1 << ((abs(high - 1).bit_length() - 1) - digits(dtype) + 1))
    return high


def _check_in_range(low: int, last: int, dtype: Any) -> None:
    lowest, highest = limits(dtype)
    for name, value in (("from", low), ("to - 1", last)):
        if not lowest <= value <= highest:
            raise RuntimeValueError(f"{name} is out of bounds for {c_name(dtype)}")
    if is_floating(dtype):
        bits = digits(dtype)
        for name, value in (("from", low), ("to - 1", last)):
            if not -(2**bits) <= value <= 2**bits:
                warnings.warn(
                    f"{name} is out of bounds [-(2^{bits}), 2^{bits}]. Due to precision "
                    f"limitations {c_name(dtype)} can support discrete uniform distribution "
                    "only within this range. This warning will become an error in version "
                    "1.7 release, please fix the code in advance",
                    UserWarning,
                    stacklevel=4,
                )


def _span(dtype: Any, low: int, high: int | None) -> tuple[int, int]:
    """(low, the count of numbers) of [low, high) or [low, the dtype's max], checked."""
    floating = is_floating(dtype)
    if high is not None:
        if low >= high:
            raise RuntimeValueError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
            )
        if floating:
            low, high = _moved_from(low, dtype), _moved_to(high, dtype)
            if low >= high:
                raise RuntimeValueError(
                    "random_ expects 'from' casted to dtype to be less than 'to' casted to "
                    f"dtype, but got from={low} >= to={high}"
                )
        _check_in_range(low, high - 1, dtype)
        return low, high - low
    last = min(2 ** digits(dtype), 2**63 - 1) if floating else limits(dtype)[1]
    if floating:
        low = _moved_from(low, dtype)
        if low >= last:
            raise RuntimeValueError(
                "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' "
                f"casted to dtype, but got from={low} > to_inc={last}"
            )
    _check_in_range(low, last, dtype)
    return low, last - low + 1


def _from_range(low: int, count: int, source: Generator, n: int) -> Array:
    """n numbers of [low, low + count): a draw modulo ``count`` plus ``low``, in 64-bit
    arithmetic that wraps as C's unsigned integers do."""
    draws = source.words64(n) if count >= WIDE_RANGE else source.words(n)
    offset = np.uint64(low % 2**64)
    with np.errstate(over="ignore"):
        return ((draws % np.uint64(count)) + offset).view(np.int64)


def random_(out: Array, *bounds: int | None, generator: Generator | None = None) -> Array:
    """Fill ``out`` in place with whole numbers drawn evenly, as ``Tensor.random_`` takes its
    bounds: ``random_(out)`` over the dtype's default range, ``random_(out, to)`` over [0, to),
    ``random_(out, from, to)`` over [from, to), ``random_(out, from, None)`` over [from, the
    dtype's max]. Returns ``out``."""
    source = chosen(generator)
    if not bounds:
        return fill(out, _default_range(out.dtype, source, out.size)) if out.size else out
    if len(bounds) > 2 or bounds[0] is None:
        raise TypeError("random_ takes (), (to,), (from, to) or (from, None) as its bounds")
    low, high = (0, bounds[0]) if len(bounds) == 1 else (bounds[0], bounds[1])
    low, high = int(low), None if high is None else int(high)
    if low == INT64_MIN and high is None:
        return _full_range(out, source)
    start, count = _span(out.dtype, low, high)
    if out.size == 0:
        return out
    return fill(out, _cast_ints(_from_range(start, count, source, out.size), out.dtype))


def _full_range(out: Array, source: Generator) -> Array:
    """[-2**63, 2**63): a 64-bit draw read as a signed one."""
    if out.size == 0:
        return out
    if out.dtype in (np.dtype(np.bool_), np.dtype(np.float16)):
        raise not_implemented("random_full_64_bits_range_kernel_cpu", out.dtype)
    if out.dtype not in (np.dtype(np.int64), np.dtype(np.float32), np.dtype(np.float64)):
        raise RuntimeValueError(
            "random_full_64_bits_range_kernel_cpu handles only int64, double, float and bfloat16"
        )
    return fill(out, _cast_ints(source.words64(out.size).view(np.int64), out.dtype))
