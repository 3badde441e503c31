"""tg.compile and the user's strings: a custom op's name, a Value's label, the function's own
name and an optimizer's class name reach the generated code only inside an escaped comment or
as a checked identifier (ASCII, no keyword, no name the code itself uses). A name holding a
line break of any kind ends no comment: nothing in it runs."""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable
from typing import Any

import pytest

import topograd as tg
from topograd.scalar.value import Value

# Every character that ends a line somewhere: Python's tokenizer (\n, \r), str.splitlines (the
# rest), editors and browsers (\u2028, \u2029).
BREAKS = ["\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
PAYLOAD = 'import sys; sys.modules["tg_hit"] = sys'  # harmless, and seen if it ever runs


def hostile(brk: str) -> str:
    return f"x{brk}    {PAYLOAD}{brk}    # \"'"  # code, where a break ended the comment


def twice(x: float) -> float:
    return 2.0 * x


def compiled_with(name: str) -> tuple[Any, float, float]:
    """A function using a custom op called ``name``, compiled: it, its value and gradient."""
    op = tg.custom_op(twice, lambda x, out: (2.0,), name=name)
    fast = tg.compile(lambda x: op(x * x).tanh())
    x = Value(0.75)
    value = fast(x)
    return fast, value, x.grad


def shape(source: str) -> str:
    """The code's syntax tree, its literals and names as they are (comments are not in it)."""
    return ast.dump(ast.parse(source))


@pytest.mark.parametrize("brk", BREAKS, ids=[repr(b) for b in BREAKS])
def test_a_custom_op_s_name_with_a_line_break_runs_nothing(brk: str) -> None:
    sys.modules.pop("tg_hit", None)
    fast, value, grad = compiled_with(hostile(brk))
    plain, expected, expected_grad = compiled_with("not an identifier")
    assert "tg_hit" not in sys.modules
    assert (value, grad) == (expected, expected_grad)
    assert shape(fast.source) == shape(plain.source)  # no statement came from the name
    assert not any(b in fast.source[:-1].replace("\n", "") for b in BREAKS)
    assert fast.source.count("\n") == plain.source.count("\n")


def test_an_optimizer_s_class_name_with_a_line_break_runs_nothing() -> None:
    sys.modules.pop("tg_hit", None)
    w = Value(1.0)
    optimizer = type(f"SGD\n    {PAYLOAD}\n    #", (tg.optim.SGD,), {})([w], lr=0.1)

    def step(x: Value) -> Value:
        optimizer.zero_grad()
        loss = (w * x) ** 2
        loss.backward()
        optimizer.step()
        return loss

    fast = tg.compile(step)
    fast(Value(2.0))
    fast(Value(2.0))
    assert "tg_hit" not in sys.modules and fast.traces == 1
    assert w.data == pytest.approx(1.0 - 0.8 - 0.8 * (1.0 - 0.8))


def named(name: str) -> Callable[[Value], Value]:
    def f(x: Value) -> Value:
        return (x * x).tanh() + x.exp()

    f.__name__ = f.__qualname__ = name
    return f


@pytest.mark.parametrize(
    "name",
    ["tanh", "exp", "accumulate", "RETRACE", "held", "float", "return", "ｔａｎｈ", "x\ny"],  # noqa: RUF001
)
def test_the_function_s_own_name_takes_no_name_of_the_code(name: str) -> None:
    x, y = Value(0.5), Value(0.5)
    out = named("plain")(y)
    out.backward()
    assert (tg.compile(named(name))(x), x.grad) == (out.data, y.grad)


@pytest.mark.parametrize("name", ["return", "ｔａｎｈ", "held", "effect0", "x0", "float", "if"])  # noqa: RUF001
def test_a_custom_op_s_name_takes_no_name_of_the_code(name: str) -> None:
    op = tg.custom_op(twice, lambda x, out: (2.0,), name=name)

    def training(compiled: bool) -> tuple[list[float], list[float]]:
        w = Value(0.25)
        sgd = tg.optim.SGD([w], lr=0.5)

        def step(x: Value) -> Value:
            sgd.zero_grad()
            loss = op(x * w).tanh() + x.tanh()
            loss.backward()
            sgd.step()
            return loss

        run = tg.compile(step) if compiled else lambda x: step(x).data
        xs = [Value(1.5) for _ in range(3)]  # the second and third calls replay the code
        return [run(x) for x in xs], [w.data, *[x.grad for x in xs]]

    assert training(True) == training(False)


@pytest.mark.parametrize("label", ["float", "abs", "sum", "accumulate", "ｘ"])  # noqa: RUF001
def test_a_label_takes_no_name_the_code_calls(label: str) -> None:
    """The guards call float() and abs(): a label never hides them."""

    def f(x: Value) -> Value:
        return x * x if abs(x.data) > 1 and x.data.is_integer() else -x

    fast = tg.compile(f)
    for number in (2.0, -3.0, 0.5, 4.0):
        x = Value(number, label=label)
        out = f(Value(number))
        out.backward()
        assert (fast(x), x.grad) == (out.data, -1.0 if abs(number) <= 1 else 2 * number)
