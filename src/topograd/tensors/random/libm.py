"""Arithmetic as PyTorch's compiled kernels do it, in NumPy, to the bit: a fused multiply-add
rounded once (float32 and float64; the compiler fuses ``a * b + c`` in the AVX2 kernels, and
some call ``fma`` themselves), and the C library's ``log``, ``log1p``, ``sin``, ``cos``, ``tan``
and ``exp`` of float64 numbers (which PyTorch calls; NumPy's own vectorised loops may differ in
the last bit) and its float32 ``logf``, ``sinf`` and ``cosf``
(which PyTorch's default kernels call).

>>> import numpy as np
>>> a = np.float32(1 + 2**-12)
>>> float(fma32(a, a, np.float32(-1))) == 2**-11 + 2**-24  # a*a rounded would lose 2**-24
True
>>> bool(c_math("log", np.array([0.5]))[0] == np.float64(-0.6931471805599453))
True
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

Array = np.ndarray[Any, Any]
F32_HALFWAY = np.uint64(1 << 28)  # a float64 whose low 29 mantissa bits are 100...0 sits
F32_DROPPED = np.uint64((1 << 29) - 1)  # halfway between two float32 numbers
SPLITTER = 2.0**27 + 1  # Veltkamp's constant: a double cut into two halves of 26 bits


def two_sum(a: Array, b: Array) -> tuple[Array, Array]:
    """(s, e): s = a + b rounded and e its rounding error, exactly (Knuth)."""
    s = a + b
    b_part = s - a
    return s, (a - (s - b_part)) + (b - b_part)


def fma32(a: Any, b: Any, c: Any, *, normal: bool = False) -> Array:
    """a * b + c rounded once to float32 (a, b, c float32). The product is exact in float64,
    so only the sum rounds twice; that matters only where the float64 sum lands exactly
    halfway between two float32 numbers, and there the sum's own error decides. ``normal``
    says the results are known to be 0 or of float32's normal range (not subnormal), which
    spares a check."""
    total = np.asarray(np.multiply(a, b, dtype=np.float64))
    np.add(total, c, out=total)
    out: Array = total.astype(np.float32)
    halfway = (total.view(np.uint64) & F32_DROPPED) == F32_HALFWAY
    if not normal:
        tiny = np.abs(total) < 2.0**-126  # float32's subnormals: halfway is an odd 2**-150
        if tiny.any():
            steps = total * 2.0**150
            odd = (steps == np.floor(steps)) & (np.abs(steps) % 2 == 1)
            halfway = np.where(tiny, odd, halfway)
    if halfway.any():
        _mend_halfway(out, total, halfway, (a, b, c))
    return out


def fma32_exact(a: Any, b: Any, c: Any) -> Array:
    """``fma32`` where the float64 sum a * b + c is known to be exact (all its bits within
    float64's 53): then rounding it to float32 is the single rounding, and no check is due."""
    total = np.asarray(np.multiply(a, b, dtype=np.float64))
    np.add(total, c, out=total)
    out: Array = total.astype(np.float32)
    return out


def _mend_halfway(out: Array, total: Array, halfway: Array, operands: tuple[Any, ...]) -> None:
    """Where the float64 sum sat halfway between two float32 numbers but was itself rounded,
    round it again the way its error points (in place in ``out``)."""
    at = np.flatnonzero(halfway)
    a, b, c = (np.broadcast_to(np.asarray(v), total.shape).reshape(-1)[at] for v in operands)
    product = np.multiply(a, b, dtype=np.float64)
    _, error = two_sum(product, c.astype(np.float64))
    sums, flat = total.reshape(-1)[at], out.reshape(-1)  # (out is fresh: flat is a view)
    nudged = np.nextafter(sums, np.where(error > 0, np.inf, -np.inf)).astype(np.float32)
    flat[at] = np.where(error != 0, nudged, flat[at])


def _split(a: Array) -> tuple[Array, Array]:
    scaled = SPLITTER * a
    high = scaled - (scaled - a)
    return high, a - high


def fma64(a: Any, b: Any, c: Any) -> Array:
    """a * b + c rounded once (float64), as C's ``fma``: the product and the sums are carried
    exactly in pairs of doubles (Dekker, Knuth), and the few that fall too near a rounding
    boundary to decide that way are done in exact fractions."""
    a, b, c = np.broadcast_arrays(*(np.asarray(v, np.float64) for v in (a, b, c)))
    naive = a * b + c
    with np.errstate(all="ignore"):
        a_high, a_low = _split(a)
        b_high, b_low = _split(b)
        product = a * b
        product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + (
            a_low * b_low
        )
        head, tail = two_sum(product, c)
        middle, last = two_sum(tail, product_error)
        out, rest = two_sum(head, middle)
        # out is the rounding of out + rest + last unless that lies at (or within a hair of)
        # half the gap to a neighbour (the lower gap is the smaller beside a power of two)
        half_gap = np.minimum(np.spacing(np.abs(out)), np.abs(out - np.nextafter(out, 0))) / 2
        settled = np.abs(rest) + np.abs(last) < half_gap * (1 - 2.0**-20)
    # the plain arithmetic where it is exact (a factor 0) or where fma's is too (infinities
    # and NaNs); exact fractions beyond Dekker's range or too near a rounding boundary
    plain = ~np.isfinite(naive) | (a == 0) | (b == 0)
    paired = (np.abs(product) > 2.0**-900) & (np.abs(a) < 2.0**990)
    out = np.where(plain, naive, out)
    for index in zip(*np.nonzero(~plain & ~(paired & settled)), strict=True):
        exact = Fraction(float(a[index])) * Fraction(float(b[index])) + Fraction(float(c[index]))
        out[index] = float(exact)
    return out


def _exp(x: float) -> float:
    """The C library's exp, infinity where it overflows (Python's raises)."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _log(x: float) -> float:
    """The C library's log, -infinity at 0 (Python's raises)."""
    return math.log(x) if x != 0 else -math.inf


# name -> (NumPy's ufunc, the C library's function through Python's math module)
_FUNCTIONS: dict[str, tuple[Any, Callable[[float], float]]] = {
    "log": (np.log, _log),
    "log1p": (np.log1p, math.log1p),
    "sin": (np.sin, math.sin),
    "cos": (np.cos, math.cos),
    "tan": (np.tan, math.tan),
    "exp": (np.exp, _exp),
}
_PROBE_DOMAIN: dict[str, Callable[[Array], Array]] = {  # where the draws take them
    "log": lambda u: 1.0 - u,
    "log1p": lambda u: -u,
    "sin": lambda u: 2 * math.pi * u,
    "cos": lambda u: 2 * math.pi * u,
    "tan": lambda u: math.pi * (u - 0.5),
    "exp": lambda u: 40 * u - 20,
}
_CHOSEN: dict[str, Callable[[Array], Array]] = {}


def _one_by_one(function: Callable[[float], float]) -> Callable[[Array], Array]:
    def each(x: Array) -> Array:
        flat = np.fromiter(map(function, x.ravel().tolist()), np.float64, x.size)
        return flat.reshape(x.shape)

    return each


def _reversed(ufunc: Any) -> Callable[[Array], Array]:
    def backwards(x: Array) -> Array:
        flat = np.ascontiguousarray(x).ravel()
        return ufunc(flat[::-1])[::-1].reshape(x.shape)  # type: ignore[no-any-return]

    return backwards


def _choose(name: str) -> Callable[[Array], Array]:
    """The fastest way that gives the C library's numbers: NumPy's loop (its SIMD loops may
    differ in the last bit), the same loop run backwards (a negative stride sends NumPy to the
    C library's function), or the C library's function number by number through ``math``.
    Tried on 8192 numbers of the domain the draws use, once per process."""
    ufunc, function = _FUNCTIONS[name]
    probe = _PROBE_DOMAIN[name](np.random.default_rng(20240613).random(8192))
    reference = _one_by_one(function)(probe)
    for way in (ufunc, _reversed(ufunc)):
        if np.array_equal(way(probe), reference):
            return way
    return _one_by_one(function)


def c_math(name: str, x: Array) -> Array:
    """The C library's ``name`` ("log", "log1p", "sin", "cos", "tan" or "exp") of each
    float64 in ``x``."""
    way = _CHOSEN.get(name)
    if way is None:
        way = _CHOSEN[name] = _choose(name)
    return way(x)


@functools.cache
def _c_float_functions() -> dict[str, Callable[[float], float]]:
    """The C library's float32 functions, through ctypes (none where it cannot be found)."""
    found = ctypes.util.find_library("m")
    if found is None:
        return {}
    library = ctypes.CDLL(found)
    functions: dict[str, Callable[[float], float]] = {}
    for name in ("logf", "sinf", "cosf"):
        function = getattr(library, name)
        function.argtypes, function.restype = [ctypes.c_float], ctypes.c_float
        functions[name] = function
    return functions


def c_math32(name: str, x: Array) -> Array:
    """The C library's float32 ``name`` ("logf", "sinf" or "cosf") of each float32 in ``x``,
    one call per number (only PyTorch's default kernels need them); NumPy's float32 loop
    where the library cannot be found."""
    function = _c_float_functions().get(name)
    if function is None:
        ufunc = {"logf": np.log, "sinf": np.sin, "cosf": np.cos}[name]
        return ufunc(np.asarray(x, np.float32))
    return _one_by_one(function)(x).astype(np.float32)
