"""Embeddings, as PyTorch's: ``embedding`` picks rows of a weight by index, ``Embedding`` learns
that weight. The rows are picked by the registry's indexing, so an index used several times
receives the sum of its gradients; the row ``padding_idx`` receives none (PyTorch's rule: it
stays as it is in training).

>>> import topograd as tg
>>> _ = tg.manual_seed(0)
>>> table = Embedding(10, 3, padding_idx=0)
>>> table(tg.tensor([[0, 2], [2, 5]], dtype=tg.int64)).shape, table.weight.data[0].tolist()
(topograd.Size([2, 2, 3]), [0.0, 0.0, 0.0])
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..ops.selection import select as where  # tg.where, the registry's entry
from ..tensors import Tensor
from ..tensors.creation import checked_shape
from ..tensors.dtypes import index_numbers, scalar_name, tensor_name
from ..tensors.random import normal_
from .module import Module
from .parameter import Parameter, factory_dtype


def indices_of(given: Any, function: str) -> Any:
    """Class indices or embedding indices as an int64 array, from a Tensor of a dtype
    PyTorch's ``function`` takes (``embedding``: int64 or int32; a loss's target: int64 or
    uint8), or from integers (an array, a list, a number); anything else, a Tensor of floats
    first, refused in PyTorch's words."""
    takes, refusal = _TAKES[function]
    return index_numbers(given, takes, refusal).astype(np.int64)


_TAKES = {
    "embedding": (
        ("int64", "int32"),
        (
            RuntimeError,
            lambda dtype: (
                "Expected tensor for argument #1 'indices' to have one of the following scalar "
                f"types: Long, Int; but got {tensor_name(dtype)} instead (while checking "
                "arguments for embedding)"
            ),
        ),
    ),
    "target": (
        ("int64", "uint8"),
        (
            RuntimeError,
            lambda dtype: f"expected target dtype to be Long or Byte, but got {scalar_name(dtype)}",
        ),
    ),
}


def _padding(padding_idx: int | None, rows: int) -> int | None:
    """``padding_idx`` counted from 0 (a negative one from the end), or PyTorch's refusal."""
    if padding_idx is None:
        return None
    if not -rows <= padding_idx < rows:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx % rows


def embedding(
    input: Any,  # noqa: A002 - PyTorch's names
    weight: Tensor,
    padding_idx: int | None = None,
) -> Tensor:
    """The rows of ``weight`` at the indices ``input``: shape input's + (embedding_dim,). The
    gradient of each row is the sum over its uses, none to the row ``padding_idx``."""
    index = indices_of(input, "embedding")
    rows = weight.shape[0]
    if index.size and (index.min() < 0 or index.max() >= rows):
        raise IndexError("index out of range in self")
    picked = weight[index]
    padding = _padding(padding_idx, rows)
    if padding is None or not picked.requires_grad:
        return picked
    unused = (index == padding)[..., None]
    return cast(Tensor, where(unused, picked.detach(), picked))


class Embedding(Module):
    """A table of ``num_embeddings`` rows of ``embedding_dim`` numbers, drawn from N(0, 1) with
    topograd's generator (``tg.manual_seed``: PyTorch's numbers for the seed), float32 unless
    ``dtype`` says otherwise, on the CPU (``device``); the row ``padding_idx`` starts at zeros
    and learns nothing."""

    def __init__(
        self,
        num_embeddings: int,
        embedding_dim: int,
        padding_idx: int | None = None,
        *,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        kind = factory_dtype(device, dtype)
        shape = checked_shape((num_embeddings, embedding_dim))
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = _padding(padding_idx, num_embeddings)
        table = normal_(np.empty(shape, kind))  # (PyTorch's init.normal_: its numbers)
        if self.padding_idx is not None:
            table[self.padding_idx] = 0.0
        self.weight = Parameter(table)

    @classmethod
    def from_pretrained(
        cls, embeddings: Any, freeze: bool = True, padding_idx: int | None = None
    ) -> Embedding:
        """An Embedding holding a copy of the rows ``embeddings`` (a 2-D Tensor or array),
        frozen unless ``freeze=False``, as PyTorch's (the row ``padding_idx`` is kept as it
        is, and learns nothing).

        >>> import topograd as tg
        >>> table = Embedding.from_pretrained(tg.ones(3, 2))
        >>> table.weight.requires_grad, table(tg.tensor([2], dtype=tg.long)).tolist()
        (False, [[1.0, 1.0]])
        """
        rows = np.array(embeddings.array if isinstance(embeddings, Tensor) else embeddings)
        if rows.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        table = cls.__new__(cls)  # (no rows drawn: the generator's next numbers stay as they are)
        table.num_embeddings, table.embedding_dim = rows.shape
        table.padding_idx = _padding(padding_idx, rows.shape[0])
        table.weight = Parameter(rows, requires_grad=not freeze)
        return table

    def forward(self, input: Any) -> Tensor:  # noqa: A002
        return embedding(input, self.weight, self.padding_idx)

    def __repr__(self) -> str:
        extra = "" if self.padding_idx is None else f", padding_idx={self.padding_idx}"
        return f"Embedding({self.num_embeddings}, {self.embedding_dim}{extra})"
