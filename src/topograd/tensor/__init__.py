"""The Tensor kind: NumPy arrays on the same engine and the same registry of ops."""

from .functions import concatenate, cross_entropy, log_softmax, mse_loss, softmax, stack, where
from .kind import TENSOR as TENSOR  # the kind registers itself with the engine
from .tensor import Tensor

__all__ = [
    "Tensor",
    "concatenate",
    "cross_entropy",
    "log_softmax",
    "mse_loss",
    "softmax",
    "stack",
    "where",
]
