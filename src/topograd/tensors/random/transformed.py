"""The draws PyTorch's CPU kernels make one element at a time from a float64 uniform number
(53 bits of ``random64()``) and a transformation of it, in memory order: ``geometric_``,
``cauchy_`` and ``log_normal_`` (the last from a normal number, Box and Muller's pair, the
second kept in the generator as ``normal_`` keeps it). The arithmetic is float64 and the C
library's ``log``, ``log1p``, ``tan`` and ``exp``, as PyTorch's; where the AVX2 build fuses a
multiply and an add, so does this.

>>> import numpy as np
>>> from topograd.tensors.random.generator import Generator
>>> geometric_(np.empty(3, np.int64), 0.5, generator=Generator().manual_seed(0)).tolist()
[1, 1, 2]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...autograd.errors import RuntimeValueError
from ..dtypes import c_name
from .capability import vectorised
from .generator import Generator
from .kinds import c_number, cast, fill, not_implemented
from .libm import c_math, fma64
from .normals import standard_pairs, unit_doubles
from .seeding import chosen

Array = np.ndarray[Any, Any]


def _scaled(x: Array, scale: float, shift: float) -> Array:
    """x * scale + shift as the kernel computes it: fused in the AVX2 build."""
    if vectorised():
        return fma64(x, np.full_like(x, scale), np.full_like(x, shift))
    return x * scale + shift


def _uniforms(out: Array, generator: Generator | None) -> Array:
    return unit_doubles(chosen(generator).words64(out.size))


def _whole(values: Array, dtype: Any) -> Array:
    """float64 whole numbers in ``dtype`` as the kernel's C casts make them on x86-64: floats
    through ``cast``; int64 directly, the others through int32 and wrapped, a number out of
    the range of the int converted to (or NaN) becoming its lowest."""
    kind = np.dtype(dtype)
    if kind.kind == "f":
        return _cast(values, kind)
    through, lowest = (np.int64, -(2**63)) if kind == np.int64 else (np.int32, -(2**31))
    inside = (values >= lowest) & (values < -float(lowest))
    return np.where(inside, values, lowest).astype(through).astype(kind)


def _cast(values: Array, dtype: Any) -> Array:
    with np.errstate(over="ignore"):  # (float16's infinities, as PyTorch's)
        return cast(values, dtype)


def geometric_(out: Array, p: float, *, generator: Generator | None = None) -> Array:
    """Fill ``out`` (any dtype but bool) in place with the number of Bernoulli trials of
    probability ``p`` up to the first success, as ``Tensor.geometric_``:
    ceil(log(u) / log1p(-p)). Returns ``out``."""
    p = float(p)
    if not 0 < p < 1:
        raise RuntimeValueError(f"geometric_ expects p to be in (0, 1), but got p={c_number(p)}")
    if out.dtype == np.bool_:
        raise not_implemented("geometric_cpu", out.dtype)
    if out.size == 0:
        return out
    u = _uniforms(out, generator)
    with np.errstate(divide="ignore"):
        logs = np.where(u == 0, -math.inf, c_math("log", np.where(u == 0, 1.0, u)))
    trials = np.ceil(logs / c_math("log1p", np.array([-p]))[0])
    return fill(out, _whole(trials, out.dtype))


def _floats_only(name: str, dtype: Any) -> None:
    if np.dtype(dtype).kind != "f":
        raise not_implemented(name, dtype)


def cauchy_(
    out: Array, median: float = 0.0, sigma: float = 1.0, *, generator: Generator | None = None
) -> Array:
    """Fill the float array ``out`` in place with numbers of the Cauchy distribution, as
    ``Tensor.cauchy_``: median + sigma * tan(pi * (u - 1/2)). Returns ``out``."""
    median, sigma = float(median), float(sigma)
    if out.dtype.kind != "f":
        raise RuntimeValueError(
            "Cauchy distribution is a continuous probability distribution. dtype must be a "
            f"floating point but you specified {c_name(out.dtype)}"
        )
    if not sigma > 0.0:
        raise RuntimeValueError(f"cauchy_ expects sigma > 0.0, but found sigma={c_number(sigma)}")
    if out.size == 0:
        return out
    tangents = c_math("tan", math.pi * (_uniforms(out, generator) - 0.5))
    return fill(out, _cast(_scaled(tangents, sigma, median), out.dtype))


def log_normal_(
    out: Array, mean: float = 1.0, std: float = 2.0, *, generator: Generator | None = None
) -> Array:
    """Fill the float array ``out`` in place with exp of numbers of N(mean, std**2), as
    ``Tensor.log_normal_``: the normal numbers of the scalar way (a pair of uniforms each two,
    the second kept in the generator). Returns ``out``."""
    mean, std = float(mean), float(std)
    if not std > 0.0:
        raise RuntimeValueError(f"log_normal_ expects std > 0.0, but found std={c_number(std)}")
    _floats_only("log_normal_cpu", out.dtype)
    if out.size == 0:
        return out
    normals = _scaled(standard_pairs(out.size, chosen(generator)), std, mean)
    return fill(out, _cast(c_math("exp", normals), out.dtype))
