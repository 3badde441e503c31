"""Writes in place on a Tensor, as PyTorch's trailing-underscore methods, item assignment and
``+= -= *= /=``: each changes the Tensor's own numbers (and so its views' and its base's,
which share them: ``storage.py``) and counts as a write (``autograd/versions.py``), so that a
backward through a graph made before it raises instead of differentiating the new numbers.

As in PyTorch, a leaf that requires a gradient is written only under ``tg.no_grad()`` (an
optimizer's way), and an arithmetic result must fit the Tensor's dtype (an integer Tensor does
not take ``+= 0.5``). As PyTorch, topograd records an in-place op in the graph where one is
needed (a Tensor made by ops that require grad, or an operand that does, in grad mode): the
arithmetic ones (``+= -= *= /= **=``, ``add_`` ... ``neg_``, the functions of one number) and
item assignment. The Tensor becomes the op's node (its former self, with the numbers it had,
the op's input), its numbers written in place. It refuses, with PyTorch's words or its own,
what it does not record: the other methods (``copy_``, ``fill_``, ...), a write through a
Tensor that shares its numbers with another (a view, written with a gradient), an index that
repeats a place, and a backward through a node made from the Tensor before the write.

>>> import topograd as tg
>>> t = tg.tensor([1.0, 2.0, 3.0])
>>> t[0] = 5.0
>>> t.mul_(2).tolist(), t[1:].add_(1, alpha=10).tolist(), t.tolist()
([10.0, 4.0, 6.0], [14.0, 16.0], [10.0, 14.0, 16.0])
>>> w = tg.tensor([1.0, 2.0], requires_grad=True)
>>> h = w * 3.0
>>> h += w  # recorded: h is now (w * 3) + w
>>> h.sum().backward()
>>> w.grad.tolist(), h.is_leaf
([4.0, 4.0], False)
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, Self

import numpy as np

from ..autograd.errors import RuntimeTypeError, RuntimeValueError
from ..autograd.kinds import kind_of
from ..autograd.modes import grad_mode
from ..autograd.versions import wrote
from ..ops.activations import relu, sigmoid
from ..ops.arithmetic import absolute, sign
from ..ops.elementary import exp, log, sqrt
from ..ops.rounding import ceil, floor, round_even
from ..ops.trigonometric import cos, sin, tanh
from . import dtypes, recorded
from .arrays import index_array
from .quiet import quietly
from .recorded import castable as _castable


def _numbers(x: Any) -> Any:
    """An operand's numbers: a Tensor's array, or the array or number itself."""
    return getattr(x, "array", x) if not isinstance(x, (int, float)) else x


def _index(i: Any) -> Any:
    """An index as NumPy takes it: a Tensor of whole numbers picks, of booleans masks."""
    return index_array(i) if hasattr(i, "array") else i


def _another_kind(x: Any) -> bool:
    """A node of another kind than Tensors (a Value): no number for a Tensor's element."""
    found = kind_of(x)
    return found is not None and not hasattr(x, "array")


def _bytes(i: Any) -> bool:
    """A Tensor of bytes of one axis or more: a mask, to PyTorch."""
    return kind_of(i) is not None and i.array.dtype == np.uint8 and i.array.ndim > 0


# The draws in place on arrays (``normal_``, ``random_`` ...: PyTorch's numbers, for
# drawing.py), registered by tensors/random as it loads: it is made of Tensors, so this module
# cannot import it.
DRAWS: dict[str, Callable[..., Any]] = {}


class InPlace:
    """The in-place methods of a Tensor (a mixin: ``self`` has ``array``, ``requires_grad``,
    ``is_leaf``)."""

    __slots__ = ()
    array: np.ndarray[Any, Any]
    requires_grad: bool

    @property
    def is_leaf(self) -> bool:
        raise NotImplementedError  # the Tensor's

    @staticmethod
    def _constant(data: Any) -> Any:  # a Tensor that wants no gradient: Tensor's own
        raise NotImplementedError

    def _recording(self, name: str, *operands: Any) -> bool:
        """Whether this write is to be recorded in the graph (grad mode, and this Tensor or an
        operand requires grad); a leaf that requires grad is refused, with PyTorch's words,
        and so is an operand of another kind (a Value)."""
        other = next((x for x in operands if _another_kind(x)), None)
        if other is not None:
            raise TypeError(f"{name}: a Tensor cannot hold a {type(other).__name__}")
        if not grad_mode.record:
            return False
        if self.requires_grad and self.is_leaf:
            raise RuntimeError(
                f"{name}: a leaf Variable that requires grad is being used in an in-place "
                "operation. (Write it under tg.no_grad(), as an optimizer does.)"
            )
        return self.requires_grad or any(getattr(x, "requires_grad", False) for x in operands)

    def _allowed(self, name: str, *operands: Any) -> None:
        """Refuse a write that would change a graph and that topograd does not record."""
        if self._recording(name, *operands):
            raise RuntimeError(
                f"{name}: topograd records this in-place op only outside a graph (its Tensor "
                "and operands wanting no gradient); write it under tg.no_grad(), or use the op "
                "that makes a new Tensor (x = x + y, tg.where, tg.cat)"
            )

    def _recorded(self, name: str, result: Any) -> Self:
        """The write as a node of the graph (recorded.py): this Tensor becomes
        ``result(before)``, ``before`` its former self."""
        recorded.record(self, name, result)
        return self

    def _written(self, name: str) -> Self:
        wrote([self], f"Tensor.{name}")
        return self

    def _store(self, name: str, value: Any, index: Any = Ellipsis) -> Self:
        """``value`` written into this Tensor's numbers (at ``index``), cast to its dtype."""
        with np.errstate(all="ignore"):
            self._writable(name)[index] = value
        return self._written(name)

    def _arithmetic(self, name: str, function: Any, *operands: Any, graph: Any = None) -> Self:
        """``function`` of this Tensor's numbers and the operands', in their promoted dtype,
        written back if that dtype fits this one's (PyTorch's rule for in-place arithmetic);
        in a graph, ``graph`` of the Tensor before and the operands (None: refused)."""
        if graph is not None and self._recording(name, *operands):
            return self._recorded(name, lambda before: graph(before, *operands))
        self._allowed(name, *operands)
        numbers = [_numbers(x) for x in operands]
        found = dtypes.result_type(self.array, *numbers)
        into = dtypes.of_numpy(self.array.dtype)
        if not _castable(found, into):
            raise RuntimeValueError(
                f"{name}: result type {found.name} can't be cast to the desired output type "
                f"{into.name}"
            )
        arrays = [np.asarray(x, found.dtype) for x in (self.array, *numbers)]
        return self._store(name, quietly(function, arrays, {}))

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
        if self._recording("__setitem__", value):
            self._recorded("__setitem__", recorded.placed(self, index, value))
            return
        self._store("__setitem__", _numbers(value), index)

    def zero_(self) -> Self:
        self._allowed("zero_")
        return self._store("zero_", 0)

    def fill_(self, value: Any) -> Self:
        self._allowed("fill_", value)
        return self._store("fill_", _numbers(value))

    def copy_(self, src: Any, non_blocking: bool = False) -> Self:
        """``src``'s numbers (broadcast to this shape), cast to this dtype, as PyTorch's."""
        self._allowed("copy_", src)
        return self._store("copy_", np.broadcast_to(_numbers(src), self.array.shape))

    def _writable(self, name: str) -> np.ndarray[Any, Any]:
        """The numbers, to write into (refused for an expand()'s, where places repeat)."""
        if not self.array.flags.writeable:
            raise RuntimeError(
                f"{name}: unsupported operation: more than one element of the written-to tensor "
                "refers to a single memory location (an expand()). Please clone() the tensor "
                "before performing the operation."
            )
        return self.array

    def add_(self, other: Any, *, alpha: Any = 1) -> Self:
        plus = _plus(alpha)
        return self._arithmetic("add_", plus, other, graph=plus)

    def sub_(self, other: Any, *, alpha: Any = 1) -> Self:
        minus = _minus(alpha)
        return self._arithmetic("sub_", minus, other, graph=minus)

    def mul_(self, other: Any) -> Self:
        return self._arithmetic("mul_", np.multiply, other, graph=operator.mul)

    def div_(self, other: Any, *, rounding_mode: str | None = None) -> Self:
        """Divided by ``other``: a true quotient (a float: an integer Tensor cannot hold it), or
        rounded (``rounding_mode`` "floor" or "trunc"), as PyTorch's."""
        if rounding_mode is None:
            return self._true_division(other)
        if rounding_mode not in ("floor", "trunc"):
            raise RuntimeValueError(
                "div_ expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                f"{rounding_mode!r}"
            )
        function = np.floor_divide if rounding_mode == "floor" else _truncated
        return self._arithmetic("div_", function, other)

    def _true_division(self, other: Any) -> Self:
        if self._recording("div_", other):
            return self._recorded("div_", lambda before: before / other)
        found = dtypes.result_type(self.array, _numbers(other))
        if found.category != dtypes.FLOAT:
            found = dtypes.get_default_dtype()
        into = dtypes.of_numpy(self.array.dtype)
        if not _castable(found, into):
            raise RuntimeValueError(
                f"div_: result type {found.name} can't be cast to the desired output type "
                f"{into.name}"
            )
        a, b = np.asarray(self.array, found.dtype), np.asarray(_numbers(other), found.dtype)
        return self._store("div_", quietly(np.true_divide, (a, b), {}))

    def pow_(self, exponent: Any) -> Self:
        return self._arithmetic("pow_", np.power, exponent, graph=operator.pow)

    def clamp_(self, min: Any = None, max: Any = None) -> Self:  # noqa: A002 - PyTorch's names
        """Each element limited to [min, max] (either may be None, not both), in place."""
        if min is None and max is None:
            raise RuntimeValueError("clamp_(): give min or max (or both)")
        limits = [x for x in (min, max) if x is not None]

        def clipped(x: Any, *given: Any) -> Any:
            found = iter(given)
            low = next(found) if min is not None else None
            return np.clip(x, low, next(found) if max is not None else None)

        return self._arithmetic("clamp_", clipped, *limits)

    def masked_fill_(self, mask: Any, value: Any) -> Self:
        """``value`` where ``mask`` (booleans) holds."""
        held = np.asarray(_numbers(mask))
        if held.dtype != np.bool_:
            raise TypeError(f"masked_fill_ only supports boolean masks, but got {held.dtype}")
        self._allowed("masked_fill_", value)
        where = np.broadcast_to(held, self.array.shape)
        return self._store("masked_fill_", _numbers(value), where)

    def lerp_(self, end: Any, weight: Any) -> Self:
        """self + weight (end - self), computed from the nearer end, as PyTorch's."""
        return self._arithmetic("lerp_", _lerp, end, weight)

    def addcmul_(self, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Self:
        return self._arithmetic("addcmul_", lambda x, a, b: x + value * a * b, tensor1, tensor2)

    def addcdiv_(self, tensor1: Any, tensor2: Any, *, value: Any = 1) -> Self:
        return self._arithmetic("addcdiv_", lambda x, a, b: x + value * (a / b), tensor1, tensor2)

    # Functions of one number, in place: the op of the registry, its result written back.

    def _pointwise_(self, name: str, op: Any) -> Self:
        if self._recording(name):
            return self._recorded(name, op)
        found = op(self.detach())  # type: ignore[attr-defined]
        into = dtypes.of_numpy(self.array.dtype)
        if not _castable(dtypes.of_numpy(found.array.dtype), into):
            raise RuntimeValueError(
                f"{name}: result type {found.dtype.name} can't be cast to the desired output "
                f"type {into.name}"
            )
        return self._store(name, found.array)

    def neg_(self) -> Self:
        return self._arithmetic("neg_", np.negative, graph=operator.neg)

    def abs_(self) -> Self:
        return self._pointwise_("abs_", absolute)

    def sign_(self) -> Self:
        return self._pointwise_("sign_", sign)

    def exp_(self) -> Self:
        return self._pointwise_("exp_", exp)

    def log_(self) -> Self:
        return self._pointwise_("log_", log)

    def sqrt_(self) -> Self:
        return self._pointwise_("sqrt_", sqrt)

    def sin_(self) -> Self:
        return self._pointwise_("sin_", sin)

    def cos_(self) -> Self:
        return self._pointwise_("cos_", cos)

    def tanh_(self) -> Self:
        return self._pointwise_("tanh_", tanh)

    def sigmoid_(self) -> Self:
        return self._pointwise_("sigmoid_", sigmoid)

    def relu_(self) -> Self:
        return self._pointwise_("relu_", relu)

    def floor_(self) -> Self:
        return self._pointwise_("floor_", floor)

    def ceil_(self) -> Self:
        return self._pointwise_("ceil_", ceil)

    def round_(self) -> Self:
        return self._pointwise_("round_", round_even)


def _plus(alpha: Any) -> Any:
    """x + alpha y, as ``add_`` computes it (on arrays and on Tensors alike)."""
    return (lambda x, y: x + alpha * y) if alpha != 1 else operator.add


def _minus(alpha: Any) -> Any:
    return (lambda x, y: x - alpha * y) if alpha != 1 else operator.sub


def _truncated(x: Any, y: Any) -> Any:
    """The quotient rounded toward zero (``rounding_mode="trunc"``)."""
    return np.trunc(np.true_divide(x, y)).astype(np.result_type(x, y))


def _lerp(start: Any, end: Any, weight: Any) -> Any:
    """start + weight (end - start) from start where |weight| < 1/2, else from end (so that a
    weight of 1 gives end exactly), as torch.lerp."""
    near = np.abs(weight) < 0.5
    return np.where(near, start + weight * (end - start), end - (end - start) * (1 - weight))
