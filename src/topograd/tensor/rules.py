"""The table of calculus for Tensors: each op's vector-Jacobian product, one entry per op.

A rule takes the upstream gradient ``g`` (in the output's shape), the op's inputs ``xs``, its
output ``out``, the op's constants ``ctx`` and which inputs ``needs`` a gradient, and returns
one gradient per input (None for one not needed, where skipping it saves work), in the
output's (broadcast) shape: the Tensor kind sums each back to its input's shape, in one place
(``numerics.unbroadcast``). As for scalars, one rule serves both kinds of backward: called with
ndarrays for an ordinary backward, with Tensors under ``create_graph=True``; so rules use
operators and the helpers below, which work on both.

>>> import numpy as np
>>> VJPS["mul"](np.ones(2), (np.array([1.0, 2.0]), np.array([3.0, 4.0])), None, None, (True, True))
(array([3., 4.]), array([1., 2.]))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Array = Any  # an ndarray, or a Tensor under create_graph
Vjp = Callable[[Array, tuple[Array, ...], Array, Any, tuple[bool, ...]], tuple[Array, ...]]
VJPS: dict[str, Vjp] = {}


def _rule(name: str) -> Callable[[Vjp], Vjp]:
    def register(vjp: Vjp) -> Vjp:
        VJPS[name] = vjp
        return vjp

    return register


# Helpers on ndarrays and Tensors alike.


def _is_array(a: Array) -> bool:
    """An ndarray or a NumPy scalar (what 0-d arithmetic gives), not a Tensor."""
    return isinstance(a, (np.ndarray, np.generic))


def _plain(a: Array) -> np.ndarray:
    """The numbers, as constants: masks and counts are not differentiated."""
    return np.asarray(a) if _is_array(a) else np.asarray(a.data)


def _call(name: str, a: Array) -> Array:
    return getattr(np, name)(a) if _is_array(a) else getattr(a, name)()


def _swap(a: Array) -> Array:
    """The last two axes exchanged (the transpose of each matrix in a batch)."""
    return np.swapaxes(a, -1, -2) if _is_array(a) else a.swapaxes(-1, -2)


def _where(mask: np.ndarray, a: Array, b: Array) -> Array:
    """``a`` where ``mask`` holds, else ``b``: a choice, not a product (0 * inf would be nan)."""
    from .core import Tensor  # at call time: core imports this module
    from .functions import where

    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return where(mask, a, b)  # under create_graph
    return np.where(mask, a, b)


def _expand(g: Array, shape: tuple[int, ...], axis: Any, keepdims: bool) -> Array:
    """A reduced gradient spread back over the reduced axes (a fresh array, never a view)."""
    g = np.asarray(g) if _is_array(g) else g
    if not keepdims and axis is not None:
        axes = (axis,) if isinstance(axis, int) else axis
        kept = list(np.shape(_plain(g)))
        for a in sorted(ax % len(shape) for ax in axes):
            kept.insert(a, 1)
        g = g.reshape(tuple(kept))
    elif not keepdims:
        g = g.reshape((1,) * len(shape))
    if _is_array(g):
        return np.broadcast_to(g, shape).copy()
    return g.broadcast_to(shape)


# Arithmetic.


@_rule("add")
def vjp_add(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return g, g


@_rule("sub")
def vjp_sub(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return g, -g


@_rule("mul")
def vjp_mul(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    x, y = xs
    return g * y, g * x


@_rule("div")
def vjp_div(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    y = xs[1]
    return g / y, -(g * out) / y


@_rule("pow")
def vjp_pow(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    """As PyTorch: 0 where the exponent is 0; d/dy is 0 where x = 0 and y >= 0."""
    x, y = xs
    xd, yd = _plain(x), _plain(y)
    dx = _where(np.asarray(yd != 0), g * (y * x ** (y - 1.0)), 0.0)
    dy = _where(np.asarray((xd == 0) & (yd >= 0)), 0.0, g * (out * _call("log", x)))
    return dx, dy


@_rule("neg")
def vjp_neg(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return (-g,)


@_rule("matmul")
def vjp_matmul(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    """np.matmul's rules: a 1-D operand is a row (left) or a column (right), then dropped."""
    x, y = xs
    if x.ndim == 2 and y.ndim == 2:  # the common case: skip what no input needs
        return (g @ _swap(y) if needs[0] else None), (_swap(x) @ g if needs[1] else None)
    if x.ndim == 1 and y.ndim == 1:
        return g * y, g * x
    if x.ndim == 1:  # (k) @ (..., k, m) -> (..., m)
        gx = (g.reshape((*g.shape[:-1], 1, g.shape[-1])) @ _swap(y)).reshape(
            (*g.shape[:-1], x.shape[0])
        )
        gy = x.reshape((x.shape[0], 1)) * g.reshape((*g.shape[:-1], 1, g.shape[-1]))
        return gx, gy
    if y.ndim == 1:  # (..., n, k) @ (k) -> (..., n)
        gx = g.reshape((*g.shape, 1)) * y
        gy = (_swap(x) @ g.reshape((*g.shape, 1))).reshape((*g.shape[:-1], y.shape[0]))
        return gx, gy
    return g @ _swap(y), _swap(x) @ g


@_rule("linear")
def vjp_linear(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    """y = x W^T + b: dx = g W, dW = g^T x, db = the sum of g over the batch."""
    x, w, _b = xs
    gx = g @ w if needs[0] else None
    if not needs[1]:
        gw = None
    elif g.ndim == 1:  # one sample: an outer product
        gw = g.reshape((g.shape[0], 1)) * x.reshape((1, x.shape[0]))
    else:
        gw = _swap(g) @ x  # summed over any batch axes in front, like every broadcast
    gb = (
        g.sum(axis=tuple(range(g.ndim - 1))) if needs[2] and g.ndim > 1 else g if needs[2] else None
    )
    return gx, gw, gb


# Elementwise functions; the derivative from the output where it can be.


@_rule("exp")
def vjp_exp(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return (g * out,)


@_rule("log")
def vjp_log(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return (g / xs[0],)


@_rule("tanh")
def vjp_tanh(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return (g * (1.0 - out * out),)


@_rule("sigmoid")
def vjp_sigmoid(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return (g * (out * (1.0 - out)),)


@_rule("relu")
def vjp_relu(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    """0 at 0 (and 1 at nan), as PyTorch's threshold_backward."""
    return (g * np.asarray(~(_plain(out) <= 0)),)


@_rule("sqrt")
def vjp_sqrt(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return (g / (2.0 * out),)


@_rule("sin")
def vjp_sin(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return (g * _call("cos", xs[0]),)


@_rule("cos")
def vjp_cos(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return (-(g * _call("sin", xs[0])),)


@_rule("abs")
def vjp_abs(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    """sign(x); 0 at 0 and at nan, as PyTorch."""
    return (g * np.nan_to_num(np.sign(_plain(xs[0]))),)


# Reductions and shapes.


@_rule("sum")
def vjp_sum(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    axis, keepdims = ctx
    return (_expand(g, xs[0].shape, axis, keepdims),)


@_rule("mean")
def vjp_mean(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    axis, keepdims = ctx
    count = _plain(xs[0]).size // max(1, np.size(_plain(out)))
    return (_expand(g, xs[0].shape, axis, keepdims) / count,)


@_rule("max")
def vjp_max(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    """The gradient shared evenly by the ties, as torch.amax."""
    axis, keepdims = ctx
    x = _plain(xs[0])
    top = _expand(_plain(out), x.shape, axis, keepdims)
    hits = x == top
    share = hits / _expand(hits.sum(axis=axis, keepdims=keepdims), x.shape, axis, keepdims)
    share = share.astype(x.dtype)  # a float32 input keeps float32 gradients
    return (_expand(g, x.shape, axis, keepdims) * share,)


@_rule("reshape")
def vjp_reshape(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return (g.reshape(xs[0].shape),)


@_rule("transpose")
def vjp_transpose(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return (g.transpose(tuple(np.argsort(ctx))),)


@_rule("broadcast_to")
def vjp_broadcast_to(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return (g,)  # summed back to the input's shape like every other broadcast


@_rule("getitem")
def vjp_getitem(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    """Scattered back into zeros; an index repeated receives each of its gradients."""
    if _is_array(g):
        g = np.asarray(g)
        grad = np.zeros(xs[0].shape, dtype=g.dtype)
        np.add.at(grad, ctx, g)
        return (grad,)
    return (g.scatter(ctx, xs[0].shape),)


@_rule("scatter")
def vjp_scatter(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    index, _shape = ctx
    return (g[index],)


@_rule("where")
def vjp_where(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return g * ctx, g * ~ctx


@_rule("concatenate")
def vjp_concatenate(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    axis = ctx
    edges = np.cumsum([x.shape[axis] for x in xs])[:-1]
    pieces = []
    start = 0
    for end in [*edges, g.shape[axis]]:
        index = [slice(None)] * g.ndim
        index[axis] = slice(start, end)
        pieces.append(g[tuple(index)])
        start = end
    return tuple(pieces)


@_rule("stack")
def vjp_stack(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    axis = ctx % g.ndim
    return tuple(g[(slice(None),) * axis + (k,)] for k in range(len(xs)))


# Fused functions of the logits.


@_rule("softmax")
def vjp_softmax(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return (out * (g - (g * out).sum(axis=ctx, keepdims=True)),)


@_rule("log_softmax")
def vjp_log_softmax(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    return (g - _call("exp", out) * g.sum(axis=ctx, keepdims=True),)


@_rule("cross_entropy")
def vjp_cross_entropy(
    g: Array, xs: tuple[Array, ...], out: Array, ctx: Any, needs: tuple[bool, ...]
) -> tuple[Array, ...]:
    """d mean(-log softmax(z)[t]) / dz = (softmax(z) - onehot(t)) / n."""
    targets = ctx
    z = xs[0]
    onehot = np.zeros(z.shape, dtype=_plain(z).dtype)
    onehot[np.arange(len(targets)), targets] = 1.0
    shifted = z - _plain(z).max(axis=1, keepdims=True)
    e = _call("exp", shifted)
    p = e / e.sum(axis=1, keepdims=True)
    return ((p - onehot) * (g / len(targets)),)
