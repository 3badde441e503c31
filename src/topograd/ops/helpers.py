"""What rules are written with, besides operators and the ops of the registry themselves.

>>> data(2.5)
2.5
"""

from __future__ import annotations

from typing import Any

from ..autograd.kinds import kind_of


def data(x: Any) -> Any:
    """The numbers of ``x``: a Value's or a Tensor's ``.data``; a float or an array as it is.
    Rules test conditions on these (a Value compares by identity under ``==``)."""
    t = type(x)
    if t is float or t is int:  # the common case first: a rule in an ordinary backward
        return x
    return x.data if kind_of(x) is not None else x


def shape_of(x: Any) -> tuple[int, ...]:
    """The shape of an array or a Tensor (its data's)."""
    return tuple(data(x).shape)
