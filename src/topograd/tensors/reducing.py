"""A Tensor's reductions, in NumPy's spelling (``axis``, ``keepdims``) and PyTorch's (``dim``,
``keepdim``) alike: ``sum``, ``mean``, ``prod``, ``max``, ``min``, ``logsumexp``, ``var``,
``std`` and ``cumsum`` record ops of the registry; ``argmax``, ``argmin``, ``all`` and ``any`` give
Tensors that want no gradient, as PyTorch's.

``max`` and ``min`` along a ``dim`` (``x.max(1)`` or ``x.max(dim=1)``) give PyTorch's pair
``(values, indices)``, the gradient going to the element each index picks; with NumPy's
``axis=`` (or with no axis) the values, a tie sharing the gradient evenly (as ``torch.amax``,
whose gradient at a nan is nan: ``torch.max()`` of a whole Tensor gives it to the nan). A
``dim=()`` is every axis, as PyTorch reads it (NumPy's ``axis=()`` is none).

>>> import topograd as tg
>>> t = tg.Tensor([[1.0, 5.0], [3.0, 2.0]])
>>> t.sum(dim=0, keepdim=True).tolist(), t.sum(axis=1).tolist()
([[4.0, 7.0]], [6.0, 5.0])
>>> t.max(dim=1).indices.tolist(), t.argmin().item()
([1, 0], 0)
"""

from __future__ import annotations

from typing import Any, NamedTuple, Self, cast

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..ops.arithmetic import mul
from ..ops.reductions import amax, amin, cumsum, logsumexp, mean, prod, std, total, var
from ..ops.shapes import getitem, reshape
from .arrays import axis_of


class Selected(NamedTuple):
    """What ``max`` and ``min`` give with ``dim=``, as PyTorch's: the values and their indices
    along that axis."""

    values: Any  # Tensors
    indices: Any


def reduced_axes(axis: Any, keepdims: Any, dim: Any, keepdim: Any, ndim: int) -> tuple[Any, bool]:
    """The axis and keepdims of a reduction given in either spelling (not both)."""
    if dim is not None and axis is not None:
        raise TypeError("give axis (NumPy's name) or dim (PyTorch's), not both")
    if keepdim is not None and keepdims is not None:
        raise TypeError("give keepdims (NumPy's name) or keepdim (PyTorch's), not both")
    found = dim if dim is not None else axis
    if dim is not None and isinstance(dim, (tuple, list)) and not dim:
        found = None  # PyTorch's dim=(): every axis (NumPy's axis=(): none)
    return axis_of(found, ndim), bool(keepdim if keepdim is not None else keepdims)


class Reductions:
    """The reductions of a Tensor (mixed into ``Tensor``)."""

    __slots__ = ()
    data: np.ndarray[Any, Any]

    @staticmethod
    def _constant(data: Any) -> Any:  # a Tensor that wants no gradient: Tensor's own
        raise NotImplementedError

    def _reduce(
        self, op: Any, axis: Any, keepdims: Any, dim: Any, keepdim: Any, **more: Any
    ) -> Self:
        found, keep = reduced_axes(axis, keepdims, dim, keepdim, self.data.ndim)
        return cast(Self, op(self, axis=found, keepdims=keep, **more))

    def sum(
        self, axis: Any = None, keepdims: Any = None, *, dim: Any = None, keepdim: Any = None
    ) -> Self:
        return self._reduce(total, axis, keepdims, dim, keepdim)

    def mean(
        self, axis: Any = None, keepdims: Any = None, *, dim: Any = None, keepdim: Any = None
    ) -> Self:
        return self._reduce(mean, axis, keepdims, dim, keepdim)

    def prod(
        self, axis: Any = None, keepdims: Any = None, *, dim: Any = None, keepdim: Any = None
    ) -> Self:
        """The product of the elements (along one axis), as PyTorch's ``prod``; its gradient at
        a zero is the product of the others."""
        if isinstance(dim if dim is not None else axis, (tuple, list)):
            raise TypeError("prod() takes one axis (an int) or none, as PyTorch's")
        return self._reduce(prod, axis, keepdims, dim, keepdim)

    def logsumexp(
        self, axis: Any = None, keepdims: Any = None, *, dim: Any = None, keepdim: Any = None
    ) -> Self:
        """log Σ e^x along the axis, without overflow (PyTorch's ``logsumexp``)."""
        return self._reduce(logsumexp, axis, keepdims, dim, keepdim)

    def var(
        self,
        axis: Any = None,
        keepdims: Any = None,
        *,
        dim: Any = None,
        keepdim: Any = None,
        correction: int = 1,
        ddof: int | None = None,
    ) -> Self:
        """The variance along the axis, divided by n - ``correction`` (1 by default, as
        PyTorch; NumPy's ``ddof`` is the same number, 0 by default there)."""
        if ddof is not None:
            correction = ddof
        return self._reduce(var, axis, keepdims, dim, keepdim, correction=int(correction))

    def std(
        self,
        axis: Any = None,
        keepdims: Any = None,
        *,
        dim: Any = None,
        keepdim: Any = None,
        correction: int = 1,
        ddof: int | None = None,
    ) -> Self:
        """The standard deviation, √var (its gradient 0 where it is 0, as PyTorch's)."""
        if ddof is not None:
            correction = ddof
        return self._reduce(std, axis, keepdims, dim, keepdim, correction=int(correction))

    def cumsum(self, axis: Any = None, *, dim: Any = None) -> Self:
        """The running sums along the axis (an axis must be named, as in PyTorch)."""
        found, _ = reduced_axes(axis, None, dim, None, max(self.data.ndim, 1))
        if not isinstance(found, int):
            raise TypeError("cumsum() takes one axis (dim=...)")
        if self.data.ndim == 0:
            return mul(self, 1.0)  # type: ignore[no-any-return]  # (a copy, as PyTorch's)
        return cumsum(self, axis=found)  # type: ignore[no-any-return]

    def max(
        self, dim: Any = None, keepdim: Any = None, *, axis: Any = None, keepdims: Any = None
    ) -> Any:
        """The largest elements: PyTorch's ``(values, indices)`` along ``dim`` (given by
        position too, as ``x.max(1)``), the gradient to the element each index picks; with
        NumPy's ``axis=``, or with none, the values, ties sharing the gradient (as
        ``torch.amax``)."""
        if dim is not None and axis is None:
            return self._selected(np.argmax, dim, keepdim)
        return self._reduce(amax, axis, keepdims, dim, keepdim)

    def min(
        self, dim: Any = None, keepdim: Any = None, *, axis: Any = None, keepdims: Any = None
    ) -> Any:
        """The smallest elements, as ``max``."""
        if dim is not None and axis is None:
            return self._selected(np.argmin, dim, keepdim)
        return self._reduce(amin, axis, keepdims, dim, keepdim)

    def _selected(self, pick: Any, dim: Any, keepdim: Any) -> Selected:
        if keepdim is not None and not isinstance(keepdim, bool):
            raise TypeError(f"keepdim must be True or False, got {keepdim!r}")
        if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
            raise TypeError("max() and min() with dim take one axis")
        ndim = self.data.ndim
        if ndim == 0:  # one element: dim 0 or -1, as PyTorch's
            normalize_axis_index(int(dim), 1)
            return Selected(mul(self, 1.0), self._constant(np.zeros((), np.int64)))
        at = normalize_axis_index(int(dim), ndim)
        indices = np.expand_dims(pick(self.data, axis=at), at)
        grid: list[Any] = list(np.indices(indices.shape, sparse=True))
        grid[at] = indices
        values = getitem(self, index=tuple(grid))
        if not keepdim:
            values = reshape(values, shape=values.shape[:at] + values.shape[at + 1 :])
            indices = indices.squeeze(at)
        return Selected(values, self._constant(indices.astype(np.int64)))

    def argmax(
        self, axis: Any = None, keepdims: Any = None, *, dim: Any = None, keepdim: Any = None
    ) -> Self:
        """The index of the largest element (of the flattened Tensor where no axis is given);
        the first one among ties, as PyTorch's."""
        return self._index(np.argmax, axis, keepdims, dim, keepdim)

    def argmin(
        self, axis: Any = None, keepdims: Any = None, *, dim: Any = None, keepdim: Any = None
    ) -> Self:
        """The index of the smallest element, as ``argmax``."""
        return self._index(np.argmin, axis, keepdims, dim, keepdim)

    def _index(self, pick: Any, axis: Any, keepdims: Any, dim: Any, keepdim: Any) -> Self:
        found, keep = reduced_axes(axis, keepdims, dim, keepdim, self.data.ndim)
        if found is not None and not isinstance(found, int):
            raise TypeError("argmax() and argmin() take one axis")
        return self._constant(  # type: ignore[no-any-return]
            np.asarray(pick(self.data, axis=found, keepdims=keep), dtype=np.int64)
        )

    def all(
        self, axis: Any = None, keepdims: Any = None, *, dim: Any = None, keepdim: Any = None
    ) -> Self:
        """Whether every element is non-zero (along the axis): booleans, no gradient."""
        found, keep = reduced_axes(axis, keepdims, dim, keepdim, self.data.ndim)
        return self._constant(np.all(self.data, axis=found, keepdims=keep))  # type: ignore[no-any-return]

    def any(
        self, axis: Any = None, keepdims: Any = None, *, dim: Any = None, keepdim: Any = None
    ) -> Self:
        """Whether some element is non-zero (along the axis): booleans, no gradient."""
        found, keep = reduced_axes(axis, keepdims, dim, keepdim, self.data.ndim)
        return self._constant(np.any(self.data, axis=found, keepdims=keep))  # type: ignore[no-any-return]
