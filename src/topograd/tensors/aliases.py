"""PyTorch's other spellings of a Tensor's ops, as methods (mixed into ``Tensor``): ``pow``,
``masked_fill``, ``clone``, ``softmax`` and ``log_softmax`` with a ``dim``, ``round`` to
``decimals``, ``dim()``, ``mT``, ``numel`` (``nelement``), ``element_size``; and ``clamp``
between Tensors. Each is made of the registry's ops, so its gradient is theirs.

>>> import topograd as tg
>>> x = tg.tensor([[1.0, -2.0], [3.0, 0.25]], dtype=tg.float64, requires_grad=True)
>>> x.masked_fill(x < 0, 0.0).pow(2).sum().item(), x.dim(), x.mT.shape
(10.0625, 2, topograd.Size([2, 2]))
>>> [10, 20, 30][tg.tensor(2)], x.round(decimals=1).tolist(), x.nelement()
(30, [[1.0, -2.0], [3.0, 0.2]], 4)
"""

from __future__ import annotations

import operator
from typing import Any, Self, cast

import numpy as np

from ..autograd.errors import RuntimeTypeError
from ..ops import rounding
from ..ops.rounding import round_even
from ..ops.selection import select
from ..ops.shapes import reshape
from ..ops.softmax import log_softmax, softmax
from .arrays import dim_index
from .dtypes import c_name


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
            raise RuntimeTypeError(
                f"masked_fill_ only supports boolean masks, but got mask with dtype "
                f"{c_name(held.dtype)}"
            )
        if getattr(value, "ndim", 0) != 0:
            raise RuntimeError(
                "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.ndim} dimension(s)."
            )
        # (a number as a Tensor of x's dtype: the condition's bools are no dtype for it)
        held_value = hasattr(value, "array")
        filler = value if held_value else self._constant(np.asarray(value, self.array.dtype))
        return select(self._constant(held), filler, self)  # type: ignore[no-any-return]

    def clone(self, *, memory_format: Any = None) -> Self:
        """A copy in the graph (its gradient flows back), as PyTorch's."""
        return self.to(copy=True)  # type: ignore[attr-defined, no-any-return]

    def softmax(self, dim: int) -> Self:
        """e^x / Σ e^x along ``dim``, shifted by the largest so that nothing overflows."""
        return self._along(softmax, dim)

    def log_softmax(self, dim: int) -> Self:
        """x - log Σ e^x along ``dim``."""
        return self._along(log_softmax, dim)

    def _along(self, op: Any, dim: Any) -> Self:
        """``op`` along ``dim``, read as PyTorch reads a dim (out of range: its IndexError):
        a Tensor of no axes has one, of one element; an empty one gives an empty one. The
        functions (``tg.softmax``, ``tg.nn.functional.softmax``) come here too."""
        at = dim_index(dim, self.array.ndim)
        if self.array.ndim == 0:
            return cast(Self, reshape(op(reshape(self, shape=(1,)), axis=0), shape=()))
        return cast(Self, op(self, axis=at))

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

    def element_size(self) -> int:
        """The bytes of one element."""
        return int(self.array.itemsize)

    def clamp_between(self, low: Any, high: Any) -> Self:
        """``clamp`` with Tensor limits (either may be None; a number is a constant limit): the
        registry's clamp_min, clamp_max or clamp_between, PyTorch's clamp.Tensor, whose
        gradient goes to x within the limits (ends included), to a limit beyond it, and to
        none of them at a nan."""
        if high is None:
            return rounding.clamp_min(self, low)  # type: ignore[no-any-return]
        if low is None:
            return rounding.clamp_max(self, high)  # type: ignore[no-any-return]
        return rounding.clamp_between(self, low, high)  # type: ignore[no-any-return]


def _one(x: Any) -> int:
    raise ValueError("only one element tensors can be converted to Python scalars")
