"""Class indices as vectors, as PyTorch's ``torch.nn.functional.one_hot``.

>>> import topograd as tg
>>> one_hot(tg.tensor([0, 2, 1]), num_classes=4).tolist()
[[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0]]
"""

from __future__ import annotations

import operator

import numpy as np

from ..tensors import Tensor
from ..tensors.tensor import constant


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """An int64 Tensor of the shape of ``tensor`` and one more axis of ``num_classes``
    (-1: the largest index + 1): 1 at each index, 0 elsewhere. As PyTorch's, it takes int64
    indices only, none negative nor beyond ``num_classes``; the result wants no gradient
    (``.float()`` it to multiply: ``F.one_hot(x, 27).float() @ W``).

    >>> import topograd as tg
    >>> one_hot(tg.tensor([[1], [0]])).shape, one_hot(tg.tensor([1])).dtype
    (topograd.Size([2, 1, 2]), topograd.int64)
    """
    if not isinstance(tensor, Tensor) or tensor.array.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    index = tensor.array
    classes = operator.index(num_classes)
    if classes == -1:
        if index.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        classes = int(index.max()) + 1
    if index.size and index.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if index.size and index.max() >= classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = np.zeros((*index.shape, classes), np.int64)
    np.put_along_axis(out, index[..., None], 1, axis=-1)
    return constant(out)
