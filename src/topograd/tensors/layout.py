"""A Tensor's layout as PyTorch reads it from the strides (an array's, counted in elements):
whether ``view`` can give a shape without a copy, and the sizes a shape with a -1 stands for.

PyTorch's rule for a view: the axes fall into runs, each contiguous within itself (an axis
steps over exactly the elements of the axes after it in the run; an axis of size 1 never
breaks a run); the new shape must make each run's elements with axes of its own, from the
last run to the first, so that no new axis spans two runs. A transposed matrix is two runs
(no view of it as one axis); a slice of rows is one run per row step.

>>> import numpy as np
>>> a = np.arange(6.0).reshape(2, 3)
>>> viewable(a.T, (6,)), viewable(a.T, (3, 2, 1)), viewable(a, (3, 2)), viewable(a[:, :2], (4,))
(False, True, True, False)
>>> inferred((-1, 3), 6)
(2, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..autograd.errors import RuntimeValueError

NOT_A_VIEW = (
    "view size is not compatible with input tensor's size and stride (at least one dimension "
    "spans across two contiguous subspaces). Use .reshape(...) instead."
)


def viewable(array: np.ndarray[Any, Any], target: Sequence[int]) -> bool:
    """Whether ``target`` (of as many elements) is a view of ``array``'s layout, by PyTorch's
    rule; a number, or an array of no elements, has every shape of its size."""
    shape = array.shape
    if not shape or array.size == 0:
        return True
    strides = [s // array.itemsize for s in array.strides]
    k = len(target) - 1  # the new axes are matched from the last
    last, run = len(shape) - 1, 1  # the current run's last axis, and its elements so far
    for d in range(len(shape) - 1, -1, -1):
        run *= shape[d]
        if d > 0 and (shape[d - 1] == 1 or strides[d - 1] == run * strides[last]):
            continue  # axis d - 1 goes on with this run
        made = 1  # the run ends at d: the new axes that make its elements, 1s among them
        while k >= 0 and (made < run or target[k] == 1):
            made *= target[k]
            k -= 1
        if made != run:
            return False
        last, run = d - 1, 1
    return k < 0


def inferred(sizes: Sequence[int], numel: int) -> tuple[int, ...]:
    """``sizes`` with its -1 (at most one) made what the other sizes leave of ``numel``
    elements, or PyTorch's refusal: of two -1s, of a negative size, of a shape of another
    number of elements."""
    unknown, product = None, 1
    for at, n in enumerate(sizes):
        if n == -1:
            if unknown is not None:
                raise RuntimeValueError("only one dimension can be inferred")
            unknown = at
        elif n < 0:
            raise RuntimeValueError(
                f"invalid shape dimension {n} at index {at} of shape {list(sizes)}"
            )
        else:
            product *= n
    if numel == product or (unknown is not None and product > 0 and numel % product == 0):
        if unknown is None:
            return tuple(sizes)
        if product == 0:
            raise RuntimeValueError(
                f"cannot reshape tensor of 0 elements into shape {list(sizes)} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        return tuple(numel // product if at == unknown else n for at, n in enumerate(sizes))
    raise RuntimeValueError(f"shape '{list(sizes)}' is invalid for input of size {numel}")


def _owner(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The array whose memory ``array`` views (itself where it owns its memory)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


class Strides:
    """How a Tensor's elements lie in memory, as PyTorch tells it (a mixin: ``self`` has
    ``array``), counted in elements: ``stride()``, ``storage_offset()``, ``is_contiguous()``,
    ``contiguous()``, and ``data_ptr()``, the address of the first element.

    >>> import topograd as tg
    >>> x = tg.zeros(2, 3)
    >>> x.stride(), x.t().stride(), x[1:].storage_offset(), x.t().is_contiguous()
    ((3, 1), (1, 3), 3, False)
    """

    __slots__ = ()
    array: np.ndarray[Any, Any]

    def stride(self, dim: int | None = None) -> Any:
        """The elements one step along each axis skips (along ``dim`` alone, where given); a
        Tensor of no elements has those of its shape made anew, as PyTorch's."""
        steps: tuple[int, ...] = ()
        if self.array.size == 0:
            step = 1
            for n in reversed(self.array.shape):
                steps, step = (step, *steps), step * max(n, 1)
        else:
            steps = tuple(s // self.array.itemsize for s in self.array.strides)
        if dim is None:
            return steps
        if not -len(steps) <= dim < max(len(steps), 1):
            raise IndexError(
                f"Dimension out of range (expected to be in range of "
                f"[{-max(len(steps), 1)}, {max(len(steps), 1) - 1}], but got {dim})"
            )
        return steps[dim] if steps else 1

    def storage_offset(self) -> int:
        """The elements before this Tensor's first one in the memory it shares with the
        Tensor it is a view of (0 for a Tensor that is no view)."""
        owner = _owner(self.array)
        return (self.data_ptr() - int(owner.ctypes.data)) // self.array.itemsize

    def data_ptr(self) -> int:
        """The address of the first element (views of one Tensor differ by their offsets)."""
        return int(self.array.ctypes.data)

    def is_contiguous(self, memory_format: Any = None) -> bool:
        """Whether the elements lie in memory in order, row after row (PyTorch's rule: an
        axis of one element, or a Tensor of none, steps anyhow)."""
        if self.array.size == 0:
            return True
        expected = 1
        for n, step in zip(reversed(self.array.shape), reversed(self.stride())):
            if n != 1 and step != expected:
                return False
            expected *= n
        return True

    def contiguous(self, memory_format: Any = None) -> Any:
        """Itself where its elements are in order, else a copy that is (in the graph)."""
        if self.is_contiguous():
            return self
        out = self.clone()  # type: ignore[attr-defined]
        out.array = np.ascontiguousarray(out.array)  # (a new Tensor's own numbers)
        return out
