"""A Tensor's shape methods in PyTorch's spelling: ``permute``, ``view``, ``flatten``,
``squeeze``, ``unsqueeze``, ``expand``, ``repeat``, ``flip``, ``roll``, ``split``, ``chunk``,
``tril``, ``triu``, ``diagonal`` and ``gather``. Each is made of the registry's ops
(``reshape``, ``transpose``, ``broadcast_to``, ``getitem``, ``where``), so its gradient is
theirs: moved back, summed over repeats, nothing for what a mask drops.

>>> import topograd as tg
>>> t = tg.arange(6.0).view(2, 3)
>>> t.flip(1).tolist(), t.unsqueeze(0).shape, t.repeat(1, 2).shape
([[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]], (1, 2, 3), (2, 6))
>>> [p.tolist() for p in t.split(2, dim=1)]
[[[0.0, 1.0], [3.0, 4.0]], [[2.0], [5.0]]]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..ops.selection import select
from ..ops.shapes import broadcast_to, getitem, reshape, transpose


def as_sizes(given: tuple[Any, ...]) -> tuple[int, ...]:
    """Sizes given as PyTorch takes them: ``f(2, 3)`` or ``f((2, 3))``."""
    found = given[0] if len(given) == 1 and isinstance(given[0], (tuple, list)) else given
    return tuple(int(n) for n in found)


class Shapes:
    """The shape methods of a Tensor (mixed into ``Tensor``)."""

    __slots__ = ()
    data: np.ndarray[Any, Any]

    def _axis(self, dim: int, extra: int = 0) -> int:
        return normalize_axis_index(int(dim), self.data.ndim + extra)

    def permute(self, *dims: Any) -> Any:
        """The axes in the order ``dims`` gives (PyTorch's name for transpose(axes))."""
        order = tuple(self._axis(d) for d in as_sizes(dims))
        if sorted(order) != list(range(self.data.ndim)):
            raise ValueError(
                f"permute(): {as_sizes(dims)} is not an order of {self.data.ndim} axes"
            )
        return transpose(self, axes=order)

    def t(self) -> Any:
        """A matrix transposed (a vector or a number as it is), as PyTorch's ``t()``."""
        if self.data.ndim > 2:
            raise ValueError(f"t() takes a Tensor of at most 2 axes, not {self.data.ndim}")
        return transpose(self, axes=tuple(reversed(range(self.data.ndim))))

    def view(self, *shape: Any) -> Any:
        """The same elements in another shape (-1: what is left), as reshape."""
        return reshape(self, shape=as_sizes(shape))

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Any:
        """The axes from ``start_dim`` to ``end_dim`` (both included) as one."""
        shape = self.data.shape
        if not shape:
            return reshape(self, shape=(1,))
        a, b = self._axis(start_dim), self._axis(end_dim)
        if a > b:
            raise ValueError("flatten(): start_dim cannot come after end_dim")
        return reshape(self, shape=(*shape[:a], math.prod(shape[a : b + 1]), *shape[b + 1 :]))

    def squeeze(self, dim: Any = None) -> Any:
        """Without the axes of length 1 (only those ``dim`` names, where it is given)."""
        shape = self.data.shape
        if not shape:
            return reshape(self, shape=())
        named = (
            range(len(shape)) if dim is None else dim if isinstance(dim, (tuple, list)) else [dim]
        )
        dropped = {self._axis(d) for d in named}
        kept = tuple(n for k, n in enumerate(shape) if not (k in dropped and n == 1))
        return reshape(self, shape=kept)

    def unsqueeze(self, dim: int) -> Any:
        """With a new axis of length 1 at ``dim``."""
        at = self._axis(dim, extra=1)
        shape = self.data.shape
        return reshape(self, shape=(*shape[:at], 1, *shape[at:]))

    def expand(self, *sizes: Any) -> Any:
        """Repeated along axes of length 1 (and new leading ones) to ``sizes``; -1 keeps an
        axis as it is. Its gradient sums the repeats."""
        wanted = as_sizes(sizes)
        shape = self.data.shape
        lead = len(wanted) - len(shape)
        if lead < 0:
            raise ValueError(f"expand(): {len(wanted)} sizes for a Tensor of {len(shape)} axes")
        target = tuple(
            shape[k - lead] if n == -1 and k >= lead else n for k, n in enumerate(wanted)
        )
        return broadcast_to(self, shape=target)

    def repeat(self, *repeats: Any) -> Any:
        """Tiled ``repeats`` times along each axis (new leading axes where more are given)."""
        times = as_sizes(repeats)
        if len(times) < self.data.ndim:
            raise ValueError("repeat(): give at least as many repeats as the Tensor has axes")
        shape = (1,) * (len(times) - self.data.ndim) + self.data.shape
        spread = [n for pair in zip([1] * len(shape), shape, strict=True) for n in pair]
        tiled = [n for pair in zip(times, shape, strict=True) for n in pair]
        out = broadcast_to(reshape(self, shape=tuple(spread)), shape=tuple(tiled))
        return reshape(out, shape=tuple(r * n for r, n in zip(times, shape, strict=True)))

    def flip(self, *dims: Any) -> Any:
        """The elements in reverse order along each axis of ``dims``."""
        index = [slice(None)] * self.data.ndim
        for d in as_sizes(dims):
            index[self._axis(d)] = slice(None, None, -1)
        return getitem(self, index=tuple(index))

    def roll(self, shifts: Any, dims: Any = None) -> Any:
        """The elements moved ``shifts`` places along ``dims`` (of the flattened Tensor where no
        ``dims`` is given), those pushed off the end coming back at the start."""
        if dims is None:
            flat = reshape(self, shape=(self.data.size,))
            rolled = getitem(flat, index=(np.roll(np.arange(self.data.size), int(shifts)),))
            return reshape(rolled, shape=self.data.shape)
        moves = as_sizes((shifts,)) if not isinstance(shifts, int) else (shifts,)
        axes = as_sizes((dims,)) if not isinstance(dims, int) else (dims,)
        if len(moves) != len(axes):
            raise ValueError("roll(): one shift per dim")
        out: Any = self
        for move, d in zip(moves, axes, strict=True):
            at = self._axis(d)
            index: list[Any] = [slice(None)] * self.data.ndim
            index[at] = np.roll(np.arange(self.data.shape[at]), int(move))
            out = getitem(out, index=tuple(index))
        return out

    def split(self, split_size_or_sections: Any, dim: int = 0) -> tuple[Any, ...]:
        """Pieces along ``dim``: of ``split_size`` each (the last smaller), or of the sizes
        given."""
        at = self._axis(dim)
        length = self.data.shape[at]
        if isinstance(split_size_or_sections, int):
            step = split_size_or_sections
            if step <= 0:
                raise ValueError("split(): split_size must be positive")
            sizes = [min(step, length - s) for s in range(0, length, step)] or [0]
        else:
            sizes = [int(n) for n in split_size_or_sections]
            if sum(sizes) != length:
                raise ValueError(f"split(): sizes {sizes} do not add up to {length}")
        pieces, start = [], 0
        for size in sizes:
            index: list[Any] = [slice(None)] * self.data.ndim
            index[at] = slice(start, start + size)
            pieces.append(getitem(self, index=tuple(index)))
            start += size
        return tuple(pieces)

    def chunk(self, chunks: int, dim: int = 0) -> tuple[Any, ...]:
        """``chunks`` pieces along ``dim`` (fewer where it is short), as PyTorch's."""
        if chunks <= 0:
            raise ValueError("chunk(): chunks must be positive")
        length = self.data.shape[self._axis(dim)]
        return self.split(max(1, -(-length // chunks)), dim)

    def tril(self, diagonal: int = 0) -> Any:
        """The elements on and below the ``diagonal`` of the last two axes; zeros above."""
        return self._triangle(np.tril, diagonal)

    def triu(self, diagonal: int = 0) -> Any:
        """The elements on and above the ``diagonal`` of the last two axes; zeros below."""
        return self._triangle(np.triu, diagonal)

    def _triangle(self, keep: Any, diagonal: int) -> Any:
        if self.data.ndim < 2:
            raise ValueError("tril() and triu() take a Tensor of two axes or more")
        mask = keep(np.ones(self.data.shape[-2:], dtype=bool), int(diagonal))
        return select(mask, self, 0.0)

    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Any:
        """The diagonal of the axes ``dim1`` and ``dim2`` (``offset`` above it), as the last
        axis, the other axes in front."""
        a, b = self._axis(dim1), self._axis(dim2)
        if a == b:
            raise ValueError("diagonal(): dim1 and dim2 must differ")
        rest = [k for k in range(self.data.ndim) if k not in (a, b)]
        moved = transpose(self, axes=(*rest, a, b))
        rows, cols = self.data.shape[a], self.data.shape[b]
        start_row, start_col = max(0, -offset), max(0, offset)
        count = max(0, min(rows - start_row, cols - start_col))
        steps = np.arange(count)
        return getitem(moved, index=(Ellipsis, steps + start_row, steps + start_col))

    def gather(self, dim: int, index: Any) -> Any:
        """The elements ``index`` picks along ``dim``, each in its own place of the others:
        ``out[i][j] = x[index[i][j]][j]`` for ``dim`` 0, as PyTorch's (repeated picks add up
        in the gradient)."""
        picks = np.asarray(getattr(index, "data", index))
        if picks.dtype.kind == "f" and np.array_equal(picks, np.round(picks)):
            picks = picks.astype(np.int64)  # a Tensor of indices holds them as floats
        if picks.dtype.kind not in "iu":
            raise TypeError(f"gather(): index must hold whole numbers, got {picks.dtype}")
        if picks.ndim != self.data.ndim:
            raise ValueError("gather(): index must have as many axes as the Tensor")
        at = self._axis(dim)
        size = self.data.shape[at]
        outside = picks[(picks < 0) | (picks >= size)]
        if outside.size:
            raise IndexError(
                f"gather(): index {outside.flat[0]} is out of bounds for dim {dim} of size {size}"
            )
        grid: list[Any] = list(np.indices(picks.shape, sparse=True))
        grid[at] = picks
        return getitem(self, index=tuple(grid))
