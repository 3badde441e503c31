"""Modules and losses: micrograd's ``MLP`` on scalar Values, PyTorch's layers on Tensors.

The Tensor layers (``Linear``, ``Sequential``, ``ReLU``, ``Tanh``, ...), the containers
(``ModuleList``, ``ModuleDict``), ``Parameter``, ``functional``, ``init`` and ``utils``
(``clip_grad_norm_``) are imported on first use, so that scalar models load no NumPy.

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
    from . import functional, init, utils
    from .activations import ELU, GELU, LeakyReLU, LogSoftmax, Sigmoid, SiLU, Softmax, Softplus
    from .containers import ModuleDict, ModuleList
    from .conv import Conv2d
    from .dropout import Dropout
    from .embedding import Embedding
    from .layers import Flatten, Identity, LazyLinear, Linear, ReLU, Sequential, Tanh
    from .loss_modules import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
    from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm
    from .parameter import Parameter
    from .pooling import AvgPool2d, MaxPool2d

_ON_FIRST_USE = {
    "Linear": "layers",
    "LazyLinear": "layers",
    "Conv2d": "conv",
    "MaxPool2d": "pooling",
    "AvgPool2d": "pooling",
    "ReLU": "layers",
    "Sequential": "containers",
    "ModuleList": "containers",
    "ModuleDict": "containers",
    "Tanh": "layers",
    "functional": "functional",
    "init": "init",
    "utils": "utils",
    "Parameter": "parameter",
    "Flatten": "layers",
    "Identity": "layers",
    "Sigmoid": "activations",
    "GELU": "activations",
    "SiLU": "activations",
    "ELU": "activations",
    "LeakyReLU": "activations",
    "Softplus": "activations",
    "Softmax": "activations",
    "LogSoftmax": "activations",
    "Dropout": "dropout",
    "LayerNorm": "normalization",
    "BatchNorm1d": "normalization",
    "BatchNorm2d": "normalization",
    "Embedding": "embedding",
    "CrossEntropyLoss": "loss_modules",
    "NLLLoss": "loss_modules",
    "BCELoss": "loss_modules",
    "BCEWithLogitsLoss": "loss_modules",
    "MSELoss": "loss_modules",
}

__all__ = [
    "ELU",
    "GELU",
    "MLP",
    "AvgPool2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "Conv2d",
    "CrossEntropyLoss",
    "Dropout",
    "Embedding",
    "Flatten",
    "Identity",
    "Layer",
    "LayerNorm",
    "LazyLinear",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "MaxPool2d",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "Neuron",
    "Parameter",
    "ReLU",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softplus",
    "Tanh",
    "bce_with_logits",
    "cross_entropy",
    "functional",
    "hinge",
    "init",
    "l2",
    "mse",
    "utils",
]


def __getattr__(name: str) -> Any:
    """The Tensor layers and ``functional``, imported when first asked for."""
    if name not in _ON_FIRST_USE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{_ON_FIRST_USE[name]}")
    return module if name in ("functional", "init", "utils") else getattr(module, name)
