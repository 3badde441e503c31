"""PyTorch's CPU generator: a Mersenne Twister (MT19937) seeded as PyTorch seeds it, so that a
seed gives the 32-bit words PyTorch's generator gives, in the same order.

NumPy's ``MT19937`` bit generator runs the same twister; only its seeding differs, so the
state is computed here (the reference ``init_genrand`` of the seed's low 32 bits, as PyTorch's)
and handed to NumPy, which then draws the words in bulk. ``get_state`` and ``set_state`` speak
PyTorch's byte layout (5056 bytes), so a state moves between topograd and PyTorch both ways.

>>> g = Generator().manual_seed(42)
>>> g.initial_seed(), g.random(), g.random()
(42, 1608637542, 3421126067)
>>> h = Generator()
>>> h.set_state(Generator().manual_seed(42).get_state())
>>> h.random()
1608637542
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from ...autograd.errors import RuntimeValueError
from ..devices import device_index
from ..tensor import Tensor, constant

Array = np.ndarray[Any, Any]
DEFAULT_SEED = 67280421310721  # the seed of a new torch.Generator
STATE_WORDS = 624

# PyTorch's CPUGeneratorImplState, byte for byte (C struct layout, padding included)
STATE_LAYOUT = np.dtype(
    {
        "names": [
            *("seed", "left", "seeded", "next", "state"),
            *("normal_y", "normal_valid", "float_normal", "float_valid"),
        ],
        "formats": [
            *("<u8", "<i4", "<i4", "<u8", ("<u8", STATE_WORDS)),
            *("<f8", "<i4", "<f4", "u1"),
        ],
        "offsets": [0, 8, 12, 16, 24, 5024, 5040, 5048, 5052],
        "itemsize": 5056,
    }
)


def seeded_key(seed: int) -> Array:
    """The twister's 624 words for ``seed``: the reference ``init_genrand`` of its low 32
    bits, which is what PyTorch keeps of a 64-bit seed.

    >>> int(seeded_key(5489)[1])
    1301868182
    """
    key = np.empty(STATE_WORDS, np.uint32)
    word = seed & 0xFFFFFFFF
    key[0] = word
    for j in range(1, STATE_WORDS):
        word = (1812433253 * (word ^ (word >> 30)) + j) & 0xFFFFFFFF
        key[j] = word
    return key


def unsigned_seed(seed: Any) -> int:
    """``seed`` as PyTorch takes it: an int in [-2**63, 2**64), a negative one read as its
    two's complement (so -1 is 2**64 - 1). (NumPy's integers are taken too, which PyTorch
    refuses.)"""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        kind = type(seed)
        named = (
            kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        )
        raise RuntimeValueError(f"manual_seed expected a long, but got {named}")
    seed = int(seed)
    if not -(2**63) <= seed < 2**64:
        raise RuntimeValueError("Overflow when unpacking long long")
    return int(seed) % 2**64


class Generator:
    """A source of random numbers, as ``torch.Generator`` on the CPU: the same seed gives
    PyTorch's numbers. A new one starts from PyTorch's default seed, 67280421310721.

    >>> Generator().initial_seed()
    67280421310721
    """

    def __init__(self, device: Any = "cpu") -> None:
        device_index(device)  # (any device but the CPU is refused)
        self.device = "cpu"
        self.bits = np.random.MT19937(0)
        self.next_double_normal: float | None = None  # Box-Muller's second number, kept
        self.next_float_normal: float | None = None
        self.manual_seed(DEFAULT_SEED)

    def __repr__(self) -> str:
        return f"<topograd.Generator seed={self.seed_}>"

    def manual_seed(self, seed: int) -> Generator:
        """Restart from ``seed`` (a negative one as PyTorch reads it); returns the generator."""
        self.seed_ = unsigned_seed(seed)
        self.bits.state = {
            "bit_generator": "MT19937",
            "state": {"key": seeded_key(self.seed_), "pos": STATE_WORDS},
        }
        self.fresh = True  # PyTorch's state says next = 0 until the first draw
        self.next_double_normal = self.next_float_normal = None
        return self

    def seed(self) -> int:
        """Restart from a seed drawn from the operating system's entropy; returns it."""
        chosen = secrets.randbits(64)
        self.manual_seed(chosen)
        return chosen

    def initial_seed(self) -> int:
        """The seed the generator was last started from."""
        return self.seed_

    # the draws of PyTorch's CPUGeneratorImpl
    def words(self, n: int) -> Array:
        """The next ``n`` 32-bit words (``random()`` n times), as uint64."""
        if n <= 0:
            return np.empty(0, np.uint64)
        self.fresh = False
        return np.asarray(self.bits.random_raw(n))

    def words64(self, n: int) -> Array:
        """The next ``n`` 64-bit draws (``random64()`` n times): two words each, the first
        one high."""
        pairs = self.words(2 * n)
        return (pairs[0::2] << np.uint64(32)) | pairs[1::2]

    def random(self) -> int:
        """One 32-bit word, as PyTorch's ``random()``."""
        return int(self.words(1)[0])

    def random64(self) -> int:
        """One 64-bit draw, as PyTorch's ``random64()``: two words, the first one high."""
        return int(self.words64(1)[0])

    def get_state(self) -> Tensor:
        """The state as PyTorch's 5056 bytes (a uint8 Tensor): ``set_state`` takes it back,
        and so does ``torch.Generator.set_state`` (given ``torch.from_numpy(s.numpy())``)."""
        state = self.bits.state["state"]
        pos = int(state["pos"])
        packed = np.zeros((), STATE_LAYOUT)
        packed["seed"], packed["seeded"], packed["state"] = self.seed_, 1, state["key"]
        packed["left"] = STATE_WORDS + 1 - pos
        packed["next"] = 0 if self.fresh and pos == STATE_WORDS else pos
        if self.next_double_normal is not None:
            packed["normal_y"], packed["normal_valid"] = self.next_double_normal, 1
        if self.next_float_normal is not None:
            packed["float_normal"], packed["float_valid"] = self.next_float_normal, 1
        return constant(np.frombuffer(packed.tobytes(), np.uint8).copy())

    def set_state(self, new_state: Any) -> None:
        """Take back a state of ``get_state`` (topograd's or PyTorch's: a uint8 array, a
        Tensor, bytes), checked as PyTorch checks it."""
        packed = state_record(new_state)
        left, next_ = int(packed["left"]), int(packed["next"])
        if not (packed["seeded"] and 0 < left <= STATE_WORDS and next_ <= STATE_WORDS):
            raise RuntimeValueError("Invalid mt19937 state")
        key = packed["state"].astype(np.uint32)  # (the words were kept as 64-bit ones)
        self.bits.state = {
            "bit_generator": "MT19937",
            "state": {"key": key, "pos": STATE_WORDS + 1 - left},
        }
        self.seed_, self.fresh = int(packed["seed"]), next_ == 0
        self.next_double_normal = float(packed["normal_y"]) if packed["normal_valid"] else None
        self.next_float_normal = float(packed["float_normal"]) if packed["float_valid"] else None


def state_record(new_state: Any) -> Any:
    """A state's bytes as one record of ``STATE_LAYOUT``, or PyTorch's refusal."""
    if isinstance(new_state, (bytes, bytearray)):
        raw = np.frombuffer(bytes(new_state), np.uint8)
    else:
        raw = np.asarray(new_state.array if isinstance(new_state, Tensor) else new_state)
        if raw.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
    if raw.size != STATE_LAYOUT.itemsize:
        raise RuntimeValueError(
            f"Expected a CPUGeneratorImplState of size {STATE_LAYOUT.itemsize} but found "
            f"the input RNG state size to be {raw.size}"
        )
    return np.frombuffer(np.ascontiguousarray(raw).tobytes(), STATE_LAYOUT)[0]
