"""Tracing a function once: the graph it builds, the Values it reads, and what it depends on.

``key_of`` reads the arguments as the structure a trace depends on: numbers (NumPy's too) and
strings by value, containers by their contents, Values by position (each a leaf: one made by
ops before the call is refused), a module (anything with ``parameters()``) by identity and by
its attributes (its parameters, and its configuration: ``nonlin``, ``training``), any other
object by identity, held so that its id is not reused. Two calls with equal keys build the
same graph, up to the numbers in Values and the branches Python takes on them; those are the
guards ``watching`` records (``scalar/watch.py``).

>>> import topograd as tg
>>> x = tg.Value(1.0)
>>> key, values = key_of([x, 2.0, "sgd"])
>>> key[1:], values == [x]
((0, (<class 'float'>, '2.0'), (<class 'str'>, "'sgd'")), True)
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

from ..autograd.engine import topological_order
from ..nn.module import Module
from ..optim.optimizer import Optimizer
from ..optim.schedulers import LRScheduler
from ..optim.schedules import LinearDecay
from ..scalar.kind import SCALAR
from ..scalar.tracked import TraceError, Tracked
from ..scalar.value import Value, is_constant
from ..scalar.watch import Watched, watching

# The methods that change Values which a trace records, for the compiled code to call again;
# True for those that move the parameters (the forward pass must come before them).
EFFECTS = {
    (Optimizer, "zero_grad"): False,
    (Optimizer, "step"): True,
    (Module, "zero_grad"): False,
    (LRScheduler, "step"): False,
    (LinearDecay, "step"): False,
}

Key = tuple[Any, ...]


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


PLAIN = frozenset({float, int, bool, str, type(None)})  # by value, at once


def key_of(args: Any) -> tuple[Key, list[Value]]:
    """The structure of ``args`` (see the module's doc) and the Values in it, in order: each
    Value once, those a module holds included. One flat tuple, in pre-order, a container
    written as its type and length (a module as its type, its identity and its number of
    attributes) before its items: a Value is its position (an int), a number a (type, repr)
    pair. No recursion: an explicit stack."""
    values: list[Value] = []
    seen: dict[int, int] = {}
    entered: set[int] = set()  # modules and containers on the way (a cycle is not followed)
    tokens: list[Any] = []
    stack: list[Any] = [args]
    while stack:
        x = stack.pop()
        kind = type(x)
        if kind is Value or isinstance(x, Value):
            tokens.append(_position(x, values, seen))
        elif kind in PLAIN or isinstance(x, (numbers.Number, str, bytes)):
            tokens.append((kind, repr(x)))  # repr: nan equals nan, -0.0 is not 0.0
        elif id(x) in entered:
            tokens.append(("again", Identity(x)))
        elif kind is list or kind is tuple or kind is dict or _is_module(x):
            entered.add(id(x))
            module = kind not in (list, tuple, dict)  # by identity; its attributes: its settings
            held = vars(x) if module else x  # a dict's keys and values, one after the other
            items = [z for pair in held.items() for z in pair] if type(held) is dict else held
            tokens.append((kind, Identity(x) if module else None, len(items)))
            stack.extend(reversed(items))
        else:
            tokens.append(("object", Identity(x)))
    return tuple(tokens), values


def _is_module(x: object) -> bool:
    return callable(getattr(x, "parameters", None)) and hasattr(x, "__dict__")


def _position(x: Value, values: list[Value], seen: dict[int, int]) -> int:
    """Where the Value ``x`` is among the inputs (added the first time); a Value made by ops
    before the call is refused: the compiled code would stop at it, where backward goes on
    into what made it."""
    place = seen.get(id(x))
    if place is None:
        if SCALAR.inputs(x):
            raise TraceError(
                f"tg.compile takes leaves as its inputs; this one was made by {x.op!r} before "
                "the call, so backward would go on into what made it: pass the leaves, or "
                "compile the function that makes it"
            )
        place = seen[id(x)] = len(values)
        values.append(x)
    return place


class Trace:
    """One run of the function on Values, watched: its output, the nodes to compute (forward
    order), the inputs (the arguments' Values, then Values the function reached otherwise,
    such as a model's parameters in a closure), the guards, and the leaves it made."""

    def __init__(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        structure: tuple[Key, list[Value]],
    ) -> None:
        key, values = structure  # key_of((args, kwargs)), as the call read it
        self.key = key
        with watching(EFFECTS) as seen:
            returned = fn(*args, **kwargs)
        self.seen: Watched = seen
        out, self.seed, self.before = _output(returned, seen)
        # what the compiled function returns: the output's number, or None as fn did
        self.returns_number = returned is not None
        self.output = out
        self.made = {id(v) for v in seen.made}
        self.backward_order = topological_order([out], SCALAR.inputs)
        self.order = topological_order([out, *seen.nodes], SCALAR.inputs)
        listed = {id(v) for v in values}
        reached = [
            n
            for n in self.order
            if not SCALAR.inputs(n) and self.wants_grad(n) and id(n) not in listed
        ]
        self.arguments = values  # read from the call's arguments on every call
        self.captured = reached  # reached otherwise: the same Values on every call

    @property
    def ran_backward(self) -> bool:
        """Whether the function called backward() itself: its trace did the whole step."""
        return self.seen.backward is not None

    def is_number(self, x: Any) -> bool:
        """A number of the trace, written into the code as it is: a plain number, a constant
        Value, or a leaf the function made."""
        return not isinstance(x, Value) or is_constant(x) or id(x) in self.made

    def wants_grad(self, node: Value) -> bool:
        """A leaf that is an input of the compiled function: not one of its numbers."""
        return not self.is_number(node)


def _output(returned: Any, seen: Watched) -> tuple[Value, float, int]:
    """The node the backward pass starts from, its seed, and how many of the recorded calls
    come before it: the function's own backward() where it calls one (then it returns that
    node, its number, or nothing), else the Value it returns (then it calls nothing that
    changes Values: a whole training step calls backward() itself)."""
    if seen.backward is not None:
        node, seed, before = seen.backward
        read = seen.index.get(id(node))  # its number read as {read}: loss.data
        same = returned is node or (
            isinstance(returned, Tracked) and returned.expression == f"{{{read}}}"
        )
        if returned is not None and not same:
            raise TraceError(
                "tg.compile: a function that calls backward() returns the Value it called it "
                f"on, its .data or .item(), or nothing; got {type(returned).__name__}"
            )
        return node, seed, before
    if not isinstance(returned, Value):
        raise TypeError(
            f"tg.compile takes a function that returns a Value, got {type(returned).__name__}"
        )
    if seen.effects:
        raise TraceError(
            f"tg.compile: the function calls {seen.effects[0][1]} but not backward(): a whole "
            "training step calls loss.backward() itself (zero_grad() and step() then run "
            "around it on every call), or leave them outside the compiled function"
        )
    return returned, 1.0, 0
