"""Shapes on Tensors: reshape, transpose, broadcast_to, indexing and its transpose scatter,
concatenate and stack. Each moves elements without changing them, so each gradient is the
same move backwards.

>>> import numpy as np
>>> x, out = np.ones((2, 3, 4)), np.ones((4, 2, 3))
>>> transpose.rule(np.ones((4, 2, 3)), x, out, axes=(2, 0, 1))[0].shape  # grad: out's shape
(2, 3, 4)
"""

from __future__ import annotations

from typing import Any

from ..autograd.registry import ANY, VARIADIC, Case, register
from .helpers import batch_of, shape_of


@register(
    "reshape",
    "x with another shape",
    array="reshape",
    torch="torch.reshape",
    saves=(0,),  # a view of its input: a write to the input shows through
    arity=1,
    domain=(ANY,),
    cases=(Case(((2, 3),), {"shape": (3, 2)}), Case(((2, 3),), {"shape": (6,)})),
    batches=True,
    integers="keep",
    views=True,
)
def reshape(grad: Any, x: Any, out: Any, *, shape: tuple[int, ...]) -> tuple[Any]:
    """the gradient in the input's shape"""
    return (grad.reshape((*batch_of(grad, out), *shape_of(x))),)


@register(
    "transpose",
    "x with its axes permuted",
    array="transpose",
    torch="torch.permute",
    saves=(0,),  # a view of its input: a write to the input shows through
    arity=1,
    domain=(ANY,),
    cases=(Case(((2, 3, 4),), {"axes": (2, 0, 1)}),),
    batches=True,
    integers="keep",
    views=True,
)
def transpose(grad: Any, x: Any, out: Any, *, axes: tuple[int, ...]) -> tuple[Any]:
    """the gradient with the inverse permutation"""
    inverse = sorted(range(len(axes)), key=axes.__getitem__)
    lead = len(batch_of(grad, out))
    return (grad.transpose((*range(lead), *(lead + a for a in inverse))),)


@register(
    "broadcast_to",
    "x repeated along new or unit axes",
    array="broadcast_to",
    torch="torch.broadcast_to",
    saves=(0,),  # a view of its input: a write to the input shows through
    arity=1,
    domain=(ANY,),
    cases=(Case(((3, 1),), {"shape": (2, 3, 4)}),),
    batches=True,
    integers="keep",
    views=True,
)
def broadcast_to(grad: Any, x: Any, out: Any, *, shape: tuple[int, ...]) -> tuple[Any]:
    """the gradient summed back over the repeats (by the engine, as for every broadcast)"""
    return (grad,)


@register(
    "getitem",
    "x[index]",
    array="getitem",
    torch="torch.Tensor.__getitem__",
    saves=(0,),  # a view of its input: a write to the input shows through
    arity=1,
    domain=(ANY,),
    cases=(
        Case(((4, 3),), {"index": ([0, 2, 2],)}),
        Case(((4, 3),), {"index": (slice(None), 1)}),
        Case(((4, 3),), {"index": (slice(3, 0, -2),)}),
    ),
    integers="keep",
    views=True,
)
def getitem(grad: Any, x: Any, out: Any, *, index: Any) -> tuple[Any]:
    """the gradient scattered back into zeros; an index repeated receives each of its gradients"""
    return (scatter(grad, index=index, shape=shape_of(x)),)


@register(
    "scatter",
    "zeros of shape with x added at index",
    array="scatter",
    arity=1,
    torch="torch.Tensor.index_put",
    saves=(),
    domain=(ANY,),
    cases=(Case(((3,),), {"index": ([0, 2, 2],), "shape": (4,)}),),
    integers="keep",
)
def scatter(grad: Any, x: Any, out: Any, *, index: Any, shape: tuple[int, ...]) -> tuple[Any]:
    """the gradient gathered at index: getitem's transpose"""
    return (grad[index],)


@register(
    "concatenate",
    "the inputs joined along axis",
    array="concatenate",
    torch="torch.cat",
    saves=(),
    arity=VARIADIC,
    domain=(ANY, ANY),
    cases=(Case(((2, 3), (2, 1)), {"axis": 1}), Case(((2, 3), (1, 3)), {"axis": 0})),
    integers="keep",
)
def concatenate(grad: Any, *args: Any, axis: int = 0) -> tuple[Any, ...]:
    """the gradient cut back into the inputs' pieces"""
    pieces, start = [], 0
    for x in args[:-1]:
        end = start + shape_of(x)[axis]
        index: list[Any] = [slice(None)] * len(shape_of(x))
        index[axis] = slice(start, end)
        pieces.append(grad[tuple(index)])
        start = end
    return tuple(pieces)


@register(
    "stack",
    "the inputs stacked along a new axis",
    array="stack",
    torch="torch.stack",
    saves=(),
    arity=VARIADIC,
    domain=(ANY, ANY),
    cases=(Case(((2, 3), (2, 3)), {"axis": 1}), Case(((2,), (2,)), {"axis": -1})),
    integers="keep",
)
def stack(grad: Any, *args: Any, axis: int = 0) -> tuple[Any, ...]:
    """the gradient's slices along the new axis"""
    at = axis % len(shape_of(grad))
    return tuple(grad[(slice(None),) * at + (k,)] for k in range(len(args) - 1))
