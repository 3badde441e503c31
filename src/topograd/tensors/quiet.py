"""IEEE results without a warning (inf - inf is nan, 1e308 * 10 is inf), entered once.

Every op on Tensors or arrays runs with NumPy's floating-point errors ignored, as
``np.errstate(all="ignore")`` would. A backward pass or a forward-mode pass runs all its rules
inside one ``IEEE()``, which counts how deep this thread is inside it, so that the ops those
rules call do not enter it again (``quietly``).

``np.errstate`` is three calls of NumPy's Python layer, as much as a small op costs. It sets
one context variable of NumPy's C core (``numpy._core.umath``) and resets it after; where that
variable is found (NumPy 2), topograd sets it itself, the same two C calls, with the same
error state (all ignored, the caller's ``np.seterrcall`` and buffer size kept). Elsewhere it
enters ``np.errstate``.

>>> import numpy as np
>>> with IEEE():
...     inside, big = QUIET.depth, np.float64(1e308) * 10
>>> inside, QUIET.depth, float(big)
(1, 0, inf)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


class Errstates:
    """``np.errstate`` behind a context variable's ``set`` and ``reset``: for a NumPy without
    the variable, where ``error_state`` is ``dict``."""

    def set(self, errors: Any) -> Any:
        state = np.errstate(**errors)
        state.__enter__()
        return state

    def reset(self, state: Any) -> None:
        state.__exit__(None, None, None)


errors_var: Any
error_state: Callable[..., Any]
try:  # NumPy 2: the error state np.errstate sets, and the maker of its value (both C)
    from numpy._core.umath import _extobj_contextvar as errors_var
    from numpy._core.umath import _make_extobj as error_state
except ImportError:  # pragma: no cover (another NumPy: np.errstate itself)
    errors_var, error_state = Errstates(), dict


class Depth(threading.local):
    """How many ``IEEE()`` this thread is inside."""

    depth = 0


QUIET = Depth()


class IEEE:
    """The floating-point errors ignored while it lasts, counted in ``QUIET.depth``."""

    __slots__ = ("token",)

    def __enter__(self) -> None:
        self.token = errors_var.set(error_state(all="ignore"))
        QUIET.depth += 1

    def __exit__(self, *exc: Any) -> None:
        QUIET.depth -= 1
        errors_var.reset(self.token)


def quietly(f: Callable[..., Any], args: Sequence[Any], params: dict[str, Any]) -> Any:
    """``f(*args, **params)`` with IEEE results, never a warning: as it is inside ``IEEE()``,
    else with the errors ignored around this call alone."""
    if QUIET.depth:
        return f(*args, **params)
    token = errors_var.set(error_state(all="ignore"))
    try:
        return f(*args, **params)
    finally:
        errors_var.reset(token)
