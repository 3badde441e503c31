"""Uniform, exponential and Bernoulli numbers as PyTorch's CPU kernels draw them, in place in
NumPy arrays: one draw per element in memory order, each from ``random()`` (24 bits: float32
and float16) or ``random64()`` (53 bits: float64), and the kernel's arithmetic to the bit.

>>> import numpy as np
>>> from topograd.tensors.random.generator import Generator
>>> out = uniform_(np.empty(2, np.float32), generator=Generator().manual_seed(0))
>>> out.tolist()  # torch.rand(2, generator=torch.Generator().manual_seed(0))
[0.49625658988952637, 0.7682217955589294]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...autograd.errors import RuntimeValueError
from ..dtypes import c_name, scalar_name
from .capability import vectorised
from .generator import Generator
from .kinds import (
    c_number,
    cast,
    fill,
    in_order_of,
    limits,
    not_implemented,
)
from .libm import c_math, fma32, fma64
from .normals import unit_doubles, unit_floats
from .seeding import chosen

Array = np.ndarray[Any, Any]
F = np.float32
P_OUT_OF_RANGE = (
    "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
    "improved?  If so, please report an enhancement request to PyTorch.)"
)


def _uniform_bounds(dtype: Any, low: float, high: float) -> tuple[float, float]:
    """``low`` and ``high`` checked and clamped as PyTorch's ``uniform_`` does."""
    if dtype.kind != "f":
        raise not_implemented("check_uniform_bounds", dtype)
    lowest, highest = limits(dtype)
    for name, value in (("from", low), ("to", high)):
        if not lowest <= value <= highest:
            raise RuntimeValueError(f"{name} is out of bounds for {c_name(dtype)}")
    if not low <= high:
        raise RuntimeValueError(
            "uniform_ expects to return a [from, to) range, but found "
            f"from={c_number(low)} > to={c_number(high)}"
        )
    if not high - low <= highest:
        raise RuntimeValueError(
            f"uniform_ expects to-from <= std::numeric_limits<{scalar_name(dtype)}>::max(), but "
            f"found to={c_number(high)} and from={c_number(low)} which result in to-from to "
            "exceed the limit"
        )
    return low, high


def uniform_(
    out: Array, low: float = 0.0, high: float = 1.0, *, generator: Generator | None = None
) -> Array:
    """Fill the float array ``out`` in place with numbers drawn evenly from [low, high), as
    ``Tensor.uniform_``: x * (high - low) + low rounded once, x from 24 bits (float32,
    float16, computed in float32) or 53 bits (float64); one that rounds up to ``high`` is
    ``low``. Returns ``out``."""
    low, high = _uniform_bounds(out.dtype, float(low), float(high))
    source = chosen(generator)
    if out.size == 0:
        return out
    fused = vectorised()  # (the AVX2 build fuses x * span + low; the default one does not)
    if out.dtype == np.float64:
        x = unit_doubles(source.words64(out.size))
        drawn = x if (low, high) == (0.0, 1.0) else _spread(x, high - low, low, fma64, fused)
        top, bottom = np.float64(high), np.float64(low)
    else:
        x = unit_floats(source.words(out.size))
        span, start = F(high) - F(low), F(low)
        drawn = x if start == 0 and span == 1 else _spread(x, span, start, fma32, fused)
        drawn = drawn.astype(out.dtype)
        top, bottom = F(high).astype(out.dtype), F(low).astype(out.dtype)
    return fill(out, np.where(drawn == top, bottom, drawn))


def _spread(x: Array, span: Any, start: Any, fma: Any, fused: bool) -> Array:
    return fma(x, span, start) if fused else x * span + start  # type: ignore[no-any-return]


def exponential_(out: Array, lambd: float = 1.0, *, generator: Generator | None = None) -> Array:
    """Fill the float array ``out`` in place with numbers of the exponential distribution of
    rate ``lambd``, as ``Tensor.exponential_``: -1/lambd * log1p(-u), u from 53 bits."""
    if out.dtype.kind != "f":
        raise RuntimeValueError(
            "Exponential distribution is a continuous probability distribution. dtype must be "
            f"a floating point but you specified {scalar_name(out.dtype)}"
        )
    if not lambd > 0.0:
        raise RuntimeValueError(
            f"exponential_ expects lambda > 0.0, but found lambda={c_number(lambd)}"
        )
    source = chosen(generator)
    if out.size == 0:
        return out
    u = unit_doubles(source.words64(out.size))
    return fill(out, cast((-1.0 / lambd) * c_math("log1p", -u), out.dtype))


def bernoulli_(out: Array, p: Any = 0.5, *, generator: Generator | None = None) -> Array:
    """Fill ``out`` (any dtype) in place with 1 (True) where a uniform number is below the
    probability ``p`` and 0 elsewhere, as ``Tensor.bernoulli_``: ``p`` a number, or an array
    of probabilities broadcast to ``out``'s shape. Returns ``out``."""
    if isinstance(p, np.ndarray):
        return _bernoulli_array(out, p, chosen(generator))
    p = float(p)
    if not 0 <= p <= 1:
        raise RuntimeValueError(f"bernoulli_ expects p to be in [0, 1], but got p={c_number(p)}")
    source = chosen(generator)
    if out.size == 0:
        return out
    return fill(out, (unit_doubles(source.words64(out.size)) < p).astype(out.dtype))


def _bernoulli_array(out: Array, p: Array, source: Generator) -> Array:
    """One draw per element of ``out`` against its probability: float64 probabilities take
    53-bit uniforms, the others 24-bit float32 ones (PyTorch compares in float there)."""
    if p.dtype.kind != "f":
        raise not_implemented("bernoulli_tensor_cpu_p_", p.dtype)
    if out.size == 0:
        return out
    probabilities = in_order_of(out, p)
    if not ((probabilities >= 0) & (probabilities <= 1)).all():
        raise RuntimeValueError(P_OUT_OF_RANGE)
    if p.dtype == np.float64:
        drawn = unit_doubles(source.words64(out.size)) < probabilities
    else:
        drawn = unit_floats(source.words(out.size)) < probabilities.astype(F)
    return fill(out, drawn.astype(out.dtype))
