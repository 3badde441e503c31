"""PyTorch's type promotion, for every binary operator and every pair of the nine dtypes, with
operands of every tier (Tensors with axes, 0-d Tensors, Python numbers, on either side): the
result's dtype and values, or the refusal, against real PyTorch. Values are drawn by
hypothesis where the integers neither overflow nor divide by zero (those refusals have their
own test); a float result is within a few ulps of its dtype, an integer or boolean one exact.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import topograd as tg

NAMES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")
OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
}
DIVIDING = ("/", "//", "%")
# operands: "d" a Tensor with axes, "0" a 0-d Tensor; a Python number on either side
TENSOR_FORMS = ("dd", "d0", "0d", "00")
PYTHON = (True, 3, -2, 2.5, -0.75)

# Where topograd deliberately answers otherwise than PyTorch 2.13, and why: (operator, left
# dtype, right operand's dtype, or the Python number's type) -> the reason.
DIFFERENCES: dict[tuple[str, str, str], str] = {
    ("**", "bool", "bool-number"): "PyTorch's pow(Tensor, Scalar) returns a copy for an "
    "exponent of 1 (True) and ones for 0 (False) before it checks the dtype, so a bool "
    "Tensor ** True is a bool Tensor; its pow has no bool kernel otherwise (bool ** bool "
    "Tensor is refused), and topograd refuses both alike",
}


def numbers(rng: np.random.Generator, name: str, dividing: bool, exponent: bool) -> list[Any]:
    """Three numbers for a Tensor of this dtype: no overflow in any operator, no zero to
    divide by, no negative integer exponent (PyTorch refuses it for a Python int)."""
    if name == "bool":
        return [True] * 3 if dividing else rng.choice([True, False], 3).tolist()
    if name.startswith("float"):  # quarters: exact in float16
        k = rng.integers(-16, 17, 3)
        return (np.where(dividing & (k == 0), 1, k) / 4).tolist()
    low, high = (0 if name == "uint8" or exponent else -5), (3 if exponent else 5)
    k = rng.integers(low, high + 1, 3)
    return np.where(dividing & (k == 0), 1, k).tolist()


def outcome(call: Callable[..., Any], *args: Any) -> Any:
    """The call's result, or its refusal (the exception, to compare)."""
    try:
        return call(*args)
    except Exception as error:
        return error


def assert_same(ours: Any, theirs: Any, where: str) -> None:
    """The same dtype and values, or the same kind of refusal (and PyTorch's words)."""
    if isinstance(theirs, Exception):
        assert isinstance(ours, type(theirs)), (where, ours, theirs)
        assert words(ours) == words(theirs), where
        return
    assert not isinstance(ours, Exception), (where, ours, theirs)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], where
    mine, expected = np.asarray(ours.tolist()), theirs.numpy()
    assert mine.shape == expected.shape, where
    if theirs.dtype.is_floating_point:
        eps = float(torch.finfo(theirs.dtype).eps)
        np.testing.assert_allclose(mine, expected, rtol=2 * eps, atol=1e-30, err_msg=where)
    else:
        assert np.array_equal(mine, expected), (where, mine, expected)


def words(error: Exception) -> str:
    """What both libraries say alike: the part after the kernel's name ("not implemented for
    'Bool'", where topograd's kernel is named otherwise), else the whole message."""
    text = str(error)
    return text.split('" ', 1)[1] if " not implemented for " in text else text


def tensors(lib: Any, name: str, values: list[Any], form: str) -> Any:
    return lib.tensor(values if form == "d" else values[0], dtype=getattr(lib, name))


def python_kind(number: Any) -> str:
    return f"{type(number).__name__}-number"


@pytest.mark.parametrize("form", TENSOR_FORMS)
@pytest.mark.parametrize("symbol", OPERATORS)
@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_an_operator_of_two_tensors_promotes_as_pytorchs(symbol: str, form: str, seed: int) -> None:
    call, rng = OPERATORS[symbol], np.random.default_rng(seed)
    for left, right in itertools.product(NAMES, NAMES):
        a = numbers(rng, left, False, False)
        b = numbers(rng, right, symbol in DIVIDING, symbol == "**")
        ours = outcome(call, tensors(tg, left, a, form[0]), tensors(tg, right, b, form[1]))
        theirs = outcome(call, tensors(torch, left, a, form[0]), tensors(torch, right, b, form[1]))
        assert_same(ours, theirs, f"{left} {symbol} {right} ({form}): {a} {b}")


@pytest.mark.parametrize("number", PYTHON, ids=repr)
@pytest.mark.parametrize("symbol", OPERATORS)
@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_an_operator_with_a_python_number_promotes_as_pytorchs(
    symbol: str, number: Any, seed: int
) -> None:
    call, rng = OPERATORS[symbol], np.random.default_rng(seed)
    for name, reflected in itertools.product(NAMES, (False, True)):
        if not reflected and DIFFERENCES.get((symbol, name, python_kind(number))):
            continue
        divisor = symbol in DIVIDING and reflected
        a = numbers(rng, name, divisor, symbol == "**" and reflected)
        if symbol == "**" and reflected and number == -2 and name.startswith("float"):
            a = [abs(x) + 1.0 for x in a]  # (a negative base to a fraction: nan both)

        side = f"{number!r} {symbol} {name}" if reflected else f"{name} {symbol} {number!r}"
        side += f": {a}"
        ours, theirs = (tensors(lib, name, a, "d") for lib in (tg, torch))
        if reflected:
            assert_same(outcome(call, number, ours), outcome(call, number, theirs), side)
        else:
            assert_same(outcome(call, ours, number), outcome(call, theirs, number), side)


def test_the_documented_differences_still_differ() -> None:
    """Each entry of DIFFERENCES is real: PyTorch answers, topograd refuses."""
    assert (torch.tensor([True, False]) ** True).dtype == torch.bool
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tg.tensor([True, False]) ** True
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        torch.tensor([True]) ** torch.tensor([True])


@pytest.mark.parametrize("name", ["int8", "int16", "int32", "int64", "uint8"])
@pytest.mark.parametrize("symbol", ["//", "%"])
def test_integer_division_by_zero_is_refused_as_pytorchs(symbol: str, name: str) -> None:
    call = OPERATORS[symbol]
    for divisor in (0, "0-d", "axes"):
        for lib in (tg, torch):
            x = lib.tensor([7, 2], dtype=getattr(lib, name))
            y: Any = divisor
            if divisor != 0:
                y = lib.tensor([0, 1] if divisor == "axes" else 0, dtype=getattr(lib, name))
            with pytest.raises(RuntimeError, match=r"^ZeroDivisionError$"):
                call(x, y)
    for lib in (tg, torch):  # a float divisor: IEEE's answers, no refusal
        out = call(lib.tensor([3, -3, 0]), 0.0)
        assert str(out.dtype).endswith("float32")
        ours, theirs = call(tg.tensor([3, -3, 0]), 0.0), call(torch.tensor([3, -3, 0]), 0.0)
        np.testing.assert_array_equal(np.asarray(ours.tolist()), theirs.numpy())


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_invert_of_floats_is_refused_as_pytorchs(name: str) -> None:
    found = [
        outcome(operator.invert, lib.tensor([1.5], dtype=getattr(lib, name))) for lib in (tg, torch)
    ]
    assert type(found[0]) is type(found[1]) is TypeError and str(found[0]) == str(found[1])
    for other in NAMES[3:]:
        ours = ~tg.tensor([3, 0, 1], dtype=getattr(tg, other))
        theirs = ~torch.tensor([3, 0, 1], dtype=getattr(torch, other))
        assert_same(ours, theirs, f"~{other}")


def test_a_comparison_is_made_in_the_promoted_dtype() -> None:
    """int32 against a 0-d float32 meets in float32 (2**24 + 1 rounds to 2**24), as PyTorch's;
    NumPy alone would compare in float64. A Python int out of range wraps, as PyTorch's."""
    for lib in (tg, torch):
        big = lib.tensor([2**24 + 1], dtype=lib.int32)
        assert (big == lib.tensor(2.0**24)).tolist() == [True]
        assert (lib.tensor([255], dtype=lib.uint8) == -1).tolist() == [True]


INTEGER_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "round": lambda lib, x: lib.round(x),
    "sign": lambda lib, x: lib.sign(x),
    "clamp(min=Tensor)": lambda lib, x: lib.clamp(x, min=x.flip(0)),
    "clamp(max=Tensor)": lambda lib, x: lib.clamp(x, max=x.flip(0)),
    "clamp(Tensor, Tensor)": lambda lib, x: lib.clamp(x, x.flip(0), x.flip(0)),
}


@pytest.mark.parametrize("name", NAMES[3:])
@pytest.mark.parametrize("what", INTEGER_OPS)
def test_integer_and_bool_results_are_pytorchs_and_want_no_gradient(what: str, name: str) -> None:
    """round, sign and clamp with Tensor limits keep integers (and sign booleans), as
    PyTorch's; such a result wants no gradient and refuses one in PyTorch's words."""
    values = [True, False, True] if name == "bool" else [3, 0, 1]
    found = [
        outcome(INTEGER_OPS[what], lib, lib.tensor(values, dtype=getattr(lib, name)))
        for lib in (tg, torch)
    ]
    assert_same(*found, f"{what} of {name}")
    if isinstance(found[1], Exception):
        return
    assert found[0].requires_grad is found[1].requires_grad is False
    refusals = [outcome(lambda t: t.requires_grad_(True), out) for out in found]
    assert isinstance(refusals[0], RuntimeError) and str(refusals[0]) == str(refusals[1])
