"""The measurements taken on a learner's ``Value`` class, in the child process: each probe
builds a small graph from the learner's Values at the points the grader sent (``at``), runs
their ``backward`` and returns the numbers it read (``.data``, ``.grad``), by name. A probe
judges nothing: the grader compares the numbers with the hand maths outside the sandbox
(``grading/objectives.py``).

A number that is not a float (``None``, a Value where a float belongs) comes back as its repr,
for the grader to name.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from .ops import BUILDS, METHODS
from .written import written

Numbers = dict[str, float | str | bool]
Points = dict[str, Any]  # the grader's draw: "op.mul" -> [[a, b], ...], "chain", "shared", ...
Probe = Callable[[Any, Points], Numbers]

STEP = 6.055454452393343e-06  # cbrt(machine epsilon): the central step with the least error
DEPTHS = (100, 1_000, 10_000)  # chains probed for a recursion limit (10 times Python's)
DEFAULT_RECURSION_LIMIT = 1000  # Python's: the deep probe runs under it, whatever the module set


def central(f: Callable[[float], float], x: float, h: float) -> float:
    """f'(x) by a central difference of step h."""
    return (f(x + h) - f(x - h)) / (2 * h)


def number(v: Any) -> float | str:
    """``v`` as a float, or its repr when it is not a number."""
    if isinstance(v, (int, float)) or type(v).__name__.startswith(("float", "int")):
        try:
            return float(v)
        except (TypeError, ValueError, OverflowError):
            pass
    return repr(v)[:60]


def grads(*values: Any) -> list[float | str]:
    return [number(v.grad) for v in values]


def ops_in(out: Any, limit: int = 50) -> str:
    """The ``_op`` of each inner node of ``out``'s graph (where the class keeps micrograd's
    ``_prev`` and ``_op``), joined by "|": what the learner built an op of."""
    found: list[str] = []
    seen: set[int] = set()
    todo = [out]
    while todo and len(seen) < limit:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        operands = list(getattr(node, "_prev", ()))
        if operands:
            found.append(str(getattr(node, "_op", "")))
        todo += operands
    return "|".join(found)


def on_op(op: str) -> Probe:
    """``op`` at each of its points, alone: its value, its inputs' gradients and the ops of its
    graph."""

    def probe(cls: Any, at: Points) -> Numbers:
        if not hasattr(cls, METHODS[op]):
            return {"missing": True}
        found: Numbers = {}
        for i, point in enumerate(at[f"op.{op}"]):
            inputs = [cls(x) for x in point]
            out = BUILDS[op](*inputs)
            found[f"{i}.value"] = number(out.data)
            found[f"{i}.ops"] = ops_in(out)
            out.backward()
            found[f"{i}.out"] = number(out.grad)
            for j, g in enumerate(grads(*inputs)):
                found[f"{i}.d{j}"] = g
        return found

    return probe


def one_node(out: Any, inputs: list[Any], op: str) -> bool:
    """Whether ``out`` is one node made of ``inputs`` alone: its ``_prev`` says so, or, without
    one, the op is one of the lesson's own three."""
    prev = getattr(out, "_prev", None)
    if prev is None:
        return op in ("add", "mul", "tanh")
    return {id(v) for v in prev} == {id(v) for v in inputs}


def rule_alone(op: str) -> Probe:
    """``op``'s own ``_backward``, called by hand without backward(): under the upstream
    gradient, once on inputs whose gradients are 0 and once on inputs that already hold
    ``held``; ``+=`` gives the second the first's numbers plus ``held``."""

    def probe(cls: Any, at: Points) -> Numbers:
        if not hasattr(cls, METHODS[op]):
            return {"missing": True}
        found: Numbers = {}
        for run, held in (("fresh", 0.0), ("held", at["held"])):
            inputs = [cls(x) for x in at[f"op.{op}"][0]]
            out = BUILDS[op](*inputs)
            step = getattr(out, "_backward", None)
            if not callable(step) or not one_node(out, inputs, op):
                return {"alone": False}
            for v in inputs:
                v.grad = held
            out.grad = at["chain"]
            step()
            found.update({f"{run}.d{j}": g for j, g in enumerate(grads(*inputs))})
        return {"alone": True, **found}

    return probe


def under_upstream(op: str) -> Probe:
    """``op`` at its first point, times the upstream factor: its inputs' gradients."""

    def probe(cls: Any, at: Points) -> Numbers:
        if not hasattr(cls, METHODS[op]):
            return {"missing": True}
        inputs = [cls(x) for x in at[f"op.{op}"][0]]
        y = BUILDS[op](*inputs) * cls(at["chain"])
        y.backward()
        return {f"d{j}": g for j, g in enumerate(grads(*inputs))}

    return probe


def foreign(v: Any) -> str:
    """The name of topograd's own class behind ``v`` (an attribute of a learner's Value, or
    its .data), or "": a wrapper of topograd's Value is not the learner's engine. (Inside the
    sandbox topograd cannot be imported at all; a class in hand may hold one.)"""
    kind = type(v)
    return kind.__qualname__ if kind.__module__.split(".")[0] == "topograd" else ""


def value(cls: Any, at: Points) -> Numbers:
    x = cls(at["leaf"])
    held = [foreign(v) for v in (x, x.data, *getattr(x, "__dict__", {}).values())]
    return {
        "data": number(x.data),
        "grad": hasattr(x, "grad"),
        "wraps": next((name for name in held if name), ""),
    }


def zero(cls: Any, at: Points) -> Numbers:
    x = cls(3.0)
    y = x * cls(2.0)
    return {"leaf": number(x.grad), "node": number(y.grad)}


def seed(cls: Any, at: Points) -> Numbers:
    a, b = (cls(x) for x in at["op.mul"][0])
    y = a * b
    y.backward()
    return {"out": number(y.grad), "da": number(a.grad), "db": number(b.grad)}


def shared_add(cls: Any, at: Points) -> Numbers:
    x = cls(at["shared"])
    (x + x).backward()
    return {"dx": number(x.grad)}


def shared_mul(cls: Any, at: Points) -> Numbers:
    x = cls(at["shared"])
    (x * x).backward()
    return {"dx": number(x.grad)}


def diamond(cls: Any, at: Points) -> Numbers:
    """b = a*k, c = a*m, d = b + c: a gets k + m."""
    k, m = at["diamond"]
    a = cls(3.0)
    (a * cls(k) + a * cls(m)).backward()
    return {"da": number(a.grad)}


def used_twice(cls: Any, at: Points) -> Numbers:
    """a = x*3, y = a*k + a*m: x gets 3(k + m) when a's rule runs once."""
    k, m = at["diamond"]
    x = cls(at["shared"])
    a = x * cls(3.0)
    (a * cls(k) + a * cls(m)).backward()
    return {"dx": number(x.grad)}


def uneven(cls: Any, at: Points) -> Numbers:
    """a = x*2, y = a + (a*a)*0.5 (and the same summed the other way): x gets 2 + 4x when a
    waits for (a*a)*0.5, two levels further from y, whatever order the operands come in."""
    found: Numbers = {}
    for name, first in (("dx", True), ("dx_swapped", False)):
        x = cls(at["shared"])
        a = x * cls(2.0)
        far = a * a * cls(0.5)
        (a + far if first else far + a).backward()
        found[name] = number(x.grad)
    return found


def equal_data(cls: Any, at: Points) -> Numbers:
    """b = a + 1, c = a * 2, y = b * c at a = 1: b and c hold equal numbers, a gets 6."""
    a = cls(1.0)
    y = (a + cls(1.0)) * (a * cls(2.0))
    y.backward()
    return {"da": number(a.grad)}


def forward_differences(build: Callable[..., Any], cls: Any, point: tuple[float, ...]) -> Numbers:
    """Central differences of the learner's own forward, input by input."""
    found: Numbers = {}
    for i in range(len(point)):

        def f(t: float, i: int = i) -> float:
            moved = [t if j == i else x for j, x in enumerate(point)]
            return float(build(*[cls(x) for x in moved]).data)

        found[f"cd{i}"] = central(f, point[i], STEP)
    return found


def measured(build: Callable[..., Any], cls: Any, point: tuple[float, ...]) -> Numbers:
    inputs = [cls(x) for x in point]
    out = build(*inputs)
    out.backward()
    found: Numbers = {"value": number(out.data)}
    found.update({f"d{i}": g for i, g in enumerate(grads(*inputs))})
    found.update(forward_differences(build, cls, point))
    return found


def lesson(cls: Any, at: Points) -> Numbers:
    """The lesson's example, e = tanh(a*b + c)."""
    if not hasattr(cls, "tanh"):
        return {"missing": True}
    return measured(lambda a, b, c: (a * b + c).tanh(), cls, tuple(at["lesson"]))


def shared(cls: Any, at: Points) -> Numbers:
    """y = x*x + x."""
    return measured(lambda x: x * x + x, cls, (at["shared"],))


NUMBER_EXPRESSIONS: dict[str, Callable[[Any], Any]] = {  # the number on the right first
    "x * 2": lambda x: x * 2,
    "x + 2": lambda x: x + 2,
    "2 * x": lambda x: 2 * x,
    "2 + x": lambda x: 2 + x,
    "x * 2.5": lambda x: x * 2.5,  # floats too: an engine may wrap only ints
    "x + 2.5": lambda x: x + 2.5,
    "2.5 * x": lambda x: 2.5 * x,
    "2.5 + x": lambda x: 2.5 + x,
}


def numbers(cls: Any, at: Points) -> Numbers:
    """Plain numbers beside Values, on either side: value and gradient, or the error."""
    found: Numbers = {}
    for text, build in NUMBER_EXPRESSIONS.items():
        x = cls(at["shared"])
        try:
            y = build(x)
            found[f"{text}.value"] = number(y.data)
            y.backward()
            found[f"{text}.grad"] = number(x.grad)
        except Exception as error:  # the learner's engine refused: the grader names it
            found[f"{text}.error"] = f"{type(error).__name__}: {error}"[:160]
    return found


def backward_twice(cls: Any, at: Points) -> Numbers:
    x = cls(at["shared"])
    y = x * x + x
    y.backward()
    first = number(x.grad)
    y.backward()
    return {"first": first, "second": number(x.grad)}


def chain_of(cls: Any, depth: int) -> float | str:
    """x + k + k + ... (depth nodes): x's gradient after backward, or the error's name."""
    x, k = cls(1.0), cls(0.5)
    y = x
    for _ in range(depth):
        y = y + k
    try:
        y.backward()
    except (RecursionError, MemoryError) as error:
        return type(error).__name__
    return number(x.grad)


def deep(cls: Any, at: Points) -> Numbers:
    """The shortest chain whose backward fails, under Python's default recursion limit."""
    module_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(DEFAULT_RECURSION_LIMIT)
    try:
        found: Numbers = {"module_limit": float(module_limit)}
        good = 0
        for depth in DEPTHS:
            result = chain_of(cls, depth)
            if isinstance(result, str):
                found["error"] = result
                bad = depth
                while bad - good > 1:  # bisect to the first failing depth
                    middle = (good + bad) // 2
                    good, bad = (middle, bad) if chain_of(cls, middle) == 1.0 else (good, middle)
                found["depth"] = float(bad)
                return found
            if result != 1.0:
                found.update(depth=float(depth), grad=result)
                return found
            good = depth
        found["depth"] = float(good)
        return found
    finally:
        sys.setrecursionlimit(module_limit)


def structure(cls: Any, at: Points) -> Numbers:
    """micrograd's ``_prev`` (the operands) and ``_op`` (the op's name), where the class has
    them."""
    a, b = cls(2.0), cls(-3.0)
    y = a * b
    if not hasattr(y, "_prev"):
        return {"missing": True}
    operands = {id(v) for v in y._prev}
    return {
        "prev": operands == {id(a), id(b)} and len(list(y._prev)) == 2,
        "leaf": not list(a._prev),
        "has_op": hasattr(y, "_op"),
        "op": repr(getattr(y, "_op", None))[:40],
        "op_is_text": isinstance(getattr(y, "_op", None), str),
    }


PROBES: dict[str, Probe] = {
    "value": value,
    "written": written,
    "zero": zero,
    "seed": seed,
    **{f"op.{op}": on_op(op) for op in METHODS},
    **{f"rule.{op}": rule_alone(op) for op in METHODS},
    "shared.add": shared_add,
    "shared.mul": shared_mul,
    "diamond": diamond,
    "used_twice": used_twice,
    **{f"chain.{op}": under_upstream(op) for op in METHODS},
    "uneven": uneven,
    "equal_data": equal_data,
    "lesson": lesson,
    "shared": shared,
    "numbers": numbers,
    "backward_twice": backward_twice,
    "deep": deep,
    "structure": structure,
}
