"""Functions of several Tensors, and the fused functions of logits.

>>> import topograd as tg
>>> x = tg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> tg.where(x.data > 2, x, 0.0).sum().backward()
>>> x.grad
tensor([[0., 0.],
        [1., 1.]])
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ops import linalg, shapes
from ..ops.spellings import AS_FUNCTIONS
from . import dtypes
from .tensor import Operand, Tensor, as_tensor, constant


def concatenate(tensors: Sequence[Operand], axis: int = 0, *, dim: int | None = None) -> Tensor:
    """The Tensors joined along an existing axis (``dim``, PyTorch's name: ``tg.cat``)."""
    along = axis if dim is None else dim
    return shapes.concatenate(*map(as_tensor, tensors), axis=operator.index(along))  # type: ignore[no-any-return]


def stack(tensors: Sequence[Operand], axis: int = 0, *, dim: int | None = None) -> Tensor:
    """The Tensors joined along a new axis (``dim``, PyTorch's name)."""
    along = axis if dim is None else dim
    return shapes.stack(*map(as_tensor, tensors), axis=operator.index(along))  # type: ignore[no-any-return]


class MethodAsFunction:
    """A Tensor's method called as a function of the Tensor, as PyTorch spells it.

    >>> import topograd as tg
    >>> tg.tril(tg.ones(2, 2)).tolist(), tg.mean(tg.Tensor([[1.0, 3.0]]), dim=1).tolist()
    ([[1.0, 0.0], [1.0, 1.0]], [2.0])
    """

    def __init__(self, name: str) -> None:
        self.__name__ = name
        self.method = AS_FUNCTIONS[name]
        self.__doc__ = getattr(Tensor, self.method).__doc__

    def __call__(self, x: Operand, *args: Any, **kwargs: Any) -> Any:
        return getattr(as_tensor(x), self.method)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<function topograd.{self.__name__}>"


def is_tensor(x: Any) -> bool:
    """Whether ``x`` is a Tensor (a Parameter is one), as ``torch.is_tensor``."""
    return isinstance(x, Tensor)


def numel(x: Tensor) -> int:
    """The number of elements, as ``torch.numel``."""
    return x.numel()


def result_type(a: Any, b: Any) -> dtypes.dtype:
    """The dtype an op of ``a`` and ``b`` (Tensors or numbers) gives, as PyTorch promotes."""
    return dtypes.result_type(*(x.array if isinstance(x, Tensor) else x for x in (a, b)))


def linear(x: Operand, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x W^T + b in one node, as torch.nn.functional.linear; W has shape (out, in). Without a
    bias, x W^T (a transpose and a matmul). x takes W's dtype when it is not a Tensor."""
    x = x if isinstance(x, Tensor) else constant(np.asarray(x, weight.array.dtype))
    if bias is None:
        return x @ weight.T  # type: ignore[no-any-return]
    return linalg.linear(x, weight, bias)  # type: ignore[no-any-return]


def softmax(input: Operand, dim: int, dtype: Any = None) -> Tensor:  # noqa: A002 - PyTorch's
    """exp(x) / sum(exp(x)) along ``dim`` (computed in ``dtype`` if given), shifted by the max
    so that nothing overflows, as ``torch.softmax``."""
    x = as_tensor(input) if dtype is None else as_tensor(input).to(dtype)
    return x.softmax(dim)  # (the method's one path: PyTorch's reading of a dim)


def log_softmax(input: Operand, dim: int, dtype: Any = None) -> Tensor:  # noqa: A002
    """x - log sum(exp(x)) along ``dim``, as ``torch.log_softmax``."""
    x = as_tensor(input) if dtype is None else as_tensor(input).to(dtype)
    return x.log_softmax(dim)
