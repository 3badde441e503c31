"""Utilities for training, as ``torch.nn.utils``: ``clip_grad_norm_`` and ``clip_grad_value_``.

>>> import topograd as tg
>>> w = tg.Tensor([0.0, 0.0], requires_grad=True)
>>> (w * tg.Tensor([3.0, 4.0])).sum().backward()
>>> clip_grad_norm_([w], max_norm=1.0).item(), [round(g, 6) for g in w.grad.tolist()]
(5.0, [0.6, 0.8])
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensors import Tensor
from ..tensors.tensor import constant

EPS = 1e-6  # PyTorch's, added to the norm before dividing by it


def _with_grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    found = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p for p in found if p.grad is not None]


def _norm(x: Any, norm_type: float) -> Any:
    """The ``norm_type``-norm of the numbers ``x`` (all of them), in their dtype, as
    torch.linalg.vector_norm."""
    a = np.abs(x).ravel()
    if norm_type == math.inf:
        return a.max(initial=0.0).astype(x.dtype)
    if norm_type == -math.inf:
        return a.min(initial=math.inf).astype(x.dtype)
    if norm_type == 0:
        return np.asarray(np.count_nonzero(a), x.dtype)
    if norm_type == 1:
        return a.sum(dtype=x.dtype)
    if norm_type == 2:
        return np.sqrt((a * a).sum(dtype=x.dtype))
    p = np.asarray(norm_type, x.dtype)
    return ((a**p).sum(dtype=x.dtype) ** (1 / p)).astype(x.dtype)


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The gradients scaled, together, so that their ``norm_type``-norm (that of all their
    numbers as one vector) is at most ``max_norm``, as PyTorch's: each times
    min(1, max_norm / (norm + 1e-6)); the norm (before clipping) returned. A non-finite norm
    is a RuntimeError where ``error_if_nonfinite``. ``foreach`` changes nothing here."""
    norm_type = float(norm_type)
    found = _with_grads(parameters)  # (once: they may come from a generator)
    grads = [p.grad for p in found if p.grad is not None]
    if not grads:
        return constant(np.zeros((), np.float32))
    norms = [_norm(g, norm_type) for g in grads]
    wide = np.result_type(*norms)  # (several dtypes: PyTorch stacks them in the widest)
    total = _norm(np.stack([n.astype(wide) for n in norms]), norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    coefficient = np.minimum(np.asarray(max_norm, wide) / (total + np.asarray(EPS, wide)), 1.0)
    with np.errstate(invalid="ignore"):  # an infinite gradient by 0 is nan, as PyTorch's
        for p, g in zip(found, grads, strict=True):
            p.grad = g * coefficient.astype(g.dtype)  # a new array: none is shared
    return constant(total)


def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None
) -> None:
    """Each gradient's numbers limited to [-clip_value, clip_value], as PyTorch's."""
    for p in _with_grads(parameters):
        assert p.grad is not None
        p.grad = np.clip(p.grad, -float(clip_value), float(clip_value)).astype(p.grad.dtype)
