"""Coordinate grids, as PyTorch's ``torch.meshgrid``: each 1-D Tensor repeated along the axes
of the others. Each grid is the Tensor reshaped and broadcast (views of it, as PyTorch's), so
its gradient is theirs: summed back over the repeats.

>>> import topograd as tg
>>> rows, cols = tg.meshgrid(tg.tensor([1, 2, 3]), tg.tensor([4, 5]), indexing="ij")
>>> rows.tolist(), cols.tolist()
([[1, 1], [2, 2], [3, 3]], [[4, 5], [4, 5], [4, 5]])
"""

from __future__ import annotations

import warnings
from typing import Any

from .tensor import Tensor


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """One grid per Tensor (each 1-D, or of no axes: one number), all of one shape: the
    Tensors' lengths in order with ``indexing="ij"``, the first two swapped with "xy" (the
    matrix and the Cartesian conventions). Without ``indexing``, "ij" and PyTorch's warning
    that it will be needed; a list or tuple of Tensors is taken as they are.

    >>> import topograd as tg
    >>> [g.shape for g in meshgrid(tg.zeros(3), tg.zeros(2), indexing="xy")]
    [topograd.Size([2, 3]), topograd.Size([2, 3])]
    """
    given = (
        tuple(tensors[0]) if len(tensors) == 1 and isinstance(tensors[0], list | tuple) else tensors
    )
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise ValueError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if not given:
        raise RuntimeError("torch.meshgrid expects a non-empty TensorList")
    for t in given:
        if not isinstance(t, Tensor) or t.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list")
    if len({t.dtype for t in given}) > 1:
        raise RuntimeError(
            "torch.meshgrid: Expected all tensors in the tensor list to have the same dtype"
        )
    swap = indexing == "xy" and len(given) >= 2
    order = (given[1], given[0], *given[2:]) if swap else given
    shape = tuple(t.numel() for t in order)
    grids = [
        t.reshape(tuple(n if j == k else 1 for j, n in enumerate(shape))).broadcast_to(shape)
        for k, t in enumerate(order)
    ]
    if swap:  # (each grid back beside its own Tensor)
        grids = [grids[1], grids[0], *grids[2:]]
    return tuple(grids)
