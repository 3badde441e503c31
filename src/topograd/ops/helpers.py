"""What rules are written with, besides operators and the ops of the registry themselves.

>>> data(2.5)
2.5
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from ..autograd.kinds import kind_of

# Why a Tensor op that adds along an axis may differ from PyTorch in the last bits that matter.
SUM_OF_ZEROS = (
    "a sum of zeros along an axis: NumPy's reductions and PyTorch's kernels start from zeros of "
    "different signs, so where every term is ±0 the result's sign differs"
)
SUM_OVERFLOW = (
    "a sum that overflows: whether it ends inf or nan (inf - inf) depends on the order of the "
    "additions, which is BLAS's in NumPy and in PyTorch, and not the same"
)


def data(x: Any) -> Any:
    """The numbers of ``x``: a Value's ``.data`` (a float), a Tensor's ``.array`` (its ndarray);
    a float or an array as it is. Rules test conditions on these (a Value compares by identity
    under ``==``, a Tensor gives a Tensor)."""
    t = type(x)
    if t is float or t is int:  # the common case first: a rule in an ordinary backward
        return x
    if kind_of(x) is None:
        return x
    array = getattr(x, "array", None)
    return x.data if array is None else array


def is_number(x: Any) -> bool:
    """A plain number: a Python float or int, not a node nor an array."""
    return type(x) is float or type(x) is int


def shape_of(x: Any) -> tuple[int, ...]:
    """The shape of an array or a Tensor (its data's)."""
    return tuple(data(x).shape)


def tangents_of(args: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Any, ...], Any]:
    """A forward rule's arguments, split: each operand's tangent (None: none), the operands,
    the output."""
    n = (len(args) - 1) // 2
    return args[:n], args[n : 2 * n], args[-1]


# Before 3.12 Python's sum() adds floats left to right; from 3.12 it compensates (Neumaier)
SUM_IS_A_FOLD = sys.version_info < (3, 12)


def written_sum(terms: Sequence[str]) -> str:
    """sum(terms, -0.0) on floats as Python source for tg.compile: the terms added left to
    right (-0.0 + t is t, bit for bit); "" where sum() adds otherwise (compile then calls the
    op's function)."""
    if not SUM_IS_A_FOLD:
        return ""
    return " + ".join(terms) if terms else "-0.0"


def sums_to(found: Sequence[int], shape: Sequence[int]) -> bool:
    """Whether a gradient of shape ``found`` sums back to ``shape`` (the engine's unbroadcast):
    ``shape`` broadcasts to it, as PyTorch's is_expandable_to.

    >>> sums_to((4, 3), (1, 3)), sums_to((4, 3), (2, 3))
    (True, False)
    """
    return len(found) >= len(shape) and all(
        n in (m, 1) for n, m in zip(reversed(shape), reversed(found))
    )


def sum_of(terms: Any) -> Any:
    """The terms added left to right, None where there are none (a tangent of zero)."""
    total = None
    for term in terms:
        total = term if total is None else total + term
    return total


def batch_of(grad: Any, out: Any) -> tuple[int, ...]:
    """The leading axes ``grad`` has beyond ``out``'s: a batch of cotangents run at once (none
    in an ordinary backward). A rule that batches keeps them in front of what it gives."""
    rank = len(shape_of(grad)) - len(shape_of(out))
    return shape_of(grad)[:rank]
