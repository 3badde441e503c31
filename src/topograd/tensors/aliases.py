"""PyTorch's other spellings of a Tensor's ops, as methods (mixed into ``Tensor``): ``pow``,
``masked_fill``, ``clone``, ``softmax`` and ``log_softmax`` with a ``dim``, ``round`` to
``decimals``, ``dim()``, ``mT``, ``int(t)`` and ``t`` as an index; and ``clamp`` between
Tensors. Each is made of the registry's ops, so its gradient is theirs.

>>> import topograd as tg
>>> x = tg.Tensor([[1.0, -2.0], [3.0, 0.25]], requires_grad=True)
>>> x.masked_fill(x < 0, 0.0).pow(2).sum().item(), x.dim(), x.mT.shape
(10.0625, 2, (2, 2))
>>> [10, 20, 30][tg.Tensor(2.0)], x.round(decimals=1).tolist()
(30, [[1.0, -2.0], [3.0, 0.2]])
"""

from __future__ import annotations

import operator
from typing import Any, Self, cast

import numpy as np

from ..ops.rounding import round_even
from ..ops.selection import select
from ..ops.softmax import log_softmax, softmax


class Aliases:
    """PyTorch's other method spellings (see the module's doc)."""

    __slots__ = ()
    array: np.ndarray[Any, Any]

    @staticmethod
    def _constant(data: Any) -> Any:  # a Tensor that wants no gradient: Tensor's own
        raise NotImplementedError

    def pow(self, exponent: Any) -> Self:
        """x ** exponent."""
        x: Any = self
        return x**exponent  # type: ignore[no-any-return]

    def masked_fill(self, mask: Any, value: Any) -> Self:
        """``value`` where ``mask`` holds, x elsewhere (a choice: there x gets no gradient)."""
        held = np.asarray(getattr(mask, "array", mask))
        if held.dtype != np.bool_:
            raise TypeError(f"masked_fill only supports boolean masks, but got {held.dtype}")
        if getattr(value, "ndim", 0) != 0:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        # (a number as a Tensor of x's dtype: the condition's bools are no dtype for it)
        filler = (
            value if hasattr(value, "array") else self._constant(np.asarray(value, self.array.dtype))
        )
        return select(self._constant(held), filler, self)  # type: ignore[no-any-return]

    def clone(self, *, memory_format: Any = None) -> Self:
        """A copy in the graph (its gradient flows back), as PyTorch's."""
        return self.to(copy=True)  # type: ignore[attr-defined, no-any-return]

    def softmax(self, dim: int) -> Self:
        """e^x / Σ e^x along ``dim``."""
        return softmax(self, axis=operator.index(dim))  # type: ignore[no-any-return]

    def log_softmax(self, dim: int) -> Self:
        """x - log Σ e^x along ``dim``."""
        return log_softmax(self, axis=operator.index(dim))  # type: ignore[no-any-return]

    def round(self, decimals: int = 0) -> Self:
        """The nearest whole number (halves to even), or multiple of 10^-decimals, computed as
        PyTorch's: round(x 10^d) / 10^d (zero gradient either way)."""
        decimals, x = operator.index(decimals), cast(Any, self)
        if decimals == 0:
            return cast(Self, round_even(x))
        scale = 10.0 ** abs(decimals)
        found = round_even(x * scale) / scale if decimals > 0 else round_even(x / scale) * scale
        return cast(Self, found)

    def dim(self) -> int:
        """The number of axes."""
        return self.array.ndim

    def numel(self) -> int:
        """The number of elements (``nelement``, PyTorch's other name)."""
        return int(self.array.size)

    nelement = numel

    @property
    def mT(self) -> Self:  # noqa: N802 - PyTorch's name
        """The last two axes swapped (a batch of matrices, each transposed)."""
        if self.array.ndim < 2:
            raise RuntimeError(
                f"tensor.mT is only supported on matrices or batches of matrices. Got "
                f"{self.array.ndim}-D tensor."
            )
        return self.transpose(-2, -1)  # type: ignore[attr-defined, no-any-return]

    def __int__(self) -> int:
        return int(self.array.reshape(()).item()) if self.array.size == 1 else _one(self)

    def __index__(self) -> int:
        """A Tensor of one whole number as an index (``items[t]``): it holds it as a float."""
        value = float(self.array.reshape(()).item() if self.array.size == 1 else _one(self))
        if not value.is_integer():
            raise TypeError(f"only whole numbers can be an index, got {value}")
        return int(value)

    def clamp_between(self, low: Any, high: Any) -> Self:
        """``clamp`` with Tensors as limits: the limit where x lies beyond it, x elsewhere (so
        the gradient goes to x within the limits, ends included, and to the limit beyond)."""
        out = self if low is None else select(self._constant(self.array < _data(low)), low, self)
        if high is None:
            return out
        beyond = self._constant(np.asarray(_data(out) > _data(high)))
        return select(beyond, high, out)  # type: ignore[no-any-return]


def _data(x: Any) -> Any:
    return getattr(x, "array", x)


def _one(x: Any) -> int:
    raise ValueError("only one element tensors can be converted to Python scalars")
