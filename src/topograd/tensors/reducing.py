"""A Tensor's reductions, in NumPy's spelling (``axis``, ``keepdims``) and PyTorch's (``dim``,
``keepdim``) alike: ``sum``, ``mean``, ``prod``, ``max``, ``min``, ``logsumexp``, ``var``,
``std`` and ``cumsum`` record ops of the registry; ``argmax``, ``argmin``, ``all`` and ``any`` give
Tensors that want no gradient, as PyTorch's.

``max`` and ``min`` along a ``dim`` (``x.max(1)`` or ``x.max(dim=1)``) give PyTorch's pair
``(values, indices)``, the gradient going to the element each index picks; with NumPy's
``axis=`` (or with no axis) the values, a tie sharing the gradient evenly (as ``torch.amax``;
of a whole Tensor holding a nan, as ``torch.max()``, the gradient goes to the nans, where
``torch.amax`` gives nan to every element). A ``dim=()`` is every axis, as PyTorch reads it
(NumPy's ``axis=()`` is none), except for ``all`` and ``any``, which then reduce none.

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

from ..autograd.errors import RuntimeValueError
from ..ops.arithmetic import mul
from ..ops.reductions import amax, amin, cumsum, logsumexp, mean, prod, std, total, var
from ..ops.selection import maximum, minimum
from ..ops.shapes import getitem, reshape
from .arrays import axis_of, dim_index


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


def refuse_empty(name: str, shape: tuple[int, ...], found: Any, as_given: bool = True) -> None:
    """PyTorch's refusal of a max, min or argmax over nothing: of an empty Tensor where no dim
    is named (``found`` None), or along a dim of size 0, named as given (amax's way) or counted
    from 0 (``as_given`` False: max's and argmax's way along one dim)."""
    if 0 not in shape:
        return
    if found is None:
        message = f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
        if name.startswith("arg"):
            raise IndexError(message)
        raise RuntimeValueError(f"{message} Specify the reduction dim with the 'dim' argument.")
    for given in found if isinstance(found, tuple) else (found,):
        at = normalize_axis_index(int(given), len(shape))
        if shape[at] == 0:
            shown = given if as_given else at
            raise IndexError(f"{name}(): Expected reduction dim {shown} to have non-zero size.")


def _correction(
    dim: Any, unbiased: bool | None, correction: float | None, ddof: float | None
) -> tuple[Any, float]:
    """var's and std's dim and correction from PyTorch's spellings (a bool first is
    ``unbiased``: ``x.var(False)``) and NumPy's ``ddof``; more than one correction refused."""
    if isinstance(dim, (bool, np.bool_)):
        if unbiased is not None:
            raise TypeError("var() and std() take unbiased once")
        dim, unbiased = None, bool(dim)
    given = [c for c in (unbiased, correction, ddof) if c is not None]
    if len(given) > 1:
        raise TypeError("give one of unbiased, correction (PyTorch's) and ddof (NumPy's)")
    if unbiased is not None:
        return dim, 1.0 if unbiased else 0.0
    found = given[0] if given else 1
    if isinstance(found, bool) or not isinstance(found, (int, float, np.integer, np.floating)):
        raise TypeError(f"correction must be a number, got {found!r}")
    return dim, found


class Reductions:
    """The reductions of a Tensor (mixed into ``Tensor``)."""

    __slots__ = ()
    array: np.ndarray[Any, Any]

    @staticmethod
    def _constant(data: Any) -> Any:  # a Tensor that wants no gradient: Tensor's own
        raise NotImplementedError

    def _reduce(
        self, op: Any, axis: Any, keepdims: Any, dim: Any, keepdim: Any, **more: Any
    ) -> Self:
        found, keep = reduced_axes(axis, keepdims, dim, keepdim, self.array.ndim)
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
        dim: Any = None,
        unbiased: bool | None = None,
        keepdim: Any = None,
        *,
        correction: float | None = None,
        axis: Any = None,
        keepdims: Any = None,
        ddof: float | None = None,
    ) -> Self:
        """The variance along the axis, divided by n - ``correction`` (1 by default), as
        PyTorch's ``var(dim, unbiased, keepdim)`` and ``var(dim, correction=)``: ``unbiased``
        False is a correction of 0, and ``x.var(False)`` the whole Tensor's; NumPy's ``ddof``
        is the correction too."""
        dim, found = _correction(dim, unbiased, correction, ddof)
        return self._reduce(var, axis, keepdims, dim, keepdim, correction=found)

    def std(
        self,
        dim: Any = None,
        unbiased: bool | None = None,
        keepdim: Any = None,
        *,
        correction: float | None = None,
        axis: Any = None,
        keepdims: Any = None,
        ddof: float | None = None,
    ) -> Self:
        """The standard deviation, √var, in ``var``'s spellings (its gradient 0 where it is
        0, as PyTorch's)."""
        dim, found = _correction(dim, unbiased, correction, ddof)
        return self._reduce(std, axis, keepdims, dim, keepdim, correction=found)

    def cumsum(self, axis: Any = None, *, dim: Any = None) -> Self:
        """The running sums along the axis (an axis must be named, as in PyTorch)."""
        found, _ = reduced_axes(axis, None, dim, None, max(self.array.ndim, 1))
        if not isinstance(found, int):
            raise TypeError("cumsum() takes one axis (dim=...)")
        normalize_axis_index(found, max(self.array.ndim, 1))  # a number has one: 0 or -1
        if self.array.ndim == 0:
            return mul(self, 1.0)  # type: ignore[no-any-return]  # (a copy, as PyTorch's)
        return cumsum(self, axis=found)  # type: ignore[no-any-return]

    def max(
        self, dim: Any = None, keepdim: Any = None, *, axis: Any = None, keepdims: Any = None
    ) -> Any:
        """The largest elements: PyTorch's ``(values, indices)`` along ``dim`` (given by
        position too, as ``x.max(1)``), the gradient to the element each index picks; with
        NumPy's ``axis=``, or with none, the values, ties sharing the gradient (as
        ``torch.amax``)."""
        if hasattr(dim, "data"):  # torch.max(x, other): the larger, element by element
            return maximum(self, dim)
        if dim is not None and axis is None:
            return self._selected(np.argmax, dim, keepdim, "max")
        found = self._extreme(amax, "max", axis, keepdims, dim, keepdim)
        return self._nan_picked() if self._whole_and_nan(found, axis, keepdims, keepdim) else found

    def min(
        self, dim: Any = None, keepdim: Any = None, *, axis: Any = None, keepdims: Any = None
    ) -> Any:
        """The smallest elements, as ``max``."""
        if hasattr(dim, "data"):  # torch.min(x, other)
            return minimum(self, dim)
        if dim is not None and axis is None:
            return self._selected(np.argmin, dim, keepdim, "min")
        found = self._extreme(amin, "min", axis, keepdims, dim, keepdim)
        return self._nan_picked() if self._whole_and_nan(found, axis, keepdims, keepdim) else found

    def amax(
        self, dim: Any = (), keepdim: Any = None, *, axis: Any = None, keepdims: Any = None
    ) -> Self:
        """The largest elements along ``dim`` (every axis by default), ties sharing the
        gradient evenly, as ``torch.amax`` (a nan: nan to every element)."""
        return self._extreme(amax, "amax", axis, keepdims, None if dim == () else dim, keepdim)

    def amin(
        self, dim: Any = (), keepdim: Any = None, *, axis: Any = None, keepdims: Any = None
    ) -> Self:
        """The smallest elements, as ``amax``."""
        return self._extreme(amin, "amin", axis, keepdims, None if dim == () else dim, keepdim)

    def _extreme(
        self, op: Any, name: str, axis: Any, keepdims: Any, dim: Any, keepdim: Any
    ) -> Self:
        """amax or amin, refused over nothing as PyTorch refuses it (not NumPy's words)."""
        found, keep = reduced_axes(axis, keepdims, dim, keepdim, self.array.ndim)
        refuse_empty(name, self.array.shape, found)
        return cast(Self, op(self, axis=found, keepdims=keep))

    @staticmethod
    def _whole_and_nan(found: Any, axis: Any, keepdims: Any, keepdim: Any) -> bool:
        """``x.max()`` of a whole Tensor that came out nan (it held one): PyTorch's ``max()``
        then, not ``amax``."""
        plain = axis is None and keepdims is None and keepdim is None
        return plain and bool(np.isnan(found.array))

    def _nan_picked(self) -> Any:
        """nan, its gradient shared by the nans evenly, as ``torch.max()`` of a whole Tensor
        gives it (``torch.amax`` gives nan to every element): the mean of the nans."""
        return mean(getitem(self, index=np.isnan(self.array)), axis=None, keepdims=False)

    def _selected(self, pick: Any, dim: Any, keepdim: Any, name: str) -> Selected:
        if keepdim is not None and not isinstance(keepdim, bool):
            raise TypeError(f"keepdim must be True or False, got {keepdim!r}")
        if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
            raise TypeError("max() and min() with dim take one axis")
        ndim = self.array.ndim
        if ndim == 0:  # one element: dim 0 or -1, as PyTorch's
            dim_index(dim, 0)
            return Selected(mul(self, 1.0), self._constant(np.zeros((), np.int64)))
        at = dim_index(dim, ndim)
        refuse_empty(name, self.array.shape, at)
        indices = np.expand_dims(pick(self.array, axis=at), at)
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
        return self._index(np.argmax, "argmax", axis, keepdims, dim, keepdim)

    def argmin(
        self, axis: Any = None, keepdims: Any = None, *, dim: Any = None, keepdim: Any = None
    ) -> Self:
        """The index of the smallest element, as ``argmax``."""
        return self._index(np.argmin, "argmin", axis, keepdims, dim, keepdim)

    def _index(
        self, pick: Any, name: str, axis: Any, keepdims: Any, dim: Any, keepdim: Any
    ) -> Self:
        found, keep = reduced_axes(axis, keepdims, dim, keepdim, self.array.ndim)
        if found is not None and not isinstance(found, int):
            raise TypeError("argmax() and argmin() take one axis")
        refuse_empty(name, self.array.shape, found, as_given=False)
        return self._constant(  # type: ignore[no-any-return]
            np.asarray(pick(self.array, axis=found, keepdims=keep), dtype=np.int64)
        )

    def all(
        self, axis: Any = None, keepdims: Any = None, *, dim: Any = None, keepdim: Any = None
    ) -> Self:
        """Whether every element is non-zero (along the axis): booleans, no gradient; with
        ``dim=()`` each element's own, as PyTorch's (which reduces no axis here)."""
        if isinstance(dim, (tuple, list)) and not dim:
            return self._constant(self.array != 0)  # type: ignore[no-any-return]
        found, keep = reduced_axes(axis, keepdims, dim, keepdim, self.array.ndim)
        return self._constant(np.all(self.array, axis=found, keepdims=keep))  # type: ignore[no-any-return]

    def any(
        self, axis: Any = None, keepdims: Any = None, *, dim: Any = None, keepdim: Any = None
    ) -> Self:
        """Whether some element is non-zero (along the axis): booleans, no gradient (``dim=()``
        as ``all``'s)."""
        if isinstance(dim, (tuple, list)) and not dim:
            return self._constant(self.array != 0)  # type: ignore[no-any-return]
        found, keep = reduced_axes(axis, keepdims, dim, keepdim, self.array.ndim)
        return self._constant(np.any(self.array, axis=found, keepdims=keep))  # type: ignore[no-any-return]
