"""What ops do with the nodes they make, and what backward checks, per thread.

Ops record their parents (the default), or not (``no_grad``), or record them and remember the
file and line that made each node (``detect_anomaly``, which also has every backward check its
gradients for NaN, even inside ``no_grad``).

>>> import topograd as tg
>>> with tg.no_grad():
...     y = tg.Value(2.0) * 3
>>> y.op, y.parents
('', ())
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import ContextDecorator, contextmanager
from typing import Any


class AnomalyError(RuntimeError):
    """A backward produced NaN; the message names the op, its label and where it was made."""

    __module__ = "topograd"  # raised as tg.AnomalyError


class _Remember:
    """The recording mode of ``detect_anomaly``: record, and remember where."""

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        return "REMEMBER"


REMEMBER = _Remember()


class _GradMode(threading.local):
    # What an op does with the node it makes, read once per op: False under no_grad (record
    # nothing), True (record the op and its parents), or REMEMBER (record, and remember where).
    # One attribute, so that anomaly mode costs nothing while it is off.
    record: bool | _Remember = True
    check_nan = False  # backward looks for NaN (anomaly mode)


grad_mode = _GradMode()  # read by the data kinds on every op


class _Altered:
    """How many threads are in a mode other than the default (record, remember nothing): while
    none is, an op may skip reading its thread's mode (a read of a thread-local attribute costs
    a Value op a sixth of its time). Counted under a lock; a thread that ends inside a mode
    leaves its count behind (ops then read their mode, as they would anyway)."""

    __slots__ = ("lock", "threads")

    def __init__(self) -> None:
        self.threads = 0
        self.lock = threading.Lock()


ALTERED = _Altered()


def set_record(record: bool | _Remember) -> None:
    """Set this thread's ``grad_mode.record``, keeping ``ALTERED``'s count (every write of the
    mode goes through here)."""
    was = grad_mode.record is True
    grad_mode.record = record
    if was is not (record is True):
        with ALTERED.lock:
            ALTERED.threads += 1 if was else -1


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def place() -> str:
    """The file and line of the user code that is calling into topograd (anomaly mode keeps
    it on each node it makes)."""
    import linecache  # anomaly mode only: its import costs the start of every program

    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
    code = frame.f_code
    line = linecache.getline(code.co_filename, frame.f_lineno).strip()
    where = f"{code.co_filename}:{frame.f_lineno}, in {code.co_name}"
    return f"{where}\n    {line}" if line else where


def check_nan(kind: Any, node: Any, parents: Sequence[Any], contributions: Sequence[Any]) -> None:
    """Raise ``AnomalyError`` if ``node`` passed NaN to an input that wants a gradient."""
    for parent, contribution in zip(parents, contributions):
        if contribution is not None and kind.has_nan(parent, contribution):
            i = next(k for k, o in enumerate(kind.operands(node)) if o is parent)
            raise anomaly(
                kind, node, f"backward of {{named}} produced nan in the gradient of its input {i}."
            )


def anomaly(kind: Any, node: Any, happened: str) -> AnomalyError:
    """The error for a NaN at ``node``: ``happened`` (its op, and label, where it says
    ``{named}``), and where user code made the node."""
    op, label = kind.op(node).name, getattr(node, "label", "")
    named = f"{op!r}" + (f" (label {label!r})" if label else "")
    where = kind.created_at(node)
    return AnomalyError(
        happened.format(named=named)
        + "\n"
        + (
            f"That node was created at {where}"
            if where
            else "That node was created outside detect_anomaly(), so where is not known"
        )
    )


def is_grad_enabled() -> bool:
    """Whether new ops record their parents (False inside ``no_grad``), in this thread."""
    return bool(grad_mode.record)


class recording:  # noqa: N801 - a function to its callers: ``with recording(True):``
    """Ops record (True) or not (False) inside; anomaly mode's remembering is kept. (A class,
    not a generator under ``contextmanager``: three Python calls a backward, not eight.)"""

    __slots__ = ("previous", "record")

    def __init__(self, record: bool) -> None:
        self.record = record

    def __enter__(self) -> None:
        self.previous = grad_mode.record
        set_record((REMEMBER if grad_mode.check_nan else True) if self.record else False)

    def __exit__(self, *exc: object) -> None:
        set_record(self.previous)


class GradMode(ContextDecorator):
    """Ops record (``record``) or not inside it, in this thread; a decorator too, of a function
    that runs so (``@tg.no_grad()`` and, as PyTorch takes it, ``@tg.no_grad``)."""

    def __init__(self, record: bool) -> None:
        self.record = record
        self.previous: list[Any] = []  # (a stack: the same object may be entered again)

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not kwargs and cls.takes_a_function:
            return cls()(args[0])  # type: ignore[call-arg]  # @tg.no_grad, without parentheses
        return super().__new__(cls)

    takes_a_function = False

    def __enter__(self) -> None:
        self.previous.append(grad_mode.record)
        set_record((REMEMBER if grad_mode.check_nan else True) if self.record else False)

    def __exit__(self, *exc: Any) -> None:
        set_record(self.previous.pop())

    def _recreate_cm(self) -> GradMode:
        """A new one for each call of a decorated function (threads, recursion)."""
        return GradMode(self.record)


class no_grad(GradMode):  # noqa: N801 - PyTorch's name
    """Inside it, ops record no parents: results are leaves (``op == ""``). Per thread; a
    decorator too (``@tg.no_grad`` or ``@tg.no_grad()``)."""

    takes_a_function = True

    def __init__(self, function: Any = None) -> None:
        super().__init__(False)


class enable_grad(GradMode):  # noqa: N801 - PyTorch's name
    """Inside it, ops record their parents, even within ``no_grad``."""

    takes_a_function = True

    def __init__(self, function: Any = None) -> None:
        super().__init__(True)


class inference_mode(GradMode):  # noqa: N801 - PyTorch's name
    """``no_grad`` (with ``mode=True``, the default), as PyTorch's inference mode reads to a
    program that makes no graph; ``inference_mode(False)`` records."""

    takes_a_function = True

    def __init__(self, mode: Any = True) -> None:
        super().__init__(not mode if isinstance(mode, bool) else False)


class set_grad_enabled(GradMode):  # noqa: N801 - PyTorch's name
    """Ops record or not from now on (``tg.set_grad_enabled(False)``), or inside it (``with``),
    as PyTorch's: the mode is set when it is made, and set back when a ``with`` ends."""

    def __init__(self, mode: bool) -> None:
        super().__init__(bool(mode))
        self.previous.append(grad_mode.record)
        set_record((REMEMBER if grad_mode.check_nan else True) if mode else False)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        set_record(self.previous.pop())


@contextmanager
def detect_anomaly() -> Iterator[None]:
    """Inside it, each new node remembers the file and line that made it, and a backward that
    produces NaN raises ``AnomalyError`` naming the op, its label and that place. Per thread.

    >>> import topograd as tg
    >>> x = tg.Value(0.0)
    >>> with tg.detect_anomaly():
    ...     y = x.sqrt() * 0
    ...     y.backward()
    Traceback (most recent call last):
    ...
    topograd.AnomalyError: backward of 'sqrt' produced nan in the gradient of its input 0.
    That node was created at <doctest topograd.autograd.modes.detect_anomaly[2]>:2, in <module>
        y = x.sqrt() * 0
    """
    previous = grad_mode.record, grad_mode.check_nan
    grad_mode.check_nan = True
    set_record(REMEMBER if grad_mode.record else False)
    try:
        yield
    finally:
        grad_mode.check_nan = previous[1]
        set_record(previous[0])
