"""The ops' forwards on NumPy arrays that NumPy does not have under the op's name. The registry
names each op's array forward (``Op.array``): a function of this module, or else of NumPy.

>>> import numpy as np
>>> relu(np.array([-1.0, -0.0, 2.0]))
array([ 0., -0.,  2.])
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd.errors import RuntimeValueError
from ..ops.floats import GELU_ALPHA, GELU_BETA, GELU_KAPPA, GELU_TANH_BETA, LEAKY_SLOPE
from .dtypes import scalar_name
from .whole import whole_einsum, whole_threshold

Array = np.ndarray[Any, Any]


def relu(x: Array) -> Array:
    """max(x, 0), as PyTorch's: x itself where it is not below 0 (-0.0 and nan kept: np.maximum
    would give +0.0 at -0.0), else 0; for float32/64 a selection by the bits (``where``)."""
    return where(x < 0, 0.0 if x.dtype in BITS else np.zeros((), x.dtype), x)


def leaky_relu(x: Array) -> Array:
    """x where x > 0, else LEAKY_SLOPE x."""
    return np.where(x > 0, x, x * np.asarray(LEAKY_SLOPE, x.dtype))


def leaky_relu_backward(g: Array, x: Array) -> Array:
    """g where x > 0, else LEAKY_SLOPE g (at nan too), as PyTorch's leaky_relu_backward."""
    return np.asarray(np.where(x > 0, g, g * np.asarray(LEAKY_SLOPE, g.dtype)), g.dtype)


def sigmoid(x: Array) -> Array:
    """1 / (1 + e^-x) without overflow: e^-|x| is never large."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)).astype(x.dtype)


def relu_backward(g: Array, out: Array) -> Array:
    """g where relu's output is positive, else +0.0 (whatever g is: inf, nan); integers stay
    integers, as PyTorch's threshold_backward."""
    return where(out <= 0, 0.0, g) if g.dtype.kind == "f" else whole_threshold(g, out)


def sigmoid_backward(g: Array, s: Array) -> Array:
    """g σ (1 - σ) from σ = s, as PyTorch computes it: (g (1 - s)) s."""
    return g * (1.0 - s) * s


def softplus(x: Array) -> Array:
    """log(1 + e^x) as max(x, 0) + log1p(e^-|x|): no overflow."""
    return np.maximum(x, np.zeros((), x.dtype)) + np.log1p(np.exp(-np.abs(x)))


def sign(x: Array) -> Array:
    """-1, 0 or 1; 0 at nan, as PyTorch; a boolean as it is (PyTorch's too)."""
    return x.copy() if x.dtype == np.bool_ else np.nan_to_num(np.sign(x), nan=0.0)


def rint(x: Array) -> Array:
    """To the nearest whole number, halves to the even one; integers kept, as PyTorch's
    (NumPy's rint gives floats)."""
    return x.copy() if x.dtype.kind in "iu" else np.rint(x)


_erf = np.vectorize(math.erf, otypes=[np.float64])


def erf(x: Array) -> Array:
    """The error function, element by element (NumPy has none)."""
    return np.asarray(_erf(x), dtype=x.dtype)


def where(cond: Any, x: Any, y: Any) -> Array:
    """x where cond holds, else y, element by element (np.where). Where one side is +0.0 (a
    rule saying "this input gets nothing here"), the other is kept by a bitwise and, exact for
    inf and nan, and several times faster than np.where on a random mask. The condition holds
    booleans (or bytes, which PyTorch still takes), never numbers: PyTorch refuses those."""
    if type(cond) is not bool and np.asarray(cond).dtype != np.bool_:
        _bytes_or_refused(np.asarray(cond).dtype)
    kept = _keep(x, cond) if _is_plus_zero(y) else None
    if kept is None and _is_plus_zero(x):
        kept = _keep(y, np.logical_not(cond))
    return np.asarray(np.where(cond, x, y)) if kept is None else kept


_WARNED: set[str] = set()  # the warnings PyTorch gives once in a process, given


def _bytes_or_refused(found: np.dtype[Any]) -> None:
    """A condition of bytes, with PyTorch's warning that it is deprecated (once, as PyTorch's:
    not again in the backward); of numbers, refused as PyTorch refuses it."""
    if found != np.uint8:
        raise RuntimeValueError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{scalar_name(found)}"
        )
    if "where" in _WARNED:
        return
    _WARNED.add("where")
    warnings.warn(
        "where received a uint8 condition tensor. This behavior is deprecated and will be "
        "removed in a future version of PyTorch. Use a boolean condition instead.",
        UserWarning,
        stacklevel=4,
    )


def _is_plus_zero(x: Any) -> bool:
    return isinstance(x, float) and x == 0.0 and math.copysign(1.0, x) > 0


# the float dtypes a selection keeps by their bits, and the integers of their size
BITS = {np.dtype(np.float64): np.int64, np.dtype(np.float32): np.int32}


def _keep(x: Any, mask: Any) -> Array | None:
    """x where mask holds, else +0.0, without branches; None where this does not pay (a small
    array) or does not apply."""
    if not isinstance(x, np.ndarray) or x.dtype not in BITS or x.size < 4096:
        return None
    mask = np.asarray(mask)
    if mask.shape != x.shape or mask.dtype != np.bool_:
        return None
    bits = BITS[x.dtype]
    ones = np.negative(mask, dtype=bits)  # every bit set where kept, none elsewhere
    np.bitwise_and(x.view(bits), ones, out=ones)  # one new array in all: large ones cost
    return np.asarray(ones.view(x.dtype))


def reshape(x: Array, shape: tuple[int, ...]) -> Array:
    return np.asarray(np.reshape(x, shape))


def broadcast_to(x: Array, shape: tuple[int, ...]) -> Array:
    """A fresh array, never a read-only view: gradients are added into."""
    return np.broadcast_to(x, shape).copy()


def getitem(x: Array, index: Any) -> Array:
    """NumPy's indexing; an element picked by integers alone is a 0-d view of ``x``, as
    PyTorch's ``x[1]`` (NumPy would give a copy, a scalar)."""
    out = x[index]
    if isinstance(out, np.ndarray):
        return out
    return x[(*(index if isinstance(index, tuple) else (index,)), Ellipsis)]


def scatter(g: Array, index: Any, shape: tuple[int, ...]) -> Array:
    """Zeros of ``shape`` with ``g`` added at ``index``; a repeated index accumulates. A basic
    index (slices, integers) names each element once: ``g`` is copied there, as PyTorch's
    slice backward does (a -0.0 stays -0.0)."""
    out = np.zeros(shape, dtype=g.dtype)
    parts = index if isinstance(index, tuple) else (index,)
    if all(isinstance(i, (slice, int, type(None), type(Ellipsis))) for i in parts):
        out[index] = g
    else:
        np.add.at(out, index, g)
    return out


def concatenate(*xs: Array, axis: int = 0) -> Array:
    return np.concatenate(xs, axis=axis)


def stack(*xs: Array, axis: int = 0) -> Array:
    return np.stack(xs, axis=axis)


def linear(x: Array, w: Array, b: Array) -> Array:
    """x W^T + b, as torch.nn.functional.linear (b added into the product's fresh array)."""
    out = x @ w.T
    if type(out) is np.ndarray and out.dtype == b.dtype and b.shape in ((), out.shape[-1:]):
        return np.add(out, b, out=out)  # type: ignore[no-any-return]
    return np.asarray(out + b)


def log_softmax(x: Array, axis: int = -1) -> Array:
    """x - log Σ e^x along the axis, from x less its largest (an empty x: an empty result,
    where NumPy's max of nothing would raise); the ufuncs' reduce, not NumPy's Python layer."""
    if x.size == 0:
        return np.empty_like(x)
    shifted = x - np.maximum.reduce(x, axis=axis, keepdims=True)
    return np.asarray(shifted - np.log(np.add.reduce(np.exp(shifted), axis=axis, keepdims=True)))


def softmax(x: Array, axis: int = -1) -> Array:
    return np.exp(log_softmax(x, axis))


def clamp(x: Array, low: Any = None, high: Any = None) -> Array:
    """x limited to [low, high], as PyTorch's: x itself where it is within (-0.0 and nan kept),
    high where low > high, nan everywhere for a nan limit."""
    # (a limit in x's dtype, as PyTorch casts it: a Python int wraps into an unsigned dtype)
    lo, hi = (None if v is None else np.array(v).astype(x.dtype) for v in (low, high))
    out = x if lo is None else np.where(x < lo, lo, x)
    out = out if hi is None else np.where(out > hi, hi, out)
    if any(limit is not None and limit != limit for limit in (low, high)):  # a nan limit
        out = np.full(x.shape, np.nan)
    return np.asarray(out, dtype=x.dtype)


def clamp_min(x: Array, low: Array) -> Array:
    """x, or low where x < low, nan where low is (x's nan passes): PyTorch's clamp with a
    Tensor limit, element by element as its scalar loop (x itself at a tie of -0.0 and 0.0)."""
    out = np.where(x < low, low, x)
    return np.asarray(np.where(np.isnan(low), np.nan, out), np.result_type(x, low))


def clamp_max(x: Array, high: Array) -> Array:
    """x, or high where high < x, nan where high is."""
    out = np.where(high < x, high, x)
    return np.asarray(np.where(np.isnan(high), np.nan, out), np.result_type(x, high))


def clamp_between(x: Array, low: Array, high: Array) -> Array:
    """x limited to [low, high]: high where low > high, nan where either limit is nan."""
    return clamp_max(clamp_min(x, low), high)  # (a nan low is a nan x for clamp_max)


def cumsum(x: Array, axis: int) -> Array:
    """The running sums, each from +0.0 as PyTorch's (NumPy's start from the first element, so
    a -0.0 there, and sums of -0.0 after it, would keep their sign)."""
    return np.asarray(np.cumsum(x, axis=axis) + 0.0, dtype=x.dtype)


def logsumexp(x: Array, axis: Any = None, keepdims: bool = False) -> Array:
    """log Σ e^x, shifted by the largest element where it is finite (as PyTorch's: an infinite
    one shifts by 0), so that nothing overflows; -inf for no elements."""
    top = np.amax(x, axis=axis, keepdims=True, initial=-np.inf)
    shift = np.where(np.isinf(top), 0.0, top)
    found = np.log(np.sum(np.exp(x - shift), axis=axis, keepdims=True)) + shift
    if not keepdims:
        found = np.squeeze(found, axis=axis) if axis is not None else found.reshape(())
    return np.asarray(found, dtype=x.dtype)


def _count(x: Array, axis: Any) -> int:
    """How many elements a reduction along ``axis`` (None: all) takes for each result."""
    axes = range(x.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    return int(np.prod([x.shape[a] for a in axes]))


def mean(x: Array, axis: Any = None, keepdims: bool = False) -> Array:
    """np.mean, and the mean of nothing nan without NumPy's warning, as PyTorch's."""
    if x.size:
        return np.asarray(np.mean(x, axis=axis, keepdims=keepdims))
    return np.asarray(np.sum(x, axis=axis, keepdims=keepdims) / _count(x, axis), dtype=x.dtype)


def var(x: Array, axis: Any = None, correction: float = 1, keepdims: bool = False) -> Array:
    """Σ (x - mean)² / (n - correction), n - correction counted as 0 where it is less (inf or
    nan then, as PyTorch's)."""
    squares = np.sum((x - mean(x, axis=axis, keepdims=True)) ** 2, axis=axis, keepdims=keepdims)
    return np.asarray(squares / max(0, _count(x, axis) - correction), dtype=x.dtype)


def std(x: Array, axis: Any = None, correction: float = 1, keepdims: bool = False) -> Array:
    """√var."""
    return np.asarray(np.sqrt(var(x, axis, correction, keepdims)), dtype=x.dtype)


def total(*xs: Array, axis: Any = None, keepdims: bool = False) -> Array:
    """The sum of a Tensor's elements (along axis); Tensors are added with +, not by sum."""
    if len(xs) != 1:
        raise TypeError(f"sum() of Tensors takes one Tensor, got {len(xs)}; add Tensors with +")
    return np.asarray(np.sum(xs[0], axis=axis, keepdims=keepdims))


def one_hot(targets: Array, classes: int) -> Array:
    """Rows of False with True at each target, as torch.nn.functional.one_hot (as booleans:
    subtracted from an array of any float dtype, they keep its dtype)."""
    out = np.zeros((len(targets), classes), dtype=bool)
    out[np.arange(len(targets)), targets] = True
    return out


def cross_entropy(z: Array, targets: Array) -> tuple[Array, tuple[Array, Array, Array]]:
    """The mean over rows of -log softmax(z)[target]; kept for the rule, softmax(z) (the very
    bits of ``softmax(z, 1)``), the row indices and a column of zeros."""
    logp, rows = log_softmax(z, 1), np.arange(len(targets))
    zeros = np.zeros((len(targets), 1), logp.dtype)
    return flat_mean(-logp[rows, targets]), (np.exp(logp), rows, zeros)


def flat_mean(v: Array) -> Array:
    """``v.mean()`` to the bit, without NumPy's layers of Python around it (a third of a small
    loss's time): the sum, divided in float64 by the count and rounded back, as NumPy does it;
    float16 (summed in float32) and an empty array by NumPy itself."""
    if v.dtype == np.float16 or not v.size:
        return np.asarray(v.mean())
    total = np.add.reduce(v, axis=None)
    return np.asarray(total.dtype.type(total / np.intp(v.size)))


def _wide(x: Any) -> Any:
    """float16 as float32, in which PyTorch computes its half-precision activations (and then
    rounds); any other dtype as it is."""
    x = np.asarray(x)
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _libm(f: Callable[[Array], Array], w: Array, x: Array) -> Array:
    """``f`` of ``w``; where ``x`` is float16, the float32 of it rounded from float64, as the C
    library's float functions give it (NumPy's own float32 tanh and exp may be an ulp off, which
    the cancellation in 1 + tanh or 1 - tanh² magnifies in half precision)."""
    return f(w.astype(np.float64)).astype(np.float32) if x.dtype == np.float16 else f(w)


def gelu(x: Array) -> Array:
    """x · ½ (1 + erf(x / √2)), in PyTorch's order (float16 through float32, as PyTorch's)."""
    w = _wide(x)
    return np.asarray(w * 0.5 * (1.0 + erf(w * GELU_ALPHA)), dtype=x.dtype)


def gelu_tanh(x: Array) -> Array:
    """½ x (1 + tanh(√(2/π) (x + 0.044715 x³))), in PyTorch's order (float16 through
    float32)."""
    w = _wide(x)
    inner = GELU_TANH_BETA * (w + GELU_KAPPA * (w * w * w))
    return np.asarray(0.5 * w * (1.0 + _libm(np.tanh, inner, x)), dtype=x.dtype)


def gelu_backward(g: Array, x: Array) -> Array:
    """g (Φ(x) + x φ(x)), as PyTorch's g * (cdf + x * pdf) (float16 through float32)."""
    w = _wide(x)
    cdf = 0.5 * (1.0 + erf(w * GELU_ALPHA))
    pdf = GELU_BETA * _libm(np.exp, w * w * -0.5, x)
    return np.asarray(_wide(g) * (cdf + w * pdf), dtype=np.result_type(g, x))


def gelu_tanh_backward(g: Array, x: Array) -> Array:
    """g times the derivative of GELU's tanh form, in PyTorch's order (float16 through
    float32; 3 · 0.044715 rounded to the dtype it is computed in, as PyTorch's)."""
    w = _wide(x)
    x_sq = w * w
    t = _libm(np.tanh, GELU_TANH_BETA * (w + GELU_KAPPA * (x_sq * w)), x)
    three_kappa = w.dtype.type(3.0) * w.dtype.type(GELU_KAPPA)
    inner_derivative = GELU_TANH_BETA * (1.0 + three_kappa * x_sq)
    found = _wide(g) * (0.5 * (1.0 + t) + 0.5 * w * (1.0 - t * t) * inner_derivative)
    return np.asarray(found, dtype=np.result_type(g, x))


def silu(x: Array) -> Array:
    """x / (1 + e^-x), as PyTorch's (e^-x may overflow to inf: x / inf; float16 through
    float32)."""
    w = _wide(x)
    return np.asarray(w / (1.0 + _libm(np.exp, -w, x)), dtype=x.dtype)


def elu(x: Array, alpha: float = 1.0) -> Array:
    """alpha (e^x - 1) where x < 0, else x itself: at ±0.0 and nan too, as PyTorch's
    (alpha (e^-0.0 - 1) would lose the sign of -0.0 for a negative alpha, and np.minimum
    that of -0.0 for any)."""
    below = np.expm1(np.minimum(x, np.zeros((), x.dtype))) * np.asarray(alpha, x.dtype)
    return np.asarray(np.where(x < 0, below, x))


def elu_backward(g: Array, x: Array, alpha: float = 1.0) -> Array:
    """g where x > 0 (and at nan), else g alpha e^x, in PyTorch's order."""
    below = g * np.asarray(alpha, g.dtype) * np.exp(np.minimum(x, np.zeros((), x.dtype)))
    return np.where(x <= 0, below, g)


def maximum(x: Array, y: Array) -> Array:
    """The larger, nan if either is; at a tie of -0.0 and 0.0 the first, x, always (PyTorch's
    choice there depends on its code path: x for a few elements, y in its vectorised loop)."""
    return np.where((x < y) | np.isnan(y), y, x)


def minimum(x: Array, y: Array) -> Array:
    """The smaller, nan if either is; at a tie of -0.0 and 0.0 the first, x, always."""
    return np.where((y < x) | np.isnan(y), y, x)


def astype(x: Array, dtype: Any) -> Array:
    """x in another float precision (a copy, as PyTorch's ``to`` makes one where it changes)."""
    return x.astype(dtype)


def einsum(*arrays: Array, equation: str) -> Array:
    """np.einsum, its contraction order planned where more than two operands meet."""
    if arrays[0].dtype.kind != "f":
        return whole_einsum(arrays, equation)
    return np.asarray(np.einsum(equation, *arrays, optimize=len(arrays) > 2))


def prod(x: Array, axis: Any = None, keepdims: bool = False) -> Array:
    """The product along ``axis`` (all: None), as an array in x's dtype."""
    return np.asarray(np.prod(x, axis=axis, keepdims=keepdims))
