"""Watching what a function does with Values' numbers, while ``tg.compile`` traces it.

A graph records the ops on Values, but not what Python does with their numbers: ``if x.data >
0`` takes a branch that a later call, on other numbers, might not take. While ``watching``, a
Value's number read by code outside topograd (``x.data``, ``x.item()``) is a ``Tracked``
number (``tracked.py``) that remembers how it was computed from the graph's nodes, and every
comparison of one (``x.data > 0``, ``x > 0``, ``bool(x.data)``) is recorded as a guard. A
tracked number may be computed with, but not turned into a plain number (``float(x)``,
``math.exp(x.data)``, ``Value(x.data)``, ``x * x.data``, a dict key) nor into text
(``str(x.data)``, ``repr(x)``, an f-string, ``print``): its value would be baked into the
compiled code as a constant, silently wrong on the next call. That is refused with
``TraceError`` instead, and so is what the code could not see again: an op under ``no_grad``
(its result a leaf, its number the trace's), a read of a ``.grad``, and a read of a Value that
was there before the trace once an optimizer's step has moved the parameters (the code checks
its guards before it runs the step).

What changes Values is recorded for the compiled code to do again: the function's own call of
``backward()``, and its calls of the methods ``watching`` is given (an optimizer's
``zero_grad`` and ``step``), in order, with what they write. Any other write into ``.data`` or
``.grad`` of a Value that was there before the trace (an update by hand) would be lost, and is
refused with ``TraceError``.

Nothing here costs anything outside a trace: ``watching`` puts the watching versions of
``Value.data``, ``grad``, ``backward``, the comparisons, ``item``, ``__float__``, ``__repr__``
and of the methods given on their classes for its duration, and the originals back after. A
trace runs on one thread at a time (a lock); reads from other threads see plain floats.

>>> import topograd as tg
>>> x = tg.Value(2.0)
>>> with watching() as seen:
...     took = x > 1.5  # (x.data > 1.5 in user code alike)
>>> took, seen.guards
(True, [('{0} > 1.5', True)])
"""

from __future__ import annotations

import functools
import operator
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from ..autograd.modes import grad_mode
from .tracked import TRACES, TraceError, Tracked, here, refused
from .value import Value, is_built, is_constant

_LOCK = threading.RLock()  # one trace at a time (a nested one is refused, not waited for)

# A call the compiled code makes again, in the order the function made it: the method bound
# to its object and arguments, how the code's comment names it ("SGD.step()"), and the
# (class, name) ``watching`` was given for it.
Effect = tuple[Callable[[], Any], str, tuple[type, str]]


class Watched:
    """What a trace saw: the nodes whose numbers were read (``{i}`` in the expressions), the
    guards (expression, outcome), the leaves made during it (fresh Values: constants), every
    Value made during it, the calls of methods that change Values (``effects``: an
    optimizer's step), and the function's own call of ``backward`` (the node, its seed, how
    many effects came before it), if any."""

    def __init__(self, moves: Mapping[tuple[type, str], bool]) -> None:
        self.nodes: list[Value] = []
        self.index: dict[int, int] = {}  # id(node) -> its place in nodes
        self.guards: list[tuple[str, bool]] = []
        self.made: list[Value] = []  # kept, so that no id is reused during the trace
        self.made_ids: set[int] = set()
        self.created: list[Value] = []  # every Value made during the trace, kept alive
        self.created_ids: set[int] = set()
        self.effects: list[Effect] = []
        self.moves = moves  # which recorded methods move the parameters (a step)
        self.moved = False  # a step has run: older Values' numbers are no longer the code's
        self.backward: tuple[Value, float, int] | None = None
        self.inside = 0  # > 0 within a recorded call or backward: its writes are replayed
        self.thread = threading.get_ident()

    def ref(self, node: Value) -> str:
        place = self.index.get(id(node))
        if place is None:
            place = self.index[id(node)] = len(self.nodes)
            self.nodes.append(node)
        return "{" + str(place) + "}"

    def guard(self, expression: str, outcome: bool) -> bool:
        self.guards.append((expression, outcome))
        return outcome

    def fresh(self, node: Value) -> None:
        """``node`` is being made now (its slots written for the first time)."""
        if id(node) not in self.created_ids:
            self.created.append(node)
            self.created_ids.add(id(node))
            if not grad_mode.record and not self.inside:
                raise TraceError(
                    "tg.compile: an op under no_grad inside the function: its result is a "
                    "leaf, whose number the compiled code would keep from this call. Compute "
                    "it outside the compiled function, or without no_grad"
                )

    def readable(self, node: Value) -> None:
        """Refuse a read the code could not make at its guards: a parameter's number after a
        step moved it."""
        if self.moved and id(node) not in self.created_ids:
            raise TraceError(
                "tg.compile: the function reads a Value that was there before it (a "
                "parameter) after optimizer.step() moved it; the compiled code checks what it "
                "reads before the step. Read it before the step, or outside"
            )


def current() -> Watched | None:
    """The trace under way on this thread, if any."""
    return TRACES[-1] if here() else None  # type: ignore[return-value]


# The watching versions of Value's attributes, put on the class by ``watching``.

_DATA = Value.__dict__["data"]  # the slot itself
_SLOT_GET, _SLOT_SET = _DATA.__get__, _DATA.__set__
_GRAD = Value.__dict__["grad"]
_GRAD_GET, _GRAD_SET = _GRAD.__get__, _GRAD.__set__


def _from_outside() -> bool:
    """Whether the code reading a number (two frames up) is the user's, not topograd's."""
    caller = sys._getframe(2)
    return not caller.f_globals.get("__name__", "").startswith("topograd.")


def _tracked(node: Value) -> Any:
    value: float = _SLOT_GET(node, Value)
    seen = current()
    if seen is None or is_constant(node):
        return value
    seen.readable(node)
    return Tracked(value, seen.ref(node))


def _read(node: Value) -> Any:
    if here() and _from_outside():
        return _tracked(node)
    return _SLOT_GET(node, Value)


def _read_grad(node: Value) -> Any:
    if here() and _from_outside():
        raise TraceError(
            "tg.compile: the function reads a .grad; the compiled code computes the gradients "
            "after its guards, so a branch or a number made of one would be this call's. Read "
            "it outside the compiled function (or clip with an optimizer's step)"
        )
    return _GRAD_GET(node, Value)


def _written_once(seen: Watched, node: Value) -> bool:
    """Whether a write into ``node`` now is one the compiled code makes too: its making, or a
    write by a recorded call (an optimizer's) or backward."""
    if not is_built(node):
        seen.fresh(node)
        return True
    return bool(seen.inside) or id(node) in seen.made_ids


def _write(node: Value, value: float) -> None:
    seen = current()
    if seen is not None and not _written_once(seen, node):
        raise TraceError(
            "tg.compile: the function writes a Value's .data itself (an update by hand); the "
            "compiled code would not: use an optimizer (its zero_grad() and step() are "
            "replayed, after a backward() inside the function), or write it outside"
        )
    _SLOT_SET(node, value)


def _write_grad(node: Value, value: float) -> None:
    seen = current()
    if seen is not None and not _written_once(seen, node):
        raise TraceError(
            "tg.compile: the function writes a Value's .grad itself; the compiled code would "
            "not: use model.zero_grad() or optimizer.zero_grad(), or write it outside"
        )
    _GRAD_SET(node, value)


def _text(self: Value) -> str:
    """A Value as text (``repr``, ``str``, ``format``, an f-string, ``print``): its number is
    in it, so user code may not read it during a trace (topograd's own messages may)."""
    if here() and _from_outside():
        refused()
    return _ORIGINAL["__repr__"](self)  # type: ignore[no-any-return]


def _value_comparison(name: str) -> Callable[[Value, Any], bool]:
    compared = getattr(operator, name.strip("_"))

    def compare(self: Value, other: Any) -> bool:
        theirs = _tracked(other) if isinstance(other, Value) else other
        return bool(compared(_tracked(self), theirs))

    return compare


def _init(self: Value, data: Any, label: str = "") -> None:
    seen = current()
    if seen is not None:  # a fresh leaf, before its slots are written: a constant of the trace
        seen.made.append(self)
        seen.made_ids.add(id(self))
    _ORIGINAL["__init__"](self, data, label)


def _backward(self: Value, grad: Any = 1.0) -> None:
    """The function's own ``backward``, recorded (the compiled code runs it again), then run."""
    seen = current()
    if seen is None or seen.inside:
        return _ORIGINAL["backward"](self, grad)  # type: ignore[no-any-return]
    if seen.backward is not None:
        raise TraceError("tg.compile: the function calls backward() twice; it may call it once")
    if isinstance(grad, Tracked) or not (type(grad) is float or type(grad) is int):
        raise TraceError(
            "tg.compile: backward() inside the function takes a plain number as its seed"
        )
    seen.backward = (self, float(grad), len(seen.effects))
    seen.inside += 1
    try:
        return _ORIGINAL["backward"](self, grad)  # type: ignore[no-any-return]
    finally:
        seen.inside -= 1


def recorded(original: Callable[..., Any], method: tuple[type, str]) -> Callable[..., Any]:
    """``original``, a method that changes Values (an optimizer's ``step``): where the traced
    function calls it, the call is recorded for the compiled code to make again, then made."""

    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        seen = current()
        if seen is None or seen.inside:  # another thread, or called by a recorded call
            return original(self, *args, **kwargs)
        if any(isinstance(a, Tracked) for a in (*args, *kwargs.values())):
            refused()
        name = f"{type(self).__name__}.{method[1]}()"
        moves = seen.moves.get(method, False)
        if moves and seen.backward is None:  # refused before it moves anything
            raise TraceError(
                f"tg.compile: the function calls {name} before backward(): the compiled code "
                "computes the forward pass first; call it after backward()"
            )
        seen.effects.append((functools.partial(original, self, *args, **kwargs), name, method))
        seen.inside += 1
        try:
            return original(self, *args, **kwargs)
        finally:
            seen.inside -= 1
            seen.moved = seen.moved or moves

    return call


_WATCHING: dict[str, Any] = {
    "data": property(_read, _write),
    "grad": property(_read_grad, _write_grad),
    "backward": _backward,
    "item": _tracked,
    "__float__": lambda self: refused() if here() else _SLOT_GET(self, Value),
    "__repr__": _text,
    "__init__": _init,
    **{f"__{name}__": _value_comparison(f"__{name}__") for name in ("lt", "le", "gt", "ge")},
}
_ORIGINAL: dict[str, Any] = {name: Value.__dict__[name] for name in _WATCHING}


def refuse_nested() -> None:
    """A compiled function called while another is traced: its code would run unseen."""
    if here():
        raise TraceError(
            "tg.compile: a compiled function called inside another one's trace; compile the "
            "outer function alone (what it calls is traced with it)"
        )


@contextmanager
def watching(effects: Mapping[tuple[type, str], bool] | None = None) -> Iterator[Watched]:
    """Watch what code does with Values' numbers for the duration, and record its calls of the
    methods ``effects`` names ((class, method): whether it moves the parameters): see the
    module's doc. A trace inside another (a compiled function called while one is traced) is
    refused."""
    refuse_nested()
    moves = dict(effects or {})
    patched: list[tuple[type, str, Any, Any]] = [
        (Value, name, _ORIGINAL[name], new) for name, new in _WATCHING.items()
    ]
    for cls, name in moves:
        method = cls.__dict__[name]
        patched.append((cls, name, method, recorded(method, (cls, name))))
    with _LOCK:
        seen = Watched(moves)
        TRACES.append(seen)
        for cls, name, _, new in patched:
            setattr(cls, name, new)
        try:
            yield seen
        finally:
            for cls, name, original, _ in patched:
                setattr(cls, name, original)
            TRACES.pop()
