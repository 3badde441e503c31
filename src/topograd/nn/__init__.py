"""Modules and losses on scalar Values: ``tg.nn.MLP`` as micrograd's, and the losses.

>>> import topograd as tg
>>> model = tg.nn.MLP(2, [16, 16, 1], seed=0)
>>> [type(layer).__name__ for layer in model.layers], len(model.parameters())
(['Layer', 'Layer', 'Layer'], 337)
"""

from .losses import bce_with_logits, cross_entropy, hinge, l2, mse
from .modules import MLP, Layer, Module, Neuron

__all__ = [
    "MLP",
    "Layer",
    "Module",
    "Neuron",
    "bce_with_logits",
    "cross_entropy",
    "hinge",
    "l2",
    "mse",
]
