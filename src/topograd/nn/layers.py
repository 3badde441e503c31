"""Layers on Tensors, as PyTorch's: ``Linear``, ``Sequential``, ``ReLU``, ``Tanh``, ``Flatten``,
``Identity``.

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

from ..tensors import Tensor
from ..tensors.creation import DEFAULT
from ..tensors.functions import linear
from ..tensors.tensor import Operand
from .module import Module
from .parameter import Parameter


class Linear(Module):
    """y = x W^T + b, W of shape (out, in); weights and bias uniform in +-1/sqrt(in_features),
    PyTorch's initialisation, drawn from ``seed`` or else from topograd's generator
    (``tg.manual_seed``); float32 unless ``dtype`` says otherwise. Both are ``Parameter``s."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        seed: int | None = None,
        dtype: Any = np.float32,
    ) -> None:
        rng = DEFAULT.numbers if seed is None else np.random.default_rng(seed)
        bound = 1.0 / math.sqrt(in_features) if in_features else 0.0
        self.weight = Parameter(
            rng.uniform(-bound, bound, (out_features, in_features)).astype(dtype)
        )
        self.bias = (
            Parameter(rng.uniform(-bound, bound, out_features).astype(dtype)) if bias else None
        )

    def __call__(self, x: Operand) -> Tensor:
        return linear(x, self.weight, self.bias)

    def __repr__(self) -> str:
        out, inp = self.weight.shape
        return f"Linear(in_features={inp}, out_features={out}, bias={self.bias is not None})"


class ReLU(Module):
    """max(x, 0), element by element (``inplace=True`` computed out of place: topograd records
    no in-place op in a graph)."""

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = inplace

    def __call__(self, x: Tensor) -> Tensor:
        return x.relu()

    def __repr__(self) -> str:
        return "ReLU(inplace=True)" if self.inplace else "ReLU()"


class Tanh(Module):
    """tanh(x), element by element."""

    def __call__(self, x: Tensor) -> Tensor:
        return x.tanh()

    def __repr__(self) -> str:
        return "Tanh()"


class Identity(Module):
    """The input itself (a placeholder where a layer may go), as PyTorch's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # (any arguments, ignored)
        pass

    def __call__(self, x: Any) -> Any:
        return x

    def __repr__(self) -> str:
        return "Identity()"


class Flatten(Module):
    """The axes from ``start_dim`` to ``end_dim`` (both included) made one, as PyTorch's:
    (N, C, H, W) -> (N, C*H*W) by default.

    >>> import topograd as tg
    >>> Flatten()(tg.zeros(2, 3, 4)).shape, Flatten(0, 1)(tg.zeros(2, 3, 4)).shape
    ((2, 12), (6, 4))
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        self.start_dim, self.end_dim = start_dim, end_dim

    def __call__(self, x: Tensor) -> Tensor:
        return x.flatten(self.start_dim, self.end_dim)  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"Flatten(start_dim={self.start_dim}, end_dim={self.end_dim})"


class Sequential(Module):
    """The modules applied one after the other; parameters named by position, as PyTorch.
    Index it (``model[0]``), iterate over it or take its length, as PyTorch's."""

    def __init__(self, *modules: Any) -> None:
        self.layers = list(modules)

    def __call__(self, x: Any) -> Any:
        for module in self.layers:
            x = module(x)
        return x

    def named_children(self) -> Iterator[tuple[str, Any]]:
        """The modules by position, as PyTorch names them: ``0.weight``."""
        for i, module in enumerate(self.layers):
            yield str(i), module

    def __getitem__(self, index: int | slice) -> Any:
        """The module at ``index``; a slice is a Sequential of those modules."""
        if isinstance(index, slice):
            return Sequential(*self.layers[index])
        return self.layers[index]

    def __len__(self) -> int:
        return len(self.layers)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.layers)

    def append(self, module: Any) -> Sequential:
        """``module`` added at the end; the Sequential itself."""
        self.layers.append(module)
        return self

    def __repr__(self) -> str:
        inner = "".join(f"\n  ({i}): {m!r}" for i, m in enumerate(self.layers))
        return f"Sequential({inner}\n)"
