"""Choices as PyTorch's CPU kernels make them: ``randperm`` (Fisher and Yates's shuffle, one
32-bit word per step) and ``multinomial`` (with replacement: a 53-bit uniform searched in the
running sums of each row; without, or for one sample: the largest p / q, q exponential, which
picks as the Gumbel-max trick does).

>>> import numpy as np
>>> from topograd.tensors.random.generator import Generator
>>> randperm(5, generator=Generator().manual_seed(0)).tolist()
[4, 0, 1, 3, 2]
>>> multinomial(np.array([0.1, 0.2, 0.7]), 4, True, generator=Generator().manual_seed(1)).tolist()
[0, 1, 1, 1]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...autograd.errors import RuntimeValueError
from ..creation import checked_shape
from ..dtypes import scalar_name
from .continuous import exponential_
from .generator import Generator
from .kinds import digits, is_floating, limits, not_implemented
from .normals import unit_doubles
from .seeding import chosen

Array = np.ndarray[Any, Any]
LOOPED_FROM = 2**32 // 20  # PyTorch shuffles larger n another way (not done here)
_C_INTS = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t", "int32": "int"}


def _check_permutation(n: int, dtype: Any) -> None:
    checked_shape((n,))
    kind = np.dtype(dtype)
    if kind == np.bool_:
        raise not_implemented("randperm", kind)
    if is_floating(kind):
        most = 2 ** digits(kind) + 1
        shown = {np.dtype(np.float16): "2049"}.get(kind, f"2^{digits(kind)}+1")
        if n > most:
            raise RuntimeValueError(
                f"n cannot be greater than {shown} for {scalar_name(kind)} type."
            )
    elif n - 1 > limits(kind)[1]:
        raise RuntimeValueError(
            f"value cannot be converted to type {_C_INTS[kind.name]} without overflow"
        )
    if n >= LOOPED_FROM:
        raise NotImplementedError(
            f"randperm of {n} items (2**32 / 20 or more) is not supported: PyTorch shuffles "
            "that many with another algorithm, which topograd does not reproduce"
        )


def stable_order(keys: Array) -> Array:
    """The indices that sort ``keys`` (whole numbers below 2**32), ties in index order: two
    passes of NumPy's radix sort on 16-bit digits, far faster than its sort of wider ints."""
    order = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    if keys.size and keys.max() > 0xFFFF:
        high = (keys[order] >> 16).astype(np.uint16)
        order = order[np.argsort(high, kind="stable")]
    return order.astype(np.int32)


def shuffled(offsets: Array) -> Array:
    """The permutation of range(n) that ``for i in range(n - 1): swap(a[i], a[i + offsets[i]])``
    leaves, computed without a loop over the items. Step i puts at position i, for good, the
    item then at its target t = i + offsets[i], and sends the item it held to t. The item at
    a position q when a step reads it is the one the last earlier step aimed at q carried
    there (or q's own item); and the item a step carries is the one that reached its own
    position by then. Those "last earlier step aimed here" links form a forest, whose roots
    carry their own items: following the links to the roots (by pointer doubling) gives all."""
    n = len(offsets) + 1
    steps = np.arange(n, dtype=np.int32)
    target = steps.copy()
    target[:-1] += offsets.astype(np.int32)
    order = stable_order(target)  # steps by target, each group in time order
    grouped = target[order]
    same = grouped[1:] == grouped[:-1]
    earlier = np.full(n, -1, np.int32)  # the step before, aimed at the same target
    earlier[order[1:][same]] = order[:-1][same]
    ends = np.append(~same, True)  # each group's last step
    last = np.full(n, -1, np.int32)  # the last step aimed at each position
    last[grouped[ends]] = order[ends]
    itself = target == steps
    arrived = np.where(itself, earlier, last)  # the step that brought k's item
    carried = np.where(arrived >= 0, arrived, steps)
    while True:  # pointer doubling: each link to its root
        further = carried[carried]
        if np.array_equal(further, carried):
            break
        carried = further
    out = np.where(earlier >= 0, carried[np.maximum(earlier, 0)], target)
    return np.where(itself, carried, out)


def randperm(n: int, dtype: Any = np.int64, *, generator: Generator | None = None) -> Array:
    """A random permutation of 0 .. n-1, PyTorch's for the same generator state: step i (of
    n - 1) swaps item i with item i + random() % (n - i)."""
    n = int(n)
    _check_permutation(n, dtype)
    source = chosen(generator)
    if n < 2:
        return np.arange(n).astype(dtype)
    spans = np.arange(n, 1, -1, dtype=np.uint64)
    offsets = (source.words(n - 1) % spans).astype(np.int64)
    return shuffled(offsets).astype(dtype)


def _check_multinomial(probs: Array, num_samples: int, replacement: bool) -> None:
    if not 1 <= probs.ndim <= 2:
        raise RuntimeValueError("prob_dist must be 1 or 2 dim")
    if not is_floating(probs.dtype):
        raise RuntimeValueError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{scalar_name(probs.dtype)}"
        )
    if num_samples <= 0:
        raise RuntimeValueError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > probs.shape[-1]:
        raise RuntimeValueError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if probs.shape[-1] > 2**24:
        raise RuntimeValueError("number of categories cannot exceed 2^24")


def _sum_error() -> RuntimeValueError:
    return RuntimeValueError("invalid multinomial distribution (sum of probabilities <= 0)")


def _largest_ratios(rows: Array, num_samples: int, source: Generator) -> Array:
    """Without replacement (or one sample): the categories of the largest p / q, q drawn
    from Exp(1) in the probabilities' dtype, in decreasing order of p / q."""
    if not (np.isfinite(rows).all() and (rows >= 0).all()):
        raise RuntimeValueError("probability tensor contains either `inf`, `nan` or element < 0")
    if (rows == 0).all(axis=-1).any():
        raise _sum_error()
    ratios = rows / exponential_(np.empty_like(rows), generator=source)
    if num_samples == 1:
        return np.argmax(ratios, axis=-1)[:, None]  # type: ignore[no-any-return]
    # (ties, which only zero probabilities make, may come out in another order than PyTorch's)
    return np.argsort(-ratios, axis=-1, kind="stable")[:, :num_samples]


def _searched(rows: Array, num_samples: int, source: Generator) -> Array:
    """With replacement: each row's running sums (in the row's dtype, float for float16)
    scaled to end at 1, then a 53-bit uniform per sample located in them."""
    if not (rows >= 0).all():
        raise RuntimeValueError(
            "invalid multinomial distribution (encountering probability entry < 0)"
        )
    if not np.isfinite(rows).all():
        raise RuntimeValueError(
            "invalid multinomial distribution (encountering probability entry = infinity or NaN)"
        )
    kind = np.float32 if rows.dtype == np.float16 else rows.dtype
    sums = np.cumsum(rows.astype(kind), axis=-1)
    if rows.shape[1] == 0 or not (sums[:, -1] > 0).all():
        raise _sum_error()
    sums = sums / sums[:, -1:]
    sums[:, -1] = 1
    uniforms = unit_doubles(source.words64(rows.shape[0] * num_samples))
    uniforms = uniforms.reshape(rows.shape[0], num_samples)
    found = [np.searchsorted(row.astype(np.float64), u) for row, u in zip(sums, uniforms)]
    return np.array(found, np.int64).reshape(rows.shape[0], num_samples)


def multinomial(
    probs: Array,
    num_samples: int,
    replacement: bool = False,
    *,
    generator: Generator | None = None,
) -> Array:
    """``num_samples`` category indices per row of ``probs`` (1-D or 2-D, weights that need
    not sum to 1), with or without ``replacement``, as ``torch.multinomial`` draws them."""
    _check_multinomial(probs, num_samples, replacement)
    source = chosen(generator)
    rows = probs.reshape(math.prod(probs.shape[:-1]), probs.shape[-1])
    if rows.shape[0] == 0:
        return np.empty((*probs.shape[:-1], num_samples), np.int64)
    if not replacement or num_samples == 1:
        picked = _largest_ratios(rows, num_samples, source)
    else:
        picked = _searched(rows, num_samples, source)
    return picked.astype(np.int64).reshape(*probs.shape[:-1], num_samples)
