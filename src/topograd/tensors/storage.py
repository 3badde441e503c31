"""Numbers shared between Tensors, and when they were last written.

A view (``x[1:]``, ``x.view(6)``, ``x.t()``, ``x.detach()``, ``x.data``) holds the very numbers
of the Tensor it was made from, as in PyTorch: a write through either is a write to both. Each
Tensor notes the count of writes in place (``autograd/versions.py``) when it was made; the
count when its numbers were last written is kept in a ``Version`` that a Tensor and its views
share, made the first time it is needed (a Tensor never written nor viewed has none: its
numbers are as old as itself). A backward refuses a node whose rule reads numbers written after
the node was made, through whichever Tensor they were written.

>>> import topograd as tg
>>> x = tg.ones(3, requires_grad=True)
>>> y = x * x
>>> with tg.no_grad():
...     x.detach()[0] = 5.0  # a write through a view of x
>>> y.sum().backward()
Traceback (most recent call last):
...
RuntimeError: one of the variables needed for gradient computation has been modified by an \
inplace operation: input 1 of mul, a Tensor of shape (3,), was written by Tensor.__setitem__ \
after the mul was recorded. Run the forward again after the write.
"""

from __future__ import annotations

from typing import Any


class Version:
    """When the numbers a Tensor and its views share were last written (a count of writes)."""

    __slots__ = ("count",)

    def __init__(self, count: int) -> None:
        self.count = count


def shared(x: Any) -> Version:
    """``x``'s Version, for a view of it to share: made now if it has none (its numbers never
    written: as old as itself)."""
    found: Version | None = x._version
    if found is None:
        found = x._version = Version(x._stamp)
    return found


def stamp(x: Any) -> int | tuple[int, int]:
    """``x``'s stamp as ``versions.refuse_if_stale`` reads it: when it was made, and when its
    numbers were last written where that is later."""
    version: Version | None = x._version
    if version is None or version.count == x._stamp:
        return int(x._stamp)
    return (x._stamp, version.count)


def write(x: Any, count: int) -> None:
    """Note that ``x``'s numbers (and so its views') were written at ``count``."""
    shared(x).count = count
