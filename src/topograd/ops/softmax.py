"""Functions of logits on Tensors: softmax, log_softmax, and cross_entropy in one fused node.

Each is computed from the logits minus their largest (a constant shift, which changes neither
value nor gradient), so that logits of ±1000 neither overflow nor underflow.

The losses of ``tg.nn.functional`` with PyTorch's options (weights, ignored targets, label
smoothing, reductions) are compositions of these entries and of the registry's others; the
plain case of ``cross_entropy`` (a mean over the rows of class indices) is this fused node.

>>> import topograd as tg
>>> tg.nn.functional.softmax(tg.Tensor([1000.0, 1000.0, -1000.0]), dim=0).data.tolist()
[0.5, 0.5, 0.0]
"""

from __future__ import annotations

from typing import Any

from ..autograd.registry import ANY, OUT, Case, Difference, Given, register
from .elementary import exp
from .helpers import SUM_OF_ZEROS, data, shape_of
from .selection import where

_AXIS = (Case(((3, 4),), {"axis": -1}), Case(((3, 4),), {"axis": 0}))


@register(
    "softmax",
    "e^x / Σ e^x along axis",
    array="softmax",
    torch="torch.softmax",
    saves=(OUT,),
    arity=1,
    domain=(ANY,),
    cases=_AXIS,
    differs=[Difference((), "", -0.0, 0.0, SUM_OF_ZEROS, anywhere=True, kernel=True)],
    batches=True,
    integers="floats",
)
def softmax(grad: Any, x: Any, out: Any, *, axis: int) -> tuple[Any]:
    """out (grad - Σ grad out): the Jacobian diag(out) - out outᵀ, applied"""
    along = _from_the_end(axis, out)
    return (out * (grad - (grad * out).sum(axis=along, keepdims=True)),)


def _from_the_end(axis: int, out: Any) -> int:
    """``axis`` counted from the last (-1), so that leading batch axes on a gradient leave it
    pointing at the same axis."""
    return axis - len(shape_of(out)) if axis >= 0 else axis


@register(
    "log_softmax",
    "x - log Σ e^x along axis",
    array="log_softmax",
    torch="torch.log_softmax",
    saves=(OUT,),
    arity=1,
    domain=(ANY,),
    cases=_AXIS,
    differs=[
        Difference((), "", -0.0, 0.0, SUM_OF_ZEROS, anywhere=True, kernel=True),
        Difference((), "", 0.0, -0.0, SUM_OF_ZEROS, anywhere=True, kernel=True),
    ],
    batches=True,
    integers="floats",
)
def log_softmax(grad: Any, x: Any, out: Any, *, axis: int) -> tuple[Any]:
    """grad - softmax(x) Σ grad, with softmax(x) = e^out"""
    return (grad - exp(out) * grad.sum(axis=_from_the_end(axis, out), keepdims=True),)


@register(
    "one_hot",
    "rows of False with True at each class index",
    array="one_hot",
    torch="torch.nn.functional.one_hot",
    saves=(),
    arity=1,
    domain=(ANY,),
    cases=(Case((Given([1, 0, 3]),), {"classes": 4}),),
    integers="keep",
)
def one_hot(grad: Any, targets: Any, out: Any, *, classes: int) -> tuple[Any]:
    """nothing: class indices are not differentiable"""
    return (None,)


@register(
    "cross_entropy",
    "mean over rows of -log softmax(z)[t]",
    array="cross_entropy",
    torch="torch.nn.functional.cross_entropy",
    saves=(0, 1),
    arity=2,
    domain=(ANY, ANY),
    cases=(
        Case(((3, 4), Given([1, 0, 3]))),
        Case(((1, 3), Given([2]))),  # one row
        Case(((5, 2), Given([1, 1, 0, 1, 0]))),  # each class several times
        Case(((2, 1), Given([0, 0]))),  # one class: a loss of 0, whatever the logits
    ),
    differs=[
        Difference((), "", -0.0, 0.0, SUM_OF_ZEROS, anywhere=True, kernel=True),
        Difference((), "", 0.0, -0.0, SUM_OF_ZEROS, anywhere=True, kernel=True),
    ],
    integers="floats",
    keeps=True,
)
def cross_entropy(
    grad: Any, z: Any, targets: Any, out: Any, *, kept: Any = None
) -> tuple[Any, Any]:
    """(softmax(z) - onehot(t)) / n for the logits, as PyTorch computes it: nll_loss's
    backward (-grad / n at each target) through log_softmax's; nothing for the class indices"""
    t = data(targets)
    if kept is not None and getattr(grad, "dtype", None) == kept[0].dtype:  # arrays, alike
        return _from_softmax(grad, t, *kept), None
    g = where(one_hot(t, classes=shape_of(z)[1]), -(grad / len(t)), 0.0)
    return g - softmax(z, axis=1) * g.sum(axis=1, keepdims=True), None


def _from_softmax(grad: Any, t: Any, p: Any, rows: Any, zeros: Any) -> Any:
    """The rule's very numbers from the forward's softmax ``p``, without a one-hot matrix: a
    row of g holds -grad/n at its target and +0.0 elsewhere, so its sum (from +0.0, as NumPy
    sums) is 0.0 + -grad/n (a -0.0 comes out +0.0), the same for every row, here a column as
    the sum gives it (a product with a column keeps p's NaN where both are NaN, one with a
    number would keep the number's); g - p Σg is then 0.0 - p Σg off the targets and
    -grad/n - p Σg at them."""
    at_target = -(grad / len(t))
    share = p * (zeros + at_target)
    found = 0.0 - share
    found[rows, t] = at_target - share[rows, t]
    return found
