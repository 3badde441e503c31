"""A Tensor's operators, as PyTorch's: arithmetic (``+ - * / ** @``, each an op of the
registry, with Tensors, ndarrays or numbers on either side, in the dtype PyTorch's promotion
gives), integer division and remainder (``// %``, as Python's and PyTorch's: toward -inf),
comparisons (Tensors of booleans, wanting no gradient), the logical and bitwise ``& | ^ ~``
(booleans and integers), and the in-place forms (``+= -= *= /= ...``), which write into the
Tensor's own numbers (``inplace.py``), as PyTorch's do.

>>> import topograd as tg
>>> i = tg.tensor([7, -7])
>>> (i // 2).tolist(), (i % 3).tolist(), (i / 2).tolist(), (i > 0).tolist()
([3, -4], [1, 2], [3.5, -3.5], [True, False])
>>> w = tg.ones(2)
>>> alias = w
>>> w -= 0.5  # in place: the Tensor itself changed, as PyTorch's
>>> alias.tolist()
[0.5, 0.5]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self, TypeVar

import numpy as np

from ..autograd.errors import NotImplementedValueError, RuntimeValueError
from ..autograd.registry import Op
from ..ops.arithmetic import add, div, mul, neg, sub
from ..ops.elementary import power
from ..ops.linalg import matmul
from . import dtypes
from .quiet import quietly

# NumPy's ufuncs that are a Tensor's operators: np.add(array, tensor) records as array + tensor
UFUNCS: dict[Any, str] = {
    np.add: "__add__",
    np.subtract: "__sub__",
    np.multiply: "__mul__",
    np.true_divide: "__truediv__",
    np.power: "__pow__",
    np.matmul: "__matmul__",
}


T = TypeVar("T", bound="Operators")
F = TypeVar("F", bound=Callable[..., Any])


def _binary(op: Op, name: str) -> tuple[Callable[[T, Any], T], Callable[[T, Any], T]]:
    """``x op y`` and the reflected ``y op x``: ``__name__`` and ``__rname__``."""

    def forward(x: T, y: Any) -> T:
        return x._apply(op, (x, y))  # type: ignore[no-any-return]

    def reflected(x: T, y: Any) -> T:
        return x._apply(op, (y, x))  # type: ignore[no-any-return]

    return _named(forward, f"__{name}__"), _named(reflected, f"__r{name}__")


def _named(method: F, name: str) -> F:
    """The method under its own name in tracebacks and help(): ``Tensor.__add__``."""
    method.__name__, method.__qualname__ = name, f"Tensor.{name}"
    return method


def _numbers(x: Any) -> Any:
    return x.array if isinstance(x, Operators) else x


def _compared(compare: Any, name: str) -> Callable[[Any, Any], Any]:
    """A comparison of the numbers, in their promoted dtype: a Tensor of booleans."""

    def compared(x: Any, y: Any) -> Any:
        a, b = x.array, _numbers(y)
        if not isinstance(b, (np.ndarray, bool, int, float, np.generic)):
            return NotImplemented
        found = dtypes.result_type(a, b).dtype  # (int32 and float32 meet in float32, not 64)
        # (a Python int out of the dtype's range wraps, as PyTorch's does)
        done = quietly(compare, (a.astype(found, copy=False), np.asarray(b).astype(found)), {})
        return x._constant(done)

    return _named(compared, f"__{name}__")


def _whole(function: Any, name: str, reflected: bool = False) -> Callable[[Any, Any], Any]:
    """A logical or bitwise operator (& | ^, << >>) of booleans or integers, no gradient."""
    kernel = f"bitwise_{name}_cpu" if name in ("and", "or", "xor") else f"{name}_cpu"

    def whole(x: Any, y: Any) -> Any:
        a, b = (_numbers(y), x.array) if reflected else (x.array, _numbers(y))
        found = dtypes.result_type(a, b)
        if found.category == dtypes.FLOAT:  # PyTorch's words
            raise NotImplementedValueError(
                f"\"{kernel}\" not implemented for '{dtypes.scalar_name(found.dtype)}'"
            )
        kind = found.dtype  # (a Python int out of range wraps, as PyTorch's)
        return x._constant(function(np.asarray(a).astype(kind), np.asarray(b).astype(kind)))

    return _named(whole, f"__{'r' if reflected else ''}{name}__")


class Operators:
    """The operators of a Tensor (mixed into ``Tensor``: ``self`` has ``array``)."""

    __slots__ = ()
    array: np.ndarray[Any, Any]

    @staticmethod
    def _constant(data: Any) -> Any:  # a Tensor that wants no gradient: Tensor's own
        raise NotImplementedError

    def _apply(self, op: Op, args: tuple[Any, ...], **params: Any) -> Any:
        return op(*args, **params)

    __add__, __radd__ = _binary(add, "add")
    __sub__, __rsub__ = _binary(sub, "sub")
    __mul__, __rmul__ = _binary(mul, "mul")
    __truediv__, __rtruediv__ = _binary(div, "truediv")
    __pow__, __rpow__ = _binary(power, "pow")
    __matmul__, __rmatmul__ = _binary(matmul, "matmul")
    __eq__ = _compared(np.equal, "eq")
    __ne__ = _compared(np.not_equal, "ne")
    __hash__ = object.__hash__  # a node is itself: the engine keys nodes by identity
    __lt__ = _compared(np.less, "lt")
    __le__ = _compared(np.less_equal, "le")
    __gt__ = _compared(np.greater, "gt")
    __ge__ = _compared(np.greater_equal, "ge")
    __and__ = _whole(np.bitwise_and, "and")
    __or__ = _whole(np.bitwise_or, "or")
    __xor__ = _whole(np.bitwise_xor, "xor")
    __rand__ = _whole(np.bitwise_and, "and", reflected=True)
    __ror__ = _whole(np.bitwise_or, "or", reflected=True)
    __rxor__ = _whole(np.bitwise_xor, "xor", reflected=True)
    __lshift__ = _whole(np.left_shift, "lshift")
    __rshift__ = _whole(np.right_shift, "rshift")

    def __neg__(self) -> Self:
        if self.array.dtype == np.bool_:
            raise RuntimeValueError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are "
                "trying to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        return self._apply(neg, (self,))  # type: ignore[no-any-return]

    def __pos__(self) -> Self:
        return self

    def __abs__(self) -> Self:
        return self.abs()  # type: ignore[attr-defined, no-any-return]

    def __invert__(self) -> Self:
        """Not, for booleans; the bits flipped, for integers (no gradient), as PyTorch's."""
        if self.array.dtype.kind == "f":  # PyTorch's class and words
            raise TypeError(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            )
        return self._constant(np.invert(self.array))  # type: ignore[no-any-return]

    def __floordiv__(self, other: Any) -> Self:
        """The quotient rounded toward -inf, as Python's and PyTorch's ``//`` (no gradient)."""
        return self._divided(self.array, _numbers(other), np.floor_divide)

    def __rfloordiv__(self, other: Any) -> Self:
        return self._divided(_numbers(other), self.array, np.floor_divide)

    def __mod__(self, other: Any) -> Self:
        """The remainder with the divisor's sign, as Python's and PyTorch's ``%``."""
        return self._divided(self.array, _numbers(other), np.remainder)

    def __rmod__(self, other: Any) -> Self:
        return self._divided(_numbers(other), self.array, np.remainder)

    def _divided(self, a: Any, b: Any, function: Any) -> Self:
        found = dtypes.result_type(a, b)
        if found.category == dtypes.BOOL:  # PyTorch's words: no kernel for booleans
            kernel = "div_floor_cpu" if function is np.floor_divide else "remainder_cpu"
            raise NotImplementedValueError(f"\"{kernel}\" not implemented for 'Bool'")
        if found.category != dtypes.FLOAT and np.any(np.asarray(b) == 0):
            raise RuntimeValueError("ZeroDivisionError")  # PyTorch's words, for integers
        target = found.dtype
        done = quietly(function, (np.asarray(a).astype(target), np.asarray(b).astype(target)), {})
        return self._constant(np.asarray(done, target))  # type: ignore[no-any-return]

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """NumPy's operators and ufuncs given a Tensor: ``array + tensor`` is the Tensor's
        ``__radd__`` (recorded); any other ufunc (``np.isnan(t)``) gets the numbers (refused
        for a Tensor that requires grad, as ``__array__`` refuses it) and gives an array."""
        name = UFUNCS.get(ufunc)
        if name is not None and method == "__call__" and not kwargs and len(inputs) == 2:
            left, right = inputs
            if left is self:
                return getattr(self, name)(right)
            return getattr(self, name.replace("__", "__r", 1))(left)
        arrays = [np.asarray(x) if isinstance(x, Operators) else x for x in inputs]
        return getattr(ufunc, method)(*arrays, **kwargs)

    # In place (inplace.py's methods), as PyTorch's: the Tensor itself changes.

    def __iadd__(self, other: Any) -> Self:
        return self.add_(other)  # type: ignore[attr-defined, no-any-return]

    def __isub__(self, other: Any) -> Self:
        return self.sub_(other)  # type: ignore[attr-defined, no-any-return]

    def __imul__(self, other: Any) -> Self:
        return self.mul_(other)  # type: ignore[attr-defined, no-any-return]

    def __itruediv__(self, other: Any) -> Self:
        return self.div_(other)  # type: ignore[attr-defined, no-any-return]

    def __ipow__(self, other: Any) -> Self:
        return self.pow_(other)  # type: ignore[attr-defined, no-any-return]

    def __imatmul__(self, other: Any) -> Self:
        raise RuntimeValueError("@= is not supported: write x = x @ y (as PyTorch's)")

    def __ifloordiv__(self, other: Any) -> Self:
        return self.copy_(self // other)  # type: ignore[attr-defined, no-any-return]

    def __imod__(self, other: Any) -> Self:
        return self.copy_(self % other)  # type: ignore[attr-defined, no-any-return]

    def __iand__(self, other: Any) -> Self:
        return self.copy_(self & other)  # type: ignore[attr-defined, no-any-return]

    def __ior__(self, other: Any) -> Self:
        return self.copy_(self | other)  # type: ignore[attr-defined, no-any-return]

    def __ixor__(self, other: Any) -> Self:
        return self.copy_(self ^ other)  # type: ignore[attr-defined, no-any-return]
