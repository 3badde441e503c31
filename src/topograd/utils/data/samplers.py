"""The order in which a loader takes a dataset's samples, as ``torch.utils.data``'s samplers:
in order, shuffled (PyTorch's permutation for the same generator), or in batches of indices.

>>> import topograd as tg
>>> list(RandomSampler(range(5), generator=tg.Generator().manual_seed(0)))  # PyTorch's order
[4, 0, 1, 3, 2]
>>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=True))
[[0, 1], [2, 3]]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sized
from typing import Any

import numpy as np

from ...tensors.random import Generator, default_generator, random_, randperm_array


class Sampler:
    """Indices of a dataset, in some order (a subclass defines ``__iter__``)."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} defines no __iter__")


class SequentialSampler(Sampler):
    """0, 1, ..., len - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def seeded_generator(generator: Any) -> Generator:
    """A new generator seeded with a number drawn from ``generator`` (the default where None),
    as PyTorch's samplers and loaders draw one."""
    drawn = random_(np.empty((), np.int64), generator=generator or default_generator)
    return Generator().manual_seed(int(drawn))


class RandomSampler(Sampler):
    """The indices shuffled (``replacement``: drawn with replacement, ``num_samples`` of them),
    from ``generator``, or, where None, from a generator seeded by a draw of the default one
    each time it is iterated, as PyTorch's."""

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Any = None,
    ) -> None:
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got {replacement!r}")
        if num_samples is not None and (not isinstance(num_samples, int) or num_samples <= 0):
            raise ValueError(
                f"num_samples should be a positive integer value, but got {num_samples!r}"
            )
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator if self.generator is not None else seeded_generator(None)
        if self.replacement:
            for size in [32] * (self.num_samples // 32) + [self.num_samples % 32]:
                drawn = random_(np.empty(size, np.int64), 0, n, generator=generator)
                yield from drawn.tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm_array(n, generator=generator).tolist()
        yield from randperm_array(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, shuffled."""

    def __init__(self, indices: Any, generator: Any = None) -> None:
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator[Any]:
        order = randperm_array(len(self.indices), generator=self.generator or default_generator)
        for i in order.tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler`` (the last one shorter, or dropped with
    ``drop_last``)."""

    def __init__(self, sampler: Iterable[Any], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size!r}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(
                f"drop_last should be a boolean value, but got drop_last={drop_last!r}"
            )
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[Any]]:
        batch: list[Any] = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        count = len(self.sampler)  # type: ignore[arg-type]
        return count // self.batch_size if self.drop_last else -(-count // self.batch_size)
