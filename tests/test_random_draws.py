"""The continuous draws are PyTorch's to the bit for the same seed: ``rand``/``uniform_`` and
``randn``/``normal_`` (both of PyTorch's ways, below and from 16 numbers, with the normal number
the generator keeps), ``normal`` with Tensor means and deviations, ``exponential_``,
``bernoulli``/``bernoulli_``, ``rand_like``, ``randn_like``; for every dtype, size and layout,
over hypothesis's seeds, with the generators' states equal after each draw. PyTorch's kernel
choice (AVX2 or its default kernels, ATEN_CPU_CAPABILITY) is followed, so this holds under
either."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from randomness import (
    DEFAULT_BERNOULLI,
    DEFAULT_EXPONENTIAL,
    FLOATS,
    INTEGERS,
    TORCH_DTYPES,
    pair,
    same_bits,
    same_refusal,
    same_state,
    seeds,
    shapes,
    sizes,
)

import topograd as tg
from topograd.tensors.random import bernoulli_, exponential_, normal_, uniform_

floats = st.sampled_from(FLOATS)
bounds = st.sampled_from([(0.0, 1.0), (-1.0, 1.0), (-0.37, 0.91), (-1e3, 5.0), (2.0, 2.0)])
moments = st.sampled_from([(0.0, 1.0), (0.5, 0.02), (-3.0, 7.5), (1.0, 0.0)])


@given(seed=seeds, shape=shapes, dtype=floats)
def test_rand_and_randn(seed: int, shape: tuple[int, ...], dtype: np.dtype) -> None:
    """Sizes given as a tuple, or one by one."""
    ours, theirs = pair(seed)
    kind = TORCH_DTYPES[dtype]
    sizes = shape if shape else (shape,)
    drawn = tg.rand(shape, dtype=dtype, generator=ours)
    assert same_bits(drawn, torch.rand(shape, dtype=kind, generator=theirs))
    drawn = tg.randn(*sizes, dtype=dtype, generator=ours)
    assert same_bits(drawn, torch.randn(*sizes, dtype=kind, generator=theirs))
    assert same_state(ours, theirs)


def test_float32_is_the_default_and_a_large_draw_is_pytorchs() -> None:
    ours, theirs = pair(2024)
    assert tg.rand(3).dtype == tg.randn(3).dtype == np.float32
    assert same_bits(tg.randn(784, 256, generator=ours), torch.randn(784, 256, generator=theirs))
    assert same_bits(tg.rand(784 * 256, generator=ours), torch.rand(784 * 256, generator=theirs))
    assert same_state(ours, theirs)


@given(seed=seeds, n=sizes, dtype=floats, span=bounds)
def test_uniform_(seed: int, n: int, dtype: np.dtype, span: tuple[float, float]) -> None:
    ours, theirs = pair(seed)
    drawn = uniform_(np.empty(n, dtype), *span, generator=ours)
    assert same_bits(
        drawn, torch.empty(n, dtype=TORCH_DTYPES[dtype]).uniform_(*span, generator=theirs)
    )
    assert same_state(ours, theirs)


@given(seed=seeds, n=sizes, dtype=floats, moment=moments)
def test_normal_(seed: int, n: int, dtype: np.dtype, moment: tuple[float, float]) -> None:
    """Both ways (below 16 and from 16 numbers, a tail redrawn) and the kept number: a second
    small draw takes it."""
    ours, theirs = pair(seed)
    kind = TORCH_DTYPES[dtype]
    drawn = normal_(np.empty(n, dtype), *moment, generator=ours)
    assert same_bits(drawn, torch.empty(n, dtype=kind).normal_(*moment, generator=theirs))
    again = normal_(np.empty(3, dtype), generator=ours)
    assert same_bits(again, torch.empty(3, dtype=kind).normal_(generator=theirs))
    assert same_state(ours, theirs)


@given(seed=seeds, dtype=floats)
def test_arrays_not_contiguous_are_drawn_in_memory_order(seed: int, dtype: np.dtype) -> None:
    """A transposed array of 35 numbers: memory order, and the small way for normal numbers
    (PyTorch vectorises only contiguous ones)."""
    ours, theirs = pair(seed)
    kind = TORCH_DTYPES[dtype]
    mine, pytorchs = np.empty((5, 7), dtype).T, torch.empty(5, 7, dtype=kind).t()
    assert same_bits(
        uniform_(mine, -2, 3, generator=ours), pytorchs.uniform_(-2, 3, generator=theirs)
    )
    mine, pytorchs = (
        np.empty((3, 4, 5), dtype).transpose(2, 0, 1),
        torch.empty(3, 4, 5, dtype=kind).permute(2, 0, 1),
    )
    assert same_bits(normal_(mine, generator=ours), pytorchs.normal_(generator=theirs))
    assert same_state(ours, theirs)


@given(seed=seeds, shape=st.sampled_from([(3,), (20,), (4, 5)]), dtype=floats)
def test_normal_with_tensor_means_and_deviations(
    seed: int, shape: tuple[int, ...], dtype: np.dtype
) -> None:
    ours, theirs = pair(seed)
    mean = np.linspace(-2, 2, int(np.prod(shape))).reshape(shape).astype(dtype)
    std = np.linspace(0, 3, shape[-1]).astype(dtype)
    tmean, tstd = torch.from_numpy(mean), torch.from_numpy(std)
    assert same_bits(
        tg.normal(tg.tensor(mean, dtype=dtype), 0.5, generator=ours),
        torch.normal(tmean, 0.5, generator=theirs),
    )
    assert same_bits(
        tg.normal(1.5, tg.tensor(std, dtype=dtype), generator=ours),
        torch.normal(1.5, tstd, generator=theirs),
    )
    both = tg.normal(tg.tensor(mean, dtype=dtype), tg.tensor(std, dtype=dtype), generator=ours)
    assert same_bits(both, torch.normal(tmean, tstd, generator=theirs))
    assert same_bits(
        tg.normal(2.0, 3.0, shape, generator=ours), torch.normal(2.0, 3.0, shape, generator=theirs)
    )
    assert same_state(ours, theirs)


@pytest.mark.skipif(not DEFAULT_EXPONENTIAL, reason="this PyTorch draws exponentials with MKL")
@given(seed=seeds, n=sizes, dtype=floats, rate=st.sampled_from([1.0, 0.3, 7.0]))
def test_exponential_(seed: int, n: int, dtype: np.dtype, rate: float) -> None:
    ours, theirs = pair(seed)
    drawn = exponential_(np.empty(n, dtype), rate, generator=ours)
    assert same_bits(
        drawn, torch.empty(n, dtype=TORCH_DTYPES[dtype]).exponential_(rate, generator=theirs)
    )
    assert same_state(ours, theirs)


@pytest.mark.skipif(not DEFAULT_BERNOULLI, reason="this PyTorch draws Bernoulli numbers with MKL")
@given(
    seed=seeds,
    n=sizes,
    dtype=st.sampled_from(FLOATS + INTEGERS),
    p=st.sampled_from([0.0, 0.3, 0.5, 1.0]),
)
def test_bernoulli_with_one_probability(seed: int, n: int, dtype: np.dtype, p: float) -> None:
    ours, theirs = pair(seed)
    drawn = bernoulli_(np.empty(n, dtype), p, generator=ours)
    assert same_bits(
        drawn, torch.empty(n, dtype=TORCH_DTYPES[dtype]).bernoulli_(p, generator=theirs)
    )
    assert same_state(ours, theirs)


@given(seed=seeds, n=sizes, dtype=floats, into=st.sampled_from(FLOATS + INTEGERS))
def test_bernoulli_with_a_probability_each(
    seed: int, n: int, dtype: np.dtype, into: np.dtype
) -> None:
    """float64 probabilities take 53-bit uniforms, the others 24-bit ones."""
    ours, theirs = pair(seed)
    p = np.linspace(0, 1, n).astype(dtype)
    assert same_bits(
        tg.bernoulli(tg.tensor(p, dtype=dtype), generator=ours),
        torch.bernoulli(torch.from_numpy(p), generator=theirs),
    )
    drawn = bernoulli_(np.empty(n, into), p, generator=ours)
    assert same_bits(
        drawn,
        torch.empty(n, dtype=TORCH_DTYPES[into]).bernoulli_(torch.from_numpy(p), generator=theirs),
    )
    assert same_state(ours, theirs)


@given(seed=seeds, shape=shapes, dtype=floats)
@settings(max_examples=50)
def test_rand_like_and_randn_like(seed: int, shape: tuple[int, ...], dtype: np.dtype) -> None:
    ours, theirs = pair(seed)
    like, pytorchs = tg.zeros(shape, dtype=dtype), torch.zeros(shape, dtype=TORCH_DTYPES[dtype])
    assert same_bits(
        tg.rand_like(like, generator=ours), torch.rand_like(pytorchs, generator=theirs)
    )
    assert same_bits(
        tg.randn_like(like, generator=ours), torch.randn_like(pytorchs, generator=theirs)
    )
    assert same_state(ours, theirs)


REFUSALS = [
    (lambda: tg.rand(2, dtype=np.int64), lambda: torch.rand(2, dtype=torch.int64)),
    (lambda: tg.randn(2, dtype=np.int64), lambda: torch.randn(2, dtype=torch.int64)),
    (lambda: tg.rand(-1), lambda: torch.rand(-1)),
    (lambda: uniform_(np.empty(2, np.float32), 1, 0), lambda: torch.empty(2).uniform_(1, 0)),
    (
        lambda: uniform_(np.empty(2, np.float32), -1e39, 0),
        lambda: torch.empty(2).uniform_(-1e39, 0),
    ),
    (
        lambda: uniform_(np.empty(2, np.float32), -3e38, 3e38),
        lambda: torch.empty(2).uniform_(-3e38, 3e38),
    ),
    (
        lambda: uniform_(np.empty(2, np.float16), 0, 1e6),
        lambda: torch.empty(2, dtype=torch.float16).uniform_(0, 1e6),
    ),
    (lambda: normal_(np.empty(3, np.float32), 0, -1), lambda: torch.empty(3).normal_(0, -1)),
    (lambda: tg.normal(0.0, -1.0, (2,)), lambda: torch.normal(0.0, -1.0, (2,))),
    (
        lambda: tg.normal(tg.zeros(2), tg.tensor([1.0, -1.0])),
        lambda: torch.normal(torch.zeros(2), torch.tensor([1.0, -1.0])),
    ),
    (lambda: exponential_(np.empty(2, np.float32), 0), lambda: torch.empty(2).exponential_(0)),
    (
        lambda: exponential_(np.empty(2, np.int64)),
        lambda: torch.empty(2, dtype=torch.int64).exponential_(),
    ),
    (lambda: bernoulli_(np.empty(3, np.float32), 1.5), lambda: torch.empty(3).bernoulli_(1.5)),
    (lambda: tg.bernoulli(tg.tensor([1.5])), lambda: torch.bernoulli(torch.tensor([1.5]))),
    (
        lambda: tg.bernoulli(tg.tensor([-0.5], dtype=np.float64)),
        lambda: torch.bernoulli(torch.tensor([-0.5], dtype=torch.float64)),
    ),
]


@pytest.mark.parametrize(("ours", "theirs"), REFUSALS)
def test_refusals_are_pytorchs(ours: object, theirs: object) -> None:
    assert same_refusal(ours, theirs)


def test_only_floats_may_require_a_gradient() -> None:
    assert tg.randn(2, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="Only Tensors of floating point"):
        tg.randint(0, 3, (2,), requires_grad=True)
