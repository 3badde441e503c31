"""The structure a trace depends on, read from a call's arguments or from the state the function
reads outside them: ``key_of``.

Numbers (NumPy's too), strings and bytes by value; lists, tuples, dicts and sets (their
subclasses too) by their contents; NumPy arrays by dtype, shape and bytes; Values by position
(their identity: each call's Values are the code's inputs); a module (anything with
``parameters()``) by identity and attributes (its parameters, and its configuration:
``nonlin``, ``training``); an object of a class of the user's (``reads.is_users_class``) by its
attributes; a bound method by its function and the object it is bound to; anything else (a
function, a class, an optimizer, an object of a library) by identity, held so that its id is
not reused. Two calls with equal keys build the same graph, up to the numbers in Values and the
branches Python takes on them; those are the guards ``watching`` records
(``scalar/watch.py``).

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
        elif kind in PLAIN or isinstance(x, (numbers.Number, str, bytes)):
            tokens.append((kind, repr(x)))  # repr: nan equals nan, -0.0 is not 0.0
        elif id(x) in entered:
            tokens.append(("again", Identity(x)))
        elif kind is list or kind is tuple or kind is dict or isinstance(x, CONTAINERS):
            entered.add(id(x))
            items = [z for pair in x.items() for z in pair] if isinstance(x, dict) else list(x)
            tokens.append((kind, None, len(items)))
            stack.extend(reversed(items))
        elif isinstance(x, METHODS) and not isinstance(x.__self__, (types.ModuleType, type(None))):
            function = getattr(x, "__func__", None)
            tokens.append((kind, Identity(function) if function else x.__name__))
            stack.append(x.__self__)
        elif _is_array(x):
            tokens.append((kind, x.dtype.str, x.shape, x.tobytes()))
        else:
            held = attributes(x)
            if held is None:
                tokens.append(("object", Identity(x)))
                continue
            entered.add(id(x))
            items = [z for pair in held for z in pair]
            module = _is_module(x)  # by identity too; its attributes: its settings
            tokens.append((kind, Identity(x) if module else None, len(items)))
            stack.extend(reversed(items))
    return tuple(tokens), values


def attributes(x: Any) -> list[tuple[str, Any]] | None:
    """The attributes that stand for ``x`` in a key, a module's or an object's of a class of
    the user's: None for anything compared by identity."""
    kind = type(x)
    if isinstance(x, (types.FunctionType, types.ModuleType, type, LIVE)):
        return None
    if not _is_module(x) and not is_users_class(kind) and kind is not types.SimpleNamespace:
        return None
    found = list(vars(x).items()) if hasattr(x, "__dict__") else []
    for cls in kind.__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in [slots] if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__"):
                found.append((name, getattr(x, name, _UNSET)))
    return found


class _Unset:
    def __repr__(self) -> str:
        return "<unset>"


_UNSET = _Unset()  # a slot not written: compared by identity, as one object


def _is_array(x: object) -> bool:
    numpy = sys.modules.get("numpy")  # not imported here: no array without it
    return numpy is not None and isinstance(x, numpy.ndarray)


def _is_module(x: object) -> bool:
    return callable(getattr(x, "parameters", None)) and hasattr(x, "__dict__")


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
