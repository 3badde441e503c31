"""Kernels of integers and booleans where NumPy's answer is not PyTorch's: einsum's sums and
threshold_backward's dtype (the float kernels, in ``kernels``, hand these over).

>>> import numpy as np
>>> whole_einsum((np.arange(4, dtype=np.int32).reshape(2, 2),), "ij->").dtype
dtype('int64')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.errors import NotImplementedValueError

Array = np.ndarray[Any, Any]


def whole_einsum(arrays: tuple[Array, ...], equation: str) -> Array:
    """einsum of integers or booleans, as PyTorch's: one operand summed along a letter is
    summed as int64 (PyTorch's sum), booleans summed between operands are refused (PyTorch's
    bmm has no kernel for them)."""
    inputs, out = equation.split("->")
    summed = bool(set(inputs) - set(out) - {","})
    if summed and len(arrays) > 1 and arrays[0].dtype == np.bool_:
        raise NotImplementedValueError("\"einsum\" not implemented for 'Bool'")
    dtype = np.int64 if summed and len(arrays) == 1 else arrays[0].dtype
    return np.asarray(np.einsum(equation, *arrays, dtype=dtype))


def whole_threshold(g: Array, out: Array) -> Array:
    """relu's backward of integers: g where out is positive, else 0, in g's dtype (PyTorch's
    threshold_backward; NumPy's where with 0.0 would give float64)."""
    return np.asarray(np.where(out <= 0, np.zeros((), g.dtype), g))
