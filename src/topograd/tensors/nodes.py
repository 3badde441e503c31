"""``Tensor.grad_fn``: the node of the graph that made a Tensor, as PyTorch shows it, built on
first asking from the record the op left on its result (its op, inputs and parameters), so
that making a node costs nothing more. Its ``name()`` is PyTorch's for the same call where
topograd's op is PyTorch's ("MulBackward0", "MmBackward0", "AddmmBackward0", "SumBackward1"),
else the op's own name in PyTorch's form ("EinsumBackward0"); ``next_functions`` gives, for
each input, the node that made it, an ``AccumulateGrad`` for a leaf that requires grad (its
``variable`` the leaf), or None.

A node refers to its inputs, never to the Tensor it made (which keeps it, once asked for, for
the next asking): no reference cycle.

>>> import topograd as tg
>>> x = tg.ones(2, 3, requires_grad=True)
>>> y = (x * 2).sum(0)
>>> y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()
('SumBackward1', 'MulBackward0')
>>> y.grad_fn.next_functions[0][0].next_functions[0][0].variable is x
True
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd.registry import Op

Next = tuple[tuple[Any, int], ...]

# registry ops whose PyTorch node has another name, whatever the call
RENAMED = {
    "avg_pool2d": "AvgPool2DBackward0",
    "avg_pool2d_backward": "AvgPool2DBackwardBackward0",
    "broadcast_to": "ExpandBackward0",
    "clamp": "ClampBackward1",  # (limits that are numbers)
    "clamp_between": "ClampBackward0",  # (limits that are Tensors)
    "concatenate": "CatBackward0",
    "conv2d": "ConvolutionBackward0",
    "fold": "Col2ImBackward0",
    "gelu_tanh": "GeluBackward0",
    "gelu_tanh_backward": "GeluBackwardBackward0",
    "log1p": "Log1PBackward0",
    "max_pool2d": "MaxPool2DWithIndicesBackward0",
    "relu_backward": "ThresholdBackwardBackward0",
    "scatter": "IndexPutBackward0",
    "unfold": "Im2ColBackward0",
}
MATMUL = {(1, 1): "DotBackward0", (2, 1): "MvBackward0", (2, 2): "MmBackward0"}
MATMUL[1, 2] = "SqueezeBackward4"


def _ndim(x: Any) -> int:
    return int(np.ndim(getattr(x, "array", x)))


def _matmul(inputs: tuple[Any, ...], params: dict[str, Any]) -> str:
    dims = (_ndim(inputs[0]), _ndim(inputs[1]))
    if dims in MATMUL:
        return MATMUL[dims]
    return "UnsafeViewBackward0" if dims[0] >= 3 or dims[0] == 1 else "MatmulBackward0"


def _by_axis(zero: str, one: str) -> Callable[[tuple[Any, ...], dict[str, Any]], str]:
    """A reduction's name: ``zero`` over all elements, ``one`` along axes."""
    return lambda inputs, params: zero if params.get("axis") is None else one


def _sub(inputs: tuple[Any, ...], params: dict[str, Any]) -> str:
    return "RsubBackward1" if isinstance(inputs[0], numbers.Number) else "SubBackward0"


def _pow(inputs: tuple[Any, ...], params: dict[str, Any]) -> str:
    if isinstance(inputs[1], numbers.Number):
        return "PowBackward0"
    return "PowBackward2" if isinstance(inputs[0], numbers.Number) else "PowBackward1"


def _transpose(inputs: tuple[Any, ...], params: dict[str, Any]) -> str:
    axes = tuple(params.get("axes", ()))
    moved = [i for i, axis in enumerate(axes) if axis != i]
    swapped = len(moved) == 2 and axes[moved[0]] == moved[1]
    return "TransposeBackward0" if swapped else "PermuteBackward0"


def _reshape(inputs: tuple[Any, ...], params: dict[str, Any]) -> str:
    """A view where the numbers' layout allows one, else a copy viewed (PyTorch's reshape)."""
    array = inputs[0].array
    if array.flags.c_contiguous:
        return "ViewBackward0"
    try:
        np.reshape(array, params["shape"], copy=False)
    except ValueError:
        return "UnsafeViewBackward0"
    return "ReshapeAliasBackward0"


def _getitem(inputs: tuple[Any, ...], params: dict[str, Any]) -> str:
    """The node of the last step of PyTorch's indexing: an index array anywhere picks
    (IndexBackward0); else the last number selects, slice slices, None unsqueezes."""
    index = params["index"]
    parts = index if isinstance(index, tuple) else (index,)
    last = "AliasBackward0"
    for part in parts:
        if isinstance(part, (list, np.ndarray, bool)) or hasattr(part, "array"):
            return "IndexBackward0"
        if isinstance(part, slice):
            last = "SliceBackward0"
        elif part is None:
            last = "UnsqueezeBackward0"
        elif part is not Ellipsis:
            last = "SelectBackward0"
    return last


def _astype(inputs: tuple[Any, ...], params: dict[str, Any]) -> str:
    same = np.dtype(params["dtype"]) == inputs[0].array.dtype
    return "CloneBackward0" if same else "ToCopyBackward0"


def _linear(inputs: tuple[Any, ...], params: dict[str, Any]) -> str:
    return "AddmmBackward0" if _ndim(inputs[0]) == 2 else "ViewBackward0"


def _cross_entropy(inputs: tuple[Any, ...], params: dict[str, Any]) -> str:
    classes = np.asarray(getattr(inputs[1], "array", inputs[1])).dtype.kind in "iu"
    return "NllLossBackward0" if classes else "CrossEntropyBackward0"


NAMED: dict[str, Callable[[tuple[Any, ...], dict[str, Any]], str]] = {
    "astype": _astype,
    "cross_entropy": _cross_entropy,
    "getitem": _getitem,
    "linear": _linear,
    "matmul": _matmul,
    "max": _by_axis("MaxBackward1", "AmaxBackward0"),
    "mean": _by_axis("MeanBackward0", "MeanBackward1"),
    "min": _by_axis("MinBackward1", "AminBackward0"),
    "pow": _pow,
    "prod": _by_axis("ProdBackward0", "ProdBackward1"),
    "reshape": _reshape,
    "sub": _sub,
    "sum": _by_axis("SumBackward0", "SumBackward1"),
    "transpose": _transpose,
}
USER = ".forward, defined by the user"  # (a Function subclass's entry: tensors/function.py)


def torch_name(op: Op, inputs: tuple[Any, ...], params: dict[str, Any] | None) -> str:
    """The name PyTorch gives the node of this op on these inputs."""
    if op.maths.endswith(USER):  # PyTorch's name for a Function's node: MyFunctionBackward
        return op.maths.removesuffix(USER).rsplit(".", 1)[-1] + "Backward"
    named = NAMED.get(op.name)
    if named is not None:
        return named(inputs, params or {})
    return RENAMED.get(op.name) or op.grad_fn


class Node:
    """A node of the graph, as PyTorch's ``grad_fn`` shows it (a class of its name for each
    name, as PyTorch's: ``type(y.grad_fn).__name__ == "MulBackward0"``)."""

    __slots__ = ("_next", "_params", "inputs", "metadata", "op")

    def __init__(self, op: Op, inputs: tuple[Any, ...], params: dict[str, Any] | None) -> None:
        self.op, self.inputs, self._params = op, inputs, params
        self.metadata: dict[Any, Any] = {}
        self._next: Next | None = None

    def name(self) -> str:
        return type(self).__name__

    def made(self, op: Op, inputs: tuple[Any, ...]) -> bool:
        """Whether this is the node of ``op`` on these very inputs (an op in place makes a
        Tensor another node)."""
        return self.op is op and self.inputs is inputs

    @property
    def next_functions(self) -> Next:
        """For each input of the op (a where's condition aside, as PyTorch's): (the node that
        made it, or an AccumulateGrad for a leaf that requires grad, or None; 0)."""
        if self._next is None:
            inputs = self.inputs[1:] if self.op.name == "where" else self.inputs
            self._next = tuple((_next_of(x), 0) for x in inputs)
        return self._next

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


class AccumulateGrad:
    """Where a leaf's gradient is added up (``variable``: the leaf), as PyTorch's."""

    __slots__ = ("metadata", "variable")
    next_functions: Next = ()

    def __init__(self, variable: Any) -> None:
        self.variable = variable
        self.metadata: dict[Any, Any] = {}

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # (PyTorch's words)

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {id(self):#x}>"


_KINDS: dict[str, type[Node]] = {}


def node_of(op: Op, inputs: tuple[Any, ...], params: dict[str, Any] | None) -> Node:
    """The node of ``op`` on ``inputs``: of the class named as PyTorch names it."""
    name = torch_name(op, inputs, params)
    kind = _KINDS.get(name)
    if kind is None:
        kind = _KINDS[name] = type(name, (Node,), {"__slots__": (), "__module__": __name__})
    return kind(op, inputs, params)


def _next_of(x: Any) -> Node | AccumulateGrad | None:
    if not getattr(x, "requires_grad", False):
        return None
    if x.is_leaf:
        return AccumulateGrad(x)
    return x.grad_fn  # type: ignore[no-any-return]
