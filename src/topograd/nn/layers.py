"""Layers on Tensors, as PyTorch's: ``Linear``, ``Sequential``, ``ReLU``, ``Tanh``.

>>> import numpy as np
>>> import topograd as tg
>>> model = tg.nn.Sequential(tg.nn.Linear(4, 8, seed=0), tg.nn.ReLU(), tg.nn.Linear(8, 3, seed=1))
>>> model(np.ones((2, 4), dtype=np.float32)).shape, [name for name, _ in model.named_parameters()]
((2, 3), ['0.weight', '0.bias', '2.weight', '2.bias'])
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..tensor import Tensor
from ..tensor.functions import linear
from ..tensor.tensor import Operand
from .module import Module


class Linear(Module):
    """y = x W^T + b, W of shape (out, in); weights and bias uniform in +-1/sqrt(in_features),
    PyTorch's initialisation; float32 unless ``dtype`` says otherwise."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        seed: int | None = None,
        dtype: Any = np.float32,
    ) -> None:
        rng = np.random.default_rng(seed)
        bound = 1.0 / math.sqrt(in_features)
        self.weight = Tensor(
            rng.uniform(-bound, bound, (out_features, in_features)).astype(dtype),
            requires_grad=True,
        )
        self.bias = (
            Tensor(rng.uniform(-bound, bound, out_features).astype(dtype), requires_grad=True)
            if bias
            else None
        )

    def __call__(self, x: Operand) -> Tensor:
        return linear(x, self.weight, self.bias)

    def __repr__(self) -> str:
        out, inp = self.weight.shape
        return f"Linear(in_features={inp}, out_features={out}, bias={self.bias is not None})"


class ReLU(Module):
    def __call__(self, x: Tensor) -> Tensor:
        return x.relu()

    def __repr__(self) -> str:
        return "ReLU()"


class Tanh(Module):
    def __call__(self, x: Tensor) -> Tensor:
        return x.tanh()

    def __repr__(self) -> str:
        return "Tanh()"


class Sequential(Module):
    """The modules applied one after the other; parameters named by position, as PyTorch."""

    def __init__(self, *modules: Any) -> None:
        self.modules = list(modules)

    def __call__(self, x: Any) -> Any:
        for module in self.modules:
            x = module(x)
        return x

    def named_children(self) -> Iterator[tuple[str, Any]]:
        """The modules by position, as PyTorch names them: ``0.weight``."""
        for i, module in enumerate(self.modules):
            yield str(i), module

    def __repr__(self) -> str:
        inner = "".join(f"\n  ({i}): {m!r}" for i, m in enumerate(self.modules))
        return f"Sequential({inner}\n)"
