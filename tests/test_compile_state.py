"""tg.compile and the state a function reads outside its arguments: closure variables,
globals, and the attributes and items reached through them. A call where that state changed
is traced again (or raises GuardError under retrace=False), and gives the eager engine's bits;
a call where it did not replays the code; what the code could not check again is refused."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from test_compile import bits

import topograd as tg
from topograd.compiler import GuardError, TraceError
from topograd.scalar.value import Value

SCALE = 2.0  # a global the functions below read (each test puts it back)


def eager(f: Callable[..., Value], data: list[float], outside: list[Value]) -> list[bytes]:
    """The bits of f's value and of every gradient (the arguments', then the Values outside
    that the function reads), run by the engine; the outside Values' .grad put back to 0."""
    for v in outside:
        v.grad = 0.0
    xs = [Value(d) for d in data]
    out = f(*xs)
    out.backward()
    found = [bits(out.data), *[bits(x.grad) for x in xs], *[bits(v.grad) for v in outside]]
    for v in outside:
        v.grad = 0.0
    return found


def compiled(fast: Any, data: list[float], outside: list[Value]) -> list[bytes]:
    xs = [Value(d) for d in data]
    value = fast(*xs)
    found = [bits(value), *[bits(x.grad) for x in xs], *[bits(v.grad) for v in outside]]
    for v in outside:
        v.grad = 0.0
    return found


def outside_reads() -> list[
    tuple[str, Callable[[], tuple[Any, Callable[[], None], Callable[[], list[Value]]]]]
]:
    """Each: a function reading state outside its arguments, a change of that state, and the
    Values outside whose gradients it adds to (those read after the change)."""

    def dict_value() -> Any:
        state = {"w": Value(2.0)}

        def change() -> None:
            state["w"] = Value(5.0)

        return (lambda x: x * state["w"]), change, lambda: [state["w"]]

    def closure_number() -> Any:
        k = 2.0

        def change() -> None:
            nonlocal k
            k = 3.0

        return (lambda x: x * k), change, list

    def growing_list() -> Any:
        items = [Value(1.0)]
        return (lambda x: x * tg.sum(items)), (lambda: items.append(Value(2.0))), lambda: items

    def closure_flag() -> Any:
        flag = True

        def change() -> None:
            nonlocal flag
            flag = False

        return (lambda x: x * x if flag else x + 1.0), change, list

    def a_global() -> Any:
        def change() -> None:
            global SCALE
            SCALE = 5.0

        return (lambda x: x * SCALE), change, list

    return [
        ("dict_value", dict_value),
        ("closure_number", closure_number),
        ("growing_list", growing_list),
        ("closure_flag", closure_flag),
        ("a_global", a_global),
    ]


@pytest.fixture(autouse=True)
def _scale_as_it_was() -> Any:
    global SCALE, HALF
    yield
    SCALE, HALF, Biased.bias = 2.0, 0.5, 0.0
    cached_half.cache_clear()


@pytest.mark.parametrize(
    "case", [c for _, c in outside_reads()], ids=[n for n, _ in outside_reads()]
)
def test_a_change_outside_the_arguments_traces_again(case: Any) -> None:
    f, change, outside = case()
    fast = tg.compile(f)
    assert compiled(fast, [3.0], outside()) == eager(f, [3.0], outside())
    assert compiled(fast, [4.0], outside()) == eager(f, [4.0], outside())
    assert fast.traces == 1  # nothing changed: replayed
    change()
    assert compiled(fast, [3.0], outside()) == eager(f, [3.0], outside())
    assert fast.traces == 2
    assert compiled(fast, [-1.5], outside()) == eager(f, [-1.5], outside())
    assert fast.traces == 2


@pytest.mark.parametrize(
    "case", [c for _, c in outside_reads()], ids=[n for n, _ in outside_reads()]
)
def test_without_retrace_a_change_outside_is_an_error_and_nothing_is_written(case: Any) -> None:
    f, change, outside = case()
    fast = tg.compile(f, retrace=False)
    fast(Value(3.0))
    change()
    for v in outside():
        v.grad = 0.0
    x = Value(3.0)
    with pytest.raises(GuardError, match="reads outside its arguments changed"):
        fast(x)
    assert x.grad == 0.0 and all(v.grad == 0.0 for v in outside())


def test_a_value_swapped_in_a_dict_gets_its_gradient() -> None:
    state = {"w": tg.Value(2.0)}
    cf = tg.compile(lambda x: x * state["w"])
    assert cf(tg.Value(3.0)) == 6.0
    state["w"] = tg.Value(5.0)
    x = tg.Value(3.0)
    assert (cf(x), x.grad) == (15.0, 5.0)
    assert state["w"].grad == 3.0


@dataclass
class Config:
    scale: float
    shift: Value


class Affine:
    """A layer of the user's own, not a tg.nn.Module: its numbers are its attributes."""

    def __init__(self, w: float, k: float) -> None:
        self.w, self.k = Value(w), k

    def __call__(self, x: Value) -> Value:
        return x * self.w * self.k + SCALE


class Biased(Affine):
    bias = 0.0  # a class attribute, read through the object

    def __call__(self, x: Value) -> Value:
        return super().__call__(x) + self.bias


def helper(x: Value) -> Value:
    return x * SCALE


HALF = 0.5  # read by a helper behind a decorator of the standard library's


@functools.lru_cache
def cached_half() -> float:
    return HALF


def halved() -> None:
    global HALF
    HALF = 0.25
    cached_half.cache_clear()


CHANGES = {
    "an attribute's number": lambda c, layers, table, fs: setattr(c, "scale", 3.0),
    "an attribute's Value": lambda c, layers, table, fs: setattr(c, "shift", Value(-1.0)),
    "a number a method reads": lambda c, layers, table, fs: setattr(layers[0], "k", 4.0),
    "a Value a method reads": lambda c, layers, table, fs: setattr(layers[1], "w", Value(7.0)),
    "an array in place": lambda c, layers, table, fs: table.__setitem__(1, -3.0),
    "a function in a dict": lambda c, layers, table, fs: fs.__setitem__("f", lambda x: x * x),
    "a global helpers read": lambda c, layers, table, fs: globals().__setitem__("SCALE", -4.0),
    "a class attribute": lambda c, layers, table, fs: setattr(Biased, "bias", 3.0),
    "a global read behind lru_cache": lambda c, layers, table, fs: halved(),
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_attributes_helpers_methods_and_arrays_are_guarded(change: Callable[..., Any]) -> None:
    config = Config(2.0, Value(0.5))
    layers = [Affine(1.5, 2.0), Biased(-0.5, 1.0)]
    table = np.array([1.0, 2.0])
    functions = {"f": helper}

    def f(x: Value) -> Value:
        for layer in layers:  # a method of the user's class, on an object from a list
            x = layer(x)
        shift = config.shift * cached_half()
        return functions["f"](x) * config.scale + shift + table[1] * x + math.pi

    def outside() -> list[Value]:
        return [config.shift, *[layer.w for layer in layers]]

    fast = tg.compile(f)
    assert compiled(fast, [0.5], outside()) == eager(f, [0.5], outside())
    change(config, layers, table, functions)
    assert compiled(fast, [0.5], outside()) == eager(f, [0.5], outside())
    assert compiled(fast, [-2.0], outside()) == eager(f, [-2.0], outside())
    assert fast.traces == 2


def test_what_is_read_outside_is_replayed_while_it_holds() -> None:
    """A training step's optimizer and schedule (their state moves on every step: read by the
    calls made again, not by the trace), a Value's number changed by hand (an input), the
    same dict with its Values: none of them traces again."""
    model = tg.nn.MLP(2, [3, 1], seed=0)
    optimizer = tg.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    schedule = tg.optim.StepLR(optimizer, step_size=1, gamma=0.5)
    state = {"w": Value(2.0), "k": 3.0}

    def step(x: Value) -> Value:
        optimizer.zero_grad()
        loss = (model([x, 1.0]) * state["w"] - state["k"]) ** 2  # type: ignore[operator]
        loss.backward()
        optimizer.step()
        schedule.step()
        return loss

    fast = tg.compile(step)
    for k in range(5):
        fast(Value(0.1 * k))
        state["w"].data += 1.0  # an input: read by the code on every call
    assert fast.traces == 1


def test_a_function_that_changes_what_it_reads_is_refused() -> None:
    log: list[float] = []
    calls = 0

    def logs(x: Value) -> Value:
        log.append(1.0)
        return x * x

    def counts(x: Value) -> Value:
        nonlocal calls
        calls += 1
        return x * calls

    for f, name in [(logs, "log"), (counts, "calls")]:
        with pytest.raises(TraceError, match=f"the function changes {name}, which it reads"):
            tg.compile(f)(Value(2.0))


def test_a_function_that_draws_from_an_iterator_is_refused() -> None:
    """The iterator is the same object on every call, its next item is not."""
    numbers = iter([2.0, 3.0, 4.0])

    def generated() -> Any:
        yield from (2.0, 3.0)

    drawn = generated()
    for f in (lambda x: x * next(numbers), lambda x: x * next(drawn)):
        with pytest.raises(TraceError, match=r"reads the iterator (numbers|drawn)"):
            tg.compile(f)(Value(1.0))


def test_a_value_reached_otherwise_is_refused() -> None:
    """A Value held by an object of a library (compared by identity, its contents unseen):
    no guard could find it again on the next call."""
    pick = functools.partial(dict.get, {"w": Value(2.0)}, "w")

    def f(x: Value) -> Value:
        return x * pick()

    with pytest.raises(TraceError, match="reaches neither through its arguments"):
        tg.compile(f)(Value(1.0))


def test_the_error_names_what_changed() -> None:
    state = {"scale": 2.0}
    fast = tg.compile(lambda x: x * state["scale"], retrace=False)
    fast(Value(1.0))
    state["scale"] = 3.0
    with pytest.raises(GuardError, match=r"state\['scale'\] \(2.0 when traced\)"):
        fast(Value(1.0))


def test_a_write_to_a_global_the_function_does_not_read_is_refused() -> None:
    def writes(x: Value) -> Value:
        global SCALE
        SCALE = 3.0
        return x * x

    with pytest.raises(TraceError, match="the function changes SCALE"):
        tg.compile(writes)(Value(2.0))


@dataclass
class Settings:
    k: float


class Scaled:
    """A callable of the user's, compiled itself or by a bound method."""

    def __init__(self, k: float) -> None:
        self.k = k
        self.w = Value(0.5)

    def __call__(self, x: Value) -> Value:
        return x * self.w * self.k

    def shifted(self, x: Value) -> Value:
        return x * self.k + SCALE


def callables() -> dict[str, tuple[Any, Callable[[], Any], Callable[[], None]]]:
    """Each: a callable compiled, its arguments besides x, and a change of what it reads."""
    scaled = Scaled(2.0)
    model = tg.nn.MLP(1, [2, 1], seed=0)
    settings = Settings(3.0)
    array = np.array([1.0, 2.0])
    return {
        "an object of the user's": (scaled, tuple, lambda: setattr(scaled, "k", 5.0)),
        "a bound method": (
            scaled.shifted,
            tuple,
            lambda: globals().__setitem__("SCALE", -1.0),
        ),
        "a partial holding a model": (
            functools.partial(lambda m, x: m([x]), model),
            tuple,
            lambda: setattr(model.layers[1].neurons[0], "b", Value(9.0)),
        ),
        "an argument of the user's class": (
            lambda x, s: x * s.k,
            lambda: (settings,),
            lambda: setattr(settings, "k", 4.0),
        ),
        "an array argument": (
            lambda x, a: x * a[0],
            lambda: (array,),
            lambda: array.__setitem__(0, 7.0),
        ),
    }


@pytest.mark.parametrize("name", callables().keys())
def test_objects_bound_methods_partials_and_arguments_are_guarded(name: str) -> None:
    f, extra, change = callables()[name]
    fast = tg.compile(f)
    for _ in range(2):
        x, y = Value(1.5), Value(1.5)
        out = f(y, *extra())
        out.backward()
        assert (fast(x, *extra()), x.grad) == (out.data, y.grad)
        change()
    assert fast.traces == 2


def test_a_value_s_number_and_a_property_are_not_read_by_the_checks() -> None:
    """A read that ends at a Value stops there (its .data is the code's input), and the checks
    never run a property of the user's (the object holding it is compared instead)."""
    calls = bytearray()  # an object of a library: compared by identity, so it may grow

    class Holder:
        def __init__(self) -> None:
            self.w = Value(2.0)

        @property
        def doubled(self) -> float:
            calls.append(1)
            return 2.0

    holder = Holder()
    fast = tg.compile(lambda x: x * holder.w.data * 0 + x * holder.w * holder.doubled)
    with pytest.raises(TraceError):  # x * holder.w.data: a number made a constant
        fast(Value(1.0))
    fast = tg.compile(lambda x: x * holder.w * holder.doubled if holder.w.data > 0 else x)
    for k in range(4):
        holder.w.data = 1.0 + k  # an input: read on every call, no new trace
        assert fast(Value(1.0)) == 2.0 * (1.0 + k)
    assert fast.traces == 1 and len(calls) == 1  # the property ran once: in the trace
