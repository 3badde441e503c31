"""The discrete draws are PyTorch's to the bit for the same seed: ``randint``/``random_`` (every
dtype, its default range, [from, to), [from, max], the full 64 bits), ``randperm``,
``multinomial`` (1-D and 2-D, with and without replacement); a seeded layer's initial weights
(Linear, Conv2d, Embedding; LayerNorm draws nothing); a sequence of mixed calls on the default
generator; makemore's sampling loop. Refusals are PyTorch's."""

from __future__ import annotations

import math
import warnings

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
    SPECIAL_SEEDS,
    TORCH_DTYPES,
    both_draw,
    pair,
    same_bits,
    same_refusal,
    same_state,
    seeds,
    sizes,
)

import topograd as tg
from topograd.tensors.random import exponential_, random_

RANGES = [(), (10,), (-5, 5), (3, None), (0, 1), (0, 2**28 - 1), (0, 2**28), (0, 2**40)]
RANGES += [(-(2**63), None), (-(2**63), 2**63 - 1), (100, 2**25), (2**24, 2**24 + 10)]


@given(
    seed=seeds, n=sizes, dtype=st.sampled_from(FLOATS + INTEGERS), bounds=st.sampled_from(RANGES)
)
def test_random_(seed: int, n: int, dtype: np.dtype, bounds: tuple[int | None, ...]) -> None:
    """A word per number below a range of 2**28, two from there, for int64 and float64; the
    refusals (a range the dtype cannot hold) as PyTorch's."""
    ours, theirs = pair(seed)
    with warnings.catch_warnings():  # (PyTorch's warning of a range beyond a float's digits)
        warnings.simplefilter("ignore")
        pytorchs = torch.empty(n, dtype=TORCH_DTYPES[dtype])
        mine = np.empty(n, dtype)
        if both_draw(lambda: random_(mine, *bounds), lambda: pytorchs.random_(*bounds)):
            random_(mine, *bounds, generator=ours)
            pytorchs.random_(*bounds, generator=theirs)
            assert same_bits(mine, pytorchs)
            assert same_state(ours, theirs)


@given(seed=seeds, low=st.integers(-(2**40), 2**40), width=st.integers(1, 2**41), n=sizes)
def test_randint(seed: int, low: int, width: int, n: int) -> None:
    ours, theirs = pair(seed)
    drawn = tg.randint(low, low + width, (n,), generator=ours)
    assert same_bits(drawn, torch.randint(low, low + width, (n,), generator=theirs))
    drawn = tg.randint(width, size=(2, n), generator=ours)
    assert same_bits(drawn, torch.randint(width, size=(2, n), generator=theirs))
    like = tg.randint_like(tg.zeros(n, dtype=np.float64), 7, generator=ours)
    assert same_bits(
        like, torch.randint_like(torch.zeros(n, dtype=torch.float64), 7, generator=theirs)
    )
    assert same_state(ours, theirs)


@given(
    seed=seeds,
    n=st.sampled_from([0, 1, 2, 3, 10, 127, 128, 1000, 5000]),
    dtype=st.sampled_from(["int64", "int32", "int8", "float32", "float16"]),
)
def test_randperm(seed: int, n: int, dtype: str) -> None:
    ours, theirs = pair(seed)
    kind = np.dtype(dtype)
    if both_draw(
        lambda: tg.randperm(n, dtype=kind), lambda: torch.randperm(n, dtype=TORCH_DTYPES[kind])
    ):
        drawn = tg.randperm(n, dtype=kind, generator=ours)
        assert same_bits(drawn, torch.randperm(n, dtype=TORCH_DTYPES[kind], generator=theirs))
        assert same_state(ours, theirs)


def test_a_large_permutation_is_pytorchs() -> None:
    ours, theirs = pair(1)
    assert same_bits(
        tg.randperm(200_000, generator=ours), torch.randperm(200_000, generator=theirs)
    )


weights = st.sampled_from([(5,), (27,), (3, 27), (4, 6), (1, 2)])


@pytest.mark.skipif(not DEFAULT_EXPONENTIAL, reason="this PyTorch draws exponentials with MKL")
@given(
    seed=seeds,
    shape=weights,
    dtype=st.sampled_from(FLOATS),
    k=st.sampled_from([1, 2, 3, 20]),
    replacement=st.booleans(),
    zeros=st.booleans(),
)
def test_multinomial(
    seed: int, shape: tuple[int, ...], dtype: np.dtype, k: int, replacement: bool, zeros: bool
) -> None:
    """Without replacement, equal ratios p / q (zero weights, float16's rounding) are ties
    that PyTorch's partial sort orders its own way: such draws are compared as sets."""
    ours, theirs = pair(seed)
    p = (np.random.default_rng(abs(seed) % 1000).random(shape) ** 2).astype(dtype)
    if zeros:
        p[..., ::3] = 0
    k = k if replacement else min(k, shape[-1])
    twin = tg.Generator()
    twin.set_state(ours.get_state())
    ratios = p / exponential_(np.empty_like(p), generator=twin)  # what the draw will compare
    drawn = tg.multinomial(tg.tensor(p, dtype=dtype), k, replacement, generator=ours)
    pytorchs = torch.multinomial(torch.from_numpy(p), k, replacement, generator=theirs)
    rows = ratios.reshape(-1, ratios.shape[-1])
    tied = any(len(set(row.tolist())) < len(row) for row in rows)
    if replacement or k == 1 or not tied:
        assert same_bits(drawn, pytorchs)
    else:
        assert drawn.shape == tuple(pytorchs.shape)
    assert same_state(ours, theirs)


MULTINOMIAL_REFUSALS = [
    ([0.5, -0.1], 1, False),
    ([0.5, -0.1], 2, True),
    ([0.0, 0.0], 1, False),
    ([0.0, 0.0], 2, True),
    ([0.5, 0.5], 3, False),
    ([0.5, 0.5], 0, True),
    ([0.5, math.nan], 2, True),
    ([0.5, math.inf], 1, False),
    ([[[1.0]]], 1, True),
    ([], 2, True),
]


@pytest.mark.parametrize(("p", "k", "replacement"), MULTINOMIAL_REFUSALS)
def test_multinomial_refusals_are_pytorchs(p: list, k: int, replacement: bool) -> None:
    assert same_refusal(
        lambda: tg.multinomial(tg.tensor(p, dtype=np.float32), k, replacement),
        lambda: torch.multinomial(torch.tensor(p, dtype=torch.float32), k, replacement),
    )


REFUSALS = [
    (lambda: tg.randint(5, 5, (2,)), lambda: torch.randint(5, 5, (2,))),
    (
        lambda: tg.randint(0, 2**40, (2,), dtype=np.int32),
        lambda: torch.randint(0, 2**40, (2,), dtype=torch.int32),
    ),
    (
        lambda: tg.randint(3, 10, (2,), dtype=np.bool_),
        lambda: torch.randint(3, 10, (2,), dtype=torch.bool),
    ),
    (lambda: tg.randint(0, 10, (-1,)), lambda: torch.randint(0, 10, (-1,))),
    (lambda: tg.randperm(-1), lambda: torch.randperm(-1)),
    (
        lambda: tg.randperm(2050, dtype=np.float16),
        lambda: torch.randperm(2050, dtype=torch.float16),
    ),
    (
        lambda: tg.randperm(2**24 + 2, dtype=np.float32),
        lambda: torch.randperm(2**24 + 2, dtype=torch.float32),
    ),
    (lambda: tg.randperm(129, dtype=np.int8), lambda: torch.randperm(129, dtype=torch.int8)),
    (lambda: tg.randperm(5, dtype=np.bool_), lambda: torch.randperm(5, dtype=torch.bool)),
    (
        lambda: tg.multinomial(np.array([1, 2]), 1),
        lambda: torch.multinomial(torch.tensor([1, 2]), 1),
    ),
]


@pytest.mark.parametrize(("ours", "theirs"), REFUSALS)
def test_refusals_are_pytorchs(ours: object, theirs: object) -> None:
    assert same_refusal(ours, theirs)


def _layers(nn: object) -> list[object]:
    return [
        nn.Linear(3, 4),
        nn.Conv2d(2, 5, 3),
        nn.Embedding(27, 10),
        nn.Linear(30, 200, bias=False),
        nn.Conv2d(4, 6, (3, 2), groups=2, bias=False),
        nn.LayerNorm(5),
        nn.Linear(10, 27),
    ]


@given(seed=st.sampled_from(SPECIAL_SEEDS) | st.integers(0, 2**32))
@settings(max_examples=20)
def test_a_seeded_models_initial_weights_are_pytorchs(seed: int) -> None:
    """``tg.manual_seed(s); nn.Linear(3, 4)`` holds torch's weights: kaiming_uniform_ with
    a = sqrt(5), then the bias, in PyTorch's order; Embedding's normal_; LayerNorm draws none."""
    tg.manual_seed(seed)
    torch.manual_seed(seed)
    for mine, pytorchs in zip(_layers(tg.nn), _layers(torch.nn), strict=True):
        ours = dict(mine.named_parameters())
        theirs = {name: p.detach() for name, p in pytorchs.named_parameters()}
        assert sorted(ours) == sorted(theirs)
        assert all(same_bits(ours[name], theirs[name]) for name in theirs)
    assert same_state(tg.default_generator, torch.default_generator)


@pytest.mark.skipif(not DEFAULT_BERNOULLI, reason="this PyTorch draws Bernoulli numbers with MKL")
def test_a_dropout_mask_is_pytorchs() -> None:
    x = np.arange(1, 401, dtype=np.float32).reshape(20, 20)
    tg.manual_seed(5)
    torch.manual_seed(5)
    ours = tg.nn.functional.dropout(tg.tensor(x, dtype=np.float32), 0.3)
    assert same_bits(ours, torch.nn.functional.dropout(torch.from_numpy(x), 0.3))


@pytest.mark.skipif(not (DEFAULT_BERNOULLI and DEFAULT_EXPONENTIAL), reason="MKL draws")
@given(seed=seeds)
@settings(max_examples=30)
def test_a_sequence_of_mixed_calls_moves_the_state_as_pytorchs(seed: int) -> None:
    calls = [
        lambda m: m.rand(5),
        lambda m: m.randn(3),
        lambda m: m.randn(1),
        lambda m: m.randint(0, 10, (4,)),
        lambda m: m.randperm(7),
        lambda m: m.randn(20, dtype=m.float64),
        lambda m: m.normal(2.0, 0.5, (2,)),
        lambda m: m.bernoulli(m.rand(6)),
        lambda m: m.multinomial(m.rand(4) + 0.1, 3),
        lambda m: m.multinomial(m.rand(2, 4) + 0.1, 5, True),
        lambda m: m.randn(17),
        lambda m: m.rand(2, dtype=m.float16),
    ]
    tg.manual_seed(seed)
    torch.manual_seed(seed)
    for call in calls:
        assert same_bits(call(tg), call(torch))
        assert same_state(tg.default_generator, torch.default_generator)


@pytest.mark.skipif(not DEFAULT_EXPONENTIAL, reason="this PyTorch draws exponentials with MKL")
def test_makemores_sampling_loop_draws_pytorchs_names() -> None:
    """makemore part 1: a generator seeded 2147483647, one multinomial sample per character
    from the bigram row of the last one (the same float32 probabilities on both sides)."""
    counts = np.random.default_rng(0).integers(0, 500, (27, 27)).astype(np.float32) + 1
    probabilities = counts / counts.sum(1, keepdims=True)
    names = {}
    for side, module in (("ours", tg), ("torch", torch)):
        g = module.Generator().manual_seed(2147483647)
        table = (
            module.tensor(probabilities)
            if side == "torch"
            else tg.tensor(probabilities, dtype=np.float32)
        )
        drawn = []
        for _ in range(20):
            ix, name = 0, []
            while True:
                ix = module.multinomial(
                    table[ix], num_samples=1, replacement=True, generator=g
                ).item()
                name.append(int(ix))
                if ix == 0:
                    break
            drawn.append(name)
        names[side] = drawn
    assert names["ours"] == names["torch"]
