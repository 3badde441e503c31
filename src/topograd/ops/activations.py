"""Activation functions on both kinds: relu, leaky_relu, sigmoid, softplus.

relu and leaky_relu select their gradient (PyTorch's ``threshold_backward``): where relu is
flat the input gets exactly +0.0, whatever comes in, even inf or nan.

>>> relu.rule(float("inf"), -1.0, 0.0)
(0.0,)
"""

from __future__ import annotations

import math
from typing import Any

from ..autograd.registry import ANY, register
from . import floats
from .floats import NAN
from .selection import where


@register(
    "relu",
    "max(x, 0)",
    scalar=floats.relu,
    array="relu",
    torch="torch.relu",
    domain=(ANY,),
    special=[((0.0,), 0.0, (0.0,)), ((-0.0,), -0.0, (0.0,)), ((NAN,), NAN, (1.0,))],
)
def relu(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """1 where out > 0, and nothing elsewhere: 0 at 0, and 1 at nan (PyTorch tests out <= 0)"""
    return (where(out <= 0.0, 0.0, grad),)


@register(
    "leaky_relu",
    "x where x > 0, else 0.01 x",
    scalar=floats.leaky_relu,
    array="leaky_relu",
    torch="torch.nn.functional.leaky_relu",
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
    domain=(ANY,),
    special=[((0.0,), 0.5, (0.25,)), ((-1000.0,), 0.0, (0.0,)), ((1000.0,), 1.0, (0.0,))],
)
def sigmoid(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """σ(x) (1 - σ(x)), from the output (no overflow at ±1000)"""
    return (grad * (1.0 - out) * out,)


@register(
    "softplus",
    "log(1 + e^x), without overflow",
    scalar=floats.softplus,
    array="softplus",
    torch="torch.nn.functional.softplus",
    domain=(ANY,),
    special=[
        ((0.0,), math.log(2.0), (0.5,)),
        ((1000.0,), 1000.0, (1.0,)),
        ((-1000.0,), 0.0, (0.0,)),
    ],
)
def softplus(grad: Any, x: Any, out: Any) -> tuple[Any]:
    """σ(x), exact everywhere (PyTorch's is x and 1 above x = 20, its threshold: within 2.1e-9)"""
    return (grad * sigmoid(x),)
