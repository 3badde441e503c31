"""Dropout, as PyTorch's: in training, each element kept with probability 1 - p and scaled by
1 / (1 - p) (inverted dropout, so evaluation needs no scaling), else zeroed; in evaluation the
input itself. The mask is drawn from topograd's generator (``tg.manual_seed``, or a
``Generator``) as PyTorch's CPU kernel draws it (``bernoulli_(1 - p)``, one 53-bit uniform per
element): the same seed gives PyTorch's mask, except on Intel CPUs, where PyTorch draws it
with MKL's own generator instead.

The output is the input times the scaled mask (one ``mul`` of the registry), as PyTorch
computes it, so the gradient is the upstream gradient times the same scaled mask.

>>> import topograd as tg
>>> _ = tg.manual_seed(0)
>>> out = dropout(tg.ones(1000), p=0.25)
>>> sorted(set(out.tolist())), 700 < int((out > 0).sum()) < 800
([0.0, 1.3333333730697632], True)
"""

from __future__ import annotations

import numbers

import numpy as np

from ..tensors import Generator, Tensor
from ..tensors.random import bernoulli_
from ..tensors.tensor import as_tensor
from .module import Module


def checked_probability(p: float) -> float:
    """``p`` as a float in [0, 1], or PyTorch's ValueError."""
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return float(p)


def dropout(
    input: Tensor,  # noqa: A002 - PyTorch's names
    p: float = 0.5,
    training: bool = True,
    inplace: bool = False,
    *,
    generator: Generator | None = None,
) -> Tensor:
    """Each element zeroed with probability ``p``, the others scaled by 1 / (1 - p), where
    ``training``; else the input itself. ``inplace`` is computed out of place (a new
    Tensor; the input keeps its numbers); ``generator`` (topograd's own) draws the mask."""
    keep = 1.0 - checked_probability(p)
    x = as_tensor(input)
    if not training or x.numel() == 0:
        return x
    if keep == 0.0:  # everything dropped: x times 0, as PyTorch (inf and nan give nan)
        scale = np.zeros(x.shape, x.dtype)
    else:
        kept = bernoulli_(np.empty_like(x.array, np.bool_), keep, generator=generator)
        scale = (kept / np.asarray(keep, x.dtype)).astype(x.dtype)
    return x * scale


class Dropout(Module):
    """Dropout with probability ``p`` in training mode (``train()``), the identity in
    evaluation mode (``eval()``)."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        self.p, self.inplace = checked_probability(p), inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return dropout(input, self.p, self.training)

    def __repr__(self) -> str:
        return f"Dropout(p={self.p}, inplace={self.inplace})"
