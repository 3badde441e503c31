"""The Tensor kind: NumPy arrays on the same engine and the same registry of ops."""

from .creation import (
    Generator,
    arange,
    eye,
    float16,
    float32,
    float64,
    full,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    randn,
    zeros,
    zeros_like,
)
from .functions import concatenate, cross_entropy, log_softmax, mse_loss, softmax, stack, where
from .kind import TENSOR as TENSOR  # the kind registers itself with the engine
from .tensor import Tensor

__all__ = [
    "Generator",
    "Tensor",
    "arange",
    "concatenate",
    "cross_entropy",
    "eye",
    "float16",
    "float32",
    "float64",
    "full",
    "linspace",
    "log_softmax",
    "manual_seed",
    "mse_loss",
    "ones",
    "ones_like",
    "rand",
    "randn",
    "softmax",
    "stack",
    "where",
    "zeros",
    "zeros_like",
]
