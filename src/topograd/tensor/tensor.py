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
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..autograd import engine
from ..autograd.kinds import register_kind
from ..autograd.modes import grad_mode, place
from ..autograd.registry import Op
from ..ops.arithmetic import add, div, mul, neg, sub
from ..ops.elementary import power
from ..ops.linalg import matmul
from ..ops.methods import Methods
from ..ops.reductions import amax, mean, total
from ..ops.shapes import broadcast_to, getitem, reshape, transpose
from .arrays import as_array, axis_of, index_array, kernel, same_dtype
from .broadcast import unbroadcast

Operand = Any  # a Tensor, an ndarray or a Python number
Array = np.ndarray[Any, Any]


def _operators(op: Op, name: str) -> tuple[Callable[[Tensor, Operand], Tensor], ...]:
    """``x op y`` and the reflected ``y op x``: Tensor's ``__name__`` and ``__rname__``."""

    def forward(x: Tensor, y: Operand) -> Tensor:
        return TENSOR.apply(op, (x, y), {})

    def reflected(x: Tensor, y: Operand) -> Tensor:
        return TENSOR.apply(op, (y, x), {})

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


class Tensor(Methods):
    """An array in a computation graph: ``data`` (an ndarray), ``grad`` and how it was made."""

    __slots__ = (
        "_inputs",
        "_needed",  # the inputs that require a gradient: the engine's inputs
        "_needs",
        "_op",
        "_params",
        "_retain",
        "_where",  # anomaly mode only: where user code made this node
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
    _inputs: tuple[Tensor, ...]
    _needs: tuple[bool, ...]
    _needed: tuple[Tensor, ...]
    _params: dict[str, Any] | None
    _retain: bool
    _where: str

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
    def parents(self) -> tuple[Tensor, ...]:
        """The inputs that gradients flow to: those that require a gradient."""
        return self._needed

    def item(self) -> float:
        if self.data.size != 1:
            raise ValueError(f"item() needs a Tensor of one element, this one has {self.data.size}")
        return float(self.data.reshape(()))

    def detach(self) -> Tensor:
        """The same numbers, cut from the graph (sharing the array, as PyTorch)."""
        return constant(self.data)

    def retain_grad(self) -> None:
        """Keep ``.grad`` on this intermediate after a backward."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        self._retain = True

    def numpy(self) -> Array:
        return self.data

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
    __lt__ = _comparison(np.less, "lt")
    __le__ = _comparison(np.less_equal, "le")
    __gt__ = _comparison(np.greater, "gt")
    __ge__ = _comparison(np.greater_equal, "ge")

    def __neg__(self) -> Tensor:
        return _apply(neg, self)

    def __abs__(self) -> Tensor:
        return self.abs()

    # Reductions.

    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        return _apply(total, self, axis=axis_of(axis), keepdims=keepdims)

    def mean(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        return _apply(mean, self, axis=axis_of(axis), keepdims=keepdims)

    def max(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        """The largest element (along ``axis``); ties share the gradient evenly, as torch.amax."""
        return _apply(amax, self, axis=axis_of(axis), keepdims=keepdims)

    # Shapes and indexing.

    def reshape(self, *shape: Any) -> Tensor:
        target = (
            tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        )
        return _apply(reshape, self, shape=tuple(int(n) for n in target))

    def transpose(self, *axes: Any) -> Tensor:
        given = tuple(axes[0]) if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        order = tuple(normalize_axis_index(int(a), self.ndim) for a in given)
        if sorted(order) != list(range(self.ndim)):
            if given:
                raise ValueError(f"axes {given} are not a permutation of {self.ndim} axes")
            order = tuple(reversed(range(self.ndim)))
        return _apply(transpose, self, axes=order)

    def swapaxes(self, a: int, b: int) -> Tensor:
        order = list(range(self.ndim))
        a, b = (normalize_axis_index(int(n), self.ndim) for n in (a, b))
        order[a], order[b] = order[b], order[a]
        return self.transpose(tuple(order))

    @property
    def T(self) -> Tensor:  # noqa: N802 - PyTorch's and NumPy's name
        return self.transpose()

    def broadcast_to(self, shape: tuple[int, ...]) -> Tensor:
        return _apply(broadcast_to, self, shape=tuple(shape))

    def __getitem__(self, index: Any) -> Tensor:
        """NumPy's indexing, with Tensors as index arrays: integer ones pick, boolean ones mask."""
        if isinstance(index, tuple):
            index = tuple(index_array(i) if isinstance(i, Tensor) else i for i in index)
        elif isinstance(index, Tensor):
            index = index_array(index)
        return _apply(getitem, self, index=index)


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


def constant(data: Any) -> Tensor:
    """A Tensor of these numbers that wants no gradient (a mask, a count, a seed)."""
    out = Tensor.__new__(Tensor)
    _init(out, np.asarray(data), False)
    return out


def as_tensor(x: Operand, like: Tensor | None = None) -> Tensor:
    """An operand as a Tensor: itself, or a constant. A Python number takes the dtype of the
    Tensor it meets (``like``), as in PyTorch: float32 times 2.0 stays float32; an integer
    array (a mask) too; a boolean array stays boolean (a condition)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (np.ndarray, np.generic)) and np.asarray(x).dtype.kind in "biuf":
        array = np.asarray(x)
        if array.dtype.kind in "fb":
            return constant(array)
        return constant(array.astype(like.dtype if like is not None else np.float64))
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return constant(np.asarray(x, dtype=like.dtype if like is not None else np.float64))
    if isinstance(x, bool):
        return constant(np.asarray(x))
    raise TypeError(f"a Tensor cannot be combined with {type(x).__name__}")


def make(data: Any, op: Op, inputs: Sequence[Tensor], params: dict[str, Any] | None) -> Tensor:
    """The result of ``op``: a node when grad mode records and some input requires a gradient,
    else a constant."""
    out = Tensor.__new__(Tensor)
    needs = tuple(t.requires_grad for t in inputs)
    mode = grad_mode.record
    record = bool(mode) and any(needs)
    _init(out, np.asarray(data), record)
    if record:
        out._op, out._inputs, out._needs, out._params = op, tuple(inputs), needs, params or None
        out._needed = tuple([t for t in inputs if t.requires_grad])
        if mode is not True:  # anomaly mode: remember where the user made it
            out._where = place()
    return out


def _apply(op: Op, *args: Any, **params: Any) -> Tensor:
    """``op`` on Tensors (and numbers or arrays): the Tensor kind's own call, typed."""
    return TENSOR.apply(op, args, params)


class TensorKind:
    """The Tensor kind as the engine sees it: inputs that require a gradient, contributions
    summed back to each input's shape, ``.grad`` kept on leaves (and retained intermediates)."""

    name = "tensor"
    rank = 3

    def apply(self, op: Op, args: tuple[Any, ...], params: dict[str, Any]) -> Tensor:
        like = next(filter(Tensor.__instancecheck__, args), None)  # whose dtype numbers take
        inputs = [a if type(a) is Tensor else as_tensor(a, like) for a in args]
        arrays = [t.data for t in inputs]
        if len(arrays) == 2 and arrays[0].dtype != arrays[1].dtype and op.elementwise:
            arrays = same_dtype(arrays)
        with np.errstate(all="ignore"):  # IEEE results (inf, nan), never a warning
            out = kernel(op)(*arrays, **params) if params else kernel(op)(*arrays)
        return make(out, op, inputs, params)

    def op(self, node: Tensor) -> Op | None:
        return node._op

    def operands(self, node: Tensor) -> tuple[Any, ...]:
        return node._inputs

    def params(self, node: Tensor) -> dict[str, Any]:
        return dict(node._params or {})

    def inputs(self, node: Tensor) -> Sequence[Tensor]:
        return node._needed

    def vjp(self, node: Tensor, grad: Any, create_graph: bool) -> list[Any]:
        op = node._op
        assert op is not None
        params = node._params
        if op.takes_needs:
            params = {**(params or {}), "needs": node._needs}
        if create_graph:
            xs: list[Any] = list(node._inputs)
            out: Any = node
            grad = grad if isinstance(grad, Tensor) else constant(grad)
        else:
            xs, out = [t.data for t in node._inputs], node.data
        with np.errstate(all="ignore"):  # IEEE results (inf, nan) in backward too, never a warning
            grads = op.rule(grad, *xs, out, **params) if params else op.rule(grad, *xs, out)
        contributions: list[Any] = []
        for x, g, need in zip(node._inputs, grads, node._needs, strict=True):
            if need:
                if g is None:  # an input that gets nothing (a mask made to want a gradient)
                    g = np.zeros(x.data.shape, x.data.dtype)
                g = unbroadcast(g, x.data.shape)
                if any(g is c for c in contributions):  # never one array for two inputs
                    g = g.copy() if isinstance(g, np.ndarray) else g * 1.0
                contributions.append(g)
        return contributions

    def accumulate(self, node: Tensor, grad: Any) -> None:
        if node._inputs and not node._retain:
            return  # an intermediate keeps no gradient unless asked to
        if not node.requires_grad and not node._retain:
            return
        grad = np.asarray(grad, dtype=node.data.dtype)
        if node.grad is None:
            # a leaf may own the gradient the engine made for it; an intermediate's is passed on
            node.grad = grad if not node._inputs else grad.copy()
        else:
            node.grad = np.asarray(node.grad + grad)  # a 0-d sum would be a NumPy scalar

    def forget(self, node: Tensor) -> None:
        node.grad = None

    def seed(self, node: Tensor, gradient: Any) -> Array:
        if gradient is None and node.data.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        given = np.ones(node.shape) if gradient is None else gradient
        seed = np.array(given.data if isinstance(given, Tensor) else given, dtype=node.dtype)
        if seed.shape != node.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[0] has a shape of {seed.shape} and output[0] "
                f"has a shape of {node.shape}."
            )
        return seed

    def as_grad(self, node: Tensor, grad: Any, create_graph: bool) -> Any:
        grad = np.zeros(node.shape, node.data.dtype) if grad is None else grad
        if create_graph:
            return grad if isinstance(grad, Tensor) else constant(grad)
        return grad.data if isinstance(grad, Tensor) else grad

    def has_nan(self, node: Tensor, grad: Any) -> bool:
        return bool(np.isnan(grad.data if isinstance(grad, Tensor) else grad).any())

    def created_at(self, node: Tensor) -> str | None:
        return getattr(node, "_where", None)


TENSOR = TensorKind()
register_kind(TENSOR, Tensor)
