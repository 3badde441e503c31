"""Writes in place on a Tensor, as PyTorch's trailing-underscore methods and item assignment:
each changes ``.data`` where it is and counts as a write (``autograd/versions.py``), so that a
backward through a graph made before it raises instead of differentiating the new numbers.

As in PyTorch, a leaf that requires a gradient is written only under ``tg.no_grad()`` (an
optimizer's way). PyTorch also records an in-place op on a node inside a graph; topograd does
not, and says so: write such a node under ``no_grad``, or use the op that makes a new Tensor.

>>> import topograd as tg
>>> t = tg.Tensor([1.0, 2.0, 3.0])
>>> t[0] = 5.0
>>> t.mul_(2).tolist()
[10.0, 4.0, 6.0]
"""

from __future__ import annotations

from typing import Any, Self

import numpy as np

from ..autograd.errors import RuntimeTypeError
from ..autograd.kinds import kind_of
from ..autograd.modes import grad_mode
from ..autograd.versions import wrote
from .arrays import index_array


def _numbers(x: Any) -> Any:
    """An operand's numbers: a Tensor's data, or the array or number itself."""
    return x.data if kind_of(x) is not None else x


def _bytes(i: Any) -> bool:
    """A Tensor of bytes of one axis or more: a mask, to PyTorch."""
    return kind_of(i) is not None and i.data.dtype == np.uint8 and i.data.ndim > 0


def _index(i: Any) -> Any:
    """An index as NumPy takes it: a Tensor of whole numbers picks, of booleans masks."""
    return index_array(i) if kind_of(i) is not None else i


class InPlace:
    """The in-place methods of a Tensor (a mixin: ``self`` has ``data``, ``requires_grad`` and
    ``is_leaf``)."""

    __slots__ = ()
    data: Any
    requires_grad: bool

    @property
    def is_leaf(self) -> bool:
        raise NotImplementedError  # the Tensor's

    def _allowed(self, name: str, value: Any = None) -> None:
        if not self.data.flags.owndata:
            raise RuntimeError(
                f"{name}: this Tensor's numbers are a view of another's (a reshape, a slice, "
                "detach()); topograd cannot count a write through a view: write into the "
                "Tensor it came from, or into a copy"
            )
        node = kind_of(value) is not None and getattr(value, "requires_grad", True)
        if grad_mode.record and node:  # (a Value is a node that wants a gradient)
            raise RuntimeError(
                f"{name}: the value requires grad, and topograd records no in-place op; make "
                "the result with ops instead (tg.where, tg.stack, +)"
            )
        if not (grad_mode.record and self.requires_grad):
            return
        if self.is_leaf:
            raise RuntimeError(
                f"{name}: a leaf Variable that requires grad is being used in an in-place "
                "operation (write it under tg.no_grad(), as an optimizer does)"
            )
        raise RuntimeError(
            f"{name}: topograd records no in-place op inside a graph; write under "
            "tg.no_grad(), or use the op that makes a new Tensor"
        )

    def _write(self, name: str, value: Any, index: Any = Ellipsis, given: Any = None) -> Self:
        self._allowed(name, given)
        with np.errstate(all="ignore"):
            self.data[index] = value
        wrote([self], f"Tensor.{name}")
        return self

    def __setitem__(self, index: Any, value: Any) -> None:
        """``t[index] = value``: item assignment, NumPy's indexing (a Tensor index too, as
        PyTorch takes one; a mask of bytes with a number, which PyTorch fills as
        ``masked_fill`` does, is refused as that refuses it)."""
        parts = index if isinstance(index, tuple) else (index,)
        if not hasattr(value, "shape") and any(_bytes(i) for i in parts):
            raise RuntimeTypeError(
                "masked_fill_ only supports boolean masks, but got mask with dtype unsigned char"
            )
        index = tuple(map(_index, index)) if isinstance(index, tuple) else _index(index)
        self._write("__setitem__", _numbers(value), index, value)

    def zero_(self) -> Self:
        return self._write("zero_", 0.0)

    def fill_(self, value: Any) -> Self:
        return self._write("fill_", _numbers(value), given=value)

    def copy_(self, source: Any) -> Self:
        return self._write("copy_", _numbers(source), given=source)

    def add_(self, other: Any, alpha: float = 1.0) -> Self:
        new = self.data + alpha * np.asarray(_numbers(other))
        return self._write("add_", new, given=other)

    def sub_(self, other: Any, alpha: float = 1.0) -> Self:
        new = self.data - alpha * np.asarray(_numbers(other))
        return self._write("sub_", new, given=other)

    def mul_(self, other: Any) -> Self:
        return self._write("mul_", self.data * _numbers(other), given=other)

    def div_(self, other: Any) -> Self:
        return self._write("div_", self.data / _numbers(other), given=other)
