"""``DataLoader``: a dataset in batches, as PyTorch's.

Each pass over it (each ``iter``) first draws a number from ``generator`` (the default one
where None), as PyTorch's loader does for its workers' seeds, then takes the sampler's order:
the same seeds give the same batches and leave the generators where PyTorch's leave them. The
batches are made in this process: ``num_workers`` is taken, and changes nothing but the
speed.

>>> import topograd as tg
>>> from topograd.utils.data import TensorDataset
>>> pairs = TensorDataset(tg.arange(6))
>>> _ = tg.manual_seed(0)
>>> [b.tolist() for (b,) in DataLoader(pairs, batch_size=4, shuffle=True)]  # PyTorch's too
[[0, 4, 3, 5], [2, 1]]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from ...tensors.random import default_generator, random_
from .collate import default_collate
from .samplers import BatchSampler, RandomSampler, SequentialSampler


class DataLoader:
    """``dataset`` in batches of ``batch_size`` (None: one sample at a time, not collated), in
    order or shuffled (``shuffle``, from ``generator``), the last batch shorter or dropped
    (``drop_last``), each made by ``collate_fn``; or in the order of a ``sampler`` (indices) or
    a ``batch_sampler`` (lists of indices)."""

    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Iterable[Any] | None = None,
        batch_sampler: Iterable[Any] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], Any] | None = None,
        generator: Any = None,
        **more: Any,
    ) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler or drop_last):
            raise ValueError(
                "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                "and drop_last"
            )
        self.dataset, self.num_workers, self.generator = dataset, num_workers, generator
        if sampler is None:
            sampler = (
                RandomSampler(dataset, generator=generator)
                if shuffle
                else SequentialSampler(dataset)
            )
        if batch_sampler is None and batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.batch_size, self.drop_last = batch_size, drop_last
        self.collate_fn = collate_fn or (default_collate if batch_sampler is not None else _one)

    def __iter__(self) -> Iterator[Any]:
        """A pass over the batches: its seed drawn now, as PyTorch's (``iter(loader)``)."""
        random_(np.empty((), np.int64), generator=self.generator or default_generator)
        return self._batches()

    def _batches(self) -> Iterator[Any]:
        if self.batch_sampler is None:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        for indices in self.batch_sampler:
            yield self.collate_fn([self.dataset[i] for i in indices])

    def __len__(self) -> int:
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)  # type: ignore[arg-type]


def _one(sample: Any) -> Any:
    """A sample as it is (a loader with ``batch_size=None``)."""
    return sample
