"""Counts of a Tensor's numbers in bins, as PyTorch's ``torch.histogram``: the same edges (made
by PyTorch's ``linspace`` in the input's dtype) and the same bin for every number (the one
whose edges hold it, the last edge inclusive), so the same counts and densities.

>>> import topograd as tg
>>> hist, edges = tg.histogram(tg.tensor([0.0, 1.0, 1.0, 3.0]), bins=3)
>>> hist.tolist(), edges.tolist()
([1.0, 2.0, 1.0], [0.0, 1.0, 2.0, 3.0])
"""

from __future__ import annotations

import math
import operator
from typing import Any, NamedTuple

import numpy as np

from ..autograd.errors import RuntimeValueError
from .creation import linspace
from .tensor import Tensor, constant


class Histogram(NamedTuple):
    """``torch.histogram``'s result: the counts (or densities) and the bins' edges."""

    hist: Tensor
    bin_edges: Tensor


def histogram(
    input: Tensor,  # noqa: A002 - PyTorch's names
    bins: Any = 100,
    *,
    range: tuple[float, float] | None = None,  # noqa: A002
    weight: Tensor | None = None,
    density: bool = False,
) -> Histogram:
    """The numbers of ``input`` counted in ``bins`` bins of equal width from its least to its
    greatest number (or over ``range``; numbers outside are not counted), or in the bins
    between the edges of a 1-D Tensor ``bins``; each counts 1 (or its ``weight``). With
    ``density``, each count divided by the total and by its bin's width. A float Tensor's
    numbers only; no gradient (PyTorch has no derivative for it either).

    >>> import topograd as tg
    >>> tg.histogram(tg.tensor([1.0, 2.0, 2.0]), bins=2, density=True).hist.tolist()
    [0.6666666865348816, 1.3333333730697632]
    """
    x = input.array.reshape(-1)
    if x.dtype.kind != "f":
        raise RuntimeError(f'"histogramdd" not implemented for {input.dtype.name!r}')
    edges = _edges(x, bins, range)
    counted = (x >= edges[0]) & (x <= edges[-1])
    place = np.searchsorted(edges, x[counted], side="right") - 1
    place[place == len(edges) - 1] -= 1  # (the last edge is the last bin's)
    given = None if weight is None else weight.array.reshape(-1)[counted]
    hist = np.bincount(place, given, minlength=len(edges) - 1).astype(x.dtype)
    if density:
        hist = hist / hist.dtype.type(hist.sum()) / np.diff(edges)
    return Histogram(constant(hist), constant(edges))


def _edges(x: Any, bins: Any, given: tuple[float, float] | None) -> Any:
    """The bins' edges: a Tensor's numbers, or PyTorch's evenly spaced ones."""
    if isinstance(bins, Tensor):
        return bins.array.astype(x.dtype)
    count = operator.index(bins)
    if count <= 0:
        raise RuntimeValueError(
            f"torch.histogram(): bins must be > 0, but got {count} for dimension 0"
        )
    low, high = (float(x.min()), float(x.max())) if given is None else map(float, given)
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeValueError(
            f"torch.histogramdd: dimension 0's range [{low}, {high}] is not finite"
        )
    if low > high:
        raise RuntimeValueError(
            f"torch.histogramdd: min should not exceed max, but got min {low} max {high} for "
            "dimension 0"
        )
    if low == high:  # (PyTorch's, and NumPy's: a bin of width 1 about the one number)
        low, high = low - 0.5, high + 0.5
    return linspace(low, high, count + 1, dtype=x.dtype).array
