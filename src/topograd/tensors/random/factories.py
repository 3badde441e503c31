"""Random Tensors in PyTorch's spelling, each PyTorch's numbers for the same seed: ``rand``,
``randn``, ``randint``, ``randperm``, ``normal``, ``bernoulli``, ``multinomial``, ``rand_like``,
``randn_like``, ``randint_like``. Sizes as PyTorch takes them (``rand(2, 3)``,
``rand((2, 3))``), ``generator=`` (the default generator where it is None), ``dtype=``
(float32 for floats by default, int64 for whole numbers), ``device=`` ("cpu" only) and
``requires_grad=`` (floats only, as PyTorch).

>>> import topograd as tg
>>> _ = tg.manual_seed(0)
>>> tg.rand(2).tolist()  # torch.manual_seed(0); torch.rand(2)
[0.49625658988952637, 0.7682217955589294]
>>> tg.randint(0, 10, (3,), generator=tg.Generator().manual_seed(0)).tolist()
[4, 9, 3]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..creation import checked_shape, leaf
from ..devices import device_index
from ..shaping import as_sizes
from ..tensor import Tensor, constant
from .choices import multinomial as choose
from .choices import randperm as permutation
from .continuous import bernoulli_, uniform_
from .generator import Generator
from .integers import random_
from .normals import normal_, normal_broadcast

Array = np.ndarray[Any, Any]
DEFAULT_FLOAT = np.float32  # for floats: PyTorch's default dtype (tg.set_default_dtype's)
WHOLE = np.int64


def _empty(size: tuple[Any, ...], named: Any, dtype: Any, default: Any, device: Any) -> Array:
    if device is not None:
        device_index(device)
    if named is not None:
        if size:
            raise TypeError("size given both by position and as size=")
        size = (named,)
    if dtype is None:
        dtype = dtypes.get_default_dtype().dtype if default is DEFAULT_FLOAT else default
    return np.empty(checked_shape(as_sizes(size)), np.dtype(dtype))


def _data(x: Any) -> Array:
    return x.array if isinstance(x, Tensor) else np.asarray(x)


def rand(
    *size: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **named: Any,
) -> Tensor:
    """Numbers drawn evenly from [0, 1)."""
    out = _empty(size, named.pop("size", None), dtype, DEFAULT_FLOAT, device)
    return leaf(uniform_(out, generator=generator), requires_grad)


def randn(
    *size: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **named: Any,
) -> Tensor:
    """Numbers drawn from the standard normal distribution."""
    out = _empty(size, named.pop("size", None), dtype, DEFAULT_FLOAT, device)
    return leaf(normal_(out, generator=generator), requires_grad)


def randint(
    *args: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    **named: Any,
) -> Tensor:
    """Whole numbers drawn evenly from [low, high): ``randint(high, size)`` or
    ``randint(low, high, size)``, int64 unless ``dtype`` says otherwise."""
    size = named.pop("size", None)
    bounds = list(args)
    if size is None:
        if not bounds:
            raise TypeError("randint takes (high, size) or (low, high, size)")
        size = bounds.pop()
    low, high = named.pop("low", 0), named.pop("high", None)
    if len(bounds) == 2:
        low, high = bounds
    elif len(bounds) == 1:
        high = bounds[0]
    if high is None or len(bounds) > 2:
        raise TypeError("randint takes (high, size) or (low, high, size)")
    out = _empty((size,), None, dtype, WHOLE, device)
    return leaf(random_(out, int(low), int(high), generator=generator), requires_grad)


def randperm(
    n: int,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """A random permutation of 0 .. n-1 (int64 unless ``dtype`` says otherwise)."""
    if device is not None:
        device_index(device)
    drawn = permutation(n, WHOLE if dtype is None else dtype, generator=generator)
    return leaf(drawn, requires_grad)


def normal(
    mean: Any = 0.0,
    std: Any = 1.0,
    size: Any = None,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Numbers of N(mean, std**2): ``normal(mean, std, size)`` with numbers, or element by
    element where ``mean`` or ``std`` (or both) are Tensors, broadcast together."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        if size is not None:
            raise TypeError("normal takes a size only where mean and std are numbers")
        drawn = normal_broadcast(
            _data(mean) if isinstance(mean, Tensor) else float(mean),
            _data(std) if isinstance(std, Tensor) else float(std),
            generator=generator,
        )
        return leaf(drawn, requires_grad)
    if size is None:
        raise TypeError("normal takes a size where mean and std are numbers")
    out = _empty((size,), None, dtype, DEFAULT_FLOAT, device)
    return leaf(normal_(out, float(mean), float(std), generator=generator), requires_grad)


def bernoulli(input: Any, p: Any = None, *, generator: Generator | None = None) -> Tensor:  # noqa: A002
    """1 where a uniform number falls below the probability, else 0: each element's own
    probability (``input``), or the one number ``p``; the dtype of ``input``."""
    probabilities = _data(input)
    out = np.empty(probabilities.shape, probabilities.dtype)
    bernoulli_(out, probabilities if p is None else p, generator=generator)
    return leaf(out, False)


def multinomial(
    input: Any,  # noqa: A002 - PyTorch's names
    num_samples: int,
    replacement: bool = False,
    *,
    generator: Generator | None = None,
) -> Tensor:
    """``num_samples`` indices per row of the weights ``input`` (1-D or 2-D), int64."""
    return constant(choose(_data(input), int(num_samples), replacement, generator=generator))


def _like(input: Any, dtype: Any, device: Any) -> Array:  # noqa: A002
    like = _data(input)
    if device is not None:
        device_index(device)
    return np.empty(like.shape, like.dtype if dtype is None else np.dtype(dtype))


def rand_like(
    input: Any,  # noqa: A002
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``rand`` of ``input``'s shape and dtype."""
    return leaf(uniform_(_like(input, dtype, device), generator=generator), requires_grad)


def randn_like(
    input: Any,  # noqa: A002
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``randn`` of ``input``'s shape and dtype."""
    return leaf(normal_(_like(input, dtype, device), generator=generator), requires_grad)


def randint_like(
    input: Any,  # noqa: A002
    low: int = 0,
    high: int | None = None,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``randint`` of ``input``'s shape and dtype: ``randint_like(x, high)`` or
    ``randint_like(x, low, high)``."""
    if high is None:
        low, high = 0, low
    out = random_(_like(input, dtype, device), int(low), int(high), generator=generator)
    return leaf(out, requires_grad)
