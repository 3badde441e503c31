"""Fused functions of many Values: ``tg.sum``, ``tg.dot``, ``tg.affine``, each one node.

>>> import topograd as tg
>>> xs = [tg.Value(1.0), tg.Value(2.0), 3]
>>> s = tg.sum(xs)
>>> s.backward()
>>> s.op, s.data, len(s.parents), xs[0].grad
('sum', 6.0, 3, 1.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, overload

from ..autograd.kinds import kind_of
from ..ops import floats
from ..ops.linalg import affine as affine_op
from ..ops.linalg import dot as dot_op
from ..ops.linalg import neuron as neuron_op
from ..ops.reductions import total
from .value import Real, Value, as_values, constant, fused, new_node


@overload
def sum_of(values: Iterable[Value | Real]) -> Value: ...


@overload
def sum_of(values: Any, *args: Any, **kwargs: Any) -> Any: ...


def sum_of(values: Any, *args: Any, **kwargs: Any) -> Any:
    """x1 + ... + xn as one node with n operands (the built-in ``sum`` makes a chain of n). A
    Tensor sums itself, as PyTorch's ``torch.sum(x, dim=...)``."""
    if kind_of(values) is not None and not isinstance(values, Value):
        return values.sum(*args, **kwargs)
    if args or kwargs:
        raise TypeError("tg.sum of Values takes the Values alone")
    operands = as_values(values, "sum")
    if not operands:
        return constant(0.0)
    return fused(total, operands)


def dot(ws: Sequence[Value | Real], xs: Sequence[Value | Real]) -> Value:
    """w1 x1 + ... + wn xn as one node whose operands are w1 ... wn, x1 ... xn.

    >>> import topograd as tg
    >>> w = [tg.Value(2.0), tg.Value(-1.0)]
    >>> y = tg.dot(w, [3.0, 4.0])
    >>> y.backward()
    >>> y.op, y.data, [v.grad for v in w]
    ('dot', 2.0, [3.0, 4.0])
    """
    if kind_of(ws) is not None and not isinstance(ws, Value):  # torch.dot of two vectors
        if getattr(ws, "ndim", 0) != 1 or getattr(xs, "ndim", 0) != 1:
            raise RuntimeError("1D tensors expected, but got other tensors")
        return ws @ xs  # type: ignore[no-any-return, operator]
    if len(ws) != len(xs):
        raise ValueError(f"dot() takes two sequences of one length, got {len(ws)} and {len(xs)}")
    operands = as_values([*ws, *xs], "dot")
    if not operands:
        return constant(0.0)
    return fused(dot_op, operands)


def affine(ws: Sequence[Value | Real], xs: Sequence[Value | Real], b: Value | Real) -> Value:
    """w1 x1 + ... + wn xn + b as one node whose operands are w1 ... wn, x1 ... xn, b: a
    neuron before its nonlinearity.

    >>> import topograd as tg
    >>> w, b = [tg.Value(2.0), tg.Value(-1.0)], tg.Value(0.5)
    >>> y = tg.affine(w, [3.0, 4.0], b)
    >>> y.backward()
    >>> y.op, y.data, [v.grad for v in w], b.grad
    ('affine', 2.5, [3.0, 4.0], 1.0)
    """
    if len(ws) != len(xs):
        raise ValueError(f"affine() takes two sequences of one length, got {len(ws)} and {len(xs)}")
    operands = as_values([*ws, *xs, b], "affine")
    n = len(ws)
    return neuron(operands[:n], operands[n:-1], operands[-1], relu=False)


def neuron(ws: Sequence[Value], xs: Sequence[Value], b: Value, relu: bool) -> Value:
    """relu(w . x + b) as one ``neuron`` node, or w . x + b as one ``affine`` node, for callers
    that hold Values already (``nn.Neuron``): the hot path."""
    return neurons([(ws, b, relu)], xs)[0]


Unit = tuple[Sequence[Value], Value, bool]


def neurons(units: Sequence[Unit], xs: Sequence[Value]) -> list[Value]:
    """``neuron`` for each unit (ws, b, relu) of a layer, on the same inputs ``xs``, their
    numbers read once for all (``nn.Layer``): the hot path, its one check the lengths."""
    numbers = [x.data for x in xs]
    n = len(numbers)
    out = []
    for ws, b, relu in units:
        if len(ws) != n:
            raise ValueError(f"a neuron of {len(ws)} inputs got {n}")
        data = floats.dot_of([w.data for w in ws], numbers) + b.data
        if relu:  # floats.relu, written out as Value.relu does: the hottest line of a network
            out.append(new_node(0.0 if data < 0.0 else data, neuron_op, (*ws, *xs, b)))
        else:
            out.append(new_node(data, affine_op, (*ws, *xs, b)))
    return out
