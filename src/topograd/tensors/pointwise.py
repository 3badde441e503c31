"""A Tensor's element-by-element methods with a parameter or a second operand, in PyTorch's
spelling: ``elu(alpha)``, ``maximum``, ``minimum``, and the casts ``astype`` (NumPy's name),
``to``, ``float``, ``double`` and ``half``, each an op of the registry (a cast rounds to the
other precision; its gradient is rounded back to the input's); ``long`` gives indices (int64,
no gradient).

``to`` takes PyTorch's arguments: ``to(dtype)``, ``to(device, dtype)``, ``to(other)``, each
followed by ``non_blocking`` and ``copy`` (by position or by name). Its device is the CPU, the
only one topograd runs on ("cpu", "cpu:0" or a ``torch.device`` of the CPU); its dtype a float
one (a Tensor holds floats). It gives the Tensor itself where nothing changes, as PyTorch's,
and otherwise a copy in the graph (its gradient flows back): for another dtype, for
``copy=True``, and for a device with an index ("cpu:0"), which PyTorch counts as another one.

>>> import topograd as tg
>>> x = tg.Tensor([-1.0, 2.0], requires_grad=True)
>>> x.maximum(tg.Tensor([0.0, 3.0])).tolist(), x.float().dtype
([0.0, 3.0], dtype('float32'))
"""

from __future__ import annotations

import re
from typing import Any, Self

import numpy as np

from ..ops.activations import elu
from ..ops.rounding import astype
from ..ops.selection import maximum, minimum

FLOATS = (np.float16, np.float32, np.float64)
# PyTorch's device types (a device string starts with one): all but the CPU are refused
DEVICE = re.compile(
    r"(cpu|cuda|ipu|xpu|mkldnn|opengl|opencl|ideep|hip|ve|fpga|maia|xla|lazy|vulkan|mps|meta"
    r"|hpu|mtia|privateuseone)(?::(0|[1-9][0-9]*))?"
)


def float_dtype(dtype: Any) -> np.dtype[Any]:
    """A float dtype from what names one (tg.float32, np.float32, "float32", float), or a
    TypeError: Tensors hold floats."""
    try:
        found = np.dtype(dtype)
    except TypeError:
        found = None
    if found is None or found.type not in FLOATS:
        named = repr(dtype) if found is None else f"{found.name} (given as {dtype!r})"
        raise TypeError(
            "topograd's Tensors hold floats: float16, float32 or float64 numbers, not "
            f"{named}; for indices, .long() gives int64 (which wants no gradient)"
        )
    return found  # type: ignore[no-any-return]


def device_index(device: Any) -> int | None:
    """The index of a CPU device ("cpu": None, "cpu:0": 0; a ``torch.device`` as its string),
    as PyTorch reads the string; any other device is refused: topograd runs on the CPU."""
    named = DEVICE.fullmatch(str(device))
    if named is None:
        raise RuntimeError(f"Invalid device string: {str(device)!r} (topograd runs on the CPU)")
    if named[1] != "cpu":
        raise ValueError(
            f"topograd runs on the CPU only, not on {str(device)!r}: give 'cpu' or leave it out"
        )
    return None if named[2] is None else int(named[2])


def is_device(x: Any) -> bool:
    """A device rather than a dtype: a string that names no dtype, or a ``torch.device``."""
    if type(x).__name__ == "device":
        return True
    if not isinstance(x, str) or DEVICE.fullmatch(x):
        return isinstance(x, str)
    try:
        np.dtype(x)
    except TypeError:
        return True
    return False


def cast_arguments(args: tuple[Any, ...], dtype: Any, device: Any) -> tuple[Any, Any, bool]:
    """The dtype, the device and the ``copy`` flag that ``to(*args)`` gives (with the ``dtype=``
    and ``device=`` by name), from PyTorch's three forms: ``to(dtype, non_blocking, copy)``,
    ``to(device, dtype, non_blocking, copy)`` and ``to(other, non_blocking, copy)``."""
    rest = list(args)
    if rest and isinstance(rest[0], Pointwise):  # another Tensor: its dtype, on the CPU
        if dtype is not None or device is not None:
            raise TypeError("to(other) takes no dtype= nor device=: other gives them")
        dtype = rest.pop(0).dtype
    elif rest and (rest[0] is None or is_device(rest[0])):
        if device is not None:
            raise TypeError("to() takes one device (by position or by name)")
        device = rest.pop(0)
        if rest and not isinstance(rest[0], (bool, np.bool_)):
            if dtype is not None:
                raise TypeError("to() takes one dtype (by position or by name)")
            dtype = rest.pop(0)
    elif rest:  # a dtype (a flag first is no dtype, and float_dtype says so)
        if dtype is not None:
            raise TypeError("to() takes one dtype (by position or by name)")
        dtype = rest.pop(0)
    if len(rest) > 2 or any(not isinstance(flag, (bool, np.bool_)) for flag in rest):
        raise TypeError(
            f"to(): after the dtype or the device come non_blocking and copy (booleans), "
            f"not {rest!r}"
        )
    return dtype, device, bool(rest[1]) if len(rest) == 2 else False


class Pointwise:
    """elu, maximum, minimum and the casts, as methods of a Tensor."""

    __slots__ = ()

    def elu(self, alpha: float = 1.0) -> Self:
        """x where x > 0, else alpha (e^x - 1) (PyTorch's F.elu)."""
        return elu(self, alpha=float(alpha))  # type: ignore[no-any-return]

    def maximum(self, other: Any) -> Self:
        """The larger of the two, element by element (nan if either is), as torch.maximum."""
        return maximum(self, other)  # type: ignore[no-any-return]

    def minimum(self, other: Any) -> Self:
        """The smaller of the two, element by element (nan if either is), as torch.minimum."""
        return minimum(self, other)  # type: ignore[no-any-return]

    def astype(self, dtype: Any) -> Self:
        """The numbers in another float precision (a new node; itself where it is the same)."""
        target = float_dtype(dtype)
        if target == self.dtype:  # type: ignore[attr-defined]
            return self
        return astype(self, dtype=target.name)  # type: ignore[no-any-return]

    def to(
        self,
        *args: Any,
        dtype: Any = None,
        device: Any = None,
        non_blocking: bool = False,
        copy: bool = False,
    ) -> Self:
        """PyTorch's ``to``: another float dtype casts; the device is the CPU, the only one
        topograd runs on; ``copy=True`` gives a copy (in the graph) even where nothing changes;
        ``non_blocking`` changes nothing on the CPU. Itself where nothing changes."""
        dtype, device, copied = cast_arguments(args, dtype, device)
        for flag in (non_blocking, copy):
            if not isinstance(flag, (bool, np.bool_)):
                raise TypeError(f"to(): non_blocking and copy are booleans, not {flag!r}")
        target = self.dtype if dtype is None else float_dtype(dtype)  # type: ignore[attr-defined]
        indexed = device is not None and device_index(device) is not None
        if target == self.dtype and not (copy or copied or indexed):  # type: ignore[attr-defined]
            return self
        return astype(self, dtype=target.name)  # type: ignore[no-any-return]

    def long(self) -> Self:
        """The numbers as int64, each cut toward zero, as PyTorch's ``long()``: indices, for
        the index-taking functions, which refuse floats; a Tensor that wants no gradient (as
        PyTorch's, whose integer tensors cannot), itself where it holds int64 already."""
        if self.data.dtype == np.int64:  # type: ignore[attr-defined]
            return self
        with np.errstate(invalid="ignore"):  # nan and inf: INT64_MIN, as PyTorch's
            whole = self.data.astype(np.int64)  # type: ignore[attr-defined]
        return self._constant(whole)  # type: ignore[attr-defined, no-any-return]

    def half(self) -> Self:
        """float16, as PyTorch's ``half()``."""
        return self.astype(np.float16)

    def double(self) -> Self:
        """float64, as PyTorch's ``double()``."""
        return self.astype(np.float64)

    def float(self) -> Self:
        """float32, as PyTorch's ``float()`` (``float(t)`` of a one-element Tensor is a number)."""
        return self.astype(np.float32)
