"""Datasets and their loaders, as ``torch.utils.data``: a ``Dataset`` (``TensorDataset``,
``Subset``, ``ConcatDataset``, ``random_split``), samplers that order it (``SequentialSampler``,
``RandomSampler``, ``BatchSampler``, ``SubsetRandomSampler``), and ``DataLoader``, which gives it
in batches, collated (``default_collate``). A shuffle draws PyTorch's numbers: the same seed
gives the same batches as PyTorch's loader.

>>> import topograd as tg
>>> from topograd.utils import data
>>> x, y = tg.arange(10.0).reshape(5, 2), tg.arange(5)
>>> loader = data.DataLoader(data.TensorDataset(x, y), batch_size=2)
>>> [batch_y.tolist() for _, batch_y in loader], len(loader)
([[0, 1], [2, 3], [4]], 3)
"""

from .collate import default_collate
from .datasets import ConcatDataset, Dataset, Subset, TensorDataset, random_split
from .loader import DataLoader
from .samplers import BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler

__all__ = [
    "BatchSampler",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "default_collate",
    "random_split",
]
