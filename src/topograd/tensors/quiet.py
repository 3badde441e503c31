"""IEEE results without a warning (inf - inf is nan, 1e308 * 10 is inf), entered once.

Every op on Tensors or arrays runs inside ``np.errstate(all="ignore")``; entering it costs
about as much as three small NumPy operations. A backward pass or a forward-mode pass runs
all its rules inside one ``IEEE()``, which counts how deep this thread is inside it, so that
the ops those rules call do not enter it again (``quietly``).

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


class Depth(threading.local):
    """How many ``IEEE()`` this thread is inside."""

    depth = 0


QUIET = Depth()


class IEEE:
    """``np.errstate(all="ignore")``, counted in ``QUIET.depth`` while it lasts."""

    __slots__ = ("errstate",)

    def __init__(self) -> None:
        self.errstate = np.errstate(all="ignore")

    def __enter__(self) -> None:
        self.errstate.__enter__()
        QUIET.depth += 1

    def __exit__(self, *exc: Any) -> None:
        QUIET.depth -= 1
        self.errstate.__exit__(*exc)


def quietly(f: Callable[..., Any], args: Sequence[Any], params: dict[str, Any]) -> Any:
    """``f(*args, **params)`` with IEEE results, never a warning: as it is inside ``IEEE()``,
    else in an ``np.errstate`` of its own."""
    if QUIET.depth:
        return f(*args, **params)
    with np.errstate(all="ignore"):
        return f(*args, **params)
