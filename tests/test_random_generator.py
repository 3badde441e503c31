"""topograd's Generator is PyTorch's CPU generator: the same seed gives the same state, byte for
byte, the same words, and the states move between the two both ways; the default generator's
functions (manual_seed, seed, initial_seed, get_rng_state, set_rng_state, fork_rng) act as
PyTorch's; refusals are PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from randomness import pair, same_bits, same_refusal, same_state, seeds

import topograd as tg


@given(seed=seeds)
def test_a_seed_gives_pytorchs_state_byte_for_byte(seed: int) -> None:
    ours, theirs = pair(seed)
    assert same_state(ours, theirs)
    assert ours.initial_seed() == theirs.initial_seed()


@given(seed=seeds, n=st.integers(0, 1500))
def test_the_words_are_pytorchs(seed: int, n: int) -> None:
    """random(): the first n words (range < 2**28: one word each, modulo the range); random64:
    int64's default range (two words each, the first high, modulo 2**63)."""
    ours, theirs = pair(seed)
    words = ours.words(n) % np.uint64(2**27)
    assert words.tolist() == torch.randint(0, 2**27, (n,), generator=theirs).tolist()
    wide = [ours.random64() % 2**63 for _ in range(3)]
    assert wide == torch.empty(3, dtype=torch.int64).random_(generator=theirs).tolist()
    assert same_state(ours, theirs)


def test_a_new_generator_starts_from_pytorchs_default_seed() -> None:
    ours, theirs = tg.Generator(), torch.Generator()
    assert ours.initial_seed() == theirs.initial_seed() == 67280421310721
    assert same_state(ours, theirs)
    assert tg.Generator("cpu").device == "cpu"


@given(seed=seeds, n=st.sampled_from([0, 1, 3, 623, 624, 625, 1300]))
def test_states_move_between_topograd_and_pytorch_both_ways(seed: int, n: int) -> None:
    """After any number of words (the twister's 624 and around), and with a normal number
    kept by the Box-Muller pair (an odd count of small normal draws)."""
    ours, theirs = pair(seed)
    ours.words(n)
    torch.randint(0, 10, (n,), generator=theirs)
    tg.randn(3, generator=ours)
    torch.randn(3, generator=theirs)
    assert same_state(ours, theirs)
    mirror = tg.Generator()
    mirror.set_state(theirs.get_state())  # PyTorch's bytes, as a ByteTensor
    back = torch.Generator()
    back.set_state(torch.from_numpy(ours.get_state().numpy()))
    assert same_bits(tg.randn(5, generator=mirror), torch.randn(5, generator=back))
    assert same_state(mirror, back)


def test_a_state_is_taken_back_from_bytes_and_arrays() -> None:
    g = tg.Generator().manual_seed(5)
    state = g.get_state()
    first = g.words(3).tolist()
    for given_as in (state, state.numpy(), bytes(state.numpy())):
        g.set_state(given_as)
        assert g.words(3).tolist() == first


@pytest.mark.parametrize(
    "seed", [1.5, True, "3", None, 2**64, -(2**63) - 1, np.float64(2.0)], ids=repr
)
def test_refused_seeds_are_pytorchs(seed: object) -> None:
    assert same_refusal(
        lambda: tg.Generator().manual_seed(seed),  # type: ignore[arg-type]
        lambda: torch.Generator().manual_seed(seed),  # type: ignore[arg-type]
    )


def test_refused_states_are_pytorchs() -> None:
    ours, theirs = tg.Generator(), torch.Generator()
    for state in (np.zeros(5056, np.uint8), np.zeros(10, np.uint8)):
        assert same_refusal(
            lambda: ours.set_state(state),  # noqa: B023 - called at once
            lambda: theirs.set_state(torch.from_numpy(state)),  # noqa: B023
        )
    assert same_refusal(
        lambda: ours.set_state(np.zeros(5056)),
        lambda: theirs.set_state(torch.zeros(5056)),
    )


def test_the_module_functions_act_on_the_default_generator() -> None:
    assert tg.manual_seed(7) is tg.default_generator
    assert tg.initial_seed() == 7
    assert tg.manual_seed(7.9).initial_seed() == torch.manual_seed(7.9).initial_seed() == 7
    state = tg.get_rng_state()
    first = tg.rand(4)
    tg.set_rng_state(state)
    assert same_bits(tg.rand(4), first.data)
    with tg.random.fork_rng():
        tg.rand(100)
    assert same_bits(tg.rand(4), torch.rand(8, generator=torch.Generator().manual_seed(7))[4:])
    chosen = tg.seed()
    assert chosen == tg.initial_seed() and 0 <= chosen < 2**64


def test_a_generator_is_independent_of_the_default_one() -> None:
    tg.manual_seed(3)
    own = tg.Generator().manual_seed(3)
    before = tg.get_rng_state()
    drawn = tg.randn(20, generator=own)
    assert same_bits(tg.get_rng_state(), before.data)
    assert same_bits(tg.randn(20), drawn.data)  # the default one, from the same seed


def test_generator_and_device_refusals() -> None:
    with pytest.raises(TypeError, match=r"generator must be a topograd\.Generator"):
        tg.rand(2, generator=torch.Generator())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="runs on the CPU only"):
        tg.Generator("cuda")
    with pytest.raises(ValueError, match="runs on the CPU only"):
        tg.randn(2, device="cuda")
    assert tg.randn(2, device="cpu").shape == (2,)
