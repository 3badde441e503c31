"""Normal numbers as PyTorch's CPU kernel draws them (Box and Muller's transform of uniform
pairs), which takes one of two ways by the array's size and layout:

- 16 numbers or more, contiguous: 16 uniforms at a time, the first 8 giving the radii and the
  last 8 the angles; a size that is not a multiple of 16 redraws its last 16. float32 and
  float16 go through the vectorised float32 kernel (``cephes``; the C library's float32
  functions under PyTorch's default kernels), float64 through the C library.
- fewer, or not contiguous: one pair of float64 uniforms (53 bits each) gives two numbers, the
  second kept in the generator for the next draw, as PyTorch keeps it.

>>> import numpy as np
>>> from topograd.tensors.random.generator import Generator
>>> out = normal_(np.empty(3, np.float32), generator=Generator().manual_seed(0))
>>> out.tolist()  # torch.randn(3, generator=torch.Generator().manual_seed(0))
[1.5409960746765137, -0.293428897857666, -2.1787893772125244]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...autograd.errors import RuntimeValueError
from .capability import vectorised
from .cephes import TWO_PI_F, log_ps, sincos_ps
from .generator import Generator
from .kinds import c_number, cast, fill, not_implemented
from .libm import c_math, c_math32, fma32, fma64
from .seeding import chosen

Array = np.ndarray[Any, Any]
F = np.float32
CHUNK_BLOCKS = 1024  # blocks of 16 drawn at once by the float32 kernel's replica


def unit_floats(words: Array) -> Array:
    """float32 numbers in [0, 1) from 32-bit words: their low 24 bits over 2**24."""
    return (words & np.uint64(0xFFFFFF)).astype(F) * F(2.0**-24)


def unit_doubles(words64: Array) -> Array:
    """float64 numbers in [0, 1) from 64-bit draws: their low 53 bits over 2**53."""
    return (words64 & np.uint64(2**53 - 1)).astype(np.float64) * 2.0**-53


def _affine(x: Array, std: Any, mean: Any, fused: Any) -> Array:
    """x * std + mean rounded once, as the kernel's fma (a plain add where std is 1)."""
    return x + mean if std == 1 else fused(x, std, mean)  # type: ignore[no-any-return]


def _radius_and_angle(blocks: Array) -> tuple[Array, Array, Array]:
    """(radius, sin, cos) of float32 blocks of 16: the vectorised kernel's Cephes functions,
    or the C library's float32 ones in the default kernel (the angle rounded from float64)."""
    first, second = np.ascontiguousarray(blocks[:, :8]), np.ascontiguousarray(blocks[:, 8:])
    if vectorised():
        radius = np.sqrt(F(-2) * log_ps(F(1) - first))
        sin, cos = sincos_ps(TWO_PI_F * second)
        return radius, sin, cos
    radius = np.sqrt(F(-2) * c_math32("logf", F(1) - first))
    theta = ((2.0 * math.pi) * second.astype(np.float64)).astype(F)
    return radius, c_math32("sinf", theta), c_math32("cosf", theta)


def _box_muller_floats(uniforms: Array, mean: F, std: F) -> Array:
    """Blocks of 16 float32 uniforms made normal, as the float32 kernel does (a chunk of
    blocks at a time, so that the many passes of the arithmetic stay in the CPU's cache)."""
    blocks = uniforms.reshape(-1, 16)
    out = np.empty_like(blocks)
    for start in range(0, len(blocks), CHUNK_BLOCKS):
        chunk = slice(start, start + CHUNK_BLOCKS)
        radius, sin, cos = _radius_and_angle(blocks[chunk])
        out[chunk, :8] = _affine(radius * cos, std, mean, fma32)
        out[chunk, 8:] = _affine(radius * sin, std, mean, fma32)
    return out.reshape(-1)


def _box_muller_doubles(uniforms: Array, mean: float, std: float) -> Array:
    """Blocks of 16 float64 uniforms made normal with the C library's log, cos and sin."""
    blocks = uniforms.reshape(-1, 16)
    radius = np.sqrt(-2 * c_math("log", 1 - blocks[:, :8]))
    theta = (2.0 * math.pi) * blocks[:, 8:]
    out = np.empty_like(blocks)
    out[:, :8] = _affine(radius * c_math("cos", theta), std, mean, fma64)
    out[:, 8:] = _affine(radius * c_math("sin", theta), std, mean, fma64)
    return out.reshape(-1)


def _in_sixteens(out: Array, mean: float, std: float, generator: Generator) -> None:
    """The way of 16 or more contiguous numbers."""
    size, flat = out.size, out.reshape(-1)
    whole, rest = size // 16 * 16, size % 16
    if out.dtype == np.float64:
        flat[:whole] = _box_muller_doubles(unit_doubles(generator.words64(size))[:whole], mean, std)
        if rest:
            flat[-16:] = _box_muller_doubles(unit_doubles(generator.words64(16)), mean, std)
        return
    drawn = size if out.dtype == np.float32 else whole  # float16 draws its blocks one by one
    uniforms = unit_floats(generator.words(drawn))[:whole]
    flat[:whole] = _box_muller_floats(uniforms, F(mean), F(std))
    if rest:
        flat[-16:] = _box_muller_floats(unit_floats(generator.words(16)), F(mean), F(std))


def standard_pairs(n: int, generator: Generator) -> Array:
    """``n`` standard normal float64 numbers the scalar way: the generator's kept number first,
    then a pair per two uniforms, the last pair's second number kept for the next draw."""
    kept, generator.next_double_normal = generator.next_double_normal, None
    first = [] if kept is None else [kept]
    needed = n - len(first)
    if needed <= 0:
        generator.next_double_normal = kept if n == 0 else None
        return np.array(first[:n], np.float64)
    pairs = unit_doubles(generator.words64(2 * ((needed + 1) // 2))).reshape(-1, 2)
    radius = np.sqrt(-2.0 * c_math("log1p", -pairs[:, 1]))
    theta = (2.0 * math.pi) * pairs[:, 0]
    both = np.stack([radius * c_math("cos", theta), radius * c_math("sin", theta)], axis=1)
    if needed % 2:
        generator.next_double_normal = float(both[-1, 1])
    return np.concatenate([np.array(first), both.reshape(-1)[:needed]])


def normal_(
    out: Array, mean: float = 0.0, std: float = 1.0, *, generator: Generator | None = None
) -> Array:
    """Fill the float array ``out`` in place with numbers of N(mean, std**2), PyTorch's for
    the same generator state, size, dtype and layout; returns ``out``."""
    if not std >= 0.0:
        raise RuntimeValueError(f"normal expects std >= 0.0, but found std {c_number(std)}")
    if out.dtype.kind != "f":
        raise not_implemented("normal_kernel_cpu", out.dtype)
    source = chosen(generator)
    if out.size == 0:
        return out
    if out.size >= 16 and out.flags.c_contiguous:
        _in_sixteens(out, float(mean), float(std), source)
        return out
    numbers = standard_pairs(out.size, source)
    if vectorised():  # (the AVX2 build fuses value * std + mean; the default one does not)
        numbers = _affine(numbers, float(std), float(mean), fma64)
    else:
        numbers = numbers * float(std) + float(mean)
    return fill(out, cast(numbers, out.dtype))


def normal_broadcast(mean: Any, std: Any, *, generator: Generator | None = None) -> Array:
    """``torch.normal`` where the mean or the standard deviation (or both) are arrays: standard
    numbers drawn into the broadcast shape (in the mean's dtype where it is an array, else the
    deviation's), then times ``std`` and plus ``mean``, as PyTorch computes them. A number for
    the deviation is drawn with it directly (N(0, std**2)), as PyTorch does."""
    if isinstance(std, np.ndarray):
        if std.size and not (std >= 0).all():
            raise RuntimeValueError("normal expects all elements of std >= 0.0")
    elif not std >= 0.0:
        raise RuntimeValueError(f"normal expects std >= 0.0, but found std {c_number(std)}")
    if not isinstance(std, np.ndarray):  # (mean is an array): N(0, std**2), then + mean
        out = normal_(np.empty(mean.shape, mean.dtype), 0.0, std, generator=generator)
        out += mean
        return out
    like = mean if isinstance(mean, np.ndarray) else std
    shape = np.broadcast_shapes(np.shape(mean), std.shape)
    out = normal_(np.empty(shape, like.dtype), generator=generator)
    out *= std
    out += np.asarray(mean, out.dtype) if not isinstance(mean, np.ndarray) else mean
    return out
