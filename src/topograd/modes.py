"""What ops do with the nodes they make, per thread: record them (the default), not
(``no_grad``), or record them and remember where (``detect_anomaly``).

>>> import topograd as tg
>>> with tg.no_grad():
...     y = tg.Value(2.0) * 3
>>> y.op, y.parents
('', ())
"""

from __future__ import annotations

import linecache
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .engine import Node


class AnomalyError(RuntimeError):
    """A backward produced NaN; the message names the op, its label and where it was made."""


class AnomalyLog:
    """While ``detect_anomaly`` is on: where user code made each new node."""

    def __init__(self) -> None:
        self.places: dict[object, str] = {}

    def remember(self, node: object) -> None:
        frame = sys._getframe(1)
        while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
            frame = frame.f_back
        line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
        place = f"{frame.f_code.co_filename}:{frame.f_lineno}, in {frame.f_code.co_name}"
        self.places[node] = f"{place}\n    {line}" if line else place

    def check(self, node: Node, grad: Any, contributions: Sequence[Any]) -> None:
        for i, contribution in enumerate(contributions):
            if node._has_nan(contribution):
                op, label = getattr(node, "op", "?"), getattr(node, "label", "")
                named = f"{op!r}" + (f" (label {label!r})" if label else "")
                where = self.places.get(node, "before detect_anomaly() was entered")
                raise AnomalyError(
                    f"backward of {named} produced nan in the gradient of its input {i}.\n"
                    f"That node was created at {where}"
                )


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


class _GradMode(threading.local):
    # What an op does with the node it makes, read once per op: False under no_grad (record
    # nothing), True (record the op and its parents), or an AnomalyLog (record, and remember
    # where). One attribute, so that anomaly mode costs nothing while it is off.
    record: bool | AnomalyLog = True


grad_mode = _GradMode()  # read by the data kinds on every op


def is_grad_enabled() -> bool:
    """Whether new ops record their parents (False inside ``no_grad``), in this thread."""
    return bool(grad_mode.record)


@contextmanager
def _recording(record: bool | AnomalyLog) -> Iterator[None]:
    previous = grad_mode.record
    grad_mode.record = record
    try:
        yield
    finally:
        grad_mode.record = previous


def no_grad() -> AbstractContextManager[None]:
    """Inside it, ops record no parents: results are leaves (``op == ""``). Per thread."""
    return _recording(False)


def detect_anomaly() -> AbstractContextManager[None]:
    """Inside it, each new node remembers the file and line that made it, and a backward that
    produces NaN raises ``AnomalyError`` naming the op, its label and that place. Per thread.

    >>> import topograd as tg
    >>> x = tg.Value(0.0)
    >>> with tg.detect_anomaly():
    ...     y = x.sqrt() * 0
    ...     y.backward()
    Traceback (most recent call last):
    ...
    topograd.modes.AnomalyError: backward of 'sqrt' produced nan in the gradient of its input 0.
    That node was created at <doctest topograd.modes.detect_anomaly[2]>:2, in <module>
        y = x.sqrt() * 0
    """
    record = grad_mode.record
    return _recording(
        record if isinstance(record, AnomalyLog) else AnomalyLog() if record else False
    )
