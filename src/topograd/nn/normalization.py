"""Normalisation, as PyTorch's: ``layer_norm`` and ``LayerNorm`` (over the last axes of each
sample), ``batch_norm``, ``BatchNorm1d`` and ``BatchNorm2d`` (over the batch, per channel, with
running statistics for evaluation).

Each is made of the registry's ops (mean, var, sqrt, and arithmetic), so its gradient and its
second derivatives are theirs: the same maths as PyTorch's fused kernels, rounded in another
order (within a few units in the last place; the tests bound it).

>>> import topograd as tg
>>> out = LayerNorm(3, elementwise_affine=False)(tg.Tensor([[1.0, 2.0, 3.0]]))
>>> [round(v, 5) for v in out.tolist()[0]]
[-1.22474, 0.0, 1.22474]
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..autograd.modes import no_grad
from ..tensors import Tensor
from ..tensors.creation import checked_shape
from ..tensors.tensor import constant
from .module import Module
from .parameter import Parameter, as_input, factory_dtype


def _normalized(x: Tensor, axes: tuple[int, ...], eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """(x - mean) / √(var + eps) over ``axes`` (the biased variance, as PyTorch's), with the
    mean and the variance."""
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True, correction=0)
    return (x - mean) / (var + eps).sqrt(), mean, var


def _shape_of(normalized_shape: int | Sequence[int]) -> tuple[int, ...]:
    if isinstance(normalized_shape, (int, numbers.Integral)):
        return (int(normalized_shape),)
    return tuple(int(n) for n in normalized_shape)


def _same_dtype(x: Tensor, *others: Tensor | None) -> None:
    """Refuse an input of another dtype than the parameters' and statistics', as PyTorch's CPU
    kernels refuse it."""
    if any(t is not None and t.dtype != x.dtype for t in others):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def layer_norm(
    input: Tensor,  # noqa: A002 - PyTorch's names
    normalized_shape: int | Sequence[int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Each sample normalised over its last axes (``normalized_shape``): (x - mean) /
    √(var + eps), the biased variance, then times ``weight`` and plus ``bias`` if given."""
    x = as_input(input, weight, bias)
    _same_dtype(x, weight, bias)
    shape = _shape_of(normalized_shape)
    if not shape or x.ndim < len(shape) or x.shape[x.ndim - len(shape) :] != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size{list(x.shape)}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(t.shape)} and normalized_shape = {list(shape)}"
            )
    out, _, _ = _normalized(x, tuple(range(x.ndim - len(shape), x.ndim)), float(eps))
    if weight is not None:
        out = out * weight
    return out if bias is None else out + bias


def _channel_axes(x: Tensor) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The axes batch norm averages over (all but the channels, axis 1) and the shape that
    puts a per-channel vector along axis 1."""
    if x.ndim < 2:
        raise ValueError(
            f"batch_norm expects an input with a batch and channels, got {tuple(x.shape)}"
        )
    axes = (0, *range(2, x.ndim))
    return axes, (1, x.shape[1], *(1,) * (x.ndim - 2))


def batch_norm(
    input: Tensor,  # noqa: A002
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Each channel (axis 1) normalised: in training by the batch's mean and biased variance,
    updating the running statistics in place (new = (1 - momentum) old + momentum batch, the
    variance unbiased there, as PyTorch's); in evaluation by the running statistics."""
    x = as_input(input, weight, bias, running_mean, running_var)
    axes, along = _channel_axes(x)
    channels = x.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.shape != (channels,):
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    count = x.shape[0] * math.prod(x.shape[2:])  # values per channel
    if training and count == 1:
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {list(x.shape)}"
        )
    if not (training and count == 0):  # (PyTorch's kernel checks, and skips an empty batch)
        _same_dtype(x, weight, bias, running_mean, running_var)
    if not training:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        mean, var = running_mean.reshape(along), running_var.reshape(along)
        out = (x - mean) / (var + float(eps)).sqrt()
    elif count:
        out, _, _ = _normalized(x, axes, float(eps))
        _update(running_mean, running_var, x.array, axes, momentum)
    else:  # an empty batch: nothing to normalise, nothing learnt of it
        out = x * 1.0
    if weight is not None:
        out = out * weight.reshape(along)
    return out if bias is None else out + bias.reshape(along)


def _update(
    running_mean: Tensor | None,
    running_var: Tensor | None,
    x: Any,
    axes: tuple[int, ...],
    momentum: float,
) -> None:
    """The running statistics moved towards the batch's (of the numbers ``x``), in place and
    outside any graph: (1 - momentum) old + momentum new, the variance unbiased (divided by
    n - 1), computed in float64 (PyTorch's accumulation type) and stored in their dtype."""
    wide = x.astype(np.float64)
    if running_mean is not None:
        _move(running_mean, wide.mean(axis=axes), momentum)
    if running_var is not None:
        _move(running_var, wide.var(axis=axes, ddof=1), momentum)


def _move(running: Tensor, batch: Any, momentum: float) -> None:
    new = momentum * batch + (1.0 - momentum) * running.array.astype(np.float64)
    with no_grad():
        running.copy_(new.astype(running.dtype))


class LayerNorm(Module):
    """``layer_norm`` over the last axes ``normalized_shape``, with a learnt weight (ones) and
    bias (zeros) of that shape where ``elementwise_affine`` (the bias only where ``bias``)."""

    def __init__(
        self,
        normalized_shape: int | Sequence[int],
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        kind = factory_dtype(device, dtype)
        self.normalized_shape = shape = checked_shape(_shape_of(normalized_shape))
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.weight = Parameter(np.ones(shape, kind)) if elementwise_affine else None
        self.bias = Parameter(np.zeros(shape, kind)) if elementwise_affine and bias else None

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def __repr__(self) -> str:
        return (
            f"LayerNorm({self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None})"
        )


class _BatchNorm(Module):
    """``batch_norm`` of inputs of the ranks ``ranks``: the batch's statistics in training mode
    (updating the buffers ``running_mean``, ``running_var`` and ``num_batches_tracked``; an
    empty batch changes only the count, as PyTorch's), the running ones in evaluation mode; a
    learnt weight (ones) and bias (zeros) where ``affine``. ``momentum=None`` averages all
    batches so far (a cumulative mean), as PyTorch's;
    ``track_running_stats=False`` keeps no statistics and always uses the batch's. The kinds
    (``BatchNorm1d``, ``BatchNorm2d``) differ only in the ranks they take."""

    ranks: tuple[int, ...] = ()
    running_mean: Tensor | None  # buffers (register_buffer)
    running_var: Tensor | None
    num_batches_tracked: Tensor | None

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        kind = factory_dtype(device, dtype)
        shape = checked_shape((num_features,))
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = Parameter(np.ones(shape, kind)) if affine else None
        self.bias = Parameter(np.zeros(shape, kind)) if affine and bias else None
        buffers = {
            "running_mean": np.zeros(shape, kind),
            "running_var": np.ones(shape, kind),
            "num_batches_tracked": np.zeros((), np.int64),  # an int64, as PyTorch's
        }
        for name, start in buffers.items():
            self.register_buffer(name, constant(start) if track_running_stats else None)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        x = as_input(input, self.weight, self.bias, self.running_mean, self.running_var)
        if x.ndim not in self.ranks:
            expected = " or ".join(f"{rank}D" for rank in self.ranks)
            raise ValueError(f"expected {expected} input (got {x.ndim}D input)")
        momentum = 0.0 if self.momentum is None else self.momentum
        tracking = self.training and self.track_running_stats
        if tracking:
            count = self.num_batches_tracked
            assert count is not None  # (tracking keeps its statistics)
            with no_grad():
                count.copy_(count.array + 1)
            if self.momentum is None:  # the mean of every batch so far
                momentum = 1.0 / float(count.array)
        use_batch = self.training or not self.track_running_stats
        return batch_norm(
            x,
            self.running_mean if tracking or not use_batch else None,
            self.running_var if tracking or not use_batch else None,
            self.weight,
            self.bias,
            use_batch,
            momentum,
            self.eps,
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.num_features}, eps={self.eps}, "
            f"momentum={self.momentum}, affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats})"
        )


class BatchNorm1d(_BatchNorm):
    """Batch norm (see ``_BatchNorm``) of (N, C) or (N, C, L) inputs: per channel C, over N
    (and L).

    >>> import topograd as tg
    >>> out = tg.nn.BatchNorm1d(2)(tg.tensor([[1.0, 5.0], [3.0, 5.0]]))
    >>> [[round(v, 4) for v in row] for row in out.tolist()]
    [[-1.0, 0.0], [1.0, 0.0]]
    """

    ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch norm (see ``_BatchNorm``) of (N, C, H, W) images: per channel C, over N, H and W.

    >>> import topograd as tg
    >>> out = tg.nn.BatchNorm2d(1)(tg.tensor([[[[1.0, 3.0]]], [[[1.0, 3.0]]]]))
    >>> [round(v, 4) for v in out.flatten().tolist()]
    [-1.0, 1.0, -1.0, 1.0]
    """

    ranks = (4,)
