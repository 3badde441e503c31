"""The structure a trace depends on, read from a call's arguments or from the state the function
reads outside them: ``key_of``.

Numbers (NumPy's too), strings and bytes by value; lists, tuples, dicts and sets (their
subclasses too) by their contents; NumPy arrays by dtype, shape and bytes; Values by position
(their identity: each call's Values are the code's inputs); a module (anything with
``parameters()``) by identity and attributes (its parameters, and its configuration:
``nonlin``, ``training``); an object of a class of the user's (``reads.is_users_class``) by its
attributes and by its class (a class of the user's by identity and attributes); a bound
method by its function and the object it is bound to; anything else (a function, a class of a
library, an optimizer, an object of a library) by identity, held so that its id is not reused.
Two calls with equal keys build the same graph, up to the numbers in Values and the branches
Python takes on them; those are the guards ``watching`` records (``scalar/watch.py``).

>>> import topograd as tg
>>> x = tg.Value(1.0)
>>> key, values = key_of([x, 2.0, "sgd"])
>>> key[1:], values == [x]
((0, (<class 'float'>, '2.0'), (<class 'str'>, "'sgd'")), True)
"""

from __future__ import annotations

import numbers
import sys
import types
from typing import Any

from ..nn.module import Module
from ..optim.optimizer import Optimizer
from ..optim.schedulers import LRScheduler
from ..optim.schedules import LinearDecay
from ..scalar.kind import SCALAR
from ..scalar.tracked import TraceError
from ..scalar.value import Value
from .reads import is_users_class

Key = tuple[Any, ...]

PLAIN = frozenset({float, int, bool, str, type(None)})  # by value, at once
CONTAINERS = (list, tuple, dict, set, frozenset)
METHODS = (types.MethodType, types.BuiltinMethodType, types.MethodWrapperType)
# The methods that change Values which a trace records, for the compiled code to call again;
# True for those that move the parameters (the forward pass must come before them).
EFFECTS = {
    (Optimizer, "zero_grad"): False,
    (Optimizer, "step"): True,
    (Module, "zero_grad"): False,
    (LRScheduler, "step"): False,
    (LinearDecay, "step"): False,
}
# objects whose state the calls made again read when they run (an optimizer's learning rate):
# by identity, their state is not the trace's (a module is by its attributes)
LIVE = tuple({cls for cls, _ in EFFECTS if cls is not Module})


class Identity:
    """An object in a key by its identity, held, so that no other object takes its id while
    the trace is kept (a fresh object with a reused id would otherwise replay a stale trace)."""

    __slots__ = ("held",)

    def __init__(self, held: object) -> None:
        self.held = held

    def __hash__(self) -> int:
        return id(self.held)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Identity) and other.held is self.held


def key_of(args: Any, leaves: bool = True) -> tuple[Key, list[Value]]:
    """The structure of ``args`` (see the module's doc) and the Values in it, in order: each
    Value once, those a module holds included. One flat tuple, in pre-order, a container
    written as its type and length (a module as its type, its identity and its number of
    attributes) before its items: a Value is its position (an int), a number a (type, repr)
    pair. No recursion: an explicit stack. ``leaves``: refuse a Value made by ops (an
    argument: the code would stop at it)."""
    values: list[Value] = []
    seen: dict[int, int] = {}
    entered: set[int] = set()  # modules and containers on the way (a cycle is not followed)
    tokens: list[Any] = []
    stack: list[Any] = [args]
    while stack:
        x = stack.pop()
        kind = type(x)
        if kind is Value or isinstance(x, Value):
            tokens.append(_position(x, values, seen, leaves))
            continue
        if kind in PLAIN or isinstance(x, (numbers.Number, str, bytes)):
            tokens.append((kind, repr(x)))  # repr: nan equals nan, -0.0 is not 0.0
            continue
        if id(x) in entered:
            tokens.append(("again", Identity(x)))
            continue
        way, slots = (CONTAINER, ()) if kind in EXACT else _way_of(kind)
        if way == CLASS and not is_users_class(x):
            way = IDENTITY
        if way == IDENTITY or (way == METHOD and isinstance(x.__self__, UNBOUND)):
            tokens.append(("object", Identity(x)))
        elif way == METHOD:  # its function, and the object it is bound to
            function = getattr(x, "__func__", None)
            tokens.append((kind, Identity(function) if function else x.__name__))
            stack.append(x.__self__)
        elif way == ARRAY:
            tokens.append((kind, x.dtype.str, x.shape, x.tobytes()))
        else:
            entered.add(id(x))
            if way == CONTAINER:
                items = [z for p in x.items() for z in p] if isinstance(x, dict) else list(x)
            elif way == CLASS:  # its attributes and its own bases' (self.k, k the class's)
                held = [pair for c in x.__mro__ if is_users_class(c) for pair in vars(c).items()]
                items = [z for pair in held for z in pair]
            else:  # a module (by identity too; its attributes: its settings), an object
                held = [*getattr(x, "__dict__", {}).items()]
                held += [(name, getattr(x, name, _UNSET)) for name in slots]
                items = [z for pair in held for z in pair]
                if is_users_class(kind):
                    items.append(kind)  # its class: an attribute read through the object
            named = way == MODULE or way == CLASS  # by identity too
            tokens.append((kind, Identity(x) if named else None, len(items)))
            stack.extend(reversed(items))
    return tuple(tokens), values


# How the objects of a class are keyed, decided once per class (with the names of its slots).
CONTAINER, METHOD, ARRAY, IDENTITY, MODULE, OBJECT, CLASS = range(7)
EXACT = frozenset({list, tuple, dict})
UNBOUND = (types.ModuleType, type(None))  # a builtin function's __self__: not an object's
_WAYS: dict[type, tuple[int, tuple[str, ...]]] = {}


def _way_of(kind: type) -> tuple[int, tuple[str, ...]]:
    found = _WAYS.get(kind)
    if found is None:
        found = _WAYS[kind] = _decide(kind)
    return found


def _decide(kind: type) -> tuple[int, tuple[str, ...]]:
    numpy = sys.modules.get("numpy")  # not imported here: no array without it
    if issubclass(kind, CONTAINERS):
        return CONTAINER, ()
    if issubclass(kind, METHODS):
        return METHOD, ()
    if numpy is not None and issubclass(kind, numpy.ndarray):
        return ARRAY, ()
    if issubclass(kind, type):  # a class: the user's by its attributes (per class)
        return CLASS, ()
    if issubclass(kind, (types.FunctionType, types.ModuleType, *LIVE)):
        return IDENTITY, ()
    module = callable(getattr(kind, "parameters", None))  # tg.nn's, or one like it
    if not (module or is_users_class(kind) or kind is types.SimpleNamespace):
        return IDENTITY, ()
    slots = [[s] if isinstance(s, str) else list(s) for s in _all_slots(kind)]
    names = tuple(n for group in slots for n in group if n not in ("__dict__", "__weakref__"))
    return (MODULE if module else OBJECT), names


def _all_slots(kind: type) -> list[Any]:
    return [cls.__dict__["__slots__"] for cls in kind.__mro__ if "__slots__" in cls.__dict__]


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


_UNSET = _Unset()  # a slot not written: compared by identity, as one object


def _position(x: Value, values: list[Value], seen: dict[int, int], leaves: bool) -> int:
    """Where the Value ``x`` is among the inputs (added the first time); a Value made by ops
    before the call is refused where ``leaves``: the compiled code would stop at it, where
    backward goes on into what made it."""
    place = seen.get(id(x))
    if place is None:
        if leaves and SCALAR.inputs(x):
            raise TraceError(
                f"tg.compile takes leaves as its inputs; this one was made by {x.op!r} before "
                "the call, so backward would go on into what made it: pass the leaves, or "
                "compile the function that makes it"
            )
        place = seen[id(x)] = len(values)
        values.append(x)
    return place
