"""Watching what a function does with Values' numbers, while ``tg.compile`` traces it.

A graph records the ops on Values, but not what Python does with their numbers: ``if x.data >
0`` takes a branch that a later call, on other numbers, might not take. While ``watching``, a
Value's number read by code outside topograd (``x.data``, ``x.item()``) is a ``Tracked``
float that remembers how it was computed from the graph's nodes, and every comparison of one
(``x.data > 0``, ``x > 0``, ``bool(x.data)``) is recorded as a guard: the expression and the
outcome seen. A tracked number may be computed with (+, -, *, /, **, abs), but not turned
into a plain float (``float(x)``, ``math.exp(x.data)``, ``Value(x.data)``, ``x * x.data``): its
value would be baked into the compiled code as a constant, silently wrong on the next call.
That is refused with ``TraceError`` instead.

What changes Values is recorded for the compiled code to do again: the function's own call of
``backward()``, and its calls of the methods ``watching`` is given (an optimizer's
``zero_grad`` and ``step``), in order, with what they write. Any other write into ``.data`` or
``.grad`` of a Value that was there before the trace (an update by hand) would be lost, and is
refused with ``TraceError``.

Nothing here costs anything outside a trace: ``watching`` puts the watching versions of
``Value.data``, ``grad``, ``backward``, the comparisons, ``item``, ``__float__`` and of the
methods given on their classes for its duration, and the originals back after. A trace runs on
one thread at a time (a lock); reads from other threads see plain floats.

>>> import topograd as tg
>>> x = tg.Value(2.0)
>>> with watching() as seen:
...     took = x > 1.5  # (x.data > 1.5 in user code alike)
>>> took, seen.guards
(True, [('{0} > 1.5', True)])
"""

from __future__ import annotations

import functools
import numbers
import operator
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .value import Value, is_built, is_constant

_LOCK = threading.Lock()


class TraceError(TypeError):
    """What ``tg.compile`` cannot replay: a number read from a Value leaving the graph, or a
    write into a Value that no recorded call (an optimizer's step) makes."""


# A call the compiled code makes again, in the order the function made it: the method bound
# to its object and arguments, how the code's comment names it ("SGD.step()"), and the
# (class, name) ``watching`` was given for it.
Effect = tuple[Callable[[], Any], str, tuple[type, str]]


class Watched:
    """What a trace saw: the nodes whose numbers were read (``{i}`` in the expressions), the
    guards (expression, outcome), the leaves made during it (fresh Values), the calls of
    methods that change Values (``effects``: an optimizer's step), and the function's own call
    of ``backward`` (the node, its seed, how many effects came before it), if any."""

    def __init__(self) -> None:
        self.nodes: list[Value] = []
        self.index: dict[int, int] = {}  # id(node) -> its place in nodes
        self.guards: list[tuple[str, bool]] = []
        self.made: list[Value] = []  # kept, so that no id is reused during the trace
        self.made_ids: set[int] = set()
        self.effects: list[Effect] = []
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


_SEEN: list[Watched] = []  # the trace under way, if any


def _guard(expression: str, outcome: bool) -> bool:
    return _SEEN[-1].guard(expression, outcome) if _SEEN else outcome


def _here() -> bool:
    """Whether a trace is under way on this thread."""
    return bool(_SEEN) and threading.get_ident() == _SEEN[-1].thread


def _written(x: object) -> str:
    if isinstance(x, Tracked):
        return x.expression
    if type(x) is float or type(x) is int:
        text = repr(x)
        return text if text[0] != "-" and text not in ("inf", "nan") else f"float({text!r})"
    raise TraceError(f"a number read from a Value was combined with {type(x).__name__}")


def _refused(*args: Any) -> Any:
    raise TraceError(
        "inside tg.compile, a number read from a Value (x.data, x.item()) can be compared and "
        "computed with, but not made a plain float or fed back into the graph: the compiled "
        "code would keep it as a constant. Write it as an op on Values, or compute it outside "
        "the compiled function"
    )


class Tracked:
    """A number read from a Value during a trace, with the expression that computes it from
    the read nodes ({i}: the i-th). Arithmetic keeps the expression; comparisons are guards.
    Not a float: ``math.exp`` and the like ask for ``float()``, which refuses."""

    __slots__ = ("expression", "value")

    def __init__(self, value: float, expression: str) -> None:
        self.value = value
        self.expression = expression

    def __float__(self) -> float:
        return _refused()  # type: ignore[no-any-return]

    __int__ = __index__ = __round__ = __trunc__ = __floor__ = __ceil__ = __complex__ = _refused

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return repr(self.value)

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)

    def __bool__(self) -> bool:
        return _guard(f"{self.expression} != 0.0", self.value != 0.0)

    def __neg__(self) -> Tracked:
        return Tracked(-self.value, f"-({self.expression})")

    def __pos__(self) -> Tracked:
        return self

    def __abs__(self) -> Tracked:
        return Tracked(abs(self.value), f"abs({self.expression})")


# a real number to the Values it meets (x * t, Value(t)), which then ask for float(): refused
numbers.Real.register(Tracked)


def _plain(x: object) -> bool:
    return type(x) is float or type(x) is int or isinstance(x, Tracked)


def _arithmetic(name: str, symbol: str, right: bool) -> Callable[[Tracked, Any], Any]:
    method = getattr(operator, name)

    def compute(self: Tracked, other: Any) -> Any:
        if not _plain(other):
            return NotImplemented  # a Value's own method refuses a tracked number
        theirs = other.value if isinstance(other, Tracked) else other
        result = method(theirs, self.value) if right else method(self.value, theirs)
        a, b = self.expression, _written(other)
        a, b = (b, a) if right else (a, b)
        return Tracked(result, f"({a} {symbol} {b})")

    return compute


def _comparison(name: str, symbol: str) -> Callable[[Tracked, Any], Any]:
    method = getattr(operator, name)

    def compare(self: Tracked, other: Any) -> Any:
        if not _plain(other):
            return NotImplemented
        theirs = other.value if isinstance(other, Tracked) else other
        result = method(self.value, theirs)
        return _guard(f"{self.expression} {symbol} {_written(other)}", result)

    return compare


for _name, _symbol in [("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/")]:
    setattr(Tracked, f"__{_name}__", _arithmetic(_name, _symbol, False))
    setattr(Tracked, f"__r{_name}__", _arithmetic(_name, _symbol, True))
for _name, _symbol in [("pow", "**"), ("floordiv", "//"), ("mod", "%")]:
    setattr(Tracked, f"__{_name}__", _arithmetic(_name, _symbol, False))
    setattr(Tracked, f"__r{_name}__", _arithmetic(_name, _symbol, True))
for _name, _symbol in [
    ("lt", "<"),
    ("le", "<="),
    ("gt", ">"),
    ("ge", ">="),
    ("eq", "=="),
    ("ne", "!="),
]:
    setattr(Tracked, f"__{_name}__", _comparison(_name, _symbol))


# The watching versions of Value's attributes, put on the class by ``watching``.

_DATA = Value.__dict__["data"]  # the slot itself
_SLOT_GET, _SLOT_SET = _DATA.__get__, _DATA.__set__


def _from_outside() -> bool:
    """Whether the code reading a number (two frames up) is the user's, not topograd's."""
    caller = sys._getframe(2)
    return not caller.f_globals.get("__name__", "").startswith("topograd.")


def _read(node: Value) -> Any:
    value: float = _SLOT_GET(node, Value)
    if _here() and _from_outside() and not is_constant(node):
        return Tracked(value, _SEEN[-1].ref(node))
    return value


def _unrecorded(node: Value) -> bool:
    """Whether a write into ``node`` now would be lost to the compiled code: a Value that was
    there before the trace, written by no recorded call (an optimizer's) nor backward."""
    if not _here():
        return False
    seen = _SEEN[-1]
    return not seen.inside and id(node) not in seen.made_ids and is_built(node)


def _write(node: Value, value: float) -> None:
    if _unrecorded(node):
        raise TraceError(
            "tg.compile: the function writes a Value's .data itself (an update by hand); the "
            "compiled code would not: use an optimizer (its zero_grad() and step() are "
            "replayed, after a backward() inside the function), or write it outside"
        )
    _SLOT_SET(node, value)


_GRAD = Value.__dict__["grad"]
_GRAD_GET, _GRAD_SET = _GRAD.__get__, _GRAD.__set__


def _write_grad(node: Value, value: float) -> None:
    if _unrecorded(node):
        raise TraceError(
            "tg.compile: the function writes a Value's .grad itself; the compiled code would "
            "not: use model.zero_grad() or optimizer.zero_grad(), or write it outside"
        )
    _GRAD_SET(node, value)


def _tracked(node: Value) -> Any:
    value: float = _SLOT_GET(node, Value)
    if is_constant(node) or not _here():
        return value
    return Tracked(value, _SEEN[-1].ref(node))


def _value_comparison(symbol: str, name: str) -> Callable[[Value, Any], bool]:
    def compare(self: Value, other: Any) -> bool:
        theirs = _tracked(other) if isinstance(other, Value) else other
        return bool(getattr(operator, name.strip("_"))(_tracked(self), theirs))

    return compare


def _init(self: Value, data: Any, label: str = "") -> None:
    if _here():  # a fresh leaf, before its slots are written
        _SEEN[-1].made.append(self)
        _SEEN[-1].made_ids.add(id(self))
    _ORIGINAL["__init__"](self, data, label)


def _backward(self: Value, grad: Any = 1.0) -> None:
    """The function's own ``backward``, recorded (the compiled code runs it again), then run."""
    seen = _SEEN[-1] if _here() else None
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
        seen = _SEEN[-1] if _here() else None
        if seen is None or seen.inside:  # another thread, or called by a recorded call
            return original(self, *args, **kwargs)
        if any(isinstance(a, Tracked) for a in (*args, *kwargs.values())):
            _refused()
        bound = functools.partial(original, self, *args, **kwargs)
        seen.effects.append((bound, f"{type(self).__name__}.{method[1]}()", method))
        seen.inside += 1
        try:
            return original(self, *args, **kwargs)
        finally:
            seen.inside -= 1

    return call


_WATCHING: dict[str, Any] = {
    "data": property(_read, _write),
    "grad": property(_GRAD_GET, _write_grad),
    "backward": _backward,
    "item": _tracked,
    "__float__": lambda self: _refused() if _here() else _SLOT_GET(self, Value),
    "__init__": _init,
    **{
        f"__{name}__": _value_comparison(symbol, f"__{name}__")
        for name, symbol in [("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">=")]
    },
}
_ORIGINAL: dict[str, Any] = {name: Value.__dict__[name] for name in _WATCHING}


@contextmanager
def watching(effects: Sequence[tuple[type, str]] = ()) -> Iterator[Watched]:
    """Watch what code does with Values' numbers for the duration, and record its calls of the
    methods ``effects`` names (class, method): see the module's doc."""
    patched: list[tuple[type, str, Any, Any]] = [
        (Value, name, _ORIGINAL[name], new) for name, new in _WATCHING.items()
    ]
    for cls, name in effects:
        method = cls.__dict__[name]
        patched.append((cls, name, method, recorded(method, (cls, name))))
    with _LOCK:
        seen = Watched()
        _SEEN.append(seen)
        for cls, name, _, new in patched:
            setattr(cls, name, new)
        try:
            yield seen
        finally:
            for cls, name, original, _ in patched:
                setattr(cls, name, original)
            _SEEN.pop()
