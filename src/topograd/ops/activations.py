"""Activation functions: relu, leaky_relu, sigmoid, softplus, gelu (and its tanh form), silu on
both kinds, elu (with alpha) on Tensors.

relu and leaky_relu select their gradient (PyTorch's ``threshold_backward``): where relu is
flat the input gets exactly +0.0, whatever comes in, even inf or nan.

>>> relu.rule(float("inf"), -1.0, 0.0)
(0.0,)
"""

from __future__ import annotations

import math
from typing import Any

from ..autograd.registry import ANY, OUT, Case, Difference, register
from . import floats
from .arithmetic import div
from .elementary import exp, power
from .floats import INF, NAN
from .helpers import data, is_number
from .selection import where, zeros_like
from .trigonometric import cosh, tanh

SUBNORMAL_SIGMOID = (
    "below x = -709 PyTorch's 1 / (1 + e^-x) is 0 (e^-x overflows); topograd's e^x / (1 + e^x) "
    "keeps the subnormal result, exact to its last bit"
)
SOFTPLUS_THRESHOLD = (
    "above x = 20 PyTorch's softplus is x itself and its derivative 1 (its threshold); "
    "topograd's are exact there: within 2.1e-9 of PyTorch's"
)


@register(
    "relu",
    "max(x, 0)",
    scalar=floats.relu,
    array="relu",
    torch="torch.relu",
    saves=(OUT,),
    domain=(ANY,),
    special=[((0.0,), 0.0, (0.0,)), ((-0.0,), -0.0, (0.0,)), ((NAN,), NAN, (1.0,))],
    integers="keep",
    bools=False,
)
def relu(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 where out > 0 and 0 elsewhere: 0 at 0, and 1 at nan (PyTorch tests out <= 0)"""
    return (relu_selection(grad, out),)


def relu_selection(grad: Any, out: Any) -> Any:
    """``grad`` where relu's output ``out`` is positive, else +0.0: on numbers (an ordinary
    backward of a Value, a hot path) the choice at once; else PyTorch's threshold_backward.

    >>> relu_selection(2.5, 1.0), relu_selection(2.5, 0.0)
    (2.5, 0.0)
    """
    return floats.relu_backward(grad, out) if is_number(out) else relu_backward(grad, out)


@register(
    "relu_backward",
    "g where out > 0, else 0: relu's rule as an op (PyTorch's threshold_backward)",
    scalar=floats.relu_backward,
    array="relu_backward",
    torch="torch.ops.aten.threshold_backward",
    saves=(1,),
    domain=(ANY, ANY),
    special=[((INF, 0.0), 0.0, (0.0, 0.0)), ((NAN, -1.0), 0.0, (0.0, 0.0))],
    integers="keep",
    bools=False,
)
def relu_backward(grad: Any, g: Any, out: Any, result: Any) -> tuple[Any, Any]:
    """itself for g (a selection), and zeros for out, as PyTorch's threshold_backward"""
    return relu_backward(grad, out), zeros_like(grad)


@register(
    "leaky_relu",
    "x where x > 0, else 0.01 x",
    scalar=floats.leaky_relu,
    array="leaky_relu",
    torch="torch.nn.functional.leaky_relu",
    saves=(0,),
    domain=(ANY,),
    special=[((0.0,), 0.0, (0.01,)), ((-0.0,), -0.0, (0.01,)), ((NAN,), NAN, (0.01,))],
    integers="floats",
)
def leaky_relu(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 where x > 0 and 0.01 elsewhere: 0.01 at 0 and at nan, as PyTorch's
    leaky_relu_backward (on numbers, an ordinary backward of a Value, the choice at once)"""
    if is_number(x):
        return (floats.leaky_relu_backward(grad, x),)
    return (leaky_relu_backward(grad, x),)


@register(
    "leaky_relu_backward",
    "g where x > 0, else 0.01 g: leaky_relu's rule as an op (PyTorch's leaky_relu_backward)",
    scalar=floats.leaky_relu_backward,
    array="leaky_relu_backward",
    torch="torch.ops.aten.leaky_relu_backward",
    saves=(1,),
    domain=(ANY, ANY),
    special=[((INF, 0.0), INF * floats.LEAKY_SLOPE, (0.01, 0.0)), ((2.0, NAN), 0.02, (0.01, 0.0))],
    integers="float pair",
)
def leaky_relu_backward(grad: Any, g: Any, x: Any, out: Any) -> tuple[Any, Any]:
    """itself for g (a selection between g and 0.01 g), and zeros for x, as PyTorch's: so
    that those zeros reach x's own rule (through a log at 0, 0 / 0 = nan, as in PyTorch)"""
    return leaky_relu_backward(grad, x), zeros_like(grad)


@register(
    "sigmoid",
    "σ(x) = 1 / (1 + e^-x)",
    scalar=floats.sigmoid,
    array="sigmoid",
    torch="torch.sigmoid",
    saves=(OUT,),
    domain=(ANY,),
    special=[((0.0,), 0.5, (0.25,)), ((-1000.0,), 0.0, (0.0,)), ((1000.0,), 1.0, (0.0,))],
    differs=[
        # the value, and so its derivatives too
        Difference((-720.0,), "", 2.0322308024e-313, 0.0, SUBNORMAL_SIGMOID, region=(-INF, -708.0)),
    ],
)
def sigmoid(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """σ(x) (1 - σ(x)), from the output (no overflow at ±1000)"""
    return (sigmoid_backward(grad, out),)


@register(
    "sigmoid_backward",
    "g σ (1 - σ): sigmoid's rule as an op, so that a second derivative is PyTorch's",
    scalar=floats.sigmoid_backward,
    array="sigmoid_backward",
    torch="torch.ops.aten.sigmoid_backward",
    saves=(0, 1),
    domain=(ANY, (0.01, 0.99)),
    integers="float pair",
)
def sigmoid_backward(grad: Any, g: Any, s: Any, out: Any) -> tuple[Any, Any]:
    """σ (1 - σ) for g, and g (1 - 2σ) for σ (PyTorch's formulas)"""
    return sigmoid_backward(grad, s), grad * g * (-2.0 * s + 1.0)


@register(
    "softplus",
    "log(1 + e^x), without overflow",
    scalar=floats.softplus,
    array="softplus",
    torch="torch.nn.functional.softplus",
    saves=(0,),
    domain=(ANY,),
    special=[
        ((0.0,), math.log(2.0), (0.5,)),
        ((1000.0,), 1000.0, (1.0,)),
        ((-1000.0,), 0.0, (0.0,)),
    ],
    differs=[
        # the value, and so its derivatives too
        Difference((21.0,), "", 21.000000000758256, 21.0, SOFTPLUS_THRESHOLD, region=(20.0, INF)),
        Difference(
            (1.0,),
            "d/d1",
            7.310585786300049e307,
            INF,
            "PyTorch's grad e^x / (e^x + 1) overflows for a huge upstream gradient; "
            "topograd's grad σ(x) does not",
            upstream=1e308,
            anywhere=True,
        ),
    ],
    integers="floats",
)
def softplus(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """σ(x), exact everywhere (PyTorch's is x and 1 above x = 20, its threshold: within 2.1e-9)"""
    return (grad * sigmoid(x),)


@register(
    "gelu",
    "x Φ(x) = ½ x (1 + erf(x / √2))",
    scalar=floats.gelu,
    array="gelu",
    torch="torch.nn.functional.gelu",
    saves=(0,),
    domain=(ANY,),
    special=[((0.0,), 0.0, (0.5,)), ((-40.0,), -0.0, (0.0,)), ((1000.0,), 1000.0, (1.0,))],
    integers="floats",
)
def gelu(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """Φ(x) + x φ(x), as PyTorch's gelu_backward: nan at ±inf (∞ · 0)"""
    return (gelu_backward(grad, x),)


@register(
    "gelu_backward",
    "g (Φ(x) + x φ(x)): gelu's rule as an op, so that a second derivative is PyTorch's",
    scalar=floats.gelu_backward,
    array="gelu_backward",
    torch="torch.ops.aten.gelu_backward",
    saves=(0, 1),
    domain=(ANY, ANY),
    integers="float pair",
)
def gelu_backward(grad: Any, g: Any, x: Any, out: Any) -> tuple[Any, Any]:
    """Φ(x) + x φ(x) for g, and g (2 - x²) φ(x) for x, as PyTorch's gelu_double_backward"""
    x_sq = x * x
    pdf = floats.GELU_BETA * exp(-0.5 * x_sq)
    return gelu_backward(grad, x), grad * g * (2.0 * pdf - x_sq * pdf)


@register(
    "gelu_tanh",
    "GELU's tanh form: ½ x (1 + tanh(√(2/π) (x + 0.044715 x³)))",
    scalar=floats.gelu_tanh,
    array="gelu_tanh",
    torch="torch.nn.functional.gelu",  # with approximate="tanh"
    saves=(0,),
    domain=(ANY,),
    special=[((0.0,), 0.0, (0.5,)), ((-40.0,), -0.0, (0.0,)), ((INF,), INF, (NAN,))],
    integers="floats",
)
def gelu_tanh(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """½ (1 + t) + ½ x (1 - t²) √(2/π) (1 + 3 · 0.044715 x²) for t the tanh, as PyTorch's"""
    return (gelu_tanh_backward(grad, x),)


@register(
    "gelu_tanh_backward",
    "g · gelu_tanh'(x): the rule of GELU's tanh form as an op, for PyTorch's second derivative",
    scalar=floats.gelu_tanh_backward,
    array="gelu_tanh_backward",
    torch="torch.ops.aten.gelu_backward",  # with approximate="tanh"
    saves=(0, 1),
    domain=(ANY, ANY),
    integers="float pair",
)
def gelu_tanh_backward(grad: Any, g: Any, x: Any, out: Any) -> tuple[Any, Any]:
    """gelu_tanh'(x) for g; for x, g times the derivative of f g h (f = x/2, g = 1 - t², h the
    inner derivative), as PyTorch's gelu_double_backward"""
    beta, kappa = floats.GELU_TANH_BETA, floats.GELU_KAPPA
    inner = beta * (x + kappa * power(x, 3.0))
    t = tanh(inner)
    sech = div(1.0, cosh(inner))
    f, slope, h = 0.5 * x, 1.0 - t * t, beta * (1.0 + 3.0 * kappa * x * x)
    f_prime_gh = 0.5 * slope * h
    g_prime_fh = f * h * ((2.0 * sech) * (-sech * t) * h)
    h_prime_fg = f * slope * (6.0 * kappa * x * beta)
    return gelu_tanh_backward(grad, x), grad * g * (
        f_prime_gh + f_prime_gh + g_prime_fh + h_prime_fg
    )


@register(
    "silu",
    "x σ(x) = x / (1 + e^-x)",
    scalar=floats.silu,
    array="silu",
    torch="torch.nn.functional.silu",
    saves=(0,),
    domain=(ANY,),
    special=[((0.0,), 0.0, (0.5,)), ((-1000.0,), -0.0, (-0.0,)), ((1000.0,), 1000.0, (1.0,))],
    integers="floats",
)
def silu(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """σ (1 + x (1 - σ)), as PyTorch's (its infinitely differentiable form, through sigmoid;
    in an ordinary backward of float16, its silu_backward, through float32)"""
    if data(x) is x and getattr(x, "dtype", None) == "float16":
        return (_silu_backward_wide(grad, x),)
    s = sigmoid(x)
    return (grad * s * (1.0 + x * (1.0 - s)),)


def _silu_backward_wide(grad: Any, x: Any) -> Any:
    """PyTorch's silu_backward on a float16 array: in float32, σ = 1 / (1 + e^-x) with e^-x
    rounded from float64 (as the C library's expf gives it), rounded to float16 at the end."""
    w = x.astype("float32")
    s = 1.0 / (1.0 + exp(-x.astype("float64")).astype("float32"))
    return (grad * s * (1.0 + w * (1.0 - s))).astype(x.dtype)


@register(
    "elu",
    "x where x > 0, else alpha (e^x - 1)",
    array="elu",
    torch="torch.nn.functional.elu",
    saves=(0,),
    arity=1,
    domain=(ANY,),
    cases=(
        Case(((2, 3),), {"alpha": 1.0}),
        Case(((5,),), {"alpha": 0.5}),
        Case(((),), {"alpha": 2.0}),
    ),
    batches=True,
    integers="floats",
)
def elu(grad: Any, x: Any, out: Any, *, alpha: float = 1.0) -> tuple[Any]:
    """1 where x > 0 (and at nan), else alpha e^x, as PyTorch's elu_backward"""
    return (elu_backward(grad, x, alpha=alpha),)


@register(
    "elu_backward",
    "g where x > 0, else g alpha e^x: elu's rule as an op, for PyTorch's second derivative",
    array="elu_backward",
    torch="torch.ops.aten.elu_backward",
    saves=(0, 1),
    arity=2,
    domain=(ANY, ANY),
    cases=(Case(((2, 3), (2, 3)), {"alpha": 1.0}), Case(((5,), (5,)), {"alpha": 0.5})),
    batches=True,
    integers="float pair",
)
def elu_backward(grad: Any, g: Any, x: Any, out: Any, *, alpha: float = 1.0) -> tuple[Any, Any]:
    """itself for g; for x, itself fed grad · g and multiplied by 1 where x < 0 and 0 elsewhere
    (a product, as PyTorch's elu_double_backward: nan times 0 is nan)"""
    below = where(data(x) < 0.0, 1.0, 0.0)
    return elu_backward(grad, x, alpha=alpha), elu_backward(grad * g, x, alpha=alpha) * below
