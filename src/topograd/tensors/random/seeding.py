"""The default generator, which every draw without ``generator=`` uses, and PyTorch's functions
on it: ``manual_seed``, ``seed``, ``initial_seed``, ``get_rng_state``, ``set_rng_state`` and
``fork_rng``. As PyTorch's, it starts from a seed drawn from the operating system's entropy.

>>> g = manual_seed(7)
>>> g is default_generator, initial_seed()
(True, 7)
>>> state = get_rng_state()
>>> first = default_generator.random()
>>> set_rng_state(state)
>>> default_generator.random() == first
True
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..tensor import Tensor
from .generator import Generator

default_generator = Generator()
default_generator.seed()


def chosen(generator: Generator | None) -> Generator:
    """``generator``, or the default one where it is None; anything else is refused."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a topograd.Generator, not {type(generator).__name__}")
    return generator


def manual_seed(seed: Any) -> Generator:
    """Restart the default generator from ``seed`` (as ``torch.manual_seed``, which reads it
    with ``int``: 7.9 is 7, "3" is 3); returns it."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Restart the default generator from the operating system's entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last started from."""
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state (PyTorch's 5056 bytes, a uint8 Tensor)."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """Take back a state of ``get_rng_state`` (or of ``torch.get_rng_state``)."""
    default_generator.set_state(new_state)


@contextmanager
def fork_rng(devices: Any = None, enabled: bool = True, device_type: str = "cpu") -> Iterator[None]:
    """Run a block and then put the default generator back as it was, as
    ``torch.random.fork_rng`` does for the CPU (there are no other devices here).

    >>> _ = manual_seed(0)
    >>> with fork_rng():
    ...     _ = default_generator.words(10)
    >>> default_generator.random() == Generator().manual_seed(0).random()
    True
    """
    if not enabled:
        yield
        return
    saved = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(saved)
