"""The methods both kinds share, derived from the registry: each is one line, the op applied
to ``self``. A new function of one variable is an entry of its family and a line here.

>>> import topograd as tg
>>> from topograd.autograd.registry import OPS
>>> tg.Value(0.0).tanh().op, tg.Value(1.0).erf().data == OPS["erf"](1.0)
('tanh', True)
"""

from __future__ import annotations

from typing import Self

from .activations import leaky_relu, relu, sigmoid, softplus
from .arithmetic import absolute, sign
from .elementary import (
    asinh,
    atan,
    cos,
    cosh,
    erf,
    exp,
    expm1,
    log,
    log1p,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
)


class Methods:
    """Functions of one variable as methods of a Value or a Tensor: ``x.tanh()``."""

    __slots__ = ()

    def exp(self) -> Self:
        return exp(self)

    def log(self) -> Self:
        return log(self)

    def sqrt(self) -> Self:
        return sqrt(self)

    def sin(self) -> Self:
        return sin(self)

    def cos(self) -> Self:
        return cos(self)

    def tan(self) -> Self:
        return tan(self)

    def sinh(self) -> Self:
        return sinh(self)

    def cosh(self) -> Self:
        return cosh(self)

    def tanh(self) -> Self:
        return tanh(self)

    def asinh(self) -> Self:
        return asinh(self)

    def atan(self) -> Self:
        return atan(self)

    def log1p(self) -> Self:
        return log1p(self)

    def expm1(self) -> Self:
        return expm1(self)

    def erf(self) -> Self:
        return erf(self)

    def relu(self) -> Self:
        return relu(self)

    def leaky_relu(self) -> Self:
        return leaky_relu(self)

    def sigmoid(self) -> Self:
        return sigmoid(self)

    def softplus(self) -> Self:
        return softplus(self)

    def abs(self) -> Self:
        return absolute(self)

    def sign(self) -> Self:
        return sign(self)
