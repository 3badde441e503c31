"""Functions of several Tensors, and the fused functions of logits.

>>> import numpy as np
>>> import topograd as tg
>>> x = tg.Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> tg.stack([x[0], x[1] * 2.0]).sum().backward()
>>> x.grad
array([[1., 1.],
       [2., 2.]])
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..autograd.errors import RuntimeValueError
from ..ops import linalg, shapes
from ..ops import softmax as logits
from ..ops.spellings import AS_FUNCTIONS
from .tensor import Operand, Tensor, as_tensor, constant


def concatenate(tensors: Sequence[Operand], axis: int = 0, *, dim: int | None = None) -> Tensor:
    """The Tensors joined along an existing axis (``dim``, PyTorch's name: ``tg.cat``)."""
    parts = [as_tensor(t) for t in tensors]
    along = axis if dim is None else dim
    return shapes.concatenate(*parts, axis=operator.index(along))  # type: ignore[no-any-return]


def stack(tensors: Sequence[Operand], axis: int = 0, *, dim: int | None = None) -> Tensor:
    """The Tensors joined along a new axis (``dim``, PyTorch's name)."""
    parts = [as_tensor(t) for t in tensors]
    along = axis if dim is None else dim
    return shapes.stack(*parts, axis=operator.index(along))  # type: ignore[no-any-return]


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


def from_numpy(array: Any) -> Tensor:
    """A Tensor of ``array``'s numbers (PyTorch's spelling of ``tg.Tensor(array)``)."""
    return Tensor(np.asarray(array))


def linear(x: Operand, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x W^T + b in one node, as torch.nn.functional.linear; W has shape (out, in). Without a
    bias, x W^T (a transpose and a matmul). x takes W's dtype when it is not a Tensor."""
    if bias is None:
        return as_tensor(x, weight) @ weight.T
    return linalg.linear(as_tensor(x, weight), weight, bias)  # type: ignore[no-any-return]


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """exp(x) / sum(exp(x)) along ``axis``: ``x.softmax(axis)``, the one path of
    ``tg.softmax`` and ``tg.nn.functional.softmax`` too.

    >>> import topograd as tg
    >>> softmax(tg.zeros(0, 3), 0).shape, softmax(tg.Tensor(2.0), -1).item()
    ((0, 3), 1.0)
    """
    return as_tensor(x).softmax(axis)


def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    """x - log Σ e^x along ``axis``: ``x.log_softmax(axis)``, as ``softmax``.

    >>> import topograd as tg
    >>> log_softmax(tg.Tensor([0.0, 0.0]), 0).tolist() == [-0.6931471805599453] * 2
    True
    """
    return as_tensor(x).log_softmax(axis)


def cross_entropy(logits_: Tensor, targets: Any) -> Tensor:
    """mean over the batch of -log softmax(logits)[target]: integer class targets, one per row;
    stable for logits of +-1000. One fused node, as PyTorch's."""
    z = as_tensor(logits_)
    t = np.asarray(targets.data if isinstance(targets, Tensor) else targets)
    if z.ndim != 2 or t.ndim != 1 or len(t) != z.shape[0]:
        raise RuntimeValueError(
            f"cross_entropy takes logits (n, classes) and n targets, got {z.shape} and {t.shape}"
        )
    if t.dtype.kind not in "iu" or (t < 0).any() or (t >= z.shape[1]).any():
        raise RuntimeValueError(f"cross_entropy targets must be class indices in [0, {z.shape[1]})")
    return logits.cross_entropy(z, constant(t.astype(np.intp)))  # type: ignore[no-any-return]


def mse_loss(pred: Tensor, target: Operand) -> Tensor:
    """mean((pred - target)^2)"""
    diff = as_tensor(pred) - as_tensor(target, as_tensor(pred))
    return (diff * diff).mean()
