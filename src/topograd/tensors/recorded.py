"""Writes in place recorded in the graph, as PyTorch records them (``inplace.py`` decides
when: in grad mode, on a Tensor that requires grad or with an operand that does).

PyTorch's graph is made of nodes apart from its tensors, so a write in place gives a tensor a
new node and leaves the old one to whoever used it. topograd's Tensor is its node: the write
moves the Tensor's node into a new Tensor, ``before`` (with a copy of the numbers it had, for
the rules that read them), makes the Tensor the node of the op on ``before``, and writes the
new numbers into the Tensor's own (so a Tensor sharing them sees them, as in PyTorch). The
nodes on the way to the op that were made from the Tensor (``x[i]`` in ``x[i] += y``) are made
from ``before``; any other node made from it before the write refuses a backward
(``kind.check_versions``), rather than send its gradient through the write.

>>> import topograd as tg
>>> w = tg.tensor([1.0, 2.0], requires_grad=True)
>>> h = w * 2.0
>>> h[0] = w[1] * 10.0  # item assignment recorded: h is [20, 4], from w twice
>>> h.sum().backward()
>>> h.tolist(), w.grad.tolist()
([20.0, 4.0], [0.0, 12.0])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd.errors import RuntimeValueError
from ..autograd.versions import WRITES
from ..ops.selection import select
from ..ops.shapes import scatter
from . import dtypes

# What makes a Tensor a node of the graph (``_where`` only in anomaly mode)
_NODE = ("_op", "_inputs", "_needs", "_needed", "_params", "_stamp", "_where", "requires_grad")


def castable(found: dtypes.dtype, into: dtypes.dtype) -> bool:
    """Whether a result of dtype ``found`` may be written into ``into``, as PyTorch's canCast:
    never a float into an integer, nor a number into a bool."""
    return found.category <= into.category


def record(x: Any, name: str, result: Callable[[Any], Any]) -> None:
    """Tensor ``x`` made the node ``result(before)`` (see the module's doc), its numbers
    written in place (``x._store``) and cast to its dtype if they fit it (else refused)."""
    if x.array.base is not None and getattr(x, "_version", None) is not None:
        raise RuntimeError(
            f"{name}: topograd records an in-place op with a gradient only on a Tensor that "
            "holds its own numbers, not on one that shares them (a view: x[1:], x.view(...)); "
            "write into the Tensor it was made from, or use ops"
        )
    before = x._constant(x.array.copy())
    _take_node(before, x)
    out = result(before)
    _repoint(out, x, before)
    into = dtypes.of_numpy(x.array.dtype)
    if out.array.dtype != x.array.dtype:
        if not castable(dtypes.of_numpy(out.array.dtype), into):
            raise RuntimeValueError(
                f"{name}: result type {out.dtype.name} can't be cast to the desired output "
                f"type {into.name}"
            )
        out = out.astype(into)
    x._store(name, out.array)
    _take_node(x, out)
    x._stamp = WRITES.count  # a node made by this write (kind.check_versions reads it)


def placed(x: Any, index: Any, value: Any) -> Callable[[Any], Any]:
    """``x[index] = value`` as an op on ``before``: ``value`` (its leading axes of 1 dropped,
    broadcast) where the index points, ``before``'s numbers elsewhere; an index naming a
    place twice is refused (which of its values would win is no rule to differentiate)."""
    count = np.zeros(x.array.shape, np.intp)
    np.add.at(count, index, 1)
    if count.max(initial=0) > 1:
        raise RuntimeError(
            "__setitem__: an index that names a place twice writes it twice; topograd records "
            "item assignment with a gradient only for an index naming each once"
        )
    shape = x.array.shape
    given = value if hasattr(value, "array") else x._constant(np.asarray(value, x.array.dtype))
    target = x.array[index].shape
    while given.ndim > len(target) and given.shape[0] == 1:  # (as NumPy and PyTorch)
        given = given.reshape(given.shape[1:])
    spread = given.broadcast_to(target)
    mask = x._constant(count.astype(np.bool_))
    return lambda before: select(mask, scatter(spread, index=index, shape=shape), before)


def _take_node(into: Any, source: Any) -> None:
    """``into`` becomes the node ``source`` is (its op, inputs, stamp), keeping its numbers."""
    for name in _NODE:
        if hasattr(source, name):
            setattr(into, name, getattr(source, name))
        elif hasattr(into, name):
            delattr(into, name)


def _repoint(out: Any, old: Any, before: Any) -> None:
    """The nodes on the way to ``out`` made from ``old`` made from ``before``, which now holds
    what ``old`` was; a node is made from ``old`` only since ``old`` was (its stamp), so the
    walk stops at older ones."""
    since, seen, stack = before._stamp, {id(before)}, [out]
    while stack:
        node = stack.pop()
        if id(node) in seen or not node._inputs or node._stamp < since:
            continue
        seen.add(id(node))
        if any(x is old for x in node._inputs):
            node._inputs = tuple(before if x is old else x for x in node._inputs)
            node._needed = tuple(before if x is old else x for x in node._needed)
        stack.extend(x for x in node._needed if x is not before)
