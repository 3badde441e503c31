"""The NumPy ``Tensor``: an ndarray that records the op and the inputs that produced it.

It is a node of the same engine as the scalar ``Value``: the same order, the same ``+=`` over
paths, ``no_grad``, ``grad(create_graph=True)``, anomaly mode. Forwards are here, derivatives in
``rules.py``; broadcasting is undone in one place, ``numerics.unbroadcast``.

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
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import engine
from ..modes import grad_mode, remember
from .numerics import relu as _relu
from .numerics import sigmoid as _sigmoid
from .numerics import unbroadcast
from .rules import VJPS

Operand = Any  # a Tensor, an ndarray or a Python number


def _array(data: Any) -> np.ndarray:
    """float64 for numbers, ints and float64; float32 stays float32."""
    if isinstance(data, Tensor):
        raise TypeError("Tensor() takes an array-like, not a Tensor; use t.detach()")
    if isinstance(data, (str, bytes, dict, set)) or data is None:
        raise TypeError(
            f"Tensor() takes numbers or an array-like of numbers, got {type(data).__name__}"
        )
    array = np.array(data)
    if array.dtype == np.float32:
        return array
    if array.dtype.kind not in "biuf" or array.dtype == np.bool_:
        raise TypeError(f"Tensor() takes real numbers, got an array of {array.dtype}")
    return array.astype(np.float64)


class Tensor:
    """An array in a computation graph: ``data`` (an ndarray), ``grad`` and how it was made."""

    __slots__ = (
        "_ctx",
        "_inputs",
        "_needs",
        "_op",
        "_retain",
        "_where",  # anomaly mode only: where user code made this node
        "data",
        "grad",
        "label",
        "requires_grad",
    )

    __array_ufunc__ = None  # ndarray + Tensor goes to Tensor.__radd__, not to NumPy

    def __init__(self, data: Any, requires_grad: bool = False, label: str = "") -> None:
        self.data = _array(data)
        self.grad: np.ndarray | None = None
        self.requires_grad = bool(requires_grad)
        self.label = label
        self._op = ""
        self._inputs: tuple[Tensor, ...] = ()
        self._needs: tuple[bool, ...] = ()
        self._ctx: Any = None
        self._retain = False

    # Attributes.

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    @property
    def ndim(self) -> int:
        return int(self.data.ndim)

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.data.dtype

    @property
    def op(self) -> str:
        return self._op

    @property
    def parents(self) -> tuple[Tensor, ...]:
        """The inputs that gradients flow to: those that require a gradient."""
        return tuple(t for t, need in zip(self._inputs, self._needs) if need)

    def item(self) -> float:
        if self.data.size != 1:
            raise ValueError(f"item() needs a Tensor of one element, this one has {self.data.size}")
        return float(self.data.reshape(()))

    def detach(self) -> Tensor:
        """The same numbers, cut from the graph (sharing the array, as PyTorch)."""
        out = Tensor.__new__(Tensor)
        _init(out, self.data, False)
        return out

    def retain_grad(self) -> None:
        """Keep ``.grad`` on this intermediate after a backward."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        self._retain = True

    def numpy(self) -> np.ndarray:
        return self.data

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        body = np.array2string(self.data, prefix="Tensor(", separator=", ")
        extra = ", requires_grad=True" if self.requires_grad else ""
        extra += f", op={self._op!r}" if self._op else ""
        return f"Tensor({body}{extra})"

    # Backward.

    def backward(self, gradient: Any = None) -> None:
        """Add d self / d leaf, times ``gradient``, to ``.grad`` of every leaf that requires it."""
        if not self.requires_grad:
            raise RuntimeError(
                "element 0 of tensors does not require grad and does not have a grad_fn"
            )
        engine.backward([self], [_seed_of(self, gradient)])

    def _vjp(self, grad: Any, create_graph: bool) -> list[Any]:
        if create_graph:
            xs: tuple[Any, ...] = self._inputs
            out: Any = self
            if not isinstance(grad, Tensor):
                grad = _constant(grad)
        else:
            xs, out = tuple(t.data for t in self._inputs), self.data
        with np.errstate(all="ignore"):  # IEEE results (inf, nan) in backward too, never a warning
            grads = VJPS[self._op](grad, xs, out, self._ctx, self._needs)
        contributions: list[Any] = []
        for x, g, need in zip(self._inputs, grads, self._needs, strict=True):
            if need:
                g = unbroadcast(g, x.shape)
                if any(g is c for c in contributions):  # never one array for two inputs
                    g = g.copy() if isinstance(g, np.ndarray) else g * 1.0
                contributions.append(g)
        return contributions

    def _accumulate_grad(self, grad: Any) -> None:
        if self._inputs and not self._retain:
            return  # an intermediate keeps no gradient unless asked to
        if not self.requires_grad and not self._retain:
            return
        grad = np.asarray(grad, dtype=self.data.dtype)
        if self.grad is None:
            # a leaf may own the gradient the engine made for it; an intermediate's is passed on
            self.grad = grad if not self._inputs else grad.copy()
        else:
            self.grad = self.grad + grad

    def _seed(self) -> np.ndarray:
        return np.ones(self.data.shape, dtype=self.data.dtype)

    def _as_grad(self, grad: Any, create_graph: bool) -> Any:
        if grad is None:
            grad = np.zeros(self.data.shape, dtype=self.data.dtype)
        if create_graph and not isinstance(grad, Tensor):
            return _constant(grad)
        return grad.data if isinstance(grad, Tensor) and not create_graph else grad

    def _has_nan(self, grad: Any) -> bool:
        return bool(np.isnan(grad.data if isinstance(grad, Tensor) else grad).any())

    # Arithmetic, with Tensors, ndarrays or numbers on either side; NumPy's broadcasting.

    def __add__(self, other: Operand) -> Tensor:
        return _binary("add", np.add, self, other)

    def __radd__(self, other: Operand) -> Tensor:
        return _binary("add", np.add, other, self)

    def __sub__(self, other: Operand) -> Tensor:
        return _binary("sub", np.subtract, self, other)

    def __rsub__(self, other: Operand) -> Tensor:
        return _binary("sub", np.subtract, other, self)

    def __mul__(self, other: Operand) -> Tensor:
        return _binary("mul", np.multiply, self, other)

    def __rmul__(self, other: Operand) -> Tensor:
        return _binary("mul", np.multiply, other, self)

    def __truediv__(self, other: Operand) -> Tensor:
        return _binary("div", np.true_divide, self, other)

    def __rtruediv__(self, other: Operand) -> Tensor:
        return _binary("div", np.true_divide, other, self)

    def __pow__(self, other: Operand) -> Tensor:
        return _binary("pow", np.power, self, other)

    def __rpow__(self, other: Operand) -> Tensor:
        return _binary("pow", np.power, other, self)

    def __matmul__(self, other: Operand) -> Tensor:
        return _binary("matmul", np.matmul, self, other)

    def __rmatmul__(self, other: Operand) -> Tensor:
        return _binary("matmul", np.matmul, other, self)

    def __neg__(self) -> Tensor:
        return _unary("neg", np.negative, self)

    def __abs__(self) -> Tensor:
        return self.abs()

    # Elementwise functions.

    def exp(self) -> Tensor:
        return _unary("exp", np.exp, self)

    def log(self) -> Tensor:
        return _unary("log", np.log, self)

    def tanh(self) -> Tensor:
        return _unary("tanh", np.tanh, self)

    def sigmoid(self) -> Tensor:
        return _unary("sigmoid", _sigmoid, self)

    def relu(self) -> Tensor:
        return _unary("relu", _relu, self)

    def sqrt(self) -> Tensor:
        return _unary("sqrt", np.sqrt, self)

    def sin(self) -> Tensor:
        return _unary("sin", np.sin, self)

    def cos(self) -> Tensor:
        return _unary("cos", np.cos, self)

    def abs(self) -> Tensor:
        return _unary("abs", np.abs, self)

    # Reductions.

    def sum(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        axis = _axis(axis)
        return _unary(
            "sum", lambda x: np.sum(x, axis=axis, keepdims=keepdims), self, (axis, keepdims)
        )

    def mean(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        axis = _axis(axis)
        return _unary(
            "mean", lambda x: np.mean(x, axis=axis, keepdims=keepdims), self, (axis, keepdims)
        )

    def max(self, axis: Any = None, keepdims: bool = False) -> Tensor:
        """The largest element (along ``axis``); ties share the gradient evenly, as torch.amax."""
        axis = _axis(axis)
        return _unary(
            "max", lambda x: np.max(x, axis=axis, keepdims=keepdims), self, (axis, keepdims)
        )

    # Shapes and indexing.

    def reshape(self, *shape: Any) -> Tensor:
        target = (
            tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        )
        return _unary("reshape", lambda x: np.reshape(x, target), self)

    def transpose(self, *axes: Any) -> Tensor:
        order = tuple(axes[0]) if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        order = tuple(int(a) % max(1, self.ndim) for a in order) or tuple(
            reversed(range(self.ndim))
        )
        return _unary("transpose", lambda x: np.transpose(x, order), self, order)

    def swapaxes(self, a: int, b: int) -> Tensor:
        order = list(range(self.ndim))
        order[a], order[b] = order[b], order[a]
        return self.transpose(tuple(order))

    @property
    def T(self) -> Tensor:  # noqa: N802 - PyTorch's and NumPy's name
        return self.transpose()

    def broadcast_to(self, shape: tuple[int, ...]) -> Tensor:
        return _unary("broadcast_to", lambda x: np.broadcast_to(x, shape).copy(), self)

    def __getitem__(self, index: Any) -> Tensor:
        index = index.data.astype(np.intp) if isinstance(index, Tensor) else index
        return _unary("getitem", lambda x: x[index], self, index)

    def scatter(self, index: Any, shape: tuple[int, ...]) -> Tensor:
        """Zeros of ``shape`` with this added at ``index`` (repeats accumulate): getitem's
        transpose, used when its gradient must itself be differentiated."""

        def forward(g: np.ndarray) -> np.ndarray:
            out = np.zeros(shape, dtype=g.dtype)
            np.add.at(out, index, g)
            return out

        return _unary("scatter", forward, self, (index, shape))


def _init(out: Tensor, data: np.ndarray, requires_grad: bool) -> None:
    out.data = data
    out.grad = None
    out.requires_grad = requires_grad
    out.label = ""
    out._op = ""
    out._inputs = ()
    out._needs = ()
    out._ctx = None
    out._retain = False


def _constant(data: Any) -> Tensor:
    out = Tensor.__new__(Tensor)
    _init(out, np.asarray(data), False)
    return out


def as_tensor(x: Operand, like: Tensor | None = None) -> Tensor:
    """An operand as a Tensor: itself, or a constant. A Python number takes the dtype of the
    Tensor it meets (``like``), as in PyTorch: float32 times 2.0 stays float32."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (np.ndarray, np.generic)) and np.asarray(x).dtype.kind in "biuf":
        array = np.asarray(x)
        if array.dtype.kind == "f":
            return _constant(array)
        return _constant(array.astype(like.dtype if like is not None else np.float64))  # masks
    if isinstance(x, numbers.Real) and not isinstance(x, bool):
        return _constant(np.asarray(x, dtype=like.dtype if like is not None else np.float64))
    raise TypeError(f"a Tensor cannot be combined with {type(x).__name__}")


def make(data: Any, op: str, inputs: Sequence[Tensor], ctx: Any = None) -> Tensor:
    """The result of ``op``: a node when grad mode records and some input requires a gradient,
    else a constant."""
    out = Tensor.__new__(Tensor)
    needs = tuple(t.requires_grad for t in inputs)
    mode = grad_mode.record
    record = bool(mode) and any(needs)
    _init(out, np.asarray(data), record)
    if record:
        out._op, out._inputs, out._needs, out._ctx = op, tuple(inputs), needs, ctx
        if mode is not True:  # anomaly mode: remember where the user made it
            remember(out)
    return out


def _binary(op: str, forward: Any, a: Operand, b: Operand) -> Tensor:
    x = as_tensor(a, b if isinstance(b, Tensor) else None)
    y = as_tensor(b, x)
    xd, yd = x.data, y.data
    if xd.dtype != yd.dtype and (xd.ndim == 0) != (yd.ndim == 0):  # PyTorch: a 0-d tensor
        xd, yd = (xd.astype(yd.dtype), yd) if xd.ndim == 0 else (xd, yd.astype(xd.dtype))  # follows
    with np.errstate(all="ignore"):  # IEEE results (inf, nan), never a warning
        return make(forward(xd, yd), op, (x, y))


def _unary(op: str, forward: Any, x: Tensor, ctx: Any = None) -> Tensor:
    with np.errstate(all="ignore"):
        return make(forward(x.data), op, (x,), ctx)


def _axis(axis: Any) -> Any:
    """None, an int or a tuple of ints (NumPy integers and lists accepted)."""
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return tuple(int(a) for a in axis)
    return int(axis)


def _seed_of(output: Tensor, gradient: Any) -> np.ndarray:
    if gradient is None:
        if output.data.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        return output._seed()
    seed = np.array(gradient.data if isinstance(gradient, Tensor) else gradient, dtype=output.dtype)
    if seed.shape != output.shape:
        raise RuntimeError(
            f"Mismatch in shape: grad_output[0] has a shape of {seed.shape} and output[0] has a "
            f"shape of {output.shape}."
        )
    return seed
