"""The arithmetic of the updates, on floats (a Value's data) and NumPy arrays (a Tensor's) alike,
as PyTorch's pointwise kernels do it: ``lerp`` from the nearer end, and IEEE answers (nan, inf)
where Python's float functions raise. NumPy is imported only when an array comes, so scalar
training loads none.

>>> lerp(0.0, 10.0, 0.1), lerp(0.0, 10.0, 0.9)
(1.0, 9.0)
>>> sqrt(-1.0), divide(1.0, -0.0), maximum(1.0, float("nan"))
(nan, -inf, nan)
"""

from __future__ import annotations

import math
from typing import Any


def lerp(start: Any, end: Any, weight: float) -> Any:
    """start + weight * (end - start), computed as ``torch.lerp`` does: from ``start`` for a
    weight under 1/2, from ``end`` above, so a weight of 1 gives ``end`` exactly.

    >>> lerp(2.0, 4.0, 1.0)
    4.0
    """
    if not isinstance(end, float):  # an array: the weight in its precision, 1 - weight in it too
        weight = end.dtype.type(weight)
    if abs(weight) < 0.5:
        return start + weight * (end - start)
    return end - (end - start) * (1 - weight)


def sqrt(x: Any) -> Any:
    """The square root, nan below zero (``math.sqrt`` raises there), -0.0 at -0.0.

    >>> sqrt(2.25), sqrt(-0.0)
    (1.5, -0.0)
    """
    if isinstance(x, float):
        return math.sqrt(x) if x >= 0 else math.nan
    import numpy as np

    with np.errstate(invalid="ignore"):
        return np.sqrt(x)


def divide(a: Any, b: Any) -> Any:
    """a / b, with IEEE's answer for a float divided by zero (±inf, or nan for 0 / 0), where
    Python raises; arrays divide as NumPy does (their warnings are the caller's ``ieee``).

    >>> divide(-2.0, 0.0), divide(0.0, 0.0)
    (-inf, nan)
    """
    if not isinstance(b, float) or b != 0:
        return a / b
    if a == 0 or a != a:
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def maximum(a: Any, b: Any) -> Any:
    """The larger of the two, element by element; nan where either is nan (``max`` would keep
    the other), as ``torch.maximum``.

    >>> maximum(1.0, 3.0)
    3.0
    """
    if isinstance(a, float) and isinstance(b, float):
        return a if a >= b or a != a else b
    import numpy as np

    return np.maximum(a, b)


def full_like(x: Any, value: float) -> Any:
    """``value`` in the shape and precision of ``x``: a float for a float, else an array.

    >>> full_like(2.5, 0.1)
    0.1
    """
    if isinstance(x, float):
        return float(value)
    import numpy as np

    return np.full_like(x, value)
