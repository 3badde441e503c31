"""Layers on Tensors, as PyTorch's: ``Linear`` (and its function ``linear``, checked as
PyTorch checks it), ``ReLU``, ``Tanh``, ``Flatten``, ``Identity``; ``Sequential`` is in
``containers.py``.

>>> import numpy as np
>>> import topograd as tg
>>> model = tg.nn.Sequential(tg.nn.Linear(4, 8, seed=0), tg.nn.ReLU(), tg.nn.Linear(8, 3, seed=1))
>>> model(np.ones((2, 4), dtype=np.float32)).shape, [name for name, _ in model.named_parameters()]
(topograd.Size([2, 3]), ['0.weight', '0.bias', '2.weight', '2.bias'])
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..tensors import Tensor
from ..tensors.creation import checked_shape
from ..tensors.functions import linear as fused_linear
from ..tensors.random import Generator
from ..tensors.tensor import Operand, as_tensor
from . import init
from .containers import Sequential
from .module import Module
from .parameter import Parameter, as_input, factory_dtype

__all__ = ["Flatten", "Identity", "LazyLinear", "Linear", "ReLU", "Sequential", "Tanh", "linear"]

# PyTorch's names of the dtypes, as its messages give them
TORCH_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double"}


def linear(input: Operand, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """x W^T + b, as torch.nn.functional.linear, W of shape (out, in): refused as PyTorch
    refuses it (a RuntimeError) for an input of the wrong size or, for a Tensor, of another
    dtype than W's; an array or a number takes W's dtype.

    >>> import topograd as tg
    >>> linear(tg.ones(2, 3), tg.ones(4, 3)).shape
    topograd.Size([2, 4])
    """
    x = as_input(input, weight)
    if x.array.ndim == 0:
        raise RuntimeError(
            f"both arguments to linear need to be at least 1D, but they are 0D and {weight.ndim}D"
        )
    if x.array.dtype != weight.array.dtype:  # (NumPy's dtypes: one to one with ours)
        mine, theirs = (TORCH_NAMES.get(t.dtype.name, t.dtype.name) for t in (x, weight))
        if bias is None:  # (PyTorch's matmul says it in other words)
            got = f"{mine.lower()} != {theirs.lower()}"
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {got}")
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {mine} and {theirs}")
    return fused_linear(x, weight, bias)  # (a wrong size: tensors/tensor.refusal's words)


class Linear(Module):
    """y = x W^T + b, W of shape (out_features, in_features); weights and bias uniform in
    +-1/sqrt(in_features), drawn as PyTorch draws them (``kaiming_uniform_`` with a = sqrt(5),
    then the bias), so a seed gives PyTorch's numbers: from a generator of ``seed``, or else
    from topograd's (``tg.manual_seed``); float32 unless ``dtype`` says otherwise, on the CPU
    (``device``). Both are ``Parameter``s."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        seed: int | None = None,
    ) -> None:
        kind = factory_dtype(device, dtype)
        shape = checked_shape((out_features, in_features))
        self.in_features, self.out_features = in_features, out_features
        generator = None if seed is None else Generator().manual_seed(seed)
        self.weight = Parameter(np.empty(shape, kind))
        self.bias = Parameter(np.empty(out_features, kind)) if bias else None
        self._draw(generator)

    def reset_parameters(self) -> None:
        """The weights and bias drawn again, as ``__init__`` drew them (from topograd's
        generator, ``tg.manual_seed``'s), as PyTorch's."""
        self._draw(None)

    def _draw(self, generator: Generator | None) -> None:
        fan_in = layer_init(self.weight, generator)
        if self.bias is not None:
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound, generator)

    def forward(self, input: Operand) -> Tensor:  # noqa: A002 - PyTorch's names
        return linear(input, self.weight, self.bias)

    if TYPE_CHECKING:  # (called through Module.__call__, which runs forward: its type)

        def __call__(self, input: Operand) -> Tensor: ...  # noqa: A002

    def __repr__(self) -> str:
        return (
            f"Linear(in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None})"
        )


class LazyLinear(Linear):
    """A ``Linear`` whose ``in_features`` is the last size of its first input, as PyTorch's:
    until that first call its weight and bias hold no numbers (a write to them changes
    nothing), then they are made, drawn as a ``Linear``'s (from ``tg.manual_seed``'s
    generator), and it is a ``Linear``. The Parameters are the same objects before and after,
    so an optimizer made before the first call trains them.

    >>> import topograd as tg
    >>> layer = LazyLinear(2)
    >>> layer.weight.shape, layer(tg.ones(4, 3)).shape, layer.weight.shape, type(layer).__name__
    (topograd.Size([0]), topograd.Size([4, 2]), topograd.Size([2, 3]), 'Linear')
    """

    def __init__(
        self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        kind = factory_dtype(device, dtype)
        checked_shape((out_features,))
        self.in_features, self.out_features = 0, out_features
        self.weight = Parameter(np.empty(0, kind))
        self.bias = Parameter(np.empty(0, kind)) if bias else None

    def forward(self, input: Operand) -> Tensor:  # noqa: A002 - PyTorch's names
        x = as_tensor(input)
        if x.ndim == 0:
            raise RuntimeError("LazyLinear needs an input of at least one axis, got a number")
        self.in_features = x.shape[-1]
        kind = self.weight.array.dtype
        self.weight.data = np.empty((self.out_features, self.in_features), kind)
        if self.bias is not None:
            self.bias.data = np.empty(self.out_features, kind)
        self.reset_parameters()
        self.__class__ = Linear  # type: ignore[assignment] # (PyTorch's: its cls_to_become)
        return linear(input, self.weight, self.bias)

    def __repr__(self) -> str:
        shown = f"out_features={self.out_features}, bias={self.bias is not None}"
        return f"LazyLinear(in_features=0, {shown})"


def layer_init(weight: Parameter, generator: Generator | None) -> int:
    """A Linear's or a convolution's weight drawn as PyTorch's ``reset_parameters`` draws it
    (nothing drawn where it is empty, without PyTorch's warning); returns its fan-in, of
    which PyTorch derives the bias's bound."""
    if weight.numel():
        init.kaiming_uniform_(weight, a=math.sqrt(5), generator=generator)
    return init.fan_in_and_fan_out(weight)[0]


class ReLU(Module):
    """max(x, 0), element by element (``inplace=True`` is computed out of place: the result is
    a new Tensor, and the input keeps its numbers, where PyTorch's would be overwritten)."""

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return as_tensor(input).relu()

    def __repr__(self) -> str:
        return "ReLU(inplace=True)" if self.inplace else "ReLU()"


class Tanh(Module):
    """tanh(x), element by element."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return as_tensor(input).tanh()

    def __repr__(self) -> str:
        return "Tanh()"


class Identity(Module):
    """The input itself (a placeholder where a layer may go), as PyTorch's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # (any arguments, ignored)
        pass

    def forward(self, input: Any) -> Any:  # noqa: A002
        return input

    def __repr__(self) -> str:
        return "Identity()"


class Flatten(Module):
    """The axes from ``start_dim`` to ``end_dim`` (both included) made one, as PyTorch's:
    (N, C, H, W) -> (N, C*H*W) by default.

    >>> import topograd as tg
    >>> Flatten()(tg.zeros(2, 3, 4)).shape, Flatten(0, 1)(tg.zeros(2, 3, 4)).shape
    (topograd.Size([2, 12]), topograd.Size([6, 4]))
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return as_tensor(input).flatten(self.start_dim, self.end_dim)  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"Flatten(start_dim={self.start_dim}, end_dim={self.end_dim})"
