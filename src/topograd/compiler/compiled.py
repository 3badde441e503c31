"""``tg.compile``: trace a function of Values once, replay its generated code after.

How a stale graph is never run: each call first reads its arguments' structure (``key_of``:
numbers, containers and objects exactly; Values by position; a module by its parameters). A
call with a structure never traced is traced. A call with a known one checks what that trace
read outside the arguments (``outside.py``: closure variables, globals, and the attributes and
items reached through them, noted before the trace ran), then runs the trace's code, which
checks its guards (every comparison Python made on the Values' numbers during the trace)
after the forward pass and, where one no longer holds, stops before writing anything: the
function is traced again (or, with ``retrace=False``, a ``GuardError`` says what changed). A
number read from a Value that would otherwise be baked into the code as a constant (as a
float, or as text) stops the trace with a ``TraceError`` (``scalar/watch.py``).

What is not seen: random numbers drawn inside the function are taken as they were when it
was traced, as ``jax.jit`` takes them; a function that changes the state it reads outside its
arguments is refused (``outside.py``).

>>> import topograd as tg
>>> def f(x, y):
...     return (x * y + 1.0).tanh()
>>> fast = tg.compile(f)
>>> x, y = tg.Value(0.5, label="x"), tg.Value(-2.0, label="y")
>>> fast(x, y) == f(x, y).data
True
>>> x.grad, y.grad  # tanh'(0) = 1: y and x
(-2.0, 0.5)
"""

from __future__ import annotations

import builtins
import functools
import warnings
from collections.abc import Callable
from typing import Any

from ..scalar.tracked import TraceError
from ..scalar.watch import refuse_nested
from .keys import Key, key_of
from .source import RETRACE, Source
from .trace import Trace

KEPT = 8  # traces kept per argument structure (the newest first)
WARN_AFTER = 8  # traces of one function before a warning that it keeps tracing


class GuardError(RuntimeError):
    """A compiled function with ``retrace=False`` was called where its trace does not hold."""


class Compiled:
    """A function of Values compiled to Python: call it as the function; ``source`` is the
    code of the newest trace; ``traces`` counts the traces made so far; ``inputs`` are the
    Values of the last call, in the order of ``grads=True``'s gradients."""

    def __init__(self, fn: Callable[..., Any], grads: bool, retrace: bool) -> None:
        self.fn = fn
        self.grads = grads
        self.retrace = retrace
        self.traces = 0
        self.source = ""
        # the Values of the last call, in the order of grads=True's gradients: the arguments'
        # (as key_of finds them), then those the function reached otherwise
        self.inputs: list[Any] = []
        self._kept: dict[Key, list[tuple[Source, Callable[..., Any]]]] = {}
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        refuse_nested()  # its code would run unseen by an outer trace
        key, values = key_of((args, kwargs))
        kept = self._kept.get(key)
        if kept:
            for made, run in kept:
                if not made.trace.outside.holds():
                    continue
                result = run(values)
                if result is not RETRACE:
                    self.inputs = [*values, *made.trace.captured]
                    return result
            if not self.retrace:
                raise GuardError(self._which_guard(kept[0][0]))
        made, run = self._trace(args, kwargs, (key, values))
        self._kept.setdefault(made.trace.key, []).insert(0, (made, run))
        del self._kept[made.trace.key][KEPT:]
        trace = made.trace
        self.inputs = [*values, *trace.captured]
        if trace.ran_backward:  # the trace itself was the whole step, backward and all
            return trace.output.data if trace.returns_number else None
        result = run(values)
        assert result is not RETRACE  # a trace holds for the numbers it was made on
        return result

    def _trace(
        self, args: tuple[Any, ...], kwargs: dict[str, Any], structure: tuple[Key, list[Any]]
    ) -> tuple[Source, Any]:
        trace = Trace(self.fn, args, kwargs, structure)
        if self.grads and trace.ran_backward:
            raise TraceError(
                "tg.compile(grads=True) returns the gradients: the function returns its "
                "output and calls no backward() (the compiled code runs it)"
            )
        wanted = getattr(self.fn, "__name__", "")
        made = Source(trace, wanted if isinstance(wanted, str) else "", self.grads)
        name = made.name  # the function's own where it is a plain name the code does not use
        code = builtins.compile(made.text, f"<tg.compile {name} #{self.traces}>", "exec")
        namespace = dict(made.namespace)
        exec(code, namespace)  # code made here, from the registry: no text of the user
        self.traces += 1
        self.source = made.text
        if self.traces == WARN_AFTER + 1:
            warnings.warn(
                f"tg.compile traced {getattr(self.fn, '__qualname__', name)} {self.traces} times: "
                "its calls keep changing what a trace depends on (numbers or lengths in its "
                "arguments or in what it reads outside them, branches on Values' numbers). "
                "Numbers are constants of a trace: pass data that changes as Values",
                stacklevel=3,
            )
        return made, namespace[name]

    @staticmethod
    def _which_guard(made: Source) -> str:
        changed = made.trace.outside.changed()
        if changed is not None:
            return (
                "tg.compile(retrace=False): what the function reads outside its arguments "
                f"changed since it was traced: {changed}"
            )
        return (
            "tg.compile(retrace=False): this call takes another branch through Python than "
            f"the trace did; the guards of the trace:\n{made.guard_text()}"
        )


def compile(  # noqa: A001 - tg.compile, as torch.compile
    fn: Callable[..., Any] | None = None, *, grads: bool = False, retrace: bool = True
) -> Any:
    """``fn`` compiled: see the module's doc. The compiled function returns the output's
    number and adds each input Value's gradient to its ``.grad``, as ``backward`` does, bit for
    bit; with ``grads=True`` it returns (number, gradients) instead, one per input (the
    arguments' Values, then those reached otherwise), and touches no ``.grad``. Usable as a
    decorator, with or without arguments."""
    if fn is None:
        return functools.partial(compile, grads=grads, retrace=retrace)
    if not callable(fn):
        raise TypeError(f"tg.compile takes a function, got {type(fn).__name__}")
    return Compiled(fn, grads, retrace)
