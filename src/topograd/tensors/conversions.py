"""A Tensor's numbers as Python and NumPy take them (mixed into ``Tensor``): ``item()``,
``float(t)``, ``int(t)``, ``t`` as an index, ``bool(t)``, ``len(t)``, ``numpy()``,
``tolist()``, ``np.asarray(t)``, and its text, as PyTorch prints it (``printing.py``).

>>> import topograd as tg
>>> t = tg.tensor([[1.5, 2.0]])
>>> t[0, 1].item(), int(t[0, 0]), len(t), f"{t.sum():.2f}", [10, 20, 30][tg.tensor(2)]
(2.0, 1, 1, '3.50', 30)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.errors import RuntimeValueError
from . import dtypes, printing

Array = np.ndarray[Any, Any]


class Conversions:
    """Conversions of a Tensor's numbers (``self`` has ``array``, ``requires_grad``)."""

    __slots__ = ()
    array: Array
    requires_grad: bool

    @property
    def dtype(self) -> dtypes.dtype:
        """One of PyTorch's dtypes (``tg.float32``, ``tg.int64`` ...), which NumPy takes too."""
        return dtypes.of_numpy(self.array.dtype)

    def item(self) -> Any:
        """The one element as a Python number: a float, an int or a bool, as its dtype."""
        if self.array.size != 1:
            raise RuntimeValueError(
                "a Tensor with "
                f"{self.array.size} elements cannot be converted to Scalar (item() needs one)"
            )
        return self.array.reshape(()).item()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        """A Tensor of one whole number as an index (``items[t]``, ``range(t)``), as PyTorch's:
        integer and boolean dtypes only (a boolean is an integer)."""
        if self.array.dtype.kind not in "biu" or self.array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        """The truth of a single element (an error for several, as PyTorch's)."""
        if self.array.size != 1:
            raise RuntimeValueError(
                f"Boolean value of Tensor with more than one value is ambiguous "
                f"({self.array.size} elements)"
            )
        return bool(self.array.reshape(()).item())

    def __len__(self) -> int:
        if not self.array.ndim:
            raise TypeError("len() of a 0-d tensor")
        return len(self.array)

    def numpy(self) -> Array:
        """The numbers, sharing memory; refused for a Tensor that requires grad (as PyTorch's):
        take ``t.detach().numpy()``."""
        return self.__array__()

    def tolist(self) -> Any:
        return self.array.tolist()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Array:
        """The numbers, for NumPy: ``np.asarray(t)`` is ``t.array`` (a copy if asked). Refused,
        as PyTorch refuses it, for a Tensor that requires grad: a NumPy function of it would
        drop its gradient without a word (take ``t.detach()``, or use topograd's ops)."""
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad: NumPy would drop its "
                "gradient. Use tensor.detach().numpy() instead, or topograd's ops."
            )
        if copy is False and dtype is not None and np.dtype(dtype) != self.array.dtype:
            raise RuntimeValueError("a Tensor of another dtype needs a copy (copy=False refuses)")
        array = self.array if dtype is None else self.array.astype(dtype, copy=False)
        return array.copy() if copy else array

    def __repr__(self) -> str:
        return printing.tensor_repr(
            self.array,
            dtype_name=repr(self.dtype),
            default_float=dtypes.get_default_dtype().dtype,
            requires_grad=self.requires_grad,
            grad_fn=self._grad_fn(),
        )

    def __format__(self, spec: str) -> str:
        """``f"{loss:.4f}"``: a Tensor of no axes formats its number, as PyTorch's."""
        found = printing.format_number(self.array, spec, type_name=type(self).__name__)
        return str(self) if found is None else found

    def _grad_fn(self) -> str | None:  # the op's name as PyTorch shows it: Tensor's own
        raise NotImplementedError
