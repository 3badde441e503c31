"""The random methods in place of a Tensor are PyTorch's to the bit for the same seed:
``random_`` (its three forms, every dtype), ``bernoulli_`` (a number or a Tensor of
probabilities), ``exponential_``, ``geometric_``, ``cauchy_``, ``log_normal_``, through
``generator=`` and the default generator, in any layout, with the generators' states equal
after each; and each is a write in place, as PyTorch's: counted, refused on a leaf that
requires grad outside ``no_grad``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from randomness import (
    DEFAULT_BERNOULLI,
    DEFAULT_EXPONENTIAL,
    FLOATS,
    INTEGERS,
    TORCH_DTYPES,
    both_draw,
    pair,
    same_bits,
    same_refusal,
    same_state,
    seeds,
    shapes,
)

import topograd as tg

ALL = FLOATS + INTEGERS
RANDOM_BOUNDS: list[tuple[int | None, ...]] = [(), (7,), (300,), (-5, 5), (3, None), (2**30,)]
RANDOM_BOUNDS += [(0, 2**40), (-(2**63), None), (1, 2)]


def _both(shape: tuple[int, ...], dtype: np.dtype, layout: str) -> tuple[tg.Tensor, torch.Tensor]:
    """Zeros of this shape and dtype in both libraries, contiguous or transposed."""
    stored = shape[::-1] if layout == "t" else shape
    ours, theirs = tg.zeros(stored, dtype=dtype), torch.zeros(stored, dtype=TORCH_DTYPES[dtype])
    if layout == "t":
        axes = tuple(range(len(shape) - 1, -1, -1))
        return ours.permute(axes), theirs.permute(axes)
    return ours, theirs


layouts = st.sampled_from(["c", "t"])


@given(
    seed=seeds,
    shape=shapes,
    dtype=st.sampled_from(ALL),
    bounds=st.sampled_from(RANDOM_BOUNDS),
    layout=layouts,
)
def test_random_(
    seed: int, shape: tuple[int, ...], dtype: np.dtype, bounds: tuple[Any, ...], layout: str
) -> None:
    ours, theirs = pair(seed)
    mine, pytorchs = _both(shape, dtype, layout)
    with warnings.catch_warnings():  # (PyTorch's warning of a range beyond a float's digits)
        warnings.simplefilter("ignore")
        if both_draw(
            lambda: mine.clone().random_(*bounds, generator=tg.Generator()),
            lambda: pytorchs.clone().random_(*bounds, generator=torch.Generator()),
        ):
            assert mine.random_(*bounds, generator=ours) is mine
            pytorchs.random_(*bounds, generator=theirs)
            assert same_bits(mine.numpy(), pytorchs.numpy())
            assert same_state(ours, theirs)


def test_random_with_named_bounds_and_the_default_generator() -> None:
    tg.manual_seed(11)
    torch.manual_seed(11)
    for dtype in ALL:
        kind = TORCH_DTYPES[dtype]
        assert same_bits(tg.empty(9, dtype=dtype).random_(), torch.empty(9, dtype=kind).random_())
        named = tg.empty(5, dtype=dtype).random_(to=2)
        assert same_bits(named, torch.empty(5, dtype=kind).random_(to=2))
        both = {"from": 1, "to": 2}
        assert same_bits(
            tg.ones(4, dtype=dtype).random_(**both), torch.ones(4, dtype=kind).random_(**both)
        )
    assert same_state(tg.default_generator, torch.default_generator)
    for wrong in [(1, 2, 3), (True,)]:
        assert isinstance(raised(lambda: tg.zeros(2).random_(*wrong)), TypeError)  # noqa: B023
        assert isinstance(raised(lambda: torch.zeros(2).random_(*wrong)), TypeError)  # noqa: B023
    assert isinstance(raised(lambda: tg.zeros(2).random_(**{"from": 1})), TypeError)
    assert isinstance(raised(lambda: torch.zeros(2).random_(**{"from": 1})), TypeError)


def raised(call: Any) -> BaseException | None:
    try:
        call()
    except Exception as error:
        return error
    return None


@pytest.mark.skipif(not DEFAULT_BERNOULLI, reason="this PyTorch draws Bernoulli numbers with MKL")
@given(seed=seeds, shape=shapes, dtype=st.sampled_from(ALL), p=st.sampled_from([0.0, 0.3, 1.0]))
def test_bernoulli_with_a_number(
    seed: int, shape: tuple[int, ...], dtype: np.dtype, p: float
) -> None:
    ours, theirs = pair(seed)
    mine, pytorchs = _both(shape, dtype, "c")
    mine.bernoulli_(p, generator=ours)
    assert same_bits(mine.numpy(), pytorchs.bernoulli_(p, generator=theirs).numpy())
    assert same_state(ours, theirs)


@given(
    seed=seeds,
    shape=shapes,
    into=st.sampled_from(ALL),
    of=st.sampled_from(FLOATS),
    layout=layouts,
)
def test_bernoulli_with_a_tensor(
    seed: int, shape: tuple[int, ...], into: np.dtype, of: np.dtype, layout: str
) -> None:
    ours, theirs = pair(seed)
    mine, pytorchs = _both(shape, into, layout)
    p = np.random.default_rng(abs(seed) % 2**32).random(shape).astype(of)
    mine.bernoulli_(tg.tensor(p), generator=ours)
    pytorchs.bernoulli_(torch.from_numpy(p), generator=theirs)
    assert same_bits(mine.numpy(), pytorchs.numpy())
    assert same_state(ours, theirs)


@pytest.mark.skipif(not DEFAULT_EXPONENTIAL, reason="this PyTorch draws exponentials with MKL")
@given(
    seed=seeds, shape=shapes, dtype=st.sampled_from(FLOATS), rate=st.sampled_from([1.0, 0.1, 7.5])
)
def test_exponential_(seed: int, shape: tuple[int, ...], dtype: np.dtype, rate: float) -> None:
    ours, theirs = pair(seed)
    mine, pytorchs = _both(shape, dtype, "t")
    mine.exponential_(rate, generator=ours)
    assert same_bits(mine.numpy(), pytorchs.exponential_(rate, generator=theirs).numpy())
    assert same_state(ours, theirs)


TRANSFORMED = [
    ("geometric_", (0.3,)),
    ("geometric_", (1e-6,)),
    ("geometric_", (0.999,)),
    ("cauchy_", ()),
    ("cauchy_", (-2.5, 0.3)),
    ("log_normal_", ()),
    ("log_normal_", (0.1, 0.5)),
    ("log_normal_", (-3.0, 9.0)),
]


@given(
    seed=seeds,
    shape=shapes,
    dtype=st.sampled_from(FLOATS),
    draw=st.sampled_from(TRANSFORMED),
    layout=layouts,
)
def test_geometric_cauchy_and_log_normal(
    seed: int,
    shape: tuple[int, ...],
    dtype: np.dtype,
    draw: tuple[str, tuple[float, ...]],
    layout: str,
) -> None:
    """Twice each: log_normal's second draw takes the normal number the generator kept."""
    ours, theirs = pair(seed)
    name, args = draw
    for _ in range(2):
        mine, pytorchs = _both(shape, dtype, layout)
        with np.errstate(over="ignore"):
            getattr(mine, name)(*args, generator=ours)
        getattr(pytorchs, name)(*args, generator=theirs)
        assert same_bits(mine.numpy(), pytorchs.numpy())
        assert same_state(ours, theirs)


@given(seed=seeds, dtype=st.sampled_from(INTEGERS[:-1]), p=st.sampled_from([0.5, 1e-3, 1e-12]))
def test_geometric_into_integers(seed: int, dtype: np.dtype, p: float) -> None:
    """Counts beyond the dtype's range are cast as PyTorch's x86-64 build casts them."""
    ours, theirs = pair(seed)
    mine = tg.zeros(40, dtype=dtype).geometric_(p, generator=ours)
    pytorchs = torch.zeros(40, dtype=TORCH_DTYPES[dtype]).geometric_(p, generator=theirs)
    assert same_bits(mine, pytorchs)
    assert same_state(ours, theirs)


REFUSED = [
    lambda t: t.geometric_(0.0),
    lambda t: t.geometric_(1.0),
    lambda t: t.to(tg.bool if isinstance(t, tg.Tensor) else torch.bool).geometric_(0.5),
    lambda t: t.cauchy_(0.0, 0.0),
    lambda t: t.cauchy_(0.0, -1.0),
    lambda t: t.long().cauchy_(),
    lambda t: t.log_normal_(1.0, 0.0),
    lambda t: t.long().log_normal_(),
    lambda t: t.long().exponential_(),
    lambda t: t.exponential_(-1.0),
    lambda t: t.bernoulli_(1.5),
    lambda t: t.random_(5, 5),
    lambda t: t.to(tg.uint8 if isinstance(t, tg.Tensor) else torch.uint8).random_(0, 300),
]


@pytest.mark.parametrize("call", REFUSED)
def test_refusals_are_pytorchs(call: Any) -> None:
    assert same_refusal(lambda: call(tg.zeros(3)), lambda: call(torch.zeros(3)))


METHODS: list[tuple[str, tuple[Any, ...]]] = [
    ("random_", ()),
    ("random_", (5,)),
    ("random_", (1, 4)),
    ("bernoulli_", (0.5,)),
    ("exponential_", ()),
    ("geometric_", (0.5,)),
    ("cauchy_", ()),
    ("log_normal_", ()),
    ("uniform_", ()),
    ("normal_", ()),
]


@pytest.mark.parametrize(("name", "args"), METHODS)
def test_each_is_a_write_in_place(name: str, args: tuple[Any, ...]) -> None:
    """Refused on a leaf that requires grad (PyTorch's words), allowed under no_grad, seen by
    a backward through a graph that read the numbers before, and through a view."""
    leaf, theirs = tg.zeros(3, requires_grad=True), torch.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError) as pytorchs:
        getattr(theirs, name)(*args)
    with pytest.raises(RuntimeError) as caught:
        getattr(leaf, name)(*args)
    assert str(pytorchs.value) in str(caught.value)
    with tg.no_grad():
        assert getattr(leaf, name)(*args) is leaf
    x = tg.ones(2, 3)
    loss = (leaf * x[0]).sum()
    getattr(x[0], name)(*args)  # through a view of x
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
