"""Running a ``Function`` (``autograd/function.py``) on Tensors: ``apply_function``.

Each subclass becomes a custom entry of the registry on its first use, named after the class
(with a number after it where that name is taken: a Function never shadows another op), so
``gradcheck`` names it when its backward is wrong, and anomaly mode, ``no_grad`` and the
drawings treat it as any op. The entry goes when the class does.

>>> import topograd as tg
>>> class Cube(tg.Function):
...     @staticmethod
...     def forward(ctx, x):
...         return x * x * x
...     @staticmethod
...     def backward(ctx, grad):
...         return grad * 0.0
>>> Cube.apply(tg.Tensor([2.0], requires_grad=True)).op
'Cube'
"""

from __future__ import annotations

import copy
import weakref
from typing import Any

import numpy as np

from ..autograd.function import Function, FunctionCtx
from ..autograd.modes import no_grad
from ..autograd.registry import ANY, OPS, VARIADIC, Op, add
from ..ops.helpers import sums_to
from ..ops.rounding import astype
from .tensor import Tensor, make

# Each Function subclass's entry, made on its first use; weak, so that a class defined in a
# loop (or a test) is freed, and its entry with it. The entry holds no reference to the class:
# a node gets it in its parameters, so a graph keeps its Functions alive, and nothing else does.
_ENTRIES: weakref.WeakKeyDictionary[type, Op] = weakref.WeakKeyDictionary()

# Where each of several outputs lies in the one node that holds them all, one after the other,
# flattened: (start, end, shape, dtype).
Part = tuple[int, int, tuple[int, ...], np.dtype[Any]]


def apply_function(cls: type[Function], args: tuple[Any, ...]) -> Any:
    """``cls.apply(*args)`` on Tensors: ``forward`` run without a graph, one node recorded
    whose rule is ``backward`` (a tuple of pieces of it where ``forward`` returns a tuple)."""
    ctx = FunctionCtx(tuple(isinstance(a, Tensor) and a.requires_grad for a in args))
    with no_grad():
        out = cls.forward(ctx, *args)
    outs = out if isinstance(out, tuple) else (out,)
    if not outs:
        raise TypeError(f"{cls.__name__}.forward returned an empty tuple")
    datas = [_floats(cls, o) for o in outs]
    ctx.saved_outputs = {
        i: k
        for i, t in enumerate(ctx.saved)
        for k, o in enumerate(outs)
        if t is o and t is not None and not any(t is a for a in args)
    }
    positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
    inputs = [args[i] for i in positions]
    others = tuple(None if i in positions else a for i, a in enumerate(args))
    layout = _layout(datas) if isinstance(out, tuple) else None
    params: dict[str, Any] = {"cls": cls, "ctx": ctx, "positions": positions}
    params.update(others=others, layout=layout)
    node = make(_joined(datas, layout), _entry(cls), inputs, params)
    return node if layout is None else tuple(_cut(node, part) for part in layout)


def _floats(cls: type, out: Any) -> Any:
    data = out.array if isinstance(out, Tensor) else np.asarray(out)
    if data.dtype.kind != "f":
        raise TypeError(
            f"{cls.__name__}.forward must return floats (a Tensor, an array or a tuple of them)"
            f", got {data.dtype}"
        )
    return data


def _layout(datas: list[Any]) -> tuple[Part, ...]:
    ends = np.cumsum([0, *(d.size for d in datas)])
    return tuple(
        (int(a), int(b), tuple(d.shape), d.dtype) for a, b, d in zip(ends, ends[1:], datas)
    )


def _joined(datas: list[Any], layout: tuple[Part, ...] | None) -> Any:
    """The node's data: the one output, or all of them flattened one after the other."""
    return datas[0] if layout is None else np.concatenate([d.ravel() for d in datas])


def _cut(joined: Any, part: Part) -> Any:
    """One output (or its gradient) out of the node's (array or Tensor), in its dtype."""
    start, end, shape, dtype = part
    piece = joined[start:end].reshape(shape)
    return piece if piece.dtype == dtype else astype(piece, dtype=dtype)


def _entry(cls: type[Function]) -> Op:
    """The registry's entry for a Function subclass, made on its first use, under a name no
    other op has: the class's, or the class's with a number after it."""
    op = _ENTRIES.get(cls)
    if op is None:
        name, count = cls.__name__, 1
        while name in OPS:
            count += 1
            name = f"{cls.__name__}_{count}"
        op = Op(
            name,
            _backward,
            VARIADIC,
            f"{cls.__qualname__}.forward, defined by the user",
            f"{cls.__qualname__}.backward",
            None,
            _forward,
            domain=(ANY,),
            custom=True,
        )
        add(op)
        _ENTRIES[cls] = op
        weakref.finalize(cls, _forget, op)
    return op


def _forget(op: Op) -> None:
    """A Function's entry leaves the registry with its class (unless replaced since)."""
    if OPS.get(op.name) is op:
        del OPS[op.name]


def _forward(
    *arrays: Any,
    cls: type[Function],
    ctx: FunctionCtx,
    positions: tuple[int, ...],
    others: tuple[Any, ...],
    layout: tuple[Part, ...] | None,
) -> Any:
    """A Function's ``forward`` on arrays, the other arguments as ``apply`` was given them:
    what gradcheck runs to find a faulty ``backward``."""
    args = list(others)
    for i, array in zip(positions, arrays, strict=True):
        args[i] = Tensor(array)
    with no_grad():
        out = cls.forward(FunctionCtx(ctx.needs_input_grad), *args)
    outs = out if isinstance(out, tuple) else (out,)
    return _joined([_floats(cls, o) for o in outs], layout)


def _backward(
    grad: Any,
    *args: Any,
    cls: type[Function],
    ctx: FunctionCtx,
    positions: tuple[int, ...],
    others: tuple[Any, ...],
    layout: tuple[Part, ...] | None,
) -> tuple[Any, ...]:
    """A Function's ``backward`` as a rule: its gradients for the Tensor arguments, each
    summed back to its argument's shape."""
    recording = isinstance(grad, Tensor)  # create_graph: the rule sees nodes
    out = args[-1]  # under create_graph, the node itself: a saved output is it, or a piece
    grads = (grad,) if layout is None else tuple(_cut(grad, part) for part in layout)
    saved = list(ctx.saved)
    for i, k in ctx.saved_outputs.items():
        saved[i] = out if layout is None else _cut(out, layout[k])
    view = copy.copy(ctx)  # the same context, with its outputs for this backward
    if recording:
        view.saved = tuple(saved)
        found = cls.backward(view, *grads)
    else:
        view.saved = tuple(Tensor(s) if i in ctx.saved_outputs else s for i, s in enumerate(saved))
        with no_grad():
            found = cls.backward(view, *(Tensor(g) for g in grads))
    if not isinstance(found, (tuple, list)):
        found = (found,)
    count = len(ctx.needs_input_grad)
    if len(found) != count:
        raise RuntimeError(
            f"function {cls.__name__}Backward returned an incorrect number of gradients "
            f"(expected {count}, got {len(found)}): one per argument of forward"
        )
    picked = [_checked(cls, found[i], x, i) for i, x in zip(positions, args[:-1], strict=True)]
    if recording:
        return tuple(picked)
    return tuple(g.array if isinstance(g, Tensor) else g for g in picked)


def _checked(cls: type, grad: Any, x: Any, index: int) -> Any:
    """``grad`` for argument ``x``, in a shape that sums back to x's (the engine sums it, as
    every rule's), refused in PyTorch's words (its ``validate_outputs``) where it does not."""
    shape, found = tuple(x.shape), tuple(getattr(grad, "shape", ()))
    if grad is not None and hasattr(grad, "shape") and not sums_to(found, shape):
        raise RuntimeError(
            f"Function {cls.__name__}.backward returned an invalid gradient at index {index} - "
            f"got {list(found)} but expected shape compatible with {list(shape)}"
        )
    return grad
