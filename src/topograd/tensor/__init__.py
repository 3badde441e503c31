"""Tensors: the same engine on NumPy arrays, with broadcasting."""

from .core import Tensor
from .functions import concatenate, cross_entropy, log_softmax, mse_loss, softmax, stack, where

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
