"""Functions of several Tensors, and the fused functions of logits.

>>> import numpy as np
>>> import topograd as tg
>>> x = tg.Tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
>>> tg.where(x.data > 2, x, 0.0).sum().backward()
>>> x.grad
array([[0., 0.],
       [1., 1.]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .core import Operand, Tensor, _binary, _unary, as_tensor, make


def where(cond: Any, a: Operand, b: Operand) -> Tensor:
    """``a`` where ``cond`` holds, else ``b`` (broadcast); the condition is a constant."""
    mask = np.asarray(cond.data if isinstance(cond, Tensor) else cond, dtype=bool)
    x = as_tensor(a, b if isinstance(b, Tensor) else None)
    y = as_tensor(b, x)
    return make(np.where(mask, x.data, y.data), "where", (x, y), mask)


def concatenate(tensors: Sequence[Operand], axis: int = 0) -> Tensor:
    parts = [as_tensor(t) for t in tensors]
    return make(np.concatenate([p.data for p in parts], axis=axis), "concatenate", parts, axis)


def stack(tensors: Sequence[Operand], axis: int = 0) -> Tensor:
    parts = [as_tensor(t) for t in tensors]
    return make(np.stack([p.data for p in parts], axis=axis), "stack", parts, axis)


def linear(x: Operand, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x W^T + b in one node, as torch.nn.functional.linear; W has shape (out, in)."""
    if bias is None:
        return as_tensor(x) @ weight.T
    inputs = (as_tensor(x, weight), weight, bias)
    return make(inputs[0].data @ weight.data.T + bias.data, "linear", inputs)


def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - x.max(axis=axis, keepdims=True)
    result: np.ndarray = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
    return result


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """exp(x) / sum(exp(x)) along ``axis``, shifted by the max so that nothing overflows."""
    return _unary("softmax", lambda d: np.exp(_log_softmax(d, axis)), as_tensor(x), axis)


def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    return _unary("log_softmax", lambda d: _log_softmax(d, axis), as_tensor(x), axis)


def cross_entropy(logits: Tensor, targets: Any) -> Tensor:
    """mean over the batch of -log softmax(logits)[target]: integer class targets, one per row;
    stable for logits of +-1000. One fused node, as PyTorch's."""
    z = as_tensor(logits)
    t = np.asarray(targets.data if isinstance(targets, Tensor) else targets)
    if z.ndim != 2 or t.ndim != 1 or len(t) != z.shape[0]:
        raise ValueError(
            f"cross_entropy takes logits (n, classes) and n targets, got {z.shape} and {t.shape}"
        )
    if t.dtype.kind not in "iu" or (t < 0).any() or (t >= z.shape[1]).any():
        raise ValueError(f"cross_entropy targets must be class indices in [0, {z.shape[1]})")
    t = t.astype(np.intp)

    def forward(d: np.ndarray) -> np.ndarray:
        return np.asarray(-_log_softmax(d, 1)[np.arange(len(t)), t].mean())

    return _unary("cross_entropy", forward, z, t)


def mse_loss(pred: Tensor, target: Operand) -> Tensor:
    """mean((pred - target)^2)"""
    diff = _binary("sub", np.subtract, pred, target)
    return (diff * diff).mean()
