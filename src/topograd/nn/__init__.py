"""Modules and losses: micrograd's ``MLP`` on scalar Values, PyTorch's layers on Tensors.

>>> import topograd as tg
>>> model = tg.nn.MLP(2, [16, 16, 1], seed=0)
>>> [type(layer).__name__ for layer in model.layers], len(model.parameters())
(['Layer', 'Layer', 'Layer'], 337)
"""

from . import functional
from .layers import Linear, ReLU, Sequential, Tanh
from .losses import bce_with_logits, cross_entropy, hinge, l2, mse
from .module import Module
from .modules import MLP, Layer, Neuron

__all__ = [
    "MLP",
    "Layer",
    "Linear",
    "Module",
    "Neuron",
    "ReLU",
    "Sequential",
    "Tanh",
    "bce_with_logits",
    "cross_entropy",
    "functional",
    "hinge",
    "l2",
    "mse",
]
