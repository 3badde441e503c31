"""The NumPy ``Tensor``: an ndarray that records the op and the inputs that produced it.

It is a node of the same engine as the scalar ``Value``, and its ops are the same entries of
the registry: the same rules, run on arrays. This module holds the node and its kind: how a
Tensor runs an op's NumPy kernel, keeps its inputs, and hands the engine its contributions,
with broadcasting undone (``broadcast.unbroadcast``).

>>> import numpy as np
>>> import topograd as tg
>>> w = tg.Tensor(np.array([[1.0, 2.0], [3.0, 4.0]]), requires_grad=True)
>>> (w @ np.array([1.0, -1.0])).sum().backward()
>>> w.grad
array([[ 1., -1.],
       [ 1., -1.]])
"""

from __future__ import annotations

import numbers
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..autograd import engine
from ..autograd.errors import RuntimeValueError
from ..autograd.modes import grad_mode, place
from ..autograd.registry import Op
from ..autograd.versions import WRITES
from ..ops.arithmetic import add, div, mul, neg, sub
from ..ops.elementary import power
from ..ops.linalg import matmul
from ..ops.methods import Methods
from ..ops.rounding import clamp
from ..ops.shapes import broadcast_to, getitem
from .aliases import Aliases
from .arrays import as_array, index_array, kernel, number_dtype, refusal, same_dtype
from .inplace import InPlace
from .pointwise import Pointwise
from .quiet import quietly
from .reducing import Reductions
from .shaping import Shapes

Operand = Any  # a Tensor, an ndarray or a Python number
Array = np.ndarray[Any, Any]


def _operators(op: Op, name: str) -> tuple[Callable[[Tensor, Operand], Tensor], ...]:
    """``x op y`` and the reflected ``y op x``: Tensor's ``__name__`` and ``__rname__``."""

    def forward(x: Tensor, y: Operand) -> Tensor:
        return apply(op, (x, y), {})

    def reflected(x: Tensor, y: Operand) -> Tensor:
        return apply(op, (y, x), {})

    return _named(forward, f"__{name}__"), _named(reflected, f"__r{name}__")


def _comparison(
    compare: Callable[[Any, Any], Any], name: str
) -> Callable[[Tensor, Operand], Tensor]:
    """A comparison of the numbers: a Tensor of booleans that wants no gradient."""

    def compared(x: Tensor, y: Operand) -> Tensor:
        return constant(compare(x.data, y.data if isinstance(y, Tensor) else y))

    return _named(compared, f"__{name}__")


def _named(
    method: Callable[[Tensor, Operand], Tensor], name: str
) -> Callable[[Tensor, Operand], Tensor]:
    """The method under its own name in tracebacks and help(): ``Tensor.__add__``."""
    method.__name__, method.__qualname__ = name, f"Tensor.{name}"
    return method


class Tensor(InPlace, Reductions, Shapes, Pointwise, Aliases, Methods):
    """An array in a computation graph: ``data`` (an ndarray), ``grad`` and how it was made."""

    __slots__ = (
        "_inputs",
        "_needed",  # the inputs that require a gradient: the engine's inputs
        "_needs",
        "_op",
        "_params",
        "_retain",
        "_stamp",  # the count of writes in place when made or last written (versions.py)
        "_where",  # anomaly mode only: where user code made this node, checksums of its data
        "data",
        "grad",
        "label",
        "requires_grad",
    )

    __array_ufunc__ = None  # ndarray + Tensor goes to Tensor.__radd__, not to NumPy

    data: Array
    grad: Array | None
    requires_grad: bool
    label: str
    _op: Op | None
    _inputs: tuple[Tensor | float, ...]  # a Python number operand kept as a number
    _needs: tuple[bool, ...]
    _needed: tuple[Tensor, ...]
    _params: dict[str, Any] | None
    _retain: bool
    _stamp: int | tuple[int, int]
    _where: tuple[str, tuple[int | None, ...]]

    def __init__(self, data: Any, requires_grad: bool = False, label: str = "") -> None:
        _init(self, as_array(data), bool(requires_grad))
        self.label = label

    # Attributes.

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    @property
    def ndim(self) -> int:
        return int(self.data.ndim)

    @property
    def dtype(self) -> np.dtype[Any]:
        return np.dtype(self.data.dtype)

    @property
    def op(self) -> str:
        """The name of the op that produced this Tensor: ``""`` for a leaf, else e.g. "mul"."""
        return self._op.name if self._op is not None else ""

    @property
    def is_leaf(self) -> bool:
        """Made by no op (an input, a parameter, a constant), as PyTorch's ``is_leaf``."""
        return self._op is None

    @property
    def parents(self) -> tuple[Tensor, ...]:
        """The inputs that gradients flow to: those that require a gradient."""
        return self._needed

    def item(self) -> Any:
        """The one element as a Python number: a float, or an int or a bool for a Tensor of
        indices or of booleans (as PyTorch's)."""
        if self.data.size != 1:
            raise RuntimeValueError(
                f"item() needs a Tensor of one element, this one has {self.data.size}"
            )
        return self.data.reshape(()).item()

    def __float__(self) -> float:
        return float(self.item())

    def detach(self) -> Tensor:
        """The same numbers, cut from the graph (sharing the memory, as PyTorch, through a view:
        an in-place write through it is refused, since it would change this Tensor too)."""
        return constant(self.data.view())

    def retain_grad(self) -> None:
        """Keep ``.grad`` on this intermediate after a backward."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        self._retain = True

    def numpy(self) -> Array:
        """The numbers, sharing memory; refused for a Tensor that requires grad (as PyTorch's):
        take ``t.detach().numpy()`` or ``t.data``."""
        return self.__array__()

    def tolist(self) -> Any:
        return self.data.tolist()

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 - PyTorch's names
        """Each element limited to [min, max] (either may be None, not both), as PyTorch's
        (its gradient passes where the element lies within, ends included)."""
        if min is None and max is None:
            raise RuntimeValueError("clamp(): give min or max (or both)")
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            return self.clamp_between(min, max)
        return _apply(clamp, self, low=_limit(min), high=_limit(max))

    clip = clamp  # NumPy's name

    def numel(self) -> int:
        """The number of elements."""
        return int(self.data.size)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Make this leaf want a gradient (or not), in place, as PyTorch's; a Tensor made by an
        op wants one as its inputs do."""
        if self._op is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables: detach() this one"
            )
        self.requires_grad = bool(requires_grad) or self._op is not None
        return self

    _constant = staticmethod(lambda data: constant(data))  # for the mixins: Reductions

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> Array:
        """The numbers, for NumPy: ``np.asarray(t)`` is ``t.data`` (a copy if asked). Refused,
        as PyTorch refuses it, for a Tensor that requires grad: a NumPy function of it would
        drop its gradient without a word (take ``t.detach()``, or use topograd's ops)."""
        if self.requires_grad:
            raise RuntimeError(
                "Can't convert a Tensor that requires grad to a NumPy array: NumPy would drop "
                "its gradient. Use tensor.detach() (or tensor.data), or topograd's ops."
            )
        if copy is False and dtype is not None and np.dtype(dtype) != self.data.dtype:
            raise RuntimeValueError(
                "a Tensor of another dtype needs a copy (copy=False refuses it)"
            )
        array = self.data if dtype is None else self.data.astype(dtype, copy=False)
        return array.copy() if copy else array

    def __len__(self) -> int:
        return len(self.data)

    def __bool__(self) -> bool:
        """The truth of a single element (an error for several, as PyTorch's)."""
        return bool(self.data)

    def __repr__(self) -> str:
        body = np.array2string(self.data, prefix="Tensor(", separator=", ")
        extra = ", requires_grad=True" if self.requires_grad else ""
        extra += f", op={self.op!r}" if self._op is not None else ""
        return f"Tensor({body}{extra})"

    # Backward.

    def backward(self, gradient: Any = None) -> None:
        """Add d self / d leaf, times ``gradient``, to ``.grad`` of every leaf that requires it."""
        if not self.requires_grad:
            raise RuntimeError(
                "element 0 of tensors does not require grad and does not have a grad_fn"
            )
        engine.backward([self], [gradient])

    # Arithmetic, with Tensors, ndarrays or numbers on either side, NumPy's broadcasting; and
    # comparisons, which give Tensors of booleans that want no gradient, as PyTorch's.

    __add__, __radd__ = _operators(add, "add")
    __sub__, __rsub__ = _operators(sub, "sub")
    __mul__, __rmul__ = _operators(mul, "mul")
    __truediv__, __rtruediv__ = _operators(div, "truediv")
    __pow__, __rpow__ = _operators(power, "pow")
    __matmul__, __rmatmul__ = _operators(matmul, "matmul")
    __eq__ = _comparison(np.equal, "eq")  # type: ignore[assignment]
    __ne__ = _comparison(np.not_equal, "ne")  # type: ignore[assignment]
    __hash__ = object.__hash__  # a node is itself: the engine keys nodes by identity
    __lt__ = _comparison(np.less, "lt")
    __le__ = _comparison(np.less_equal, "le")
    __gt__ = _comparison(np.greater, "gt")
    __ge__ = _comparison(np.greater_equal, "ge")

    def __neg__(self) -> Tensor:
        return _apply(neg, self)

    def __abs__(self) -> Tensor:
        return self.abs()

    # Shapes and indexing.

    def broadcast_to(self, shape: tuple[int, ...]) -> Tensor:
        return _apply(broadcast_to, self, shape=tuple(shape))

    def __getitem__(self, index: Any) -> Tensor:
        """NumPy's indexing, with Tensors as index arrays: integer ones pick, boolean ones mask."""
        if isinstance(index, tuple):
            index = tuple(index_array(i) if isinstance(i, Tensor) else i for i in index)
        elif isinstance(index, Tensor):
            index = index_array(index)
        return _apply(getitem, self, index=index)


def _limit(x: Any) -> float | None:
    """A clamp's limit: a number, or None."""
    if x is None:
        return None
    if isinstance(x, Tensor) or not isinstance(x, numbers.Real):
        raise TypeError(f"clamp() takes numbers as limits, got {type(x).__name__}")
    return float(x)


def _init(out: Tensor, data: Array, requires_grad: bool) -> None:
    out.data = data
    out.grad = None
    out.requires_grad = requires_grad
    out.label = ""
    out._op = None
    out._inputs = ()
    out._needs = ()
    out._needed = ()
    out._params = None
    out._retain = False
    out._stamp = WRITES.count


def constant(data: Any) -> Tensor:
    """A Tensor of these numbers that wants no gradient (a mask, a count, a seed)."""
    out = Tensor.__new__(Tensor)
    _init(out, np.asarray(data), False)
    return out


def as_tensor(x: Operand, like: Tensor | None = None) -> Tensor:
    """An operand as a Tensor: itself, or a constant. A Python number takes the dtype of the
    Tensor it meets (``like``), as in PyTorch: float32 times 2.0 stays float32; an integer
    array (a mask) too; a boolean array stays boolean (a condition). A number of a higher
    kind than ``like``'s (a float beside integers or booleans, an int beside booleans) takes
    the default dtype of its kind instead, as PyTorch's: ``mask * 2.5`` holds 2.5."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (np.ndarray, np.generic)) and np.asarray(x).dtype.kind in "biuf":
        array = np.asarray(x)
        if array.dtype.kind in "fb":
            return constant(array)
        floats = like is not None and like.dtype.kind == "f"
        return constant(array.astype(like.dtype if floats else np.float64))  # type: ignore[union-attr]
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return constant(np.asarray(x, dtype=number_dtype(x, None if like is None else like.dtype)))
    if isinstance(x, bool):
        return constant(np.asarray(x))
    raise TypeError(f"a Tensor cannot be combined with {type(x).__name__}")


def _like(args: Sequence[Any]) -> Tensor | None:
    """The Tensor whose dtype the numbers among ``args`` take: the first of floats (not a
    condition's booleans, in ``where``), else the first."""
    first = None
    for a in args:
        if isinstance(a, Tensor):
            if a.data.dtype.kind == "f":
                return a
            first = a if first is None else first
    return first


NUMBERS = (float, int)  # operands a node keeps as they are


def make(
    data: Any, op: Op, inputs: Sequence[Tensor | float], params: dict[str, Any] | None
) -> Tensor:
    """The result of ``op`` on ``inputs`` (Tensors, and Python numbers kept as numbers): a node
    when grad mode records and some input requires a gradient, else a constant."""
    out = Tensor.__new__(Tensor)
    needs = tuple([type(t) not in NUMBERS and t.requires_grad for t in inputs])  # type: ignore[union-attr]
    mode = grad_mode.record
    record = bool(mode) and any(needs)
    _init(out, np.asarray(data), record)
    if record:
        out._op, out._inputs, out._needs, out._params = op, tuple(inputs), needs, params or None
        out._needed = tuple([t for t, need in zip(inputs, needs) if need])  # type: ignore[misc]
        if mode is not True:  # anomaly mode: remember where the user made it, and its data
            out._where = (place(), checksums(out))
    return out


def _apply(op: Op, *args: Any, **params: Any) -> Tensor:
    """``op`` on Tensors (and numbers or arrays), typed."""
    return apply(op, args, params)


def apply(op: Op, args: Sequence[Any], params: dict[str, Any]) -> Tensor:
    """``op`` on Tensors, ndarrays and numbers: its NumPy kernel, recorded as a node."""
    if all(map(Tensor.__instancecheck__, args)):
        inputs: Sequence[Tensor] = args
        operands: Sequence[Tensor | float] = args
    else:
        like = _like(args)  # whose dtype numbers take
        inputs = [as_tensor(a, like) for a in args]
        # A Python number stays a number in the node (as PyTorch's Scalar overloads): the rule
        # sees 2.0 in x ** 2.0 and decides on it at once, as PyTorch's pow_backward does.
        operands = [a if type(a) in NUMBERS else t for a, t in zip(args, inputs)]
    arrays = [t.data for t in inputs]
    if len(arrays) == 2 and arrays[0].dtype != arrays[1].dtype and op.elementwise:
        arrays = same_dtype(arrays)
    try:
        out = quietly(kernel(op), arrays, params)  # IEEE results (inf, nan), no warning
    except ValueError as error:  # PyTorch's RuntimeError (a ValueError still, as before)
        if isinstance(error, RuntimeError):
            raise
        raise RuntimeValueError(refusal(op, arrays, error)) from error
    return make(out, op, operands, params)


def checksums(node: Tensor) -> tuple[int | None, ...]:
    """A checksum of each array ``node``'s rule will read (None for a number), and of its
    own: anomaly mode keeps them, to notice a write behind topograd's back."""
    arrays = [x.data if isinstance(x, Tensor) else None for x in node._inputs]
    return tuple(None if a is None else zlib.crc32(a.tobytes()) for a in [*arrays, node.data])
