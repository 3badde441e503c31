"""The losses on Tensors as modules, as PyTorch's: ``CrossEntropyLoss``, ``NLLLoss``,
``BCELoss``, ``BCEWithLogitsLoss``, ``MSELoss``. Each keeps its options and calls its function
of ``tensor_losses.py`` on (input, target); ``weight`` and ``pos_weight`` are buffers, saved
with the model, as PyTorch's.

>>> import topograd as tg
>>> CrossEntropyLoss(label_smoothing=0.1)
CrossEntropyLoss()
>>> round(MSELoss(reduction="sum")(tg.Tensor([1.0, 2.0]), tg.Tensor([0.0, 0.0])).item(), 6)
5.0
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensors import Tensor
from ..tensors.tensor import as_tensor, constant
from . import tensor_losses as losses
from .module import Module


class _Loss(Module):
    """A loss with a reduction (PyTorch's deprecated ``size_average`` and ``reduce`` too)."""

    weight: Tensor | None  # buffers, where the loss takes them (register_buffer)
    pos_weight: Tensor | None

    def __init__(
        self, size_average: Any = None, reduce: Any = None, reduction: str = "mean"
    ) -> None:
        self.reduction = losses.reduction_of(size_average, reduce, reduction)

    def _buffer(self, name: str, given: Any) -> None:
        numbers = None if given is None else np.array(as_tensor(given).array)  # its own copy
        self.register_buffer(name, None if numbers is None else constant(numbers))

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class NLLLoss(_Loss):
    """``nll_loss`` of log-probabilities and class indices."""

    def __init__(
        self,
        weight: Any = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self._buffer("weight", weight)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Any) -> Tensor:  # noqa: A002 - PyTorch's names
        return losses.nll_loss(
            input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction
        )


class CrossEntropyLoss(_Loss):
    """``cross_entropy`` of logits and class indices (or class probabilities)."""

    def __init__(
        self,
        weight: Any = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self._buffer("weight", weight)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input: Tensor, target: Any) -> Tensor:  # noqa: A002
        return losses.cross_entropy(
            input,
            target,
            self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class BCELoss(_Loss):
    """``binary_cross_entropy`` of probabilities and targets in [0, 1]."""

    def __init__(
        self,
        weight: Any = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self._buffer("weight", weight)

    def forward(self, input: Tensor, target: Any) -> Tensor:  # noqa: A002
        return losses.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """``binary_cross_entropy_with_logits`` of logits and targets in [0, 1]."""

    def __init__(
        self,
        weight: Any = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        pos_weight: Any = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self._buffer("weight", weight)
        self._buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Any) -> Tensor:  # noqa: A002
        return losses.binary_cross_entropy_with_logits(
            input, target, self.weight, reduction=self.reduction, pos_weight=self.pos_weight
        )


class MSELoss(_Loss):
    """``mse_loss``: the squared differences."""

    def forward(self, input: Tensor, target: Any) -> Tensor:  # noqa: A002
        return losses.mse_loss(input, target, reduction=self.reduction)
