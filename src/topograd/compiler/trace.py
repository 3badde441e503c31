"""Tracing a function once: the graph it builds, the Values it reads, and what it depends on.

``key_of`` reads the arguments as the structure a trace depends on: numbers, strings and
containers by value, Values by position, a module (anything with ``parameters()``) by identity
and the identity of its parameters, any other object by identity. Two calls with equal keys
build the same graph, up to the numbers in Values and the branches Python takes on them; those
are the guards ``watching`` records (``scalar/watch.py``).

>>> import topograd as tg
>>> x = tg.Value(1.0)
>>> key, values = key_of([x, 2.0, "sgd"])
>>> key, values == [x]
((('list', (('Value', 0), ('float', '2.0'), ('str', "'sgd'"))),), True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..autograd.engine import topological_order
from ..nn.module import Module
from ..optim.optimizer import Optimizer
from ..optim.schedulers import LRScheduler
from ..optim.schedules import LinearDecay
from ..scalar.kind import SCALAR
from ..scalar.value import Value, is_constant
from ..scalar.watch import TraceError, Tracked, Watched, watching

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


def key_of(args: Any) -> tuple[Key, list[Value]]:
    """The structure of ``args`` (see the module's doc) and the Values in it, in order: each
    Value once, the parameters of modules included. No recursion: an explicit stack."""
    values: list[Value] = []
    seen: dict[int, int] = {}
    parts: list[Any] = []
    stack: list[tuple[Any, list[Any]]] = [(args, parts)]
    while stack:
        x, into = stack.pop()
        if isinstance(x, Value):
            if id(x) not in seen:
                seen[id(x)] = len(values)
                values.append(x)
            into.append(("Value", seen[id(x)]))
        elif type(x) in (int, float, bool, str) or x is None:
            into.append((type(x).__name__, repr(x)))  # repr: nan equals nan, -0.0 is not 0.0
        elif isinstance(x, (list, tuple, dict)):
            items = list(x.items()) if isinstance(x, dict) else list(x)
            inner: list[Any] = []
            into.append((type(x).__name__, inner))
            stack.extend((item, inner) for item in reversed(items))
        elif callable(getattr(x, "parameters", None)):
            params = [p for p in x.parameters() if isinstance(p, Value)]
            for p in params:
                if id(p) not in seen:
                    seen[id(p)] = len(values)
                    values.append(p)
            into.append(("module", id(x), tuple(seen[id(p)] for p in params)))
        else:
            into.append(("object", id(x)))
    return _frozen(parts), values


def _frozen(parts: list[Any]) -> Key:
    """The nested lists of ``key_of`` as nested tuples (hashable), without recursion."""
    done: dict[int, tuple[Any, ...]] = {}
    stack: list[tuple[list[Any], bool]] = [(parts, False)]
    while stack:
        items, ready = stack.pop()
        if ready:
            done[id(items)] = tuple(
                (p[0], done[id(p[1])]) if isinstance(p[1], list) else p for p in items
            )
            continue
        stack.append((items, True))
        stack.extend((p[1], False) for p in items if isinstance(p[1], list))
    return done[id(parts)]


class Trace:
    """One run of the function on Values, watched: its output, the nodes to compute (forward
    order), the inputs (the arguments' Values, then Values the function reached otherwise,
    such as a model's parameters in a closure), the guards, and the leaves it made."""

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]):
        key, values = key_of((args, kwargs))
        self.key = key
        with watching(list(EFFECTS)) as seen:
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

    def wants_grad(self, node: Value) -> bool:
        """A leaf that is an input of the compiled function: not a constant, nor made by it."""
        return not is_constant(node) and id(node) not in self.made


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
        moved = [name for _, name, method in seen.effects[:before] if EFFECTS[method]]
        if moved:
            raise TraceError(
                f"tg.compile: the function calls {moved[0]} before backward(): the compiled "
                "code computes the forward pass first; call it after backward()"
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
