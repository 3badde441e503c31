"""Activations on Tensors in PyTorch's spelling: the functions of ``torch.nn.functional``
(``relu``, ``sigmoid``, ``tanh``, ``gelu``, ``silu``, ``elu``, ``leaky_relu``, ``softplus``,
``softmax``, ``log_softmax``) and their modules (``Sigmoid``, ``GELU``, ``SiLU``, ``ELU``,
``LeakyReLU``, ``Softplus``, ``Softmax``, ``LogSoftmax``; ``ReLU`` and ``Tanh`` are in
``layers.py``). Each is an op of the registry, or a few of them, so gradients and second
derivatives come from the registry's rules.

``inplace=True`` is accepted, as PyTorch's signatures have it, and computed out of place: the
result holds the same numbers, in a new Tensor; the input keeps its own (PyTorch's would be
overwritten).

>>> import topograd as tg
>>> x = tg.Tensor([-1.0, 0.0, 2.0])
>>> LeakyReLU(0.2)(x).tolist(), Softmax(dim=0)(tg.zeros(2)).tolist()
([-0.20000000298023224, 0.0, 2.0], [0.5, 0.5])
"""

from __future__ import annotations

import warnings
from typing import Any, cast

import numpy as np

from ..ops.activations import leaky_relu as leaky_relu_op
from ..ops.floats import LEAKY_SLOPE
from ..ops.selection import select as where  # tg.where, the registry's entry
from ..tensors import Tensor
from ..tensors.functions import log_softmax as log_softmax_along
from ..tensors.functions import softmax as softmax_along
from ..tensors.tensor import as_tensor
from .module import Module


def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002 - PyTorch's names
    """max(x, 0)."""
    return as_tensor(input).relu()


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """1 / (1 + e^-x), without overflow."""
    return as_tensor(input).sigmoid()


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    """The hyperbolic tangent."""
    return as_tensor(input).tanh()


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    """x Φ(x) (``approximate="none"``), or its tanh form (``"tanh"``).

    >>> import topograd as tg
    >>> round(gelu(tg.Tensor(1.0)).item(), 6), round(gelu(tg.Tensor(1.0), "tanh").item(), 6)
    (0.841345, 0.841192)
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return as_tensor(input).gelu(approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """x σ(x), also called swish."""
    return as_tensor(input).silu()


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """x where x > 0, else alpha (e^x - 1)."""
    return as_tensor(input).elu(alpha)


def leaky_relu(
    input: Tensor,  # noqa: A002
    negative_slope: float = 0.01,
    inplace: bool = False,
) -> Tensor:
    """x where x > 0, else ``negative_slope`` x; its gradient 1 or the slope, the slope at 0
    (as PyTorch's). The registry's leaky_relu for 0.01; for another slope x times a constant
    1 or slope, so the gradient is PyTorch's, grad or grad times the slope, to the bit."""
    x = as_tensor(input)
    if negative_slope == LEAKY_SLOPE:
        return leaky_relu_op(x)
    return x * np.where(x.array > 0, 1.0, float(negative_slope)).astype(x.dtype)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: A002
    """log(1 + e^(β x)) / β, and x itself where β x > ``threshold``, as PyTorch's (its
    gradient there 1). topograd's own ``x.softplus()`` has no threshold: it is exact above it,
    within 2.1e-9 of this."""
    x = as_tensor(input)
    scaled = x if beta == 1.0 else x * float(beta)
    smooth = scaled.softplus() if beta == 1.0 else scaled.softplus() / float(beta)
    return cast(Tensor, where(scaled.array > threshold, x, smooth))


def implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    """PyTorch's choice of axis for softmax(dim=None): 0 for 0-d, 1-d and 3-d inputs, else 1,
    with its warning that the choice is deprecated."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. "
        "Change the call to include dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel + 1,
    )
    return 0 if ndim in (0, 1, 3) else 1


def _along(
    f: Any,
    name: str,
    given: Any,
    dim: Any,
    dtype: Any,
    axis: Any,
) -> Tensor:
    x = as_tensor(given)
    if dim is not None and axis is not None:
        raise TypeError(f"{name}() takes dim (PyTorch's name) or axis (NumPy's), not both")
    found = axis if dim is None else dim
    if found is None:
        found = implicit_dim(name, x.ndim, stacklevel=3)
    if dtype is not None:
        x = x.astype(dtype)
    return f(x, found)  # type: ignore[no-any-return]  # (the method's one path)


def softmax(
    input: Tensor,  # noqa: A002
    dim: int | None = None,
    dtype: Any = None,
    *,
    axis: int | None = None,
) -> Tensor:
    """e^x / Σ e^x along ``dim`` (NumPy's ``axis`` too), shifted by the largest so that
    nothing overflows; ``dtype`` casts the input first. With no axis, PyTorch's deprecated
    choice (0 for 0-d, 1-d and 3-d inputs, else 1), with its warning.

    >>> import topograd as tg
    >>> softmax(tg.Tensor([1000.0, 1000.0, -1000.0]), dim=0).tolist()
    [0.5, 0.5, 0.0]
    """
    return _along(softmax_along, "softmax", input, dim, dtype, axis)


def log_softmax(
    input: Tensor,  # noqa: A002
    dim: int | None = None,
    dtype: Any = None,
    *,
    axis: int | None = None,
) -> Tensor:
    """x - log Σ e^x along ``dim`` (NumPy's ``axis`` too), as ``softmax``."""
    return _along(log_softmax_along, "log_softmax", input, dim, dtype, axis)


class Sigmoid(Module):
    """1 / (1 + e^-x), element by element."""

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return sigmoid(input)

    def __repr__(self) -> str:
        return "Sigmoid()"


class GELU(Module):
    """x Φ(x), or its tanh form (``approximate="tanh"``)."""

    def __init__(self, approximate: str = "none") -> None:
        if approximate not in ("none", "tanh"):
            raise RuntimeError("approximate argument must be either none or tanh.")
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return gelu(input, self.approximate)

    def __repr__(self) -> str:
        return f"GELU(approximate={self.approximate!r})"


class SiLU(Module):
    """x σ(x), element by element."""

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return silu(input)

    def __repr__(self) -> str:
        return "SiLU(inplace=True)" if self.inplace else "SiLU()"


class ELU(Module):
    """x where x > 0, else alpha (e^x - 1)."""

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return elu(input, self.alpha)

    def __repr__(self) -> str:
        return f"ELU(alpha={self.alpha}{', inplace=True' if self.inplace else ''})"


class LeakyReLU(Module):
    """x where x > 0, else ``negative_slope`` x."""

    def __init__(self, negative_slope: float = 0.01, inplace: bool = False) -> None:
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return leaky_relu(input, self.negative_slope)

    def __repr__(self) -> str:
        extra = ", inplace=True" if self.inplace else ""
        return f"LeakyReLU(negative_slope={self.negative_slope}{extra})"


class Softplus(Module):
    """log(1 + e^(β x)) / β, linear above ``threshold`` (PyTorch's)."""

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        self.beta, self.threshold = beta, threshold

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return softplus(input, self.beta, self.threshold)

    def __repr__(self) -> str:
        return f"Softplus(beta={self.beta}, threshold={self.threshold})"


class Softmax(Module):
    """The softmax along ``dim``; with none, PyTorch's deprecated choice and its warning."""

    def __init__(self, dim: int | None = None) -> None:
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return softmax(input, self.dim)

    def __repr__(self) -> str:
        return f"Softmax(dim={self.dim})"


class LogSoftmax(Module):
    """The log-softmax along ``dim``, as ``Softmax``."""

    def __init__(self, dim: int | None = None) -> None:
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        return log_softmax(input, self.dim)

    def __repr__(self) -> str:
        return f"LogSoftmax(dim={self.dim})"
