"""Custom ops take part in everything a built-in op does."""

from __future__ import annotations

import math

import pytest
import torch
from oracle import leaf

import topograd as tg

square = tg.custom_op(lambda x: x * x, lambda x, out: (2 * x,), name="square")
hypot = tg.custom_op(
    math.hypot, lambda x, y, out: (x / out, y / out), name="hypot"
)  # written with operators only: works on floats and on Values
fma = tg.custom_op(lambda x, y, z: x * y + z, lambda x, y, z, out: (y, x, 1.0), name="fma")


def test_backward_through_a_custom_op() -> None:
    x = tg.Value(3.0)
    y = square(x).tanh()
    y.backward()
    assert (y.parents[0].op, y.parents[0].parents) == ("square", (x,))
    assert x.grad == pytest.approx((1 - math.tanh(9.0) ** 2) * 6.0, rel=1e-15)


def test_numbers_mixed_in_become_constant_leaves() -> None:
    x = tg.Value(4.0)
    y = hypot(3, x) + square(2.0)
    y.backward()
    assert y.data == 9.0
    assert x.grad == pytest.approx(4.0 / 5.0, rel=1e-15)


def test_a_custom_op_with_three_inputs() -> None:
    x, y, z = tg.Value(2.0), tg.Value(3.0), tg.Value(5.0)
    out = fma(x, y, z)
    assert (out.op, out.data, out.parents) == ("fma", 11.0, (x, y, z))
    out.backward()
    assert (x.grad, y.grad, z.grad) == (3.0, 2.0, 1.0)


def test_under_no_grad_a_custom_op_records_nothing() -> None:
    with tg.no_grad():
        y = square(tg.Value(3.0))
    assert (y.op, y.parents, y.data) == ("", (), 9.0)


def test_custom_ops_pass_gradcheck() -> None:
    assert tg.gradcheck(lambda x, y: hypot(x, square(y)) * fma(x, y, x), [0.7, -1.3])


def test_second_and_third_derivatives_of_a_custom_op_match_torch() -> None:
    x, t = tg.Value(0.8), leaf(0.8)
    ours = hypot(x, square(x))  # sqrt(x^2 + x^4)
    theirs = torch.sqrt(t * t + (t * t) ** 2)
    for _ in range(3):
        (ours,) = tg.grad(ours, [x], create_graph=True)
        (theirs,) = torch.autograd.grad(theirs, [t], create_graph=True)
        assert ours.data == pytest.approx(theirs.item(), rel=1e-12)


def test_a_constant_partial_is_a_true_constant_under_create_graph() -> None:
    double = tg.custom_op(lambda x: 2 * x, lambda x, out: (2.0,), name="double")
    x = tg.Value(1.5)
    (d1,) = tg.grad(double(x) * x, [x], create_graph=True)  # 4x
    assert tg.grad(d1, [x]) == [4.0]


def test_a_derivative_that_cannot_take_values_says_so_under_create_graph() -> None:
    rounded = tg.custom_op(math.sin, lambda x, out: (math.cos(round(x, 15)),), name="rounded")
    x = tg.Value(0.5)
    assert tg.grad(rounded(x), [x]) == [math.cos(0.5)]  # floats: fine
    with pytest.raises(tg.CustomOpError, match="'rounded' cannot take Values"):
        tg.grad(rounded(x), [x], create_graph=True)


def test_a_derivative_written_with_math_is_refused_under_create_graph() -> None:
    msin = tg.custom_op(math.sin, lambda x, out: (math.cos(x),), name="msin")
    x = tg.Value(0.5)
    (d1,) = tg.grad(msin(x), [x])  # floats: fine
    assert d1 == math.cos(0.5)
    # math.cos takes a Value through float(): a number that changes with x, not a Value
    with pytest.raises(tg.CustomOpError, match="'msin' gave partial 0 as a plain number"):
        tg.grad(msin(x), [x], create_graph=True)


def test_a_partial_computed_from_data_is_refused_not_silently_constant() -> None:
    def cos_of_data(x, out):  # type: ignore[no-untyped-def]
        return (math.cos(x.data if isinstance(x, tg.Value) else x),)

    dsin = tg.custom_op(math.sin, cos_of_data, name="dsin")
    x = tg.Value(0.5)
    assert tg.grad(dsin(x), [x]) == [math.cos(0.5)]
    with pytest.raises(tg.CustomOpError, match=r"'dsin'.*changes with input 0"):
        tg.grad(dsin(x), [x], create_graph=True)


def test_a_derivative_with_the_wrong_number_of_partials_is_refused() -> None:
    bad = tg.custom_op(lambda x, y: x * y, lambda x, y, out: (y,), name="bad mul")
    with pytest.raises(tg.CustomOpError, match="'bad mul' must return 2 partial"):
        bad(tg.Value(1.0), 2.0).backward()


def test_a_forward_that_returns_no_number_is_refused() -> None:
    bad = tg.custom_op(lambda x: "x", lambda x, out: (1.0,), name="stringy")
    with pytest.raises(tg.CustomOpError, match="'stringy' returned str"):
        bad(1.0)


@pytest.mark.parametrize("bad", ["1", None, [1.0]])
def test_a_custom_op_refuses_inputs_that_are_not_numbers(bad: object) -> None:
    with pytest.raises(TypeError, match="'square' takes Values or real numbers"):
        square(bad)  # type: ignore[arg-type]


def test_a_custom_op_needs_a_name_and_callables() -> None:
    with pytest.raises(TypeError, match="name"):
        tg.custom_op(abs, abs, name="")
    with pytest.raises(TypeError, match="callables"):
        tg.custom_op(abs, 3, name="x")  # type: ignore[arg-type]


def test_anomaly_mode_names_a_custom_op_that_makes_nan() -> None:
    shaky = tg.custom_op(math.sqrt, lambda x, out: (0.5 / out if out else math.nan,), name="shaky")
    x = tg.Value(0.0)
    with tg.detect_anomaly(), pytest.raises(tg.AnomalyError, match="'shaky'"):
        shaky(x).backward()


def test_a_derivative_written_with_value_methods_works_in_both_kinds_of_backward() -> None:
    vsin = tg.custom_op(math.sin, lambda x, out: (x.cos(),), name="vsin")
    x = tg.Value(0.5)
    vsin(x).backward()
    assert x.grad == math.cos(0.5)
    assert type(x.grad) is float
    (d1,) = tg.grad(vsin(x), [x], create_graph=True)
    assert tg.grad(d1, [x]) == [pytest.approx(-math.sin(0.5), rel=1e-15)]


def test_a_bug_in_a_derivative_is_reported_as_itself() -> None:
    forgot_out = tg.custom_op(math.sin, lambda x: (math.cos(x),), name="forgot_out")
    x = tg.Value(0.5)
    with pytest.raises(TypeError, match="positional argument") as caught:
        tg.grad(forgot_out(x), [x], create_graph=True)
    assert not isinstance(caught.value, tg.CustomOpError)


def test_a_step_function_derivative_near_its_step_is_no_hidden_constant() -> None:
    def step(x, out):  # type: ignore[no-untyped-def]
        return (1.0 if (x.data if isinstance(x, tg.Value) else x) > 0 else 0.0,)

    my_relu = tg.custom_op(lambda x: max(x, 0.0), step, name="my_relu")
    z = tg.Value(-5e-4)
    (d1,) = tg.grad(my_relu(z) * z, [z], create_graph=True)
    assert tg.grad(d1, [z]) == [0.0]


def test_a_value_given_back_in_a_plain_backward_becomes_a_number() -> None:
    sq = tg.custom_op(lambda x: x * x, lambda x, out: (tg.Value(2.0) * x,), name="sq")
    w = tg.Value(3.0)
    sq(w).backward()
    assert (type(w.grad), w.grad) == (float, 6.0)


def test_the_inputs_of_a_custom_op_are_counted_as_python_counts_them() -> None:
    defaulted = tg.custom_op(lambda x=1.0: x * x, lambda x, out: (2 * x,), name="defaulted")
    x = tg.Value(3.0)
    assert tg.grad(defaulted(x), [x]) == [6.0]
    two = tg.custom_op(lambda a, b: a * b, lambda a, b, out: (b, a), name="two")
    with pytest.raises(TypeError, match=r"two\(\) takes 2 inputs, got 1"):
        two(x)
    with pytest.raises(TypeError, match="by position"):
        tg.custom_op(lambda x, *, s: x, lambda x, out: (1.0,), name="keyword")
    with pytest.raises(TypeError, match="at least one input"):
        tg.custom_op(lambda: 1.0, lambda out: (), name="none")
    with pytest.raises(TypeError, match="takes 2 inputs but its domain has 1"):
        tg.custom_op(lambda a, b: a, lambda a, b, out: (1.0, 0.0), name="d", domain=[(0, 1)])


def test_a_huge_integer_operand_is_refused_at_once_not_in_backward() -> None:
    x = tg.Value(3.0)
    with pytest.raises(OverflowError):
        x ** (10**400)
    assert (x * 2).parents[1].data == 2.0  # a small int stays as it is, shown as 2.0


def test_a_partial_made_of_a_number_operand_is_a_true_constant_under_create_graph() -> None:
    h = tg.custom_op(
        lambda a, b: a * b * b,
        lambda a, b, out: (float(b) ** 2, 2 * a * b),  # b's number: constant only if b is one
        name="h_of_a_number",
    )
    x = tg.Value(0.5)
    (dx,) = tg.grad(h(x, 3.0), [x], create_graph=True)
    assert dx.data == 9.0 and tg.grad(dx, [x]) == [0.0]
    with pytest.raises(tg.CustomOpError, match="changes with input 1"):
        tg.grad(h(x, tg.Value(3.0)), [x], create_graph=True)
