"""Broadcasting undone, in one place: a gradient in a broadcast shape summed back to the shape
of the input it belongs to.

>>> import numpy as np
>>> unbroadcast(np.ones((4, 2, 3)), (2, 1))
array([[12.],
       [12.]])
"""

from __future__ import annotations

from typing import Any


def unbroadcast(grad: Any, shape: tuple[int, ...], batch: tuple[int, ...] = ()) -> Any:
    """``grad`` summed over the leading axes the input did not have, and over the axes where it
    had size 1. Works on arrays and, under create_graph, on Tensors. ``batch``: the leading
    axes of a batch of gradients (run at once), kept in front."""
    full = (*batch, *shape)
    if grad.shape == full:
        return grad
    kept, lead = len(batch), grad.ndim - len(full)
    axes = tuple(range(kept, kept + lead)) + tuple(
        kept + lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[kept + lead + i] != 1
    )
    summed = grad.sum(axis=axes, keepdims=True) if axes else grad
    found = tuple(summed.shape)
    if lead < 0 or found[:kept] != batch or found[kept + lead :] != shape:  # never hidden
        raise RuntimeError(
            f"a rule gave a gradient of shape {tuple(grad.shape)} for an input of shape {shape}"
            + (f" in a batch of {batch}" if batch else "")
        )
    return summed.reshape(full)
