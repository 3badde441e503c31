"""A number read from a Value while ``tg.compile`` traces a function: ``Tracked``.

It remembers how it was computed from the graph's nodes (``{i}``: the i-th node read), so that
arithmetic on it keeps an expression and every comparison of it (``x.data > 0``, ``bool(t)``,
``t.is_integer()``) is recorded as a guard of the trace under way: the expression and the
outcome seen. What would turn it into a plain number the compiled code cannot recompute
(``float(t)``, ``math.exp(t)``, ``np.exp(t)``, ``hash(t)``: a dict key, a set), or into text
(``str(t)``, ``repr(t)``, ``format(t, ".1f")``, an f-string: ``float(f"{t}")`` is a plain number
too), is refused with ``TraceError`` during the trace; outside one (a tracked number kept in a
list) it is its number again.

>>> t = Tracked(2.0, "{0}")
>>> (t * 3 - 1).expression, float(t)
('(({0} * 3) - 1)', 2.0)
"""

from __future__ import annotations

import numbers
import operator
import threading
from collections.abc import Callable
from typing import Any, Protocol


class TraceError(TypeError):
    """What ``tg.compile`` cannot replay: a number read from a Value leaving the graph, or a
    write into a Value that no recorded call (an optimizer's step) makes."""


class Trace(Protocol):
    thread: int

    def guard(self, expression: str, outcome: bool) -> bool: ...


TRACES: list[Trace] = []  # the trace under way (``watch.watching`` pushes it), if any


def here() -> bool:
    """Whether a trace is under way on this thread."""
    return bool(TRACES) and threading.get_ident() == TRACES[-1].thread


def guard(expression: str, outcome: bool) -> bool:
    """``outcome``, recorded as a guard of the trace under way on this thread."""
    return TRACES[-1].guard(expression, outcome) if here() else outcome


def refused(*args: Any) -> Any:
    raise TraceError(
        "inside tg.compile, a number read from a Value (x.data, x.item()) can be compared and "
        "computed with, but not made a plain float, text (str(), repr(), format(), an "
        "f-string, print()), a key, or fed back into the graph: the compiled code would keep "
        "it as a constant. Write it as an op on Values, or compute or print it outside the "
        "compiled function"
    )


def written(x: object) -> str:
    """A plain number or a tracked one as Python source."""
    if isinstance(x, Tracked):
        return x.expression
    if type(x) is float or type(x) is int:
        text = repr(x)
        return text if text[0] != "-" and text not in ("inf", "nan") else f"float({text!r})"
    raise TraceError(f"a number read from a Value was combined with {type(x).__name__}")


class Tracked:
    """A number read from a Value during a trace (see the module's doc)."""

    __slots__ = ("expression", "value")

    def __init__(self, value: float, expression: str) -> None:
        self.value = value
        self.expression = expression

    def _plain(self, convert: Callable[[float], Any]) -> Any:
        return refused() if here() else convert(self.value)

    def __float__(self) -> float:
        return self._plain(float)  # type: ignore[no-any-return]

    def __int__(self) -> int:
        return self._plain(int)  # type: ignore[no-any-return]

    def __index__(self) -> int:  # as a float's: a TypeError, outside a trace
        return self._plain(operator.index)  # type: ignore[arg-type, no-any-return]

    def __hash__(self) -> int:
        return self._plain(hash)  # type: ignore[no-any-return]

    __round__ = __trunc__ = __floor__ = __ceil__ = __complex__ = __divmod__ = __rdivmod__ = refused
    as_integer_ratio = __array__ = refused

    def __repr__(self) -> str:  # text is a way out of the trace as float() is
        return self._plain(repr)  # type: ignore[no-any-return]

    def __str__(self) -> str:
        return self._plain(str)  # type: ignore[no-any-return]

    def __format__(self, spec: str) -> str:
        return refused() if here() else format(self.value, spec)

    def __bool__(self) -> bool:
        return guard(f"{self.expression} != 0.0", self.value != 0.0)

    def is_integer(self) -> bool:
        return guard(f"float({self.expression}).is_integer()", float(self.value).is_integer())

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
        a, b = self.expression, written(other)
        a, b = (b, a) if right else (a, b)
        return Tracked(result, f"({a} {symbol} {b})")

    return compute


def _comparison(name: str, symbol: str) -> Callable[[Tracked, Any], Any]:
    method = getattr(operator, name)

    def compare(self: Tracked, other: Any) -> Any:
        if not _plain(other):
            return NotImplemented
        theirs = other.value if isinstance(other, Tracked) else other
        return guard(f"{self.expression} {symbol} {written(other)}", method(self.value, theirs))

    return compare


ARITHMETIC = [("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"), ("pow", "**")]
ARITHMETIC += [("floordiv", "//"), ("mod", "%")]
COMPARISONS = [("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">="), ("eq", "=="), ("ne", "!=")]
for _name, _symbol in ARITHMETIC:
    setattr(Tracked, f"__{_name}__", _arithmetic(_name, _symbol, False))
    setattr(Tracked, f"__r{_name}__", _arithmetic(_name, _symbol, True))
for _name, _symbol in COMPARISONS:
    setattr(Tracked, f"__{_name}__", _comparison(_name, _symbol))
