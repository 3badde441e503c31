"""The NumPy ``Tensor``: an ndarray that records the op and the inputs that produced it.

It is a node of the same engine as the scalar ``Value``, and its ops are the same entries of
the registry: the same rules, run on arrays. This module holds the node: its numbers
(``array``, the ndarray itself; ``data``, the same numbers as a Tensor with no graph, as
PyTorch's), its dtype (one of PyTorch's: ``dtypes.py``), its gradient (a Tensor, or None), how
an op runs its NumPy kernel on Tensors (``apply``, the dtype of the result as PyTorch's:
``casting.py``) and records a node (``make``).

>>> import numpy as np
>>> import topograd as tg
>>> w = tg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> (w @ tg.tensor([1.0, -1.0])).sum().backward()
>>> w.grad
tensor([[ 1., -1.],
        [ 1., -1.]])
"""

from __future__ import annotations

import numbers
import zlib
from collections.abc import Sequence
from operator import attrgetter
from typing import Any

import numpy as np

from ..autograd import engine
from ..autograd.errors import RuntimeValueError
from ..autograd.modes import grad_mode, place
from ..autograd.registry import Op
from ..autograd.versions import WRITES, wrote
from ..ops.methods import Methods
from ..ops.rounding import clamp
from ..ops.shapes import broadcast_to, getitem
from . import dtypes
from .aliases import Aliases
from .arrays import as_array, index_array, kernel, refusal, sizes_or_data
from .casting import kernel_arrays
from .conversions import Conversions
from .drawing import Draws
from .layout import Strides
from .nodes import Node, node_of
from .operators import Operators
from .pointwise import Pointwise
from .quiet import quietly
from .reducing import Reductions
from .refusals import Refusals
from .shaping import Shapes
from .sizes import Size
from .storage import Version, shared

Operand = Any  # a Tensor, an ndarray or a Python number
Array = np.ndarray[Any, Any]


class Tensor(
    Conversions,
    Operators,
    Draws,
    Reductions,
    Shapes,
    Pointwise,
    Aliases,
    Methods,
    Refusals,
    Strides,
):
    """An array in a computation graph: ``array`` (its ndarray), ``grad`` and how it was made.

    ``Tensor(data)`` takes numbers and nested lists of them (as floats of the default dtype, as
    ``torch.Tensor``) or an ndarray (its dtype kept, as ``torch.from_numpy``); ``Tensor(2, 3)``
    is a Tensor of zeros of that shape. ``tg.tensor`` infers the dtype as ``torch.tensor``."""

    __slots__ = (
        "_grad",
        "_inputs",
        "_kept",  # what its op's forward kept for the rule (Op.keeps); set by those ops only
        "_needed",  # the inputs that require a gradient: the engine's inputs
        "_needs",
        "_node",  # its grad_fn, once asked for (nodes.py); never set by the ops
        "_op",
        "_params",
        "_retain",
        "_stamp",  # the count of writes in place when it was made (versions.py)
        "_version",  # when its numbers were last written, shared with its views (None: never)
        "_where",  # anomaly mode only: where user code made this node, checksums of its data
        "array",
        "label",
        "requires_grad",
    )

    __array_priority__ = 1000  # ndarray + Tensor goes to Tensor.__radd__, not to NumPy

    array: Array
    requires_grad: bool
    label: str
    _grad: Tensor | None
    _op: Op | None
    _inputs: tuple[Tensor | float, ...]  # a Python number operand kept as a number
    _needs: tuple[bool, ...]
    _needed: tuple[Tensor, ...]
    _node: Node
    _kept: Any  # what an op that keeps (Op.keeps) made for its rule
    _params: dict[str, Any] | None
    _retain: bool
    _stamp: int
    _version: Version | None
    _where: tuple[str, tuple[int | None, ...]]

    def __init__(self, *data: Any, requires_grad: bool = False, label: str = "") -> None:
        _init(self, sizes_or_data(data), False)
        if len(data) == 1 and isinstance(data[0], Tensor):  # its numbers, shared as a view's
            self._version = shared(data[0])
        self.requires_grad_(requires_grad)
        self.label = label

    # Attributes.

    @property
    def shape(self) -> Size:
        """The sizes of its axes, a tuple (as PyTorch's ``torch.Size``)."""
        return Size(self.array.shape)

    @property
    def ndim(self) -> int:
        return int(self.array.ndim)

    @property
    def device(self) -> Any:
        """The CPU, the only device topograd runs on."""
        from .devices import CPU

        return CPU

    @property
    def data(self) -> Tensor:
        """The same numbers as a Tensor with no graph, sharing them, as PyTorch's ``.data``: a
        write through it changes this Tensor but, as in PyTorch, is not counted as a write
        (a backward that reads the old numbers does not know; ``detach()`` counts, and so does
        ``tg.detect_anomaly()``). Setting ``.data`` replaces the numbers, and counts."""
        return constant(self.array)

    @data.setter
    def data(self, value: Any) -> None:
        new = value.array if isinstance(value, Tensor) else as_array(value)
        if new is self.array:  # ``p.data -= step``: written in place already
            return
        self.array = new
        self._version = None
        wrote([self], "Tensor.data = ...")

    @property
    def grad(self) -> Tensor | None:
        """d output / d self after a backward (a Tensor of this one's shape and dtype), or
        None: before any, or after ``zero_grad()``."""
        return self._grad

    @grad.setter
    def grad(self, value: Any) -> None:
        if value is None:
            self._grad = None
            return
        if isinstance(value, (np.ndarray, np.generic)):  # (topograd takes NumPy's arrays too)
            value = constant(np.asarray(value))
        if not isinstance(value, Tensor):
            raise TypeError(
                f"assigned grad expected to be a Tensor or None but got grad of type "
                f"{type(value).__name__}"
            )
        if value.array.dtype != self.array.dtype or value.shape != self.shape:
            raise RuntimeError(
                f"assigned grad has data of a different type or size: {value.dtype} "
                f"{value.shape} for a Tensor of {self.dtype} {self.shape}"
            )
        self._grad = value

    @property
    def op(self) -> str:
        """The name of the op that produced this Tensor: ``""`` for a leaf, else e.g. "mul"."""
        return self._op.name if self._op is not None else ""

    @property
    def grad_fn(self) -> Node | None:
        """The node that made this Tensor, as PyTorch's ``grad_fn``: None for a leaf (and a
        Tensor made without a graph), else one with PyTorch's ``name()`` ("MulBackward0")
        and ``next_functions`` (nodes.py)."""
        if self._op is None:
            return None
        kept: Node | None = getattr(self, "_node", None)
        if kept is None or not kept.made(self._op, self._inputs):
            kept = self._node = node_of(self._op, self._inputs, self._params)
        return kept

    @property
    def is_leaf(self) -> bool:
        """Made by no op (an input, a parameter, a constant), as PyTorch's ``is_leaf``."""
        return self._op is None

    @property
    def parents(self) -> tuple[Tensor, ...]:
        """The inputs that gradients flow to: those that require a gradient."""
        return self._needed

    def is_floating_point(self) -> bool:
        return bool(self.array.dtype.kind == "f")

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Make this leaf want a gradient (or not), in place, as PyTorch's; a Tensor made by an
        op wants one as its inputs do; only a float Tensor can want one."""
        if self._op is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables: detach() this one"
            )
        if requires_grad and self.array.dtype.kind != "f":
            raise RuntimeValueError(  # PyTorch's words, as requires_grad_ says them
                "only Tensors of floating point dtype can require gradients"
            )
        self.requires_grad = bool(requires_grad) or self._op is not None
        return self

    def retain_grad(self) -> None:
        """Keep ``.grad`` on this intermediate after a backward."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        self._retain = True

    def detach(self) -> Tensor:
        """The same numbers, cut from the graph, sharing them and their count of writes (a write
        through either is seen by a backward through the other), as PyTorch's."""
        out = constant(self.array)
        out._version = shared(self)
        return out

    # Backward.

    def backward(
        self, gradient: Any = None, retain_graph: Any = None, create_graph: bool = False
    ) -> None:
        """Add d self / d leaf, times ``gradient``, to ``.grad`` of every leaf that requires it
        (with ``create_graph``, gradients with a graph of their own, to differentiate again).
        ``retain_graph`` is taken for PyTorch's sake: a graph lives until it is dropped."""
        if not self.requires_grad:
            raise RuntimeError(
                "element 0 of tensors does not require grad and does not have a grad_fn"
            )
        engine.backward([self], [gradient], create_graph=bool(create_graph))

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002 - PyTorch's names
        """Each element limited to [min, max] (either may be None, not both), as PyTorch's
        (its gradient passes where the element lies within, ends included)."""
        if min is None and max is None:
            raise RuntimeValueError("clamp(): give min or max (or both)")
        if isinstance(min, Tensor) or isinstance(max, Tensor):
            return self.clamp_between(min, max)
        return apply(clamp, (self,), {"low": _limit(min), "high": _limit(max)})

    clip = clamp  # NumPy's name

    def broadcast_to(self, shape: tuple[int, ...]) -> Tensor:
        return apply(broadcast_to, (self,), {"shape": tuple(shape)})

    def __getitem__(self, index: Any) -> Tensor:
        """NumPy's indexing, with Tensors as index arrays: integer ones pick, boolean ones mask."""
        if isinstance(index, tuple):
            index = tuple(index_array(i) if isinstance(i, Tensor) else i for i in index)
        elif isinstance(index, Tensor):
            index = index_array(index)
        return apply(getitem, (self,), {"index": index})

    _constant = staticmethod(lambda data: constant(data))  # for the mixins

    def _grad_fn(self) -> str | None:
        made = self.grad_fn
        return None if made is None else made.name()

    def _apply(self, op: Op, args: tuple[Any, ...], **params: Any) -> Tensor:
        """``op`` on these arguments, for the mixins: straight to ``apply``."""
        return apply(op, args, params)


def _limit(x: Any) -> float | None:
    """A clamp's limit: a number (an int or a bool kept so, which integers keep their dtype
    with, as PyTorch's Scalar), or None."""
    if x is None:
        return None
    if isinstance(x, Tensor) or not isinstance(x, numbers.Real):
        raise TypeError(f"clamp() takes numbers as limits, got {type(x).__name__}")
    if isinstance(x, numbers.Integral):
        return bool(x) if isinstance(x, (bool, np.bool_)) else int(x)
    return float(x)


def _init(out: Tensor, array: Array, requires_grad: bool) -> None:
    out.array = array
    out._grad = None
    out.requires_grad = requires_grad
    out.label = ""
    out._op = None
    out._inputs = ()
    out._needs = ()
    out._needed = ()
    out._params = None
    out._retain = False
    out._stamp = WRITES.count
    out._version = None


def constant(data: Any) -> Tensor:
    """A Tensor of these numbers that wants no gradient (a mask, a count, a seed)."""
    out = Tensor.__new__(Tensor)
    _init(out, np.asarray(data), False)
    return out


def as_tensor(x: Operand, like: Tensor | None = None) -> Tensor:
    """An operand as a Tensor: itself, or a constant of its numbers (an array's dtype kept; a
    Python number as PyTorch wraps one: a float in the default dtype, an int as int64, or, as
    a weak operand beside a float Tensor ``like``, in that Tensor's dtype)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (np.ndarray, np.generic)):
        dtypes.of_numpy(x.dtype)  # (a dtype a Tensor cannot hold is refused)
        return constant(x)
    if like is not None and like.array.dtype.kind == "f" and type(x) in (int, float):
        return constant(np.asarray(x, like.array.dtype))
    if isinstance(x, (bool, int, float)):
        if like is not None and like.array.dtype.kind == "f" and not isinstance(x, bool):
            return constant(np.asarray(x, like.array.dtype))
        return constant(np.asarray(x, dtypes.result_type(x).dtype))
    why = ": topograd has no complex numbers" if isinstance(x, complex) else ""
    raise TypeError(f"a Tensor cannot be combined with {type(x).__name__}{why}")


NUMBERS = (float, int)  # operands a node keeps as they are


def make(
    data: Any, op: Op, inputs: Sequence[Tensor | float], params: dict[str, Any] | None
) -> Tensor:
    """The result of ``op`` on ``inputs`` (Tensors, and Python numbers kept as numbers): a node
    when grad mode records and some input requires a gradient, else a constant."""
    out = Tensor.__new__(Tensor)
    wanted: list[bool] = []  # (loops, not comprehensions: two calls less per op)
    needed: list[Tensor] = []
    for t in inputs:
        need = type(t) not in NUMBERS and t.requires_grad  # type: ignore[union-attr]
        wanted.append(need)
        if need:
            needed.append(t)  # type: ignore[arg-type]
    mode = grad_mode.record
    record = bool(mode) and bool(needed)
    _init(out, data, record)
    if record:
        needs = tuple(wanted)
        out._op, out._inputs, out._needs, out._params = op, tuple(inputs), needs, params or None
        out._needed = tuple(needed)
        if mode is not True:  # anomaly mode: remember where the user made it, and its data
            out._where = (place(), checksums(out))
    if op.views and data.base is not None:  # a view shares its input's count of writes
        out._version = shared(inputs[0])
    return out


_ARRAY = attrgetter("array")  # (map of it: no call of a comprehension per op)


def apply(op: Op, args: Sequence[Any], params: dict[str, Any]) -> Tensor:
    """``op`` on Tensors, ndarrays and numbers: its NumPy kernel, recorded as a node."""
    if all(map(Tensor.__instancecheck__, args)):
        operands: Sequence[Tensor | float] = args
        arrays = list(map(_ARRAY, args))
    else:
        # A Python number stays a number in the node (as PyTorch's Scalar overloads): the rule
        # sees 2.0 in x ** 2.0 and decides on it at once, as PyTorch's pow_backward does.
        operands = [a if type(a) in NUMBERS else as_tensor(a) for a in args]
        arrays = [a if type(a) in NUMBERS else a.array for a in operands]  # type: ignore[union-attr]
    arrays = kernel_arrays(op, arrays, params)
    try:
        out = quietly(kernel(op), arrays, params)  # IEEE results (inf, nan), no warning
    except ValueError as error:  # PyTorch's RuntimeError (a ValueError still, as before)
        if isinstance(error, RuntimeError):
            raise
        raise RuntimeValueError(refusal(op, arrays, error)) from error
    if not op.keeps:
        return make(np.asarray(out), op, operands, params)
    out, kept = out
    node = make(np.asarray(out), op, operands, params)
    if node._op is not None:  # (a node: its rule will run)
        node._kept = kept
    return node


def checksums(node: Tensor) -> tuple[int | None, ...]:
    """A checksum of each array ``node``'s rule will read (None for a number), and of its
    own: anomaly mode keeps them, to notice a write behind topograd's back."""
    arrays = [x.array if isinstance(x, Tensor) else None for x in node._inputs]
    return tuple(None if a is None else zlib.crc32(a.tobytes()) for a in [*arrays, node.array])
