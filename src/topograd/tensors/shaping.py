"""A Tensor's shape methods in PyTorch's spelling: ``reshape``, ``transpose``, ``permute``,
``view``, ``flatten``, ``squeeze``, ``unsqueeze``, ``expand``, ``repeat``, ``flip``, ``roll``,
``split``, ``chunk``, ``tril``, ``triu``, ``diagonal`` and ``gather``. Each is made of the
registry's ops (``reshape``, ``transpose``, ``broadcast_to``, ``getitem``, ``where``), so its
gradient is theirs: moved back, summed over repeats, nothing for what a mask drops.

A dim is read as PyTorch reads it: an int (a NumPy integer too, not a bool nor a float: a
TypeError), negative from the end, outside the Tensor's axes an IndexError; a Tensor of no axes
takes 0 and -1, as if it had one (``x.transpose(0, 0)`` on a number is the number).

>>> import topograd as tg
>>> t = tg.arange(6.0).view(2, 3)
>>> t.flip(1).tolist(), t.unsqueeze(0).shape, t.repeat(1, 2).shape
([[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]], topograd.Size([1, 2, 3]), topograd.Size([2, 6]))
>>> [p.tolist() for p in t.split(2, dim=1)]
[[[0.0, 1.0], [3.0, 4.0]], [[2.0], [5.0]]]
"""

from __future__ import annotations

import math
from typing import Any, Self, cast

import numpy as np

from ..autograd.errors import RuntimeTypeError, RuntimeValueError
from ..ops.selection import select
from ..ops.shapes import broadcast_to, getitem, reshape, transpose
from .arrays import dim_index, whole
from .dtypes import index_numbers
from .layout import NOT_A_VIEW, inferred, viewable
from .sizes import Size


def given(args: tuple[Any, ...], named: dict[str, Any], name: str) -> tuple[Any, ...]:
    """A method's sizes or dims, given by position (``permute(1, 0)``) or by PyTorch's
    keyword (``permute(dims=(1, 0))``), not both."""
    extra = set(named) - {name}
    if extra:
        raise TypeError(f"got an unexpected keyword argument {sorted(extra)[0]!r}")
    if name not in named:
        return args
    if args:
        raise TypeError(f"{name} given by position and by name")
    return (named[name],)


def as_sizes(given: tuple[Any, ...], what: str = "a size") -> tuple[int, ...]:
    """Sizes given as PyTorch takes them: ``f(2, 3)`` or ``f((2, 3))``, each an int."""
    found = given[0] if len(given) == 1 and isinstance(given[0], (tuple, list)) else given
    return tuple(whole(n, what) for n in found)


class Shapes:
    """The shape methods of a Tensor (mixed into ``Tensor``)."""

    __slots__ = ()
    array: np.ndarray[Any, Any]

    def _axis(self, dim: Any, extra: int = 0) -> int:
        return dim_index(dim, self.array.ndim + extra)

    def numel(self) -> int:
        """The number of elements, as PyTorch's."""
        return int(self.array.size)

    def size(self, dim: Any = None) -> Any:
        """The shape (PyTorch's name), or the length along ``dim``."""
        shape = Size(self.array.shape)
        if dim is None:
            return shape
        if not shape:  # PyTorch's size(0) of a number is refused
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return shape[self._axis(dim)]

    def reshape(self, *shape: Any, **named: Any) -> Self:
        """The same elements in another shape (-1: what is left): ``reshape(2, 3)``,
        ``reshape((2, 3))`` or ``reshape(shape=(2, 3))``."""
        sizes = inferred(as_sizes(given(shape, named, "shape")), self.array.size)
        return cast(Self, reshape(self, shape=sizes))

    def transpose(self, *axes: Any, dim0: Any = None, dim1: Any = None) -> Self:
        """PyTorch's: the two dims given (``x.transpose(0, 1)``, or by name ``dim0=``, ``dim1=``)
        exchanged, as ``swapaxes``; NumPy's: the axes in the order given as one tuple
        (reversed where none is given)."""
        if dim0 is not None or dim1 is not None:
            if dim1 is None or len(axes) + (dim0 is not None) != 1:
                raise TypeError("transpose() takes two dims, dim0 and dim1, each once")
            return self.swapaxes(axes[0] if axes else dim0, dim1)
        if len(axes) == 2 and not any(isinstance(a, (tuple, list)) for a in axes):
            return self.swapaxes(*axes)
        given = tuple(axes[0]) if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        order = tuple(self._axis(a) for a in given)
        if sorted(order) != list(range(self.array.ndim)):
            if given:
                raise RuntimeValueError(
                    f"axes {given} are not a permutation of {self.array.ndim} axes"
                )
            order = tuple(reversed(range(self.array.ndim)))
        return cast(Self, transpose(self, axes=order))

    def swapaxes(self, axis0: Any, axis1: Any) -> Self:
        """The two axes exchanged (a Tensor of no axes as it is, a new node, as PyTorch's)."""
        a, b = self._axis(axis0), self._axis(axis1)
        order = list(range(self.array.ndim))
        if order:
            order[a], order[b] = order[b], order[a]
        return cast(Self, transpose(self, axes=tuple(order)))

    @property
    def T(self) -> Self:  # noqa: N802 - PyTorch's and NumPy's name
        """The axes in reverse order."""
        return self.transpose()

    def permute(self, *dims: Any, **named: Any) -> Any:
        """The axes in the order ``dims`` gives (PyTorch's name for transpose(axes))."""
        dims = given(dims, named, "dims")
        order = tuple(self._axis(d) for d in as_sizes(dims, "permute(): a dim"))
        if sorted(order) != list(range(self.array.ndim)):
            raise RuntimeValueError(
                f"permute(): {as_sizes(dims)} is not an order of {self.array.ndim} axes"
            )
        return transpose(self, axes=order)

    def t(self) -> Any:
        """A matrix transposed (a vector or a number as it is), as PyTorch's ``t()``."""
        if self.array.ndim > 2:
            raise RuntimeValueError(f"t() takes a Tensor of at most 2 axes, not {self.array.ndim}")
        return transpose(self, axes=tuple(reversed(range(self.array.ndim))))

    def view(self, *shape: Any) -> Any:
        """The same elements in another shape (-1: what is left), where the layout allows it
        without a copy, as PyTorch's (``layout.viewable``, from the array's strides: ``x.t()``
        has no view as one axis); elsewhere PyTorch's refusal, which says to use reshape."""
        sizes = inferred(as_sizes(shape), self.array.size)
        if not viewable(self.array, sizes):
            raise RuntimeValueError(NOT_A_VIEW)
        return reshape(self, shape=sizes)

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Any:
        """The axes from ``start_dim`` to ``end_dim`` (both included) as one."""
        shape = self.array.shape
        a, b = self._axis(start_dim), self._axis(end_dim)
        if not shape:
            return reshape(self, shape=(1,))
        if a > b:
            raise RuntimeValueError(
                "flatten() has invalid args: start_dim cannot come after end_dim"
            )
        return reshape(self, shape=(*shape[:a], math.prod(shape[a : b + 1]), *shape[b + 1 :]))

    def squeeze(self, dim: Any = None) -> Any:
        """Without the axes of length 1 (only those ``dim`` names, where it is given)."""
        shape = self.array.shape
        named = (
            range(len(shape)) if dim is None else dim if isinstance(dim, (tuple, list)) else [dim]
        )
        dropped = {self._axis(d) for d in named}
        if not shape:
            return reshape(self, shape=())
        kept = tuple(n for k, n in enumerate(shape) if not (k in dropped and n == 1))
        return reshape(self, shape=kept)

    def unsqueeze(self, dim: int) -> Any:
        """With a new axis of length 1 at ``dim``."""
        at = self._axis(dim, extra=1)
        shape = self.array.shape
        return reshape(self, shape=(*shape[:at], 1, *shape[at:]))

    def expand(self, *sizes: Any, **named: Any) -> Any:
        """Repeated along axes of length 1 (and new leading ones) to ``sizes`` (``size=``); -1
        keeps an axis as it is. Its gradient sums the repeats."""
        wanted = as_sizes(given(sizes, named, "size"))
        shape = self.array.shape
        lead = len(wanted) - len(shape)
        if lead < 0:
            raise RuntimeValueError(
                f"expand(): {len(wanted)} sizes for a Tensor of {len(shape)} axes"
            )
        target = tuple(
            shape[k - lead] if n == -1 and k >= lead else n for k, n in enumerate(wanted)
        )
        return broadcast_to(self, shape=target)

    def repeat(self, *repeats: Any) -> Any:
        """Tiled ``repeats`` times along each axis (new leading axes where more are given)."""
        times = as_sizes(repeats)
        if len(times) < self.array.ndim:
            raise RuntimeValueError(
                "repeat(): give at least as many repeats as the Tensor has axes"
            )
        shape = (1,) * (len(times) - self.array.ndim) + self.array.shape
        spread = [n for pair in zip([1] * len(shape), shape, strict=True) for n in pair]
        tiled = [n for pair in zip(times, shape, strict=True) for n in pair]
        out = broadcast_to(reshape(self, shape=tuple(spread)), shape=tuple(tiled))
        return reshape(out, shape=tuple(r * n for r, n in zip(times, shape, strict=True)))

    def flip(self, *dims: Any, **named: Any) -> Any:
        """The elements in reverse order along each axis of ``dims``."""
        dims = given(dims, named, "dims")
        axes = [self._axis(d) for d in as_sizes(dims, "flip(): a dim")]
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"flip(): a dim appears more than once in {as_sizes(dims)}")
        index = [slice(None)] * self.array.ndim
        for at in axes if self.array.ndim else []:  # a number flipped is itself
            index[at] = slice(None, None, -1)
        return getitem(self, index=tuple(index))

    def roll(self, shifts: Any, dims: Any = None) -> Any:
        """The elements moved ``shifts`` places along ``dims`` (of the flattened Tensor where no
        ``dims`` is given), those pushed off the end coming back at the start."""
        if dims is None:
            if isinstance(shifts, (tuple, list)):
                if len(shifts) != 1:
                    raise RuntimeValueError("roll(): one shift per dim, and one without dims")
                (shifts,) = shifts
            flat = reshape(self, shape=(self.array.size,))
            rolled = getitem(flat, index=(np.roll(np.arange(self.array.size), int(shifts)),))
            return reshape(rolled, shape=self.array.shape)
        moves = as_sizes((shifts,)) if not isinstance(shifts, int) else (shifts,)
        axes = as_sizes((dims,)) if not isinstance(dims, int) else (dims,)
        if len(moves) != len(axes):
            raise RuntimeValueError("roll(): one shift per dim")
        out: Any = self
        for move, d in zip(moves, axes, strict=True):
            at = self._axis(d)
            index: list[Any] = [slice(None)] * self.array.ndim
            index[at] = np.roll(np.arange(self.array.shape[at]), int(move))
            out = getitem(out, index=tuple(index))
        return out

    def split(
        self, split_size_or_sections: Any = None, dim: int = 0, *, split_size: Any = None
    ) -> tuple[Any, ...]:
        """Pieces along ``dim``: of ``split_size`` each (the last smaller), or of the sizes
        given; a split_size of 0 only where the axis is empty, as PyTorch's."""
        sections = split_size if split_size_or_sections is None else split_size_or_sections
        at = self._axis(dim)
        length = self.array.shape[at]
        if isinstance(sections, int):
            step = sections
            if step < 0 or (step == 0 and length):
                raise RuntimeValueError(
                    f"split_size can only be 0 if dimension size is 0, but got dimension size "
                    f"of {length}"
                    if step == 0
                    else "split expects split_size be non-negative"
                )
            sizes = [min(step, length - s) for s in range(0, length, step)] if step else []
            sizes = sizes or [0]
        else:
            sizes = [int(n) for n in sections]
            if sum(sizes) != length:
                raise RuntimeValueError(f"split(): sizes {sizes} do not add up to {length}")
        pieces, start = [], 0
        for size in sizes:
            index: list[Any] = [slice(None)] * self.array.ndim
            index[at] = slice(start, start + size)
            pieces.append(getitem(self, index=tuple(index)))
            start += size
        return tuple(pieces)

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Any, ...]:
        """``chunks`` pieces along ``dim`` (fewer where it is short), as PyTorch's."""
        if chunks <= 0:
            raise RuntimeValueError("chunk(): chunks must be positive")
        length = self.array.shape[self._axis(dim)]
        if not length:  # an empty axis: that many empty pieces, as PyTorch's
            return self.split([0] * chunks, dim)
        return self.split(max(1, -(-length // chunks)), dim)

    def tril(self, diagonal: int = 0) -> Any:
        """The elements on and below the ``diagonal`` of the last two axes; zeros above."""
        return self._triangle(np.tril, diagonal)

    def triu(self, diagonal: int = 0) -> Any:
        """The elements on and above the ``diagonal`` of the last two axes; zeros below."""
        return self._triangle(np.triu, diagonal)

    def _triangle(self, keep: Any, diagonal: int) -> Any:
        if self.array.ndim < 2:
            raise RuntimeValueError("tril() and triu() take a Tensor of two axes or more")
        mask = keep(np.ones(self.array.shape[-2:], dtype=bool), int(diagonal))
        return select(mask, self, 0.0)

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
        """The diagonal of the axes ``dim1`` and ``dim2`` (``offset`` above it), as the last
        axis, the other axes in front."""
        a, b = self._axis(dim1), self._axis(dim2)
        if a == b:
            raise RuntimeValueError("diagonal(): dim1 and dim2 must differ")
        rest = [k for k in range(self.array.ndim) if k not in (a, b)]
        moved = transpose(self, axes=(*rest, a, b))
        rows, cols = self.array.shape[a], self.array.shape[b]
        start_row, start_col = max(0, -offset), max(0, offset)
        count = max(0, min(rows - start_row, cols - start_col))
        steps = np.arange(count)
        return getitem(moved, index=(Ellipsis, steps + start_row, steps + start_col))

    def gather(self, dim: int, index: Any) -> Any:
        """The elements ``index`` picks along ``dim``, each in its own place of the others:
        ``out[i][j] = x[index[i][j]][j]`` for ``dim`` 0, as PyTorch's (repeated picks add up
        in the gradient). The index holds integers: a Tensor of int64 or int32, as PyTorch
        asks (or an array of integers); floats are refused, as by PyTorch."""
        picks = index_numbers(index, ("int64", "int32"), _GATHER)
        if picks.ndim != self.array.ndim:
            raise RuntimeValueError("gather(): index must have as many axes as the Tensor")
        at = self._axis(dim)
        size = self.array.shape[at]
        outside = picks[(picks < 0) | (picks >= size)]
        if outside.size:
            raise IndexError(
                f"gather(): index {outside.flat[0]} is out of bounds for dim {dim} of size {size}"
            )
        grid: list[Any] = list(np.indices(picks.shape, sparse=True))
        grid[at] = picks
        return getitem(self, index=tuple(grid))


_GATHER = (RuntimeTypeError, lambda dtype: "gather(): Expected dtype int32/int64 for index")
