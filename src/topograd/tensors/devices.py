"""Devices, as PyTorch names them: topograd runs on the CPU alone. ``tg.device("cpu")`` (and
"cpu:0") is taken wherever PyTorch takes a device (``device=`` of the makers and layers,
``.to(...)``, ``.cpu()``); any other device is refused with a clear error at once, and
``tg.cuda.is_available()`` is False, so that the usual ``"cuda" if tg.cuda.is_available() else
"cpu"`` picks the CPU.

>>> import topograd as tg
>>> tg.device("cpu"), tg.zeros(2).device == tg.device("cpu"), tg.cuda.is_available()
(device(type='cpu'), True, False)
>>> tg.device("cuda")
Traceback (most recent call last):
...
ValueError: topograd runs on the CPU only, not on 'cuda' (no CUDA): give 'cpu' or leave it out
"""

from __future__ import annotations

import re
from typing import Any

from ..autograd.errors import FeatureError

# PyTorch's device types (a device string starts with one): all but the CPU are refused
DEVICE = re.compile(
    r"(cpu|cuda|ipu|xpu|mkldnn|opengl|opencl|ideep|hip|ve|fpga|maia|xla|lazy|vulkan|mps|meta"
    r"|hpu|mtia|privateuseone)(?::(0|[1-9][0-9]*))?"
)

_NAMED = {"cuda": " (no CUDA)", "mps": " (no MPS)"}


def device_index(given: Any) -> int | None:
    """The index of a CPU device ("cpu": None, "cpu:0": 0; a ``device`` as its string), as
    PyTorch reads the string; any other device is refused: topograd runs on the CPU."""
    named = DEVICE.fullmatch(str(given))
    if named is None:
        raise RuntimeError(f"Invalid device string: {str(given)!r} (topograd runs on the CPU)")
    if named[1] != "cpu":
        raise ValueError(
            f"topograd runs on the CPU only, not on {str(given)!r}{_NAMED.get(named[1], '')}: "
            "give 'cpu' or leave it out"
        )
    return None if named[2] is None else int(named[2])


class device:  # noqa: N801 - PyTorch's name: torch.device
    """A device: the CPU (``device("cpu")``, ``device("cpu", 0)``, ``device("cpu:0")``)."""

    __slots__ = ("index", "type")
    type: str
    index: int | None

    def __init__(self, type: Any, index: int | None = None) -> None:  # noqa: A002 - PyTorch's
        named: Any = type
        if isinstance(named, device):
            index = named.index if index is None else index
            named = named.type
        found = device_index(named if index is None else f"{named}:{index}")
        self.type, self.index = "cpu", found

    def __repr__(self) -> str:
        return (
            "device(type='cpu')"
            if self.index is None
            else f"device(type='cpu', index={self.index})"
        )

    def __str__(self) -> str:
        return "cpu" if self.index is None else f"cpu:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return str(self) == other
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


CPU = device("cpu")


def set_default_device(given: Any) -> None:
    """Make ``given`` the device Tensors are made on, as PyTorch's ``set_default_device``: the
    CPU ("cpu", "cpu:0", a ``device`` of it, or None for PyTorch's own default, the CPU); any
    other device is refused, as everywhere.

    >>> set_default_device("cpu"); get_default_device()
    device(type='cpu')
    """
    if given is not None:
        device_index(given)


def get_default_device() -> device:
    """The device Tensors are made on: the CPU, the only one topograd runs on."""
    return CPU


def is_device(x: Any) -> bool:
    """A device rather than a dtype: a ``device``, or a string that names a device."""
    return isinstance(x, device) or (isinstance(x, str) and DEVICE.fullmatch(x) is not None)


class Accelerator:
    """``tg.cuda`` and ``tg.backends.mps``: an accelerator topograd does not drive. It says it
    is not there (``is_available()``, ``is_built()``, ``is_initialized()``: False, and
    ``device_count()``: 0) and seeds nothing; anything else is refused, naming it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def is_available(self) -> bool:
        return False

    is_built = is_initialized = is_available

    def device_count(self) -> int:
        return 0

    def manual_seed(self, seed: int) -> None:
        """Nothing to seed: no device of this kind (PyTorch's is silent too)."""

    manual_seed_all = manual_seed

    def __repr__(self) -> str:
        return f"<topograd.{self.name}: not available, topograd runs on the CPU>"

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # (Python's own probes: copy, inspect, pickle)
            raise AttributeError(attribute)
        kind = "CUDA" if self.name.endswith("cuda") else self.name.rsplit(".", 1)[-1].upper()
        raise FeatureError(
            f"tg.{self.name}.{attribute}: topograd has no {kind} (no GPU): it runs on the CPU only"
        )


class Cudnn:
    """``tg.backends.cudnn``: not available; its switches (``deterministic``, ``benchmark``,
    ``enabled``) may be set, as programs set them, and change nothing on the CPU."""

    deterministic = benchmark = enabled = False

    def is_available(self) -> bool:
        return False


cuda = Accelerator("cuda")


class Backends:
    """``tg.backends``: ``mps`` and ``cuda``, neither available."""

    mps = Accelerator("backends.mps")
    cuda = Accelerator("backends.cuda")
    cudnn = Cudnn()
