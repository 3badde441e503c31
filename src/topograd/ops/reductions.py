"""Reductions: ``sum`` (of several Values, or of a Tensor's elements), ``mean``, ``max``,
``min``, ``logsumexp``, ``var`` and ``cumsum``.

``sum`` is one op in both kinds: the sum of its summands. ``tg.sum([a, b, c])`` adds three
Values in one node; ``t.sum(axis)`` adds a Tensor's elements. Either way every summand gets
the upstream gradient.

>>> total.rule(2.0, 1.0, 5.0, 6.0)
(2.0, 2.0)
"""

from __future__ import annotations

from typing import Any

from ..autograd.registry import ANY, OUT, VARIADIC, Case, Difference, register
from . import floats
from .arithmetic import div
from .elementary import exp
from .floats import INF, NAN
from .helpers import data, shape_of, sum_of
from .selection import where, zeros_like
from .shapes import broadcast_to, concatenate, getitem

_AXES = (
    Case(((2, 3),), {"axis": None, "keepdims": False}),
    Case(((2, 3),), {"axis": 1, "keepdims": True}),
    Case(((2, 3, 4),), {"axis": (0, 2), "keepdims": False}),
    Case(((2, 3),), {"axis": -1, "keepdims": False}),
)


def expand(grad: Any, x: Any, axis: Any, keepdims: bool) -> Any:
    """A reduced gradient spread back over the reduced axes of ``x`` (a summand's gradient
    itself, for a sum of Values); leading batch axes on ``grad`` stay in front."""
    if not hasattr(grad, "shape"):
        return grad
    target = shape_of(x)
    reduced = range(len(target)) if axis is None else (axis,) if isinstance(axis, int) else axis
    axes = sorted(a % len(target) for a in reduced) if target else []
    rank = len(target) if keepdims else len(target) - len(axes)  # the output's
    lead = shape_of(grad)[: len(shape_of(grad)) - rank]
    if not keepdims:
        kept = list(shape_of(grad))
        for a in axes:
            kept.insert(len(lead) + a, 1)
        grad = grad.reshape(tuple(kept))
    return broadcast_to(grad, shape=(*lead, *target))


@register(
    "sum",
    "x₁ + … + xₙ: the summands, or a Tensor's elements (along axis)",
    scalar=floats.total,
    array="total",
    torch="torch.sum",
    saves=(),
    arity=VARIADIC,
    domain=(ANY, ANY, ANY),
    cases=_AXES,
    batches=True,
    forward=lambda *args: sum_of(t for t in args[: (len(args) - 1) // 2] if t is not None),
    integers="int64",
)
def total(grad: Any, *args: Any, axis: Any = None, keepdims: bool = False) -> tuple[Any, ...]:
    """1 for every summand (every element)"""
    return tuple(expand(grad, x, axis, keepdims) for x in args[:-1])


@register(
    "mean",
    "the mean of the elements (along axis)",
    array="mean",
    torch="torch.mean",
    saves=(),
    arity=1,
    domain=(ANY,),
    cases=_AXES,
    batches=True,
    integers="floats",
)
def mean(grad: Any, x: Any, out: Any, *, axis: Any = None, keepdims: bool = False) -> tuple[Any]:
    """1 / n for every element, n the number averaged"""
    count = data(x).size // max(1, data(out).size)
    return (expand(grad, x, axis, keepdims) / count,)


@register(
    "max",
    "the largest element (along axis)",
    array="max",
    torch="torch.amax",
    saves=(0, OUT),
    arity=1,
    domain=(ANY,),
    cases=(*_AXES, Case(((3, 3),), {"axis": 0, "keepdims": False})),
    special=[(([1.0, 3.0, 3.0],), 3.0, ([0.0, 0.5, 0.5],))],
    batches=True,
    integers="keep",
)
def amax(grad: Any, x: Any, out: Any, *, axis: Any = None, keepdims: bool = False) -> tuple[Any]:
    """1 for the largest element; ties share it evenly, as torch.amax"""
    return (_shared(grad, x, out, axis, keepdims),)


@register(
    "min",
    "the smallest element (along axis)",
    array="min",
    torch="torch.amin",
    saves=(0, OUT),
    arity=1,
    domain=(ANY,),
    cases=(*_AXES, Case(((3, 3),), {"axis": 0, "keepdims": False})),
    special=[(([1.0, 1.0, 3.0],), 1.0, ([0.5, 0.5, 0.0],))],
    batches=True,
    integers="keep",
)
def amin(grad: Any, x: Any, out: Any, *, axis: Any = None, keepdims: bool = False) -> tuple[Any]:
    """1 for the smallest element; ties share it evenly, as torch.amin"""
    return (_shared(grad, x, out, axis, keepdims),)


def _shared(grad: Any, x: Any, out: Any, axis: Any, keepdims: bool) -> Any:
    """The gradient of a max or a min: to the elements equal to it, shared evenly."""
    xd = data(x)
    hits = xd == expand(data(out), xd, axis, keepdims)
    count = expand(hits.sum(axis=axis, keepdims=keepdims), xd, axis, keepdims)
    share = (hits / count).astype(xd.dtype)  # a float32 input keeps float32 gradients
    return expand(grad, xd, axis, keepdims) * share


_STACKED = (
    "PyTorch's is logsumexp of the operands stacked into a vector: its second derivative adds "
    "the term through each operand and the one through the result apart (0 x inf is nan there, "
    "and a sum of zeros ends +0), where this node's rule gives one term per pair of operands"
)


@register(
    "logsumexp",
    "log Σ e^x of the operands (a Value's: a softmax's denominator) or of a Tensor's elements"
    " (along axis), shifted by the largest: no overflow",
    scalar=floats.log_sum_exp,
    array="logsumexp",
    torch="torch.logsumexp",
    saves=(0, OUT),
    arity=VARIADIC,
    domain=(ANY, ANY, ANY),
    cases=(
        Case(((2, 3),), {"axis": 1, "keepdims": False}),
        Case(((2, 3),), {"axis": 0, "keepdims": True}),
        Case(((2, 3, 4),), {"axis": (0, 2), "keepdims": False}),
    ),
    differs=[
        Difference((), "d2", -0.0, 0.0, _STACKED, anywhere=True),
        Difference((), "d2", -INF, NAN, _STACKED, anywhere=True),
        Difference((), "d2", INF, NAN, _STACKED, anywhere=True),
    ],
    batches=True,
)
def logsumexp(grad: Any, *args: Any, axis: Any = None, keepdims: bool = False) -> tuple[Any, ...]:
    """e^(x - out) for each operand (each element, along axis): the softmax, as PyTorch's
    grad * (x - result).exp()"""
    *xs, out = args
    return tuple(
        expand(grad, x, axis, keepdims) * exp(x - expand(out, x, axis, keepdims)) for x in xs
    )


@register(
    "var",
    "Σ (x - mean)² / (n - correction) (along axis)",
    array="var",
    torch="torch.var",
    saves=(0,),
    arity=1,
    domain=(ANY,),
    cases=(
        Case(((2, 3),), {"axis": None, "correction": 1, "keepdims": False}),
        Case(((2, 3),), {"axis": 1, "correction": 0, "keepdims": True}),
        Case(((2, 3, 4),), {"axis": (0, 2), "correction": 1, "keepdims": False}),
    ),
    batches=True,
    integers="floats",
)
def var(
    grad: Any, x: Any, out: Any, *, axis: Any = None, correction: float = 1, keepdims: bool = False
) -> tuple[Any]:
    """2 (x - mean) / (n - correction), as PyTorch's (2 / dof) grad (x - mean), the dof as it
    is where it is 0 or less (the forward counts it as 0)"""
    count = data(x).size // max(1, data(out).size)
    scale = floats.div(2.0, float(count - correction))
    centred = x - mean(x, axis=axis, keepdims=True)  # (the op: quiet for a mean of nothing)
    return ((expand(grad, x, axis, keepdims) * scale) * centred,)


@register(
    "std",
    "√var (along axis)",
    array="std",
    torch="torch.std",
    saves=(0, OUT),
    arity=1,
    domain=(ANY,),
    cases=(
        Case(((2, 3),), {"axis": None, "correction": 1, "keepdims": False}),
        Case(((2, 3),), {"axis": 1, "correction": 0, "keepdims": True}),
    ),
    batches=True,
    integers="floats",
)
def std(
    grad: Any, x: Any, out: Any, *, axis: Any = None, correction: float = 1, keepdims: bool = False
) -> tuple[Any]:
    """var's, fed grad / (2 std), and 0 where std is 0 (constant data), as PyTorch's"""
    halved = where(data(out) == 0, 0.0, div(grad, out * 2.0))
    return var.rule(halved, x, out, axis=axis, correction=correction, keepdims=keepdims)


@register(
    "cumsum",
    "the running sums along axis",
    array="cumsum",
    torch="torch.cumsum",
    saves=(),
    arity=1,
    domain=(ANY,),
    cases=(Case(((2, 3),), {"axis": 1}), Case(((3, 2),), {"axis": 0}), Case(((4,),), {"axis": -1})),
    batches=True,
    integers="int64",
)
def cumsum(grad: Any, x: Any, out: Any, *, axis: int) -> tuple[Any]:
    """the running sums of the gradient from the other end"""
    along = axis - len(shape_of(x)) if axis >= 0 else axis  # from the end: a batch in front
    back = (Ellipsis, slice(None, None, -1), *(slice(None),) * (-along - 1))
    return (getitem(cumsum(getitem(grad, index=back), axis=along), index=back),)


def prod_tangent(tx: Any, x: Any, out: Any, *, axis: Any = None, keepdims: bool = False) -> Any:
    """PyTorch's forward rule: Σ t · (the product of the others) along the axis, from +0.0 (a
    batch of tangents in front stays there)."""
    rank = len(shape_of(x))
    if rank == 0:
        return tx * 1.0 + 0.0  # a sum of one term, from +0.0
    lead = len(shape_of(tx)) - rank
    axes = range(rank) if axis is None else (axis % rank,)
    found = _others(x, out, axis, keepdims) * tx
    return total(found, axis=tuple(lead + a for a in axes), keepdims=keepdims) + 0.0


def _others(x: Any, out: Any, axis: Any, keepdims: bool) -> Any:
    """Each element's product of the others: PyTorch's out / x where no element is 0, else its
    exclusive running products (along the flattened input where axis is None)."""
    xd = data(x)
    if not (xd == 0.0).any():
        return div(expand(out, x, axis, keepdims), x)
    if axis is None:
        before, after = _exclusive(x.reshape((xd.size,)), 0)
        return (before * after).reshape(xd.shape)
    before, after = _exclusive(x, axis % xd.ndim)
    return before * after


def _exclusive(x: Any, axis: int) -> tuple[Any, Any]:
    """The products of the elements before each along ``axis``, and of those after it, each a
    running product from its end (PyTorch's exclusive cumprods): 1 at the ends."""
    xd, below = data(x), (slice(None),) * axis
    if xd is x:  # arrays: accumulated in float64 (float32 for float16), as PyTorch's cumprod
        wide = "float32" if xd.dtype.itemsize < 4 else "float64"
        before, after = xd.copy(), xd.copy()
        before[(*below, 0)], after[(*below, -1)] = 1.0, 1.0
        running = xd[(*below, slice(None, -1))].cumprod(axis, dtype=wide)
        before[(*below, slice(1, None))] = running.astype(xd.dtype)
        running = xd[(*below, slice(None, 0, -1))].cumprod(axis, dtype=wide)
        after[(*below, slice(-2, None, -1))] = running.astype(xd.dtype)
        return before, after
    pieces = [getitem(x, index=(*below, slice(k, k + 1))) for k in range(xd.shape[axis])]
    one = zeros_like(pieces[0]) + 1.0
    before, after = [one], [one]
    for k in range(1, len(pieces)):
        before.append(pieces[0] if k == 1 else before[-1] * pieces[k - 1])
        after.append(pieces[-1] if k == 1 else after[-1] * pieces[-k])
    return concatenate(*before, axis=axis), concatenate(*after[::-1], axis=axis)


@register(
    "prod",
    "x₁ × … × xₙ: the product of a Tensor's elements (along axis)",
    array="prod",
    torch="torch.prod",
    saves=(0, OUT),
    arity=1,
    domain=(ANY,),
    cases=(
        Case(((2, 3),), {"axis": None, "keepdims": False}),
        Case(((2, 3),), {"axis": 1, "keepdims": True}),
        Case(((3, 2),), {"axis": 0, "keepdims": False}),
    ),
    batches=True,
    forward=prod_tangent,
    integers="int64",
)
def prod(grad: Any, x: Any, out: Any, *, axis: Any = None, keepdims: bool = False) -> tuple[Any]:
    """the product of the others, as PyTorch's prod_backward: out / x where no element is 0;
    where any is (in any slice), the running product of those before times that of those
    after, each from its end (exact at a zero: finite where the others' product is); in an
    ordinary backward of the whole product with two zeros or more, 0; a 0-d input passes the
    gradient through"""
    g = expand(grad, x, axis, keepdims)
    xd = data(x)
    if xd is x and axis is None and (xd == 0.0).sum() > 1:  # PyTorch's, without a graph
        return (zeros_like(g),)
    return (g if xd.ndim == 0 else g * _others(x, out, axis, keepdims),)
