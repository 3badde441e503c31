"""What the tests of randomness share: a topograd and a PyTorch generator from the same seed,
bit-for-bit comparison of their draws and of their states, the seeds and sizes hypothesis
draws from, and the facts about PyTorch's build that decide which of its kernels run here."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from hypothesis import strategies as st

import topograd as tg

TORCH_DTYPES = {
    np.dtype(np.float16): torch.float16,
    np.dtype(np.float32): torch.float32,
    np.dtype(np.float64): torch.float64,
    np.dtype(np.int64): torch.int64,
    np.dtype(np.int32): torch.int32,
    np.dtype(np.int16): torch.int16,
    np.dtype(np.int8): torch.int8,
    np.dtype(np.uint8): torch.uint8,
    np.dtype(np.bool_): torch.bool,
}
FLOATS = [np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16)]
INTEGERS = [np.dtype(t) for t in (np.int64, np.int32, np.int16, np.int8, np.uint8, np.bool_)]

# seeds as PyTorch takes them: 0, negative ones (two's complement), beyond 32 bits (only the
# low 32 reach the twister, but all 64 are the initial seed)
SPECIAL_SEEDS = [0, 1, -1, 42, 2**32, 2**32 + 7, 2**63, 2**64 - 1, -(2**63), 67280421310721]
seeds = st.one_of(st.sampled_from(SPECIAL_SEEDS), st.integers(-(2**63), 2**64 - 1))
# sizes around the 16 of the vectorised normal sampler
sizes = st.sampled_from([0, 1, 2, 3, 15, 16, 17, 31, 32, 33, 100, 1000])
shapes = st.sampled_from([(), (0,), (1,), (15,), (16,), (17,), (3, 5), (4, 4), (2, 3, 5), (7, 9)])


def pair(seed: int) -> tuple[tg.Generator, torch.Generator]:
    """A topograd generator and a PyTorch one, both started from ``seed``."""
    return tg.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)


def same_bits(ours: Any, theirs: Any) -> bool:
    """The same shape, dtype and bytes (so -0.0 is not 0.0, and NaNs compare)."""
    a = np.asarray(ours.data if isinstance(ours, tg.Tensor) else ours)
    b = theirs.numpy() if isinstance(theirs, torch.Tensor) else np.asarray(theirs)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def same_state(ours: tg.Generator, theirs: torch.Generator) -> bool:
    """The two generators' states, PyTorch's 5056 bytes, are equal."""
    return bytes(ours.get_state().data) == bytes(theirs.get_state().numpy())


def words_used(make: Any) -> int:
    """How many 32-bit words one PyTorch call takes from a fresh generator (its state's
    ``next``), to learn which kernel this build runs."""
    g = torch.Generator().manual_seed(0)
    make(g)
    return int(np.frombuffer(g.get_state().numpy().tobytes()[16:24], np.uint64)[0])


# Intel CPUs may send scalar Bernoulli draws and exponential ones to MKL's generator in some
# PyTorch builds: those are pinned only where this build draws them from its own generator
DEFAULT_BERNOULLI = words_used(lambda g: torch.empty(10).bernoulli_(0.5, generator=g)) == 20
DEFAULT_EXPONENTIAL = words_used(lambda g: torch.empty(10).exponential_(generator=g)) == 20


def raised(call: Any) -> BaseException | None:
    try:
        call()
    except Exception as error:
        return error
    return None


def same_refusal(ours: Any, theirs: Any) -> bool:
    """Both refuse, with the same words, and ours is of PyTorch's class (or a subclass)."""
    mine, pytorchs = raised(ours), raised(theirs)
    if mine is None or pytorchs is None:
        return mine is pytorchs
    words = str(pytorchs).splitlines()[0]
    return isinstance(mine, type(pytorchs)) and str(mine).splitlines()[0] == words


def both_draw(ours: Any, theirs: Any) -> bool:
    """Whether both calls go through (then the caller compares their draws); where PyTorch
    refuses, ours must refuse alike (an AssertionError otherwise)."""
    if raised(theirs) is None:
        assert raised(ours) is None
        return True
    assert same_refusal(ours, theirs)
    return False
