"""The arithmetic the samplers replicate PyTorch's kernels with: a fused multiply-add rounded
once (float32 and float64) against exact fractions, halfway cases included; the C library's
float64 functions (whatever way NumPy is made to give them) against Python's ``math``, which
calls the same library."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from topograd.tensors.random import cephes
from topograd.tensors.random.libm import c_math, fma32, fma64, two_sum

float32s = st.floats(
    width=32, allow_nan=False, allow_infinity=False, min_value=-(2.0**60), max_value=2.0**60
)
float64s = st.floats(allow_nan=False, allow_infinity=False, min_value=-1e150, max_value=1e150)


def nearest_float32(exact: Fraction, naive: float = 0.0) -> np.float32:
    """``exact`` rounded to float32, ties to even, by looking at the neighbours (an exact zero
    takes the sign IEEE gives it, that of the float64 ``naive`` sum)."""
    if exact == 0:
        return np.float32(naive)
    guess = np.float32(float(exact))
    neighbours = [
        np.nextafter(guess, np.float32(-np.inf)),
        guess,
        np.nextafter(guess, np.float32(np.inf)),
    ]
    return min(
        neighbours,
        key=lambda q: (abs(Fraction(float(q)) - exact), int(np.float32(q).view(np.uint32)) & 1),
    )


@given(a=st.lists(st.tuples(float32s, float32s, float32s), min_size=1, max_size=50))
def test_fma32_rounds_once(a: list[tuple[float, float, float]]) -> None:
    x, y, z = (np.array(column, np.float32) for column in zip(*a, strict=True))
    want = [
        nearest_float32(Fraction(float(p)) * Fraction(float(q)) + Fraction(float(r)), p * q + r)
        for p, q, r in zip(x.astype(float), y.astype(float), z.astype(float), strict=True)
    ]
    assert fma32(x, y, z).tobytes() == np.array(want, np.float32).tobytes()


def test_fma32_where_the_float64_sum_sits_halfway() -> None:
    """(1 + k 2**-12)**2 - 1 - tiny: the float64 sum lands halfway between two float32s, or
    its rounding does; and subnormal results, whose halfway points sit elsewhere."""
    k = np.arange(1, 4096, dtype=np.float32)
    a = np.float32(1) + k * np.float32(2**-12)
    nudges = [0.0, 2.0**-60, -(2.0**-60), 2.0**-24, -(2.0**-24)]
    for nudge in nudges:
        c = (-(a.astype(np.float64) ** 2) + nudge).astype(np.float32)
        want = [
            nearest_float32(Fraction(float(p)) ** 2 + Fraction(float(r)))
            for p, r in zip(a, c, strict=True)
        ]
        assert fma32(a, a, c).tobytes() == np.array(want, np.float32).tobytes()
    tiny = np.float32([1e-20, 3e-39, -7e-40, 1e-45])
    half = np.float32([1e-19, 0.5, 0.5, 0.5])
    want = [
        nearest_float32(Fraction(float(p)) * Fraction(float(q)) + Fraction(float(r)))
        for p, q, r in zip(tiny, half, tiny, strict=True)
    ]
    assert fma32(tiny, half, tiny).tobytes() == np.array(want, np.float32).tobytes()


@given(a=st.lists(st.tuples(float64s, float64s, float64s), min_size=1, max_size=50))
def test_fma64_rounds_once(a: list[tuple[float, float, float]]) -> None:
    x, y, z = (np.array(column) for column in zip(*a, strict=True))
    # an exact sum of zero takes IEEE's sign of a zero sum; any other the exact sum's, even
    # where it rounds to a zero (-1e-168 x 2e-196 + 0 is -0.0)
    exact = [Fraction(p) * Fraction(q) + Fraction(r) for p, q, r in a]
    want = [float(e) if e else p * q + r for e, (p, q, r) in zip(exact, a, strict=True)]
    assert fma64(x, y, z).tobytes() == np.array(want).tobytes()


def test_fma64_near_a_tie() -> None:
    a = 1 + 2.0**-30 * np.arange(1, 2000)
    for nudge in (0.0, 2.0**-104, -(2.0**-104)):
        c = -(a * a) + nudge
        want = [float(Fraction(p) * Fraction(p) + Fraction(r)) for p, r in zip(a, c, strict=True)]
        assert fma64(a, a, c).tobytes() == np.array(want).tobytes()


def test_the_c_librarys_functions() -> None:
    u = np.random.default_rng(7).random(20_000)
    for name, domain in (
        ("log", 1 - u),
        ("log1p", -u),
        ("sin", 2 * math.pi * u),
        ("cos", 2 * math.pi * u),
    ):
        function = getattr(math, name)
        assert c_math(name, domain).tolist() == [function(v) for v in domain.tolist()]


def test_the_cephes_steps_said_exact_are_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """The float32 kernel's replica skips the halfway check where it says the float64 sum is
    exact, and the subnormal check everywhere: each such sum is checked exact (its rounding
    error 0) and no result subnormal, on the uniforms' extremes (u1 = 1 - u near 1 and near
    0, angles near 0) and a sample between (all 2**24 uniforms were checked when written)."""
    k = np.concatenate(
        [
            np.arange(2**16),
            np.arange(2**24 - 2**16, 2**24),
            np.random.default_rng(3).integers(0, 2**24, 2**18),
        ]
    )
    u = k.astype(np.float32) * np.float32(2.0**-24)
    sums = {"exact": 0, "checked": 0}

    def watched(kind: str) -> object:
        def fused(a: object, b: object, c: object, normal: bool = False) -> np.ndarray:
            product = np.multiply(a, b, dtype=np.float64)
            total, error = two_sum(
                product, np.broadcast_to(np.asarray(c, np.float64), product.shape)
            )
            assert kind == "checked" or not error.any()  # exact where said so
            assert not ((total != 0) & (np.abs(total) < 2.0**-126)).any()  # no subnormal
            sums[kind] += 1
            return fma32(a, b, c)

        return fused

    monkeypatch.setattr(cephes, "fma32", watched("checked"))
    monkeypatch.setattr(cephes, "fma32_exact", watched("exact"))
    cephes.log_ps(np.float32(1) - u)
    cephes.sincos_ps(cephes.TWO_PI_F * u)
    assert sums == {"exact": 12, "checked": 7}
