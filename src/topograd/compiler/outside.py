"""What a trace read outside its arguments, checked again on every call: ``Outside``.

Before a trace, ``Outside`` finds where the function reads state other than its arguments
(``reads.py``: the closure variables and globals its code names, and the attribute and item
reads with constant names and keys from them, in its own code and in the code of the user's
functions and classes it reaches) and notes what each read gives, as a ``Guard``: a Value by
identity; a number, a string or a flag by value; a list, tuple, dict or set by its length and
items, a module or an object of a class of the user's by its attributes (``keys.key_of``); a
function, a class, an optimizer or an object of a library by identity. A read that ends at a
Value stops there (its number is the code's input, read on every call), and so does one that
would run the user's code (a property of their class).

A call replays a trace only where every guard still holds (``holds``); after the trace,
``verify`` refuses what would make a replay wrong: a function that draws from an iterator (its
next item is another one, the same object), that changes what it reads (the code would not
change it again), and a Value of the graph that no guard finds again (reached some other way:
the code could not tell whether it is the same one on the next call).

>>> import topograd as tg
>>> k = 2.0
>>> outside = Outside(lambda x: x * k)
>>> [str(guard) for guard in outside.guards], outside.holds()
(['k (2.0 when traced)'], True)
>>> k = 3.0
>>> outside.holds()
False
"""

from __future__ import annotations

import functools
import marshal
import numbers
import types
from collections.abc import Callable, Iterator
from typing import Any

from ..scalar.tracked import TraceError
from ..scalar.value import Value
from .keys import CONTAINERS, METHODS, PLAIN, UNBOUND, Identity, Key, key_of
from .reads import Source, Unread, functions_of, is_users_class, sources_of

MAX_FUNCTIONS = 256  # the user's functions read per trace, at most (their code, once each)
DATA = frozenset({*PLAIN, bytes, *CONTAINERS})  # what marshal writes exactly: plain data


class Guard:
    """One read outside the arguments and what it gave when the trace was made."""

    __slots__ = ("held", "key", "source", "values", "way")

    def __init__(self, source: Source) -> None:
        self.source = source
        self.held = value = source.read()
        self.key: Any = None
        self.values: list[Value] = []
        if isinstance(value, Value):
            self.way = "same"
        elif type(value) in PLAIN or isinstance(value, (numbers.Number, str, bytes, Unread)):
            self.way, self.key = "number", repr(value)
        elif isinstance(value, METHODS) and not isinstance(value.__self__, UNBOUND):
            self.way = "method"  # its object is a guard of its own (``Outside._add``)
        else:
            self.way, self.key, self.values = _way(value)

    def holds(self, memo: dict[int, Any]) -> bool:
        """Whether the read gives now what it gave when the trace was made. ``memo``: the
        objects walked during this check, so that one reached twice is walked once."""
        x = self.source.read()
        way, held = self.way, self.held
        if x is held and way != "walked" and way != "packed":  # an object, or the same number
            return True
        if way == "number":
            return type(x) is type(held) and repr(x) == self.key
        if way == "packed":
            try:
                return marshal.dumps(x, 2) == self.key  # type: ignore[no-any-return]
            except ValueError:  # no longer plain data
                return False
        if way == "method":
            return type(x) is type(held) and x.__self__ is held.__self__ and _same_function(x, held)
        if way == "walked":
            found = memo.get(id(x))
            if found is None:  # x is kept in memo: no other object takes its id meanwhile
                found = memo[id(x)] = (x, *key_of(x, leaves=False))
            _, key, values = found
            return (
                key == self.key
                and len(values) == len(self.values)
                and all(a is b for a, b in zip(values, self.values))
            )
        return False  # "same": another object

    def met(self) -> list[Any]:
        """The objects this read led to, whose classes and functions may read more."""
        if self.way != "walked":
            return [] if self.way in ("number", "packed") else [self.held]
        return objects_in(self.key)

    def what(self) -> str:
        """What the read reaches, as the user's code names it (``kept``, not the
        ``kept.append.__self__`` a method's object is read as)."""
        steps = self.source.steps
        if steps and steps[-1] == SELF:
            steps = steps[:-2]
        return str(Source(self.source.where, self.source.root, self.source.name, steps))

    def __str__(self) -> str:
        if self.way == "number":
            return f"{self.what()} ({self.key} when traced)"
        what = {"same": "the same object", "method": "the same method"}.get(self.way)
        return f"{self.what()} ({what or 'the same contents'} as when traced)"


def objects_in(key: Key) -> list[Any]:
    """The objects a key holds by identity, and the classes of those it holds by attributes."""
    found = []
    for token in key:
        if isinstance(token, tuple) and isinstance(token[1], Identity):
            found.append(token[1].held)
        elif isinstance(token, tuple) and isinstance(token[0], type):
            found.append(token[0])  # an object's class (functions_of keeps the user's)
    return found


SELF = (True, "__self__")  # the step from a bound method to its object


def _way(value: Any) -> tuple[str, Any, list[Value]]:
    """How a read that gave ``value`` (not a number, nor a method) is compared again: its
    way, its key and its Values."""
    key, values = key_of(value, leaves=False)
    if key == (("object", Identity(value)),):
        return "same", None, []
    if all(isinstance(t, tuple) and t[0] in DATA and (len(t) == 2 or t[1] is None) for t in key):
        try:
            return "packed", marshal.dumps(value, 2), []  # plain data: compared at C's speed
        except ValueError:
            pass
    return "walked", key, values


def _same_function(a: Any, b: Any) -> bool:
    function = getattr(b, "__func__", None)
    return a.__func__ is function if function is not None else a.__name__ == b.__name__


class Outside:
    """The reads of ``fn`` outside its arguments, each a ``Guard`` (see the module's doc);
    ``arguments``: the key of the call's arguments, whose functions' reads count too."""

    def __init__(self, fn: Callable[..., Any], arguments: Key = ()) -> None:
        self.guards: list[Guard] = []
        self._where: set[tuple[int, str, tuple[Any, ...]]] = set()
        function = getattr(fn, "__func__", fn)  # its own code is read, wherever it is from
        pending = [function] if isinstance(function, types.FunctionType) else []
        pending += functions_of(fn)  # and the user's functions it and its arguments lead to
        pending += [f for x in objects_in(arguments) for f in functions_of(x)]
        if isinstance(fn, functools.partial):  # its function and the arguments it adds
            for part in ("func", "args", "keywords"):
                self._add(Source("held", fn, "partial", ((True, part),)), pending)
        elif not isinstance(fn, types.FunctionType):  # a bound method, a module: its object
            itself = getattr(fn, "__self__", fn)
            self._add(Source("held", itself, type(itself).__name__, ()), pending)
        done: set[int] = set()
        kept: list[Any] = []  # the functions read, held so that no id is reused meanwhile
        while pending and len(kept) < MAX_FUNCTIONS:
            function = pending.pop()
            if id(function) in done:
                continue
            done.add(id(function))
            kept.append(function)
            for source in sources_of(function):
                self._add(source, pending)

    def _add(self, source: Source, pending: list[Any]) -> None:
        """A guard for ``source`` (once), and the user's functions it leads to for later; a
        method's object is read as a guard of its own."""
        while True:
            source = _settled(source)
            where = (id(source.root), source.name, source.steps)
            if where in self._where:
                return
            guard = Guard(source)
            if guard.way != "same" or not source.steps or source.read() is guard.held:
                break
            # a fresh object on every read (a library's computed attribute): its owner instead
            source = Source(source.where, source.root, source.name, source.steps[:-1])
        self._where.add(where)
        self.guards.append(guard)
        for x in guard.met():
            pending.extend(functions_of(x))
        if guard.way == "method":
            self._add(
                Source(source.where, source.root, source.name, (*source.steps, SELF)), pending
            )

    def holds(self) -> bool:
        """Whether every read gives what it gave when the trace was made."""
        memo: dict[int, Any] = {}
        return all(guard.holds(memo) for guard in self.guards)

    def changed(self) -> Guard | None:
        """The first read that gives something else now, if any."""
        memo: dict[int, Any] = {}
        return next((guard for guard in self.guards if not guard.holds(memo)), None)

    def verify(self, captured: list[Value]) -> None:
        """After the trace: refuse a function that changed what it reads, and a Value of the
        graph (not an argument's) that no guard finds again."""
        drawn = next((g for g in self.guards if isinstance(g.held, Iterator)), None)
        if drawn is not None:
            raise TraceError(
                f"tg.compile: the function reads the iterator {drawn.what()} from outside its "
                "arguments (a generator, an iterator, a file): its next item is another one on "
                "every call, where the compiled code would keep this call's. Draw from it "
                "outside the compiled function and pass what it gives as an argument"
            )
        changed = self.changed()
        if changed is not None:
            raise TraceError(
                f"tg.compile: the function changes {changed.what()}, which it reads from "
                "outside its arguments; the compiled code would not change it again. Change it "
                "outside the compiled function (return what it should record)"
            )
        found = {id(g.held) for g in self.guards if g.way == "same"}
        found |= {id(v) for g in self.guards for v in g.values}
        lost = [v for v in captured if id(v) not in found]
        if lost:
            raise TraceError(
                f"tg.compile: the function reads a Value ({lost[0]!r}) that it reaches neither "
                "through its arguments nor through a closure variable or global of its code "
                "(a list, dict or object of the user's held there): its compiled code could "
                "not tell whether a later call reads the same one. Pass it as an argument, or "
                "keep it in a closure variable or global"
            )


def _settled(source: Source) -> Source:
    """``source`` up to where its reads should stop: at a Value (its number is an input), and
    before an attribute that would run the user's code (a property of their class)."""
    x = Source(source.where, source.root, source.name, ()).read()
    for k, (attribute, step) in enumerate(source.steps):
        if isinstance(x, Value) or (attribute and _runs_users_code(x, step)):
            return Source(source.where, source.root, source.name, source.steps[:k])
        try:
            x = getattr(x, step) if attribute else x[step]
        except Exception:
            return Source(source.where, source.root, source.name, source.steps[: k + 1])
    return source


def _runs_users_code(x: Any, name: str) -> bool:
    """Whether reading ``x.name`` runs a descriptor or ``__getattr__`` of the user's."""
    for cls in type(x).__mro__:
        if not is_users_class(cls):
            continue
        found = cls.__dict__.get(name)
        plain = (types.FunctionType, staticmethod, classmethod)  # a method: no code of theirs
        if hasattr(type(found), "__get__") and not isinstance(found, plain):
            return True
        if "__getattr__" in cls.__dict__ or "__getattribute__" in cls.__dict__:
            return True
    return False
