"""Losses on scalar Values: each the mean over the samples, but l2, a sum over parameters.

>>> import topograd as tg
>>> round(tg.nn.mse([tg.Value(1.0), tg.Value(3.0)], [0.0, 1.0]).data, 6)
2.5
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

from ..ops.reductions import logsumexp
from ..scalar.functions import dot, sum_of
from ..scalar.value import Real, Value, as_values


def _mean(terms: Sequence[Value]) -> Value:
    if not terms:
        raise ValueError("a loss needs at least one sample")
    return sum_of(terms) * (1.0 / len(terms))


def _pairs(preds: Sequence[Value], targets: Sequence[Real | Value], what: str) -> None:
    if len(preds) != len(targets):
        raise ValueError(f"{what}: {len(preds)} predictions but {len(targets)} targets")


def mse(preds: Sequence[Value], targets: Sequence[Real | Value]) -> Value:
    """mean((pred - target)^2)"""
    _pairs(preds, targets, "mse")
    errors = [p - t for p, t in zip(preds, targets)]
    return _mean([e * e for e in errors])


def hinge(scores: Sequence[Value], labels: Sequence[Real]) -> Value:
    """micrograd's max-margin loss: mean(relu(1 - label * score)), labels -1 or +1."""
    _pairs(scores, labels, "hinge")
    if any(y not in (-1, 1) for y in labels):
        raise ValueError("hinge takes labels -1 and +1")
    return _mean([(1 - y * s).relu() for s, y in zip(scores, labels)])


def bce_with_logits(logits: Sequence[Value], targets: Sequence[Real]) -> Value:
    """Binary cross-entropy of sigmoid(logit) against targets in [0, 1], computed as
    mean(softplus(z) - z * y): no overflow for logits of +-1000, gradient sigmoid(z) - y."""
    _pairs(logits, targets, "bce_with_logits")
    return _mean([z.softplus() - z * y for z, y in zip(logits, targets)])


def cross_entropy(
    logits: Sequence[Value] | Sequence[Sequence[Value]], target: int | Sequence[int]
) -> Value:
    """Softmax cross-entropy: -log softmax(logits)[target], for one sample (a list of Values
    and an int) or the mean over a batch (a list of such lists and a list of ints): log Σ e^z
    (one ``logsumexp`` node, which subtracts the largest logit first, as PyTorch's logsumexp,
    so logits of +-1000 neither overflow nor underflow) minus the target's logit."""
    if isinstance(target, numbers.Integral):
        return _cross_entropy(logits, target)  # type: ignore[arg-type]
    if hasattr(target, "__len__"):
        _pairs(logits, target, "cross_entropy")  # type: ignore[arg-type]
        batch = [_cross_entropy(row, t) for row, t in zip(logits, target)]  # type: ignore[arg-type]
        return _mean(batch)
    raise TypeError(f"cross_entropy takes a class index or a list of them, not {target!r}")


def _cross_entropy(logits: Sequence[Value], target: int) -> Value:
    if isinstance(target, bool) or not isinstance(target, numbers.Integral):
        raise TypeError(f"cross_entropy takes class indices (ints), not {target!r}")
    if not 0 <= target < len(logits):
        raise ValueError(f"target {target} is not a class of {len(logits)} logits")
    return logsumexp(*as_values(logits, "cross_entropy")) - logits[target]


def l2(params: Sequence[Value]) -> Value:
    """sum(p^2) as one node: micrograd's regulariser."""
    return dot(params, params)
