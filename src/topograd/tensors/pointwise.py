"""A Tensor's element-by-element methods with a parameter or a second operand, in PyTorch's
spelling: ``elu(alpha)``, ``maximum``, ``minimum``, and the casts: ``to``, ``type`` and
``astype`` (NumPy's name) to any dtype, and PyTorch's shorthands ``float``, ``double``,
``half``, ``long``, ``int``, ``short``, ``char``, ``byte`` and ``bool``. A cast between floats is
an op of the registry (its gradient is rounded back to the input's precision); a cast to
integers or booleans gives a Tensor that wants no gradient, as PyTorch's.

``to`` takes PyTorch's arguments: ``to(dtype)``, ``to(device, dtype)``, ``to(other)``, each
followed by ``non_blocking`` and ``copy`` (by position or by name). Its device is the CPU, the
only one topograd runs on ("cpu", "cpu:0" or a ``tg.device`` of the CPU). It gives the Tensor
itself where nothing changes, as PyTorch's, and otherwise a copy in the graph (its gradient
flows back): for another dtype, for ``copy=True``, and for a device with an index ("cpu:0"),
which PyTorch counts as another one.

>>> import topograd as tg
>>> x = tg.tensor([-1.5, 2.0], requires_grad=True)
>>> x.maximum(tg.tensor([0.0, 3.0])).tolist(), x.double().dtype, x.long().tolist()
([0.0, 3.0], topograd.float64, [-1, 2])
"""

from __future__ import annotations

from typing import Any, Self

import numpy as np

from ..ops.activations import elu
from ..ops.rounding import astype
from ..ops.selection import maximum, minimum
from . import dtypes
from .devices import device_index, is_device


def _a_device(x: Any) -> bool:
    """A device rather than a dtype: a ``tg.device`` (or PyTorch's), or a string that names no
    dtype (as PyTorch reads any string there: "cpu", "cuda:0", or a mistake it refuses)."""
    if isinstance(x, str):
        return x not in dtypes.NAMES and x not in dtypes.MISSING
    return is_device(x) or type(x).__name__ == "device"


def cast_arguments(args: tuple[Any, ...], dtype: Any, device: Any) -> tuple[Any, Any, bool]:
    """The dtype, the device and the ``copy`` flag that ``to(*args)`` gives (with the ``dtype=``
    and ``device=`` by name), from PyTorch's three forms: ``to(dtype, non_blocking, copy)``,
    ``to(device, dtype, non_blocking, copy)`` and ``to(other, non_blocking, copy)``."""
    rest = list(args)
    if rest and isinstance(rest[0], Pointwise):  # another Tensor: its dtype, on the CPU
        if dtype is not None or device is not None:
            raise TypeError("to(other) takes no dtype= nor device=: other gives them")
        dtype = rest.pop(0).dtype
    elif rest and (rest[0] is None or _a_device(rest[0])):
        if device is not None:
            raise TypeError("to() takes one device (by position or by name)")
        device = rest.pop(0)
        if rest and not isinstance(rest[0], (bool, np.bool_)):
            if dtype is not None:
                raise TypeError("to() takes one dtype (by position or by name)")
            dtype = rest.pop(0)
    elif rest:  # a dtype (a flag first is no dtype, and as_dtype says so)
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
    array: np.ndarray[Any, Any]

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
        """The numbers in another dtype (itself where it is the same): between floats a node,
        rounded (its gradient rounded back); to integers or booleans a Tensor that wants no
        gradient, truncated toward zero as PyTorch's."""
        target = dtypes.as_dtype(dtype)
        if target.dtype == self.array.dtype:
            return self
        if target.is_floating_point and self.array.dtype.kind == "f":
            return astype(self, dtype=target.name)  # type: ignore[no-any-return]
        with np.errstate(invalid="ignore"):  # (nan and inf to an integer: as C's cast)
            cast = self.array.astype(target.dtype)
        return self._constant(cast)  # type: ignore[attr-defined, no-any-return]

    def to(
        self,
        *args: Any,
        dtype: Any = None,
        device: Any = None,
        non_blocking: bool = False,
        copy: bool = False,
    ) -> Self:
        """PyTorch's ``to``: another dtype casts; the device is the CPU, the only one topograd
        runs on; ``copy=True`` gives a copy (in the graph) even where nothing changes;
        ``non_blocking`` changes nothing on the CPU. Itself where nothing changes."""
        dtype, device, copied = cast_arguments(args, dtype, device)
        for flag in (non_blocking, copy):
            if not isinstance(flag, (bool, np.bool_)):
                raise TypeError(f"to(): non_blocking and copy are booleans, not {flag!r}")
        target = dtypes.of_numpy(self.array.dtype) if dtype is None else dtypes.as_dtype(dtype)
        indexed = device is not None and device_index(str(device)) is not None
        if target.dtype == self.array.dtype and not (copy or copied or indexed):
            return self
        if target.dtype == self.array.dtype and target.dtype.kind != "f":  # (no graph: ints)
            return self._constant(self.array.copy())  # type: ignore[attr-defined, no-any-return]
        if target.dtype == self.array.dtype:  # a copy in the graph
            return astype(self, dtype=target.name)  # type: ignore[no-any-return]
        return self.astype(target)

    def type(self, dtype: Any = None) -> Any:
        """The dtype's name with no argument (``"torch.FloatTensor"`` in PyTorch: here the
        dtype's), else the Tensor cast to ``dtype``."""
        if dtype is None:
            return repr(dtypes.of_numpy(self.array.dtype))
        return self.astype(dtype)

    def cpu(self) -> Self:
        """Itself: topograd runs on the CPU."""
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> Self:
        """Refused: topograd runs on the CPU only."""
        device_index("cuda")
        return self

    def half(self) -> Self:
        """float16, as PyTorch's ``half()``."""
        return self.astype(dtypes.float16)

    def double(self) -> Self:
        """float64, as PyTorch's ``double()``."""
        return self.astype(dtypes.float64)

    def short(self) -> Self:
        """int16, as PyTorch's ``short()``."""
        return self.astype(dtypes.int16)

    def char(self) -> Self:
        """int8, as PyTorch's ``char()``."""
        return self.astype(dtypes.int8)

    def byte(self) -> Self:
        """uint8, as PyTorch's ``byte()``."""
        return self.astype(dtypes.uint8)

    def long(self) -> Self:
        """int64, as PyTorch's ``long()``."""
        return self.astype(dtypes.int64)

    # (last: in the class body below these, ``float``, ``int`` and ``bool`` name the methods)

    def float(self) -> Self:
        """float32, as PyTorch's ``float()`` (``float(t)`` of a one-element Tensor is a number)."""
        return self.astype(dtypes.float32)

    def int(self) -> Self:
        """int32, as PyTorch's ``int()`` (``int(t)`` of a one-element Tensor is a number)."""
        return self.astype(dtypes.int32)

    def bool(self) -> Self:
        """Booleans (nonzero is True), as PyTorch's ``bool()``."""
        return self.astype(dtypes.boolean)
