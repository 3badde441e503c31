"""Tracing a function once: the graph it builds, the Values it reads, and what it depends on
(the structure of its arguments, ``keys.key_of``; the branches Python took on Values' numbers,
``scalar/watch.py``).

>>> import topograd as tg
>>> from topograd.compiler.keys import key_of
>>> x, w = tg.Value(1.0), tg.Value(3.0)
>>> trace = Trace(lambda x: x * w, (x,), {}, key_of(((x,), {})))
>>> trace.arguments == [x], trace.captured == [w]
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..autograd.engine import topological_order
from ..scalar.kind import SCALAR
from ..scalar.tracked import TraceError, Tracked
from ..scalar.value import Value, is_constant
from ..scalar.watch import Watched, watching
from .keys import EFFECTS, Key
from .outside import Outside


class Trace:
    """One run of the function on Values, watched: its output, the nodes to compute (forward
    order), the inputs (the arguments' Values, then Values the function reached otherwise,
    such as a model's parameters in a closure), the guards, the leaves it made, and what it
    read outside its arguments (``outside``, noted before it runs)."""

    def __init__(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        structure: tuple[Key, list[Value]],
    ) -> None:
        key, values = structure  # key_of((args, kwargs)), as the call read it
        self.key = key
        self.outside = Outside(fn, key)
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
        self.outside.verify(reached)

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
