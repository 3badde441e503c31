"""The geometry of windows over images, for ``convolution.py``, its kernels
(``tensors/windows.py``) and its functions (``nn/conv.py``): the window arguments
(kernel_size, stride, padding, dilation: an int or a pair) read and checked as PyTorch checks
them, in one place, and how many windows fit.

>>> blocks(8, kernel=3, stride=1, padding=1, dilation=1), pair(2, "stride")
(8, (2, 2))
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from ..autograd.errors import RuntimeValueError

Pair = tuple[int, int]


def pair(value: int | Sequence[int], name: str) -> Pair:
    """A size given for both axes (``3``) or for each (``(3, 2)``), as two ints (NumPy's
    integers too, not bools).

    >>> pair((3, 2), "kernel_size")
    (3, 2)
    """
    if type(value) is int:
        return value, value
    if type(value) is tuple and len(value) == 2 and type(value[0]) is type(value[1]) is int:
        return value
    found: list[Any] = list(value) if isinstance(value, (tuple, list)) else [value]
    if len(found) == 1:
        found *= 2
    message = f"{name} must be an int or a pair of ints, got {value!r}"
    if len(found) != 2:
        raise RuntimeValueError(message)
    try:
        if any(isinstance(v, bool) for v in found):
            raise TypeError
        return operator.index(found[0]), operator.index(found[1])
    except TypeError:
        raise TypeError(message) from None


def positive(value: int | Sequence[int], name: str, least: int = 1) -> Pair:
    """A pair of sizes, each at least ``least`` (1, or 0 for a padding), as PyTorch checks them.

    >>> positive(0, "padding", least=0)
    (0, 0)
    """
    found = pair(value, name)
    if min(found) < least:
        relation = "greater than zero" if least else "non-negative"
        raise RuntimeValueError(f"{name} should be {relation}, but got {name}={found}")
    return found


GEOMETRY = ("kernel_size", "stride", "padding", "dilation")


def geometry(kernel_size: Any, stride: Any, padding: Any, dilation: Any) -> dict[str, Pair]:
    """Windows' geometry as pairs under PyTorch's names (``GEOMETRY``): kernel, steps and
    spacing at least 1, padding at least 0 (a pool's: ``pool_geometry``).

    >>> geometry(3, (2, 1), 0, 1)
    {'kernel_size': (3, 3), 'stride': (2, 1), 'padding': (0, 0), 'dilation': (1, 1)}
    """
    given = (kernel_size, stride, padding, dilation)
    return {name: positive(v, name, int(name != "padding")) for name, v in zip(GEOMETRY, given)}


def pool_geometry(kernel_size: Any, stride: Any, padding: Any, dilation: Any) -> dict[str, Pair]:
    """A pool's windows as ``geometry``'s (a stride of None: the kernel's), and a padding of
    at most half the kernel, as PyTorch checks them.

    >>> pool_geometry(3, None, 1, 1)["stride"]
    (3, 3)
    """
    if stride is not None and 0 in pair(stride, "stride"):
        raise RuntimeValueError("stride should not be zero")
    window = geometry(kernel_size, kernel_size if stride is None else stride, padding, dilation)
    (kh, kw), (ph, pw) = window["kernel_size"], window["padding"]
    for pad, k, d in zip((ph, pw), (kh, kw), window["dilation"]):
        if pad > (d * (k - 1) + 1) // 2:
            given = f"but got pad={pad}, kernel_size={k} and dilation={d}"
            raise RuntimeValueError(f"pad should be at most half of effective kernel size, {given}")
    if ph > kh // 2 or pw > kw // 2:  # PyTorch checks this too
        given = f"but got padH = {ph}, padW = {pw}, kH = {kh}, kW = {kw}"
        raise RuntimeValueError(f"pad should be at most half of kernel size, {given}")
    return window


def axes(window: dict[str, Pair]) -> list[tuple[int, int, int, int]]:
    """(kernel, stride, padding, dilation) along each axis, of ``geometry``'s pairs."""
    return [tuple(window[name][axis] for name in GEOMETRY) for axis in (0, 1)]  # type: ignore[misc]


def counts(size: Sequence[int], window: dict[str, Pair], ceil_mode: bool | None = None) -> Pair:
    """Windows down and across an image of ``size``: a convolution's (``ceil_mode`` None), or
    a pool's.

    >>> counts((5, 6), geometry(2, 2, 0, 1)), counts((5, 6), geometry(2, 2, 0, 1), True)
    ((2, 3), (3, 3))
    """
    found = [
        blocks(n, *along) if ceil_mode is None else pooled(n, *along, ceil_mode)
        for n, along in zip(size, axes(window))
    ]
    return found[0], found[1]


def blocks(size: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    """How many windows fit along an axis of ``size`` (padded on both sides): PyTorch's
    (size + 2 padding - dilation (kernel - 1) - 1) // stride + 1."""
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def pooled(size: int, kernel: int, stride: int, padding: int, dilation: int, ceil: bool) -> int:
    """Windows along an axis for a pool: rounded up with ``ceil`` (ceil_mode), where a last
    window must start inside the input or its left padding, as PyTorch's.

    >>> pooled(5, 2, 2, 0, 1, False), pooled(5, 2, 2, 0, 1, True)
    (2, 3)
    """
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    count = (span + (stride - 1 if ceil else 0)) // stride + 1
    if ceil and (count - 1) * stride >= size + padding:
        count -= 1
    return count


def reach(count: int, kernel: int, stride: int, padding: int, dilation: int) -> int:
    """The size of input that ``count`` windows span (padding taken off): where ceil_mode's last
    window hangs over the end, more than the input's own size."""
    return (count - 1) * stride + dilation * (kernel - 1) + 1 - 2 * padding
