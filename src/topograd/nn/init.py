"""Initialisation in place, as ``torch.nn.init``: ``kaiming_uniform_``, ``kaiming_normal_``,
``xavier_uniform_``, ``xavier_normal_``, ``uniform_``, ``normal_``, ``constant_``, ``zeros_``,
``ones_``, with ``calculate_gain`` and the fans computed as PyTorch's.

Each writes into the Tensor's numbers where they are (keeping its dtype), records nothing in
a graph (as PyTorch's, which run under ``no_grad``), counts as a write in place (a graph made
before it refuses a backward through it) and returns the Tensor. The random numbers come from
``generator`` or from topograd's default one (``tg.manual_seed``), drawn as PyTorch draws
them: the same seed gives PyTorch's numbers.

>>> import topograd as tg
>>> w = tg.nn.Parameter(tg.zeros(64, 32))
>>> _ = tg.nn.init.kaiming_uniform_(w, nonlinearity="relu")
>>> bool(abs(w.data).max() <= (6 / 32) ** 0.5), w.requires_grad
(True, True)
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np

from ..autograd.modes import no_grad
from ..tensors import Generator, Tensor
from ..tensors.random import normal_ as normal_array
from ..tensors.random import uniform_ as uniform_array

_GAIN_ONE = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "sigmoid",
)


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    """The gain PyTorch recommends for a nonlinearity: 1 for linear, convolutions and sigmoid,
    5/3 for tanh, √2 for relu, √(2 / (1 + slope²)) for leaky_relu (slope ``param``, 0.01 by
    default), 3/4 for selu.

    >>> calculate_gain("tanh"), calculate_gain("leaky_relu", 0.2) == (2 / 1.04) ** 0.5
    (1.6666666666666667, True)
    """
    if nonlinearity in _GAIN_ONE:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, numbers.Real) and not isinstance(param, bool):
            slope = float(param)
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """(fan_in, fan_out) of a weight of shape (out, in, *kernel), as PyTorch counts them: the
    inputs and the outputs of one neuron, times the kernel's size.

    >>> import topograd as tg
    >>> fan_in_and_fan_out(tg.zeros(8, 3, 5, 5))
    (75, 200)
    """
    shape = tensor.shape
    if len(shape) < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _written(tensor: Tensor, numbers_: Any) -> Tensor:
    """``tensor`` with its numbers replaced, in place and outside any graph."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"init takes a Tensor, got {type(tensor).__name__}")
    with no_grad():
        tensor.copy_(np.asarray(numbers_, dtype=tensor.dtype))
    return tensor


def _empty(tensor: Tensor) -> bool:
    """A Tensor of no elements, which PyTorch leaves as it is, with a warning."""
    if tensor.numel() == 0:
        warnings.warn("Initializing zero-element tensors is a no-op", UserWarning, stacklevel=3)
        return True
    return False


def uniform_(
    tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Numbers drawn evenly from [a, b)."""
    drawn = uniform_array(np.empty(tensor.shape, tensor.dtype), a, b, generator=generator)
    return _written(tensor, drawn)


def normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Numbers drawn from the normal distribution N(mean, std²)."""
    drawn = normal_array(np.empty(tensor.shape, tensor.dtype), mean, std, generator=generator)
    return _written(tensor, drawn)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Every element ``val``."""
    return _written(tensor, np.full(tensor.shape, val))


def zeros_(tensor: Tensor) -> Tensor:
    """Every element 0."""
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    """Every element 1."""
    return constant_(tensor, 1.0)


def kaiming_uniform_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:
    """He's uniform initialisation: uniform in ±√3 · gain / √fan, the gain of
    ``nonlinearity`` (with slope ``a`` for leaky_relu), the fan of ``mode``; what
    ``nn.Linear`` uses with a = √5."""
    if _empty(tensor):
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std  # (in PyTorch's order, so the bound is PyTorch's to the bit)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor,
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:
    """He's normal initialisation: N(0, std²), std = gain / √fan."""
    if _empty(tensor):
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def xavier_uniform_(
    tensor: Tensor, gain: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Glorot's uniform initialisation: uniform in ±gain · √(6 / (fan_in + fan_out))."""
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Glorot's normal initialisation: N(0, std²), std = gain · √(2 / (fan_in + fan_out))."""
    fan_in, fan_out = fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)
