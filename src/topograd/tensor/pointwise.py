"""A Tensor's element-by-element methods with a parameter or a second operand, in PyTorch's
spelling: ``elu(alpha)``, ``maximum``, ``minimum``, and the casts ``astype`` (NumPy's name),
``to``, ``float``, ``double`` and ``half``, each an op of the registry (a cast rounds to the
other precision; its gradient is rounded back to the input's).

>>> import topograd as tg
>>> x = tg.Tensor([-1.0, 2.0], requires_grad=True)
>>> x.maximum(tg.Tensor([0.0, 3.0])).tolist(), x.float().dtype
([0.0, 3.0], dtype('float32'))
"""

from __future__ import annotations

from typing import Any, Self

import numpy as np

from ..ops.activations import elu
from ..ops.rounding import astype
from ..ops.selection import maximum, minimum

FLOATS = (np.float16, np.float32, np.float64)
FLOAT_NAMES = ("float16", "float32", "float64", "half", "single", "double")


def float_dtype(dtype: Any) -> np.dtype[Any]:
    """A float dtype from what names one (tg.float32, np.float32, "float32", float), or a
    TypeError: Tensors hold floats."""
    try:
        found = np.dtype(dtype)
    except TypeError:
        found = None
    if found is None or found.type not in FLOATS:
        raise TypeError(f"a Tensor holds float16, float32 or float64 numbers, not {dtype!r}")
    return found  # type: ignore[no-any-return]


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

    def to(self, *args: Any, dtype: Any = None, **kwargs: Any) -> Self:
        """PyTorch's ``to``: a dtype (positional or ``dtype=``) casts; a device must be the CPU
        ("cpu"), the only one topograd runs on."""
        for arg in (*args, kwargs.pop("device", None)):
            if arg is None or str(arg) == "cpu":
                continue
            if isinstance(arg, str) and arg not in FLOAT_NAMES:
                raise ValueError(f"topograd runs on the CPU only, not on {arg!r}")
            if dtype is not None:
                raise TypeError("to() takes one dtype")
            dtype = arg
        if kwargs:
            raise TypeError(f"to() got unexpected arguments {sorted(kwargs)}")
        return self if dtype is None else self.astype(dtype)

    def half(self) -> Self:
        """float16, as PyTorch's ``half()``."""
        return self.astype(np.float16)

    def double(self) -> Self:
        """float64, as PyTorch's ``double()``."""
        return self.astype(np.float64)

    def float(self) -> Self:
        """float32, as PyTorch's ``float()`` (``float(t)`` of a one-element Tensor is a number)."""
        return self.astype(np.float32)
