"""The float32 logarithm, sine and cosine that PyTorch's vectorised normal sampler uses on x86-64
(its AVX2 kernel, which it also runs on AVX-512 machines): Stephen Moshier's Cephes
approximations (a range reduction and a short polynomial), evaluated in float32 with the
multiply-adds that the compiler fuses rounded once (``fma32``), so that each result is the
kernel's to the bit. Only the inputs the sampler gives them are handled: the logarithm of
(0, 1], the sine and cosine of [0, 2pi), where no step's result is a float32 subnormal (so
``fma32`` may skip that check).

>>> import numpy as np
>>> float(log_ps(np.float32([0.5]))[0])
-0.6931471824645996
>>> s, c = sincos_ps(np.float32([0.5]))
>>> round(float(s[0]), 6), round(float(c[0]), 6)
(0.479426, 0.877583)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .libm import fma32, fma32_exact

Array = np.ndarray[Any, Any]
F = np.float32

# log(x) = log(m) + e*ln2 with m in [sqrt(1/2), sqrt(2)); log(1+t) = t - t^2/2 + t^3 P(t)
LOG_POLY = tuple(
    F(v)
    for v in (
        7.0376836292e-2,
        -1.1514610310e-1,
        1.1676998740e-1,
        -1.2420140846e-1,
        1.4249322787e-1,
        -1.6668057665e-1,
        2.0000714765e-1,
        -2.4999993993e-1,
        3.3333331174e-1,
    )
)
TWO_PI_F = F(2.0 * math.pi)  # the angle's factor, 2pi rounded to float32
LN2_HIGH, LN2_LOW = F(0.693359375), F(-2.12194440e-4)  # ln 2 in two parts
SQRT_HALF = F(0.707106781186547524)

# sin and cos on [-pi/4, pi/4] after reducing by multiples of pi/4 given in three parts
FOUR_OVER_PI = F(1.27323954473516)
PI_4_PARTS = (F(-0.78515625), F(-2.4187564849853515625e-4), F(-3.77489497744594108e-8))
SIN_POLY = (F(-1.9515295891e-4), F(8.3321608736e-3), F(-1.6666654611e-1))
COS_POLY = (F(2.443315711809948e-5), F(-1.388731625493765e-3), F(4.166664568298827e-2))


def log_ps(x: Array) -> Array:
    """log x for float32 x in (0, 1] (positive normal numbers), as the kernel computes it."""
    bits = np.ascontiguousarray(x, F).view(np.int32)
    exponent = ((bits >> 23) - 126).astype(F)  # x = m * 2**e with m in [0.5, 1)
    mantissa = ((bits & 0x007FFFFF) | 0x3F000000).view(F)
    low = mantissa < SQRT_HALF  # m in [0.5, sqrt(1/2)): use 2m (and e - 1) instead
    t = (mantissa - F(1)) + np.where(low, mantissa, F(0))
    exponent = exponent - low.astype(F)
    square = t * t
    # t is a multiple of 2**-24 and each partial polynomial lies in (0.05, 0.5), so each step's
    # float64 sum spans at most 52 bits: exact, and one rounding to float32 is the fma's
    poly: Array = np.full(t.shape, LOG_POLY[0])
    for coefficient in LOG_POLY[1:]:
        poly = fma32_exact(poly, t, coefficient)
    poly = poly * t
    poly = fma32(poly, square, exponent * LN2_LOW, normal=True)  # (the compiler fused these two)
    poly = poly - square * F(0.5)
    # |e ln2| < 2**5, t + poly a float32 of magnitude 2**-24 or more: exact in float64 too
    return fma32_exact(exponent, LN2_HIGH, t + poly)


def _sin_poly(x: Array, square: Array) -> Array:
    poly = fma32(SIN_POLY[0], square, SIN_POLY[1], normal=True)
    poly = fma32(poly, square, SIN_POLY[2], normal=True) * square
    return fma32(poly, x, x, normal=True)


def _cos_poly(square: Array) -> Array:
    poly = fma32(COS_POLY[0], square, COS_POLY[1], normal=True)
    poly = fma32(poly, square, COS_POLY[2], normal=True) * square
    poly = fma32(poly, square, -(square * F(0.5)), normal=True)
    return poly + F(1)


def sincos_ps(x: Array) -> tuple[Array, Array]:
    """(sin x, cos x) for float32 x in [0, 2pi), as the kernel computes them."""
    x = np.asarray(x, F)
    octant = ((x * FOUR_OVER_PI).astype(np.int32) + 1) & ~1  # the even octant nearest
    nearest = octant.astype(F)
    for part in PI_4_PARTS:  # (x and the parts' multiples share a grid of 2**-48: exact)
        x = fma32_exact(nearest, part, x)
    square = x * x
    sine, cosine = _sin_poly(x, square), _cos_poly(square)
    swap = (octant & 2) != 0  # an odd quadrant: the sine is the cosine's polynomial
    sin = np.where(swap, cosine, sine)
    cos = np.where(swap, sine, cosine)
    sin = np.where((octant & 4) != 0, -sin, sin)
    cos = np.where((~(octant - 2) & 4) != 0, -cos, cos)
    return sin, cos
