"""The methods both kinds share, derived from the registry: each is one line, the op applied
to ``self``. A new function of one variable is an entry of its family and a line here.

>>> import topograd as tg
>>> from topograd.autograd.registry import OPS
>>> tg.Value(0.0).tanh().op, tg.Value(1.0).erf().data == OPS["erf"](1.0)
('tanh', True)
"""

from __future__ import annotations

from typing import Self

from .activations import gelu, gelu_tanh, leaky_relu, relu, sigmoid, silu, softplus
from .arithmetic import absolute, sign
from .elementary import erf, exp, expm1, log, log1p, log2, log10, sqrt
from .rounding import ceil, floor, round_even
from .trigonometric import acos, acosh, asin, asinh, atan, atanh, cos, cosh, sin, sinh, tan, tanh


class Methods:
    """Functions of one variable as methods of a Value or a Tensor: ``x.tanh()``, each the op
    of the registry of that name (``docs/ops.md`` gives its derivative)."""

    __slots__ = ()

    def exp(self) -> Self:
        """e^x"""
        return exp(self)

    def log(self) -> Self:
        """the natural log"""
        return log(self)

    def sqrt(self) -> Self:
        """the square root"""
        return sqrt(self)

    def sin(self) -> Self:
        """the sine"""
        return sin(self)

    def cos(self) -> Self:
        """the cosine"""
        return cos(self)

    def tan(self) -> Self:
        """the tangent"""
        return tan(self)

    def sinh(self) -> Self:
        """the hyperbolic sine"""
        return sinh(self)

    def cosh(self) -> Self:
        """the hyperbolic cosine"""
        return cosh(self)

    def tanh(self) -> Self:
        """the hyperbolic tangent"""
        return tanh(self)

    def asinh(self) -> Self:
        """the inverse hyperbolic sine"""
        return asinh(self)

    def atan(self) -> Self:
        """the inverse tangent"""
        return atan(self)

    def asin(self) -> Self:
        """the inverse sine"""
        return asin(self)

    def acos(self) -> Self:
        """the inverse cosine"""
        return acos(self)

    def atanh(self) -> Self:
        """the inverse hyperbolic tangent"""
        return atanh(self)

    def acosh(self) -> Self:
        """the inverse hyperbolic cosine"""
        return acosh(self)

    def log2(self) -> Self:
        """the base-2 logarithm"""
        return log2(self)

    def log10(self) -> Self:
        """the base-10 logarithm"""
        return log10(self)

    def floor(self) -> Self:
        """the largest whole number not above (zero gradient)"""
        return floor(self)

    def ceil(self) -> Self:
        """the smallest whole number not below (zero gradient)"""
        return ceil(self)

    def round(self) -> Self:
        """the nearest whole number, halves to even (zero gradient)"""
        return round_even(self)

    def log1p(self) -> Self:
        """log(1 + x), exact near 0"""
        return log1p(self)

    def expm1(self) -> Self:
        """e^x - 1, exact near 0"""
        return expm1(self)

    def erf(self) -> Self:
        """the error function"""
        return erf(self)

    def relu(self) -> Self:
        """max(x, 0)"""
        return relu(self)

    def leaky_relu(self) -> Self:
        """x where x > 0, else 0.01 x"""
        return leaky_relu(self)

    def sigmoid(self) -> Self:
        """1 / (1 + e^-x)"""
        return sigmoid(self)

    def softplus(self) -> Self:
        """log(1 + e^x), without overflow"""
        return softplus(self)

    def gelu(self, approximate: str = "none") -> Self:
        """x Φ(x), or its tanh form where ``approximate="tanh"`` (PyTorch's two)"""
        if approximate not in ("none", "tanh"):
            raise ValueError(f"approximate must be 'none' or 'tanh', got {approximate!r}")
        return gelu(self) if approximate == "none" else gelu_tanh(self)

    def gelu_tanh(self) -> Self:
        """GELU's tanh form (as ``gelu(approximate="tanh")``)"""
        return gelu_tanh(self)

    def silu(self) -> Self:
        """x σ(x)"""
        return silu(self)

    def abs(self) -> Self:
        """|x|"""
        return absolute(self)

    def sign(self) -> Self:
        """-1, 0 or 1 (0 at nan)"""
        return sign(self)
