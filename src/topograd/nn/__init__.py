"""Modules and losses: micrograd's ``MLP`` on scalar Values, PyTorch's layers on Tensors.

The Tensor layers (``Linear``, ``Sequential``, ``ReLU``, ``Tanh``) and ``functional`` are
imported on first use, so that scalar models load no NumPy.

>>> import topograd as tg
>>> model = tg.nn.MLP(2, [16, 16, 1], seed=0)
>>> [type(layer).__name__ for layer in model.layers], len(model.parameters())
(['Layer', 'Layer', 'Layer'], 337)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .losses import bce_with_logits, cross_entropy, hinge, l2, mse
from .module import Module
from .neurons import MLP, Layer, Neuron

if TYPE_CHECKING:
    from . import functional
    from .layers import Linear, ReLU, Sequential, Tanh

_ON_FIRST_USE = {
    "Linear": "layers",
    "ReLU": "layers",
    "Sequential": "layers",
    "Tanh": "layers",
    "functional": "functional",
}

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


def __getattr__(name: str) -> Any:
    """The Tensor layers and ``functional``, imported when first asked for."""
    if name not in _ON_FIRST_USE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{_ON_FIRST_USE[name]}")
    return module if name == "functional" else getattr(module, name)
