"""Selection: ``where``, the choice that rules use to say "this input gets nothing here", and
``maximum``/``minimum``, which pick one of two.

A rule that multiplied a zero partial by the upstream gradient would give nan for an infinite
or nan upstream gradient (0 x inf); PyTorch's ``threshold_backward`` (relu), ``where`` and
``pow`` with a zero exponent select instead, and so do topograd's rules, through ``where``.

>>> where(True, 1.0, float("nan")), where(False, 1.0, 0.0)
(1.0, 0.0)
"""

from __future__ import annotations

from typing import Any

from ..autograd.registry import ANY, Case, Code, Given, register
from . import floats
from .floats import INF, NAN
from .helpers import data


@register(
    "where",
    "x where cond holds, else y",
    scalar=floats.choose,
    array="where",
    torch="torch.where",
    saves=(0,),
    arity=3,
    domain=(ANY, ANY, ANY),
    special=[((0.0, 1.0, 2.0), 2.0, (0.0, 0.0, 1.0))],  # a Value's condition 0: does not hold
    code=Code("{1} if {0} else {2}", (None, "{g} if {0} else 0.0", "0.0 if {0} else {g}")),
    cases=(
        Case((Given([[True, False, True], [False, False, True]]), (2, 3), (2, 3))),
        Case((Given([True, False, True]), (2, 3), (1,))),
    ),
    batches=True,
    integers="select",
)
def select(grad: Any, cond: Any, x: Any, y: Any, out: Any) -> tuple[Any, ...]:
    """grad where cond holds for x, and where it does not for y; nothing for cond"""
    return None, where(cond, grad, 0.0), where(cond, 0.0, grad)


def where(cond: Any, x: Any, y: Any) -> Any:
    """``x`` where ``cond`` holds, else ``y``: a choice, not a product.

    A Python bool between two numbers chooses at once (an ordinary backward of Values). Where a
    branch is a node (a rule under ``create_graph``) the choice is recorded, as PyTorch's
    ``at::where`` is, so that a second derivative sees it: the branch not taken gets +0.0 there.
    Arrays, masks and Tensors go through the ``where`` op (broadcasting)."""
    if (cond is True or cond is False) and type(x) in _PLAIN and type(y) in _PLAIN:
        return x if cond else y
    return select(data(cond), x, y)


_PLAIN = {float, int}


def zeros_like(x: Any) -> Any:
    """Zeros in the shape of ``x`` (0.0 for a number), recording nothing: what an input gets
    where it gets nothing, whatever the upstream gradient holds."""
    return select(False, data(x), 0.0) if hasattr(x, "shape") else 0.0


@register(
    "maximum",
    "the larger of x and y, nan if either is",
    scalar=floats.maximum,
    array="maximum",
    torch="torch.maximum",
    saves=(0, 1),
    domain=(ANY, ANY),
    special=[
        ((2.0, 1.0), 2.0, (1.0, 0.0)),
        ((1.0, 1.0), 1.0, (0.5, 0.5)),
        ((-0.0, 0.0), -0.0, (0.5, 0.5)),
        ((NAN, 1.0), NAN, (1.0, 1.0)),
        ((-INF, 1.0), 1.0, (0.0, 1.0)),
    ],
    forward=lambda tx, ty, x, y, out: _picked_tangent(tx, ty, x, y, out, larger=True),
    integers="keep",
)
def maximum(grad: Any, x: Any, y: Any, out: Any) -> tuple[Any, Any]:
    """grad to the larger, half to each at a tie, all to both at nan, as PyTorch's"""
    return _shared(grad, x, y, larger=True)


@register(
    "minimum",
    "the smaller of x and y, nan if either is",
    scalar=floats.minimum,
    array="minimum",
    torch="torch.minimum",
    saves=(0, 1),
    domain=(ANY, ANY),
    special=[
        ((2.0, 1.0), 1.0, (0.0, 1.0)),
        ((1.0, 1.0), 1.0, (0.5, 0.5)),
        ((0.0, -0.0), 0.0, (0.5, 0.5)),
        ((1.0, NAN), NAN, (1.0, 1.0)),
    ],
    forward=lambda tx, ty, x, y, out: _picked_tangent(tx, ty, x, y, out, larger=False),
    integers="keep",
)
def minimum(grad: Any, x: Any, y: Any, out: Any) -> tuple[Any, Any]:
    """grad to the smaller, half to each at a tie, all to both at nan, as PyTorch's"""
    return _shared(grad, x, y, larger=False)


def _shared(grad: Any, x: Any, y: Any, larger: bool) -> tuple[Any, Any]:
    """PyTorch's where(x == y, grad / 2, grad), masked to 0 for the one not picked (neither
    is at nan: both compare false)."""
    xd, yd = data(x), data(y)
    shared = where(xd == yd, grad * 0.5, grad)
    x_loses, y_loses = (xd < yd, xd > yd) if larger else (xd > yd, xd < yd)
    return where(x_loses, 0.0, shared), where(y_loses, 0.0, shared)


def _picked_tangent(tx: Any, ty: Any, x: Any, y: Any, out: Any, larger: bool) -> Any:
    """PyTorch's forward mode, which is not its reverse mode at nan: t_y + w (t_x - t_y), w
    1 where x is picked, ½ at a tie, 0 elsewhere (at nan too: there only y's tangent passes),
    w in the output's dtype (a float32 maximum has float32 tangents)"""
    xd, yd = data(x), data(y)
    w = where(xd == yd, 0.5, where(xd > yd if larger else xd < yd, 1.0, 0.0))
    if hasattr(w, "astype"):
        w = w.astype(data(out).dtype)
    if ty is None:
        return w * tx
    return ty - w * ty if tx is None else ty + w * (tx - ty)
