"""Activation functions on both kinds: relu, leaky_relu, sigmoid, softplus.

relu and leaky_relu select their gradient (PyTorch's ``threshold_backward``): where relu is
flat the input gets exactly +0.0, whatever comes in, even inf or nan.

>>> relu.rule(float("inf"), -1.0, 0.0)
(0.0,)
"""

from __future__ import annotations

import math
from typing import Any

from ..autograd.registry import ANY, OUT, Difference, register
from . import floats
from .floats import INF, NAN
from .helpers import is_number
from .selection import where, zeros_like

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
)
def relu(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 where out > 0, and nothing elsewhere: 0 at 0, and 1 at nan (PyTorch tests out <= 0)"""
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
)
def leaky_relu(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 where x > 0, else 0.01: 0.01 at 0 and at nan, as PyTorch"""
    return (where(x > 0.0, grad, grad * floats.LEAKY_SLOPE),)


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
)
def softplus(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """σ(x), exact everywhere (PyTorch's is x and 1 above x = 20, its threshold: within 2.1e-9)"""
    return (grad * sigmoid(x),)
