"""How a loader makes one batch of several samples, as PyTorch's ``default_collate``: Tensors
stacked along a new first axis, NumPy arrays as Tensors stacked, Python floats as a float64
Tensor, ints as an int64 one, bools as a bool one, strings kept in a list, and tuples, lists and
dicts collated field by field.

>>> import topograd as tg
>>> batch = default_collate([(tg.tensor([1.0, 2.0]), 0), (tg.tensor([3.0, 4.0]), 1)])
>>> batch[0].shape, batch[1].tolist(), batch[1].dtype
(topograd.Size([2, 2]), [0, 1], topograd.int64)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...tensors import Tensor, from_numpy, stack, tensor
from ...tensors.dtypes import float64


def default_collate(batch: Sequence[Any]) -> Any:
    """One batch of the samples in ``batch`` (see the module's doc)."""
    first = batch[0]
    if isinstance(first, Tensor):
        return stack(list(batch))
    if isinstance(first, np.ndarray):
        return stack([from_numpy(np.ascontiguousarray(a)) for a in batch])
    if isinstance(first, np.generic):
        return from_numpy(np.asarray(batch))
    if isinstance(first, bool):
        return tensor(list(batch))
    if isinstance(first, float):
        return tensor(list(batch), dtype=float64)
    if isinstance(first, int):
        return tensor(list(batch))
    if isinstance(first, (str, bytes)):
        return list(batch)
    if isinstance(first, Mapping):
        return {key: default_collate([sample[key] for sample in batch]) for key in first}
    if isinstance(first, tuple) and hasattr(first, "_fields"):  # a namedtuple
        return type(first)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(first, Sequence):
        sizes = {len(sample) for sample in batch}
        if len(sizes) != 1:
            raise RuntimeError("each element in list of batch should be of equal size")
        collated = [default_collate(list(field)) for field in zip(*batch)]
        return tuple(collated) if isinstance(first, tuple) else collated
    raise TypeError(
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        f"found {type(first).__name__}"
    )
