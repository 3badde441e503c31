"""The pool layers, as PyTorch's: ``MaxPool2d`` and ``AvgPool2d``, each keeping its options as
attributes of PyTorch's names and calling its function of ``conv.py`` with them, and only them
(a module also holds ``training``, and whatever else a user sets on it).

>>> import topograd as tg
>>> pool = MaxPool2d(2).eval()
>>> pool(tg.zeros(1, 1, 4, 4)).shape, AvgPool2d(2, stride=1)(tg.zeros(1, 1, 4, 4)).shape
(topograd.Size([1, 1, 2, 2]), topograd.Size([1, 1, 3, 3]))
"""

from __future__ import annotations

from typing import Any

from .conv import avg_pool2d, max_pool2d
from .module import Module


class _Pool(Module):
    """A pool layer with PyTorch's repr, which shows ``shown`` of its options."""

    shown: tuple[str, ...] = ()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)}" for name in self.shown)
        return f"{type(self).__name__}({shown})"


class MaxPool2d(_Pool):
    """A max pool over windows, as torch.nn.MaxPool2d (see ``max_pool2d``)."""

    shown = ("kernel_size", "stride", "padding", "dilation", "ceil_mode")

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        self.kernel_size, self.stride = kernel_size, kernel_size if stride is None else stride
        self.padding, self.dilation, self.ceil_mode = padding, dilation, ceil_mode
        self.return_indices = return_indices

    def forward(self, input: Any) -> Any:  # noqa: A002 - PyTorch's names
        return max_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )


class AvgPool2d(_Pool):
    """An average pool over windows, as torch.nn.AvgPool2d (see ``avg_pool2d``)."""

    shown = ("kernel_size", "stride", "padding")

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        self.kernel_size, self.stride = kernel_size, kernel_size if stride is None else stride
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Any) -> Any:  # noqa: A002
        return avg_pool2d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            ceil_mode=self.ceil_mode,
            count_include_pad=self.count_include_pad,
            divisor_override=self.divisor_override,
        )
