"""Datasets, as ``torch.utils.data``'s: anything with ``__getitem__`` (and ``__len__``).

>>> import topograd as tg
>>> pairs = TensorDataset(tg.arange(6).reshape(3, 2), tg.tensor([0, 1, 0]))
>>> len(pairs), [t.tolist() for t in pairs[1]]
(3, [[2, 3], 1])
>>> train, test = random_split(pairs, [2, 1], generator=tg.Generator().manual_seed(0))
>>> len(train), len(test)
(2, 1)
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from typing import Any

from ...autograd.errors import RuntimeValueError
from ...tensors.random import default_generator, randperm_array


class Dataset:
    """Samples by index: a subclass defines ``__getitem__`` (and ``__len__``); ``a + b`` is
    their concatenation."""

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} defines no __getitem__")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class TensorDataset(Dataset):
    """Tensors of one first size, sample ``i`` the tuple of their ``i``-th rows."""

    def __init__(self, *tensors: Any) -> None:
        sizes = {len(t) for t in tensors}
        if len(sizes) > 1:
            raise RuntimeValueError("Size mismatch between tensors: their first sizes differ")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Any, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return len(self.tensors[0]) if self.tensors else 0


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several datasets one after the other."""

    def __init__(self, datasets: Sequence[Any]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("datasets should not be an empty iterable")
        self.cumulative_sizes: list[int] = []
        for d in self.datasets:
            self.cumulative_sizes.append(len(d) + (self.cumulative_sizes or [0])[-1])

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> Any:
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


def _lengths(total: int, lengths: Sequence[float]) -> list[int]:
    """Lengths given as counts, or as fractions (floored, the remainder given out one at a time
    from the first), as PyTorch's."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        for i, fraction in enumerate(lengths):
            if not 0 <= fraction <= 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        found = [math.floor(total * fraction) for fraction in lengths]
        for i in range(total - sum(found)):
            found[i % len(found)] += 1
        return found
    return [int(n) for n in lengths]


def random_split(dataset: Any, lengths: Sequence[float], generator: Any = None) -> list[Subset]:
    """``dataset`` cut into random, non-overlapping subsets of these lengths (or fractions),
    the order PyTorch's for the same generator (the default one where None)."""
    counts = _lengths(len(dataset), lengths)
    if sum(counts) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = randperm_array(sum(counts), generator=generator or default_generator).tolist()
    subsets, start = [], 0
    for count in counts:
        subsets.append(Subset(dataset, order[start : start + count]))
        start += count
    return subsets
