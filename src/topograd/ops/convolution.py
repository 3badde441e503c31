"""Windows over images, on Tensors of (N, C, H, W) or (C, H, W): ``unfold`` and ``fold``
(im2col and its adjoint, PyTorch's), ``conv2d``, ``max_pool2d``, ``avg_pool2d`` and
``avg_pool2d_backward``.

``unfold`` copies every window of an image into a column, ``fold`` adds columns back onto an
image: each is the other's transpose, so each is the other's rule. A convolution is a matrix
product with the columns, so its gradients are one too: for the image, Wᵀ grad folded back;
for the weight, grad times the columns. Every derivative, second order included, then comes
from these entries. A max pool sends its gradient to the element each window picked (folded
back, since windows may overlap); an average pool and its backward are each other's rule, as
in PyTorch's derivatives.yaml. NumPy kernels: ``tensors/windows.py``.

The sizes of the windows are read, checked and counted in ``geometry.py``.

>>> from topograd.autograd.registry import OPS
>>> OPS["max_pool2d"].arity, OPS["conv2d"].saves
(1, (0, 1))
"""

from __future__ import annotations

import math
from typing import Any

from ..autograd.registry import ANY, Case, Difference, register
from .floats import INF, NAN
from .geometry import Pair, axes, pool_geometry, reach
from .helpers import SUM_OVERFLOW, batch_of, data, shape_of
from .selection import where, zeros_like
from .shapes import broadcast_to

# How the tests call these ops (PyTorch's parameter names, so both sides take the same).
_UNFOLDS = (
    Case(((1, 2, 4, 5),), {"kernel_size": (2, 3)}),
    Case(((2, 1, 5, 5),), {"kernel_size": 3, "padding": 1, "stride": 2}),
    Case(((2, 5, 6),), {"kernel_size": 2, "dilation": (2, 1), "padding": (0, 1)}),
)
_FOLDS = (
    Case(((1, 12, 9),), {"output_size": (4, 5), "kernel_size": (2, 3)}),
    Case(((2, 9, 9),), {"output_size": (5, 5), "kernel_size": 3, "padding": 1, "stride": 2}),
    Case(
        ((8, 21),), {"output_size": (5, 6), "kernel_size": 2, "dilation": (2, 1), "padding": (0, 1)}
    ),
)
_CONVOLUTIONS = (
    Case(((2, 3, 5, 5), (4, 3, 3, 3), (4,)), {"padding": 1}),
    Case(((1, 2, 6, 5), (3, 2, 2, 3)), {"stride": (2, 1), "dilation": (1, 2)}),
    Case(((2, 4, 5, 4), (6, 2, 3, 2), (6,)), {"stride": 2, "padding": (1, 0), "groups": 2}),
    Case(((2, 4, 4), (3, 2, 3, 3), (3,)), {"padding": 2, "dilation": 2}),
)
_MAX_POOLS = (
    Case(((2, 3, 4, 4),), {"kernel_size": 2}),
    Case(((1, 2, 5, 6),), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    Case(((2, 5, 5),), {"kernel_size": (2, 3), "stride": 1, "dilation": (2, 1)}),
)
_AVG_POOLS = (
    Case(((2, 3, 4, 4),), {"kernel_size": 2}),
    Case(((1, 2, 5, 6),), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    Case(((2, 5, 5),), {"kernel_size": (2, 3), "stride": 1, "count_include_pad": False}),
    Case(((1, 1, 5, 5),), {"kernel_size": 2, "padding": 1, "divisor_override": 3}),
)
# avg_pool2d_backward(grad, x): aten's, which takes every parameter
_AVG_POOL_BACKWARDS = (
    Case(((2, 3, 2, 2), (2, 3, 4, 4)), {"kernel_size": 2, "stride": 2, "padding": 0}),
    Case(((1, 2, 3, 3), (1, 2, 5, 6)), {"kernel_size": 3, "stride": 2, "padding": 1}),
    Case(((2, 4, 3), (2, 5, 5)), {"kernel_size": (2, 3), "stride": 1, "padding": 0}),
)
_POOL_DEFAULTS = {"ceil_mode": False, "count_include_pad": True, "divisor_override": None}
# a convolution's sums are BLAS's, in NumPy and in PyTorch: an order of their own
_SUMS = [
    Difference((), "d/d", INF, NAN, SUM_OVERFLOW, 1e308, anywhere=True, any_kind=True, kernel=True),
    Difference((), "value", INF, NAN, SUM_OVERFLOW, anywhere=True, any_kind=True, kernel=True),
]


@register(
    "unfold",
    "every window of the image as a column: (N, C·kh·kw, windows), im2col",
    array="unfold",
    torch="torch.nn.functional.unfold",
    saves=(),
    arity=1,
    domain=(ANY,),
    cases=_UNFOLDS,
    batches=True,
    integers="floats",
)
def unfold(grad: Any, x: Any, out: Any, **window: Any) -> tuple[Any]:
    """the columns of the gradient added back onto the image: fold, its transpose"""
    return (fold(grad, output_size=shape_of(x)[-2:], **window),)


@register(
    "fold",
    "columns added back onto an image of output_size, where their windows lie: col2im",
    array="fold",
    torch="torch.nn.functional.fold",
    saves=(),
    arity=1,
    domain=(ANY,),
    cases=_FOLDS,
    batches=True,
    integers="floats",
)
def fold(grad: Any, x: Any, out: Any, *, output_size: Any, **window: Any) -> tuple[Any]:
    """the windows of the gradient as columns: unfold, its transpose (window: kernel_size,
    dilation, padding, stride)"""
    return (unfold(grad, **window),)


@register(
    "conv2d",
    "Σ over each window of W · x, + b: a 2-D cross-correlation (input, weight, bias?)",
    array="conv2d",
    torch="torch.nn.functional.conv2d",
    saves=(0, 1),
    domain=(ANY, ANY, ANY),
    takes_needs=True,
    cases=_CONVOLUTIONS,
    differs=_SUMS,
    batches=True,
    integers="same",
    bools=False,
)
def conv2d(
    grad: Any,
    x: Any,
    weight: Any,
    *rest: Any,  # the bias, if given; the output
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
    needs: tuple[bool, ...],
) -> tuple[Any, ...]:
    """Wᵀ grad folded back onto the image for x (a transposed convolution), grad times the
    columns unfold(x) for W, grad summed over the images and the pixels for b; per group"""
    window = {"kernel_size": shape_of(weight)[-2:], "dilation": dilation, "padding": padding}
    window["stride"] = stride
    lead = len(batch_of(grad, rest[-1]))  # a batch of gradients at once
    images = len(shape_of(x)) - 3  # 1 for a batch of images, 0 for one image
    rows = _by_channel(grad, lead, images, groups)
    found = [
        _input_grad(rows, weight, x, shape_of(rest[-1])[-2:], window) if needs[0] else None,
        _weight_grad(rows, x, weight, window) if needs[1] else None,
    ]
    if len(rest) == 2:  # a bias
        found.append(grad.sum(axis=(*range(lead, lead + images), -2, -1)) if needs[2] else None)
    return tuple(found)


def _by_channel(grad: Any, lead: int, images: int, groups: int) -> Any:
    """grad (*lead, *images, O, oh, ow) as (*lead, groups, O / groups, oh·ow·images): a row
    per output channel, as the matrix products want it (a view where grad is laid out with the
    images last, as the kernels make it)."""
    shape = shape_of(grad)
    channels = range(lead + images, lead + images + 3)
    moved = grad.transpose((*range(lead), *channels, *range(lead, lead + images)))
    per_row = math.prod(shape[lead : lead + images]) * shape[-2] * shape[-1]
    return moved.reshape((*shape[:lead], groups, shape[-3] // groups, per_row))


def _input_grad(
    rows: Any, weight: Any, x: Any, counts: tuple[int, ...], window: dict[str, Any]
) -> Any:
    """Wᵀ grad per group: each window's share of the gradient, as columns (N, C·kh·kw, L),
    folded back onto the image."""
    out_channels, per_group, kh, kw = shape_of(weight)
    *lead, groups, _, _ = shape_of(rows)
    flat = weight.reshape((groups, out_channels // groups, per_group * kh * kw))
    columns = flat.transpose((0, 2, 1)) @ rows  # (*lead, groups, C/groups·kh·kw, L·images)
    images = shape_of(x)[:-3]
    columns = columns.reshape((*lead, groups * per_group * kh * kw, math.prod(counts), *images))
    at = len(lead)
    order = (*range(at), *range(at + 2, at + 2 + len(images)), at, at + 1)
    return fold(columns.transpose(order), output_size=shape_of(x)[-2:], **window)


def _weight_grad(rows: Any, x: Any, weight: Any, window: dict[str, Any]) -> Any:
    """grad times the columns of x per group, summed over the images and the windows."""
    images = len(shape_of(x)) - 3
    columns = unfold(x, **window)  # (*images, C·kh·kw, L)
    *_, groups, _, per_row = shape_of(rows)
    per_group = shape_of(columns)[-2] // groups
    flat = columns.transpose((images, images + 1, *range(images)))
    flat = flat.reshape((groups, per_group, per_row))
    found = rows @ flat.transpose((0, 2, 1))  # (*lead, groups, O/groups, C/groups·kh·kw)
    return found.reshape((*shape_of(found)[:-3], *shape_of(weight)))


@register(
    "max_pool2d",
    "the largest element of each window (the first of equals; nan if any)",
    array="max_pool2d_kept",
    keeps=True,
    torch="torch.nn.functional.max_pool2d",
    saves=(0,),
    arity=1,
    domain=(ANY,),
    cases=_MAX_POOLS,
    batches=True,
    integers="keep",
    bools=False,
)
def max_pool2d(
    grad: Any,
    x: Any,
    out: Any,
    *,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    kept: Any = None,
) -> tuple[Any]:
    """grad to the element its window picked (the first maximum, or the last nan: PyTorch's
    pick), added up where windows overlap"""
    found = None if kept is None else kept.gradient(grad)  # the forward's picks, on arrays
    if found is not None:
        return (found,)
    window = pool_geometry(kernel_size, stride, padding, dilation)
    if kept is None:  # (under create_graph, or the rule called without them)
        _, chosen = max_pool2d(data(x), **window, ceil_mode=ceil_mode, picks=True)
    else:  # windows that overlap, a batch of gradients, integers: fold the kept picks
        chosen = kept.columns()
    height, width = shape_of(x)[-2:]
    # ceil_mode's last window may hang over the end: fold onto that much, then cut
    size = tuple(
        max(n, reach(c, *w)) for n, c, w in zip((height, width), shape_of(out)[-2:], axes(window))
    )
    steps = zip(window["stride"], window["kernel_size"])
    if window["dilation"] == (1, 1) and all(step >= k for step, k in steps):
        picked = fold(chosen, output_size=size, **window)[..., :height, :width]
        return (_apart(grad, x, picked, window, ceil_mode),)
    # a column per window (as unfold's): grad at the pixel it picked, zeros elsewhere
    columns = where(chosen, _spread(grad, shape_of(chosen)), 0.0)
    found = fold(columns, output_size=size, **window)
    return (found if size == (height, width) else found[..., :height, :width],)


def _apart(grad: Any, x: Any, picked: Any, window: dict[str, Pair], ceil_mode: bool) -> Any:
    """Where windows lie apart, each pixel in one window at most: its window's gradient,
    spread over the window (avg_pool2d_backward with a divisor of 1), where it was picked."""
    pool = {name: window[name] for name in ("kernel_size", "stride", "padding")}
    spread = avg_pool2d_backward(
        grad, data(x), **pool, ceil_mode=ceil_mode, count_include_pad=True, divisor_override=1
    )
    return where(picked, spread, 0.0)


def _spread(grad: Any, columns: tuple[int, ...]) -> Any:
    """grad (..., C, oh, ow) repeated over each window's kh·kw pixels: (..., C·kh·kw, oh·ow),
    made in the order the kernels lay images out (the images last), so that the selection
    after it runs over arrays of one layout (NumPy is many times slower across two)."""
    *front, channels, oh, ow = shape_of(grad)
    pixels = columns[-2] // channels
    moved = grad.transpose((len(front), len(front) + 1, len(front) + 2, *range(len(front))))
    moved = moved.reshape((channels, 1, oh * ow, *front))
    repeated = broadcast_to(moved, shape=(channels, pixels, oh * ow, *front))
    order = (*range(3, 3 + len(front)), 0, 1, 2)
    return repeated.transpose(order).reshape((*front, channels * pixels, oh * ow))


@register(
    "avg_pool2d",
    "the mean of each window (or its sum over divisor_override)",
    array="avg_pool2d",
    torch="torch.nn.functional.avg_pool2d",
    saves=(),
    arity=1,
    domain=(ANY,),
    cases=_AVG_POOLS,
    batches=True,
    integers="floats",
)
def avg_pool2d(
    grad: Any,
    x: Any,
    out: Any,
    *,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> tuple[Any]:
    """grad / divisor spread over each window, added up where windows overlap: PyTorch's
    avg_pool2d_backward"""
    params = {"kernel_size": kernel_size, "stride": stride, "padding": padding}
    found = avg_pool2d_backward(
        grad,
        data(x),
        **params,
        ceil_mode=ceil_mode,
        count_include_pad=count_include_pad,
        divisor_override=divisor_override,
    )
    return (found,)


@register(
    "avg_pool2d_backward",
    "avg_pool2d's gradient: grad / divisor spread over each window, in x's shape",
    array="avg_pool2d_backward",
    torch="torch.ops.aten.avg_pool2d_backward",
    saves=(),
    arity=2,
    domain=(ANY, ANY),
    cases=tuple(Case(c.inputs, {**_POOL_DEFAULTS, **c.params}) for c in _AVG_POOL_BACKWARDS),
    batches=True,
    integers="floats",
)
def avg_pool2d_backward(
    grad: Any,
    grad_output: Any,
    x: Any,
    out: Any,
    *,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> tuple[Any, Any]:
    """avg_pool2d of the gradient for grad_output; zeros for x, of which only the shape
    counts (PyTorch's zeros_like(self))"""
    params = {"kernel_size": kernel_size, "stride": stride, "padding": padding}
    found = avg_pool2d(
        grad,
        **params,
        ceil_mode=ceil_mode,
        count_include_pad=count_include_pad,
        divisor_override=divisor_override,
    )
    lead = batch_of(grad, out)  # a batch of gradients at once: zeros for each
    zeros = zeros_like(x)
    return found, broadcast_to(zeros, shape=(*lead, *shape_of(x))) if lead else zeros
