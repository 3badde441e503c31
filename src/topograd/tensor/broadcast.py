"""Broadcasting undone, in one place: a gradient in a broadcast shape summed back to the shape
of the input it belongs to.

>>> import numpy as np
>>> unbroadcast(np.ones((4, 2, 3)), (2, 1))
array([[12.],
       [12.]])
"""

from __future__ import annotations

from typing import Any


def unbroadcast(grad: Any, shape: tuple[int, ...]) -> Any:
    """``grad`` summed over the leading axes the input did not have, and over the axes where it
    had size 1. Works on arrays and, under create_graph, on Tensors."""
    if grad.shape == shape:
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1
    )
    summed = grad.sum(axis=axes, keepdims=True) if axes else grad
    if lead < 0 or tuple(summed.shape[lead:]) != shape:  # a rule's wrong shape, never hidden
        raise RuntimeError(
            f"a rule gave a gradient of shape {tuple(grad.shape)} for an input of shape {shape}"
        )
    return summed.reshape(shape)
