"""The public face of Value: construction, attributes, operators, and refusals of bad input."""

from __future__ import annotations

import fractions
import math
import threading

import numpy as np
import pytest

import topograd as tg


@pytest.mark.parametrize(
    "data", [3, -2, 2.5, np.float64(1.25), np.float32(0.5), np.int64(7), fractions.Fraction(1, 4)]
)
def test_real_numbers_are_stored_as_python_floats(data: object) -> None:
    v = tg.Value(data)  # type: ignore[arg-type]
    assert type(v.data) is float
    assert v.data == float(data)  # type: ignore[arg-type]
    assert (v.grad, v.label, v.op, v.parents) == (0.0, "", "", ())


@pytest.mark.parametrize(
    "data", ["1.0", None, True, False, 1 + 2j, [1.0], {"x": 1}, (1.0,), np.array([1.0])]
)
def test_anything_else_is_refused_naming_what_was_given(data: object) -> None:
    with pytest.raises(TypeError, match=type(data).__name__):
        tg.Value(data)  # type: ignore[arg-type]


def test_a_label_must_be_a_string() -> None:
    with pytest.raises(TypeError, match="label"):
        tg.Value(1.0, label=3)  # type: ignore[arg-type]


def test_parents_in_operand_order_duplicates_kept() -> None:
    x, y = tg.Value(2.0), tg.Value(3.0)
    assert (x * x).parents == (x, x)
    assert (x - y).parents == (x, y)
    assert (y - x).parents == (y, x)
    assert x.tanh().parents == (x,)


@pytest.mark.parametrize(
    ("expr", "op", "value"),
    [
        (lambda x: x + 1, "add", 3.0),
        (lambda x: 1 + x, "add", 3.0),
        (lambda x: x - 5, "sub", -3.0),
        (lambda x: 5 - x, "sub", 3.0),
        (lambda x: x * 4, "mul", 8.0),
        (lambda x: 4 * x, "mul", 8.0),
        (lambda x: x / 4, "div", 0.5),
        (lambda x: 4 / x, "div", 2.0),
        (lambda x: x**3, "pow", 8.0),
        (lambda x: 3**x, "pow", 9.0),
        (lambda x: x ** tg.Value(0.5), "pow", math.sqrt(2.0)),
        (lambda x: -x, "neg", -2.0),
        (lambda x: abs(-x), "abs", 2.0),
        (lambda x: x.relu(), "relu", 2.0),
        (lambda x: x.exp(), "exp", math.exp(2.0)),
        (lambda x: x.log(), "log", math.log(2.0)),
        (lambda x: x.sqrt(), "sqrt", math.sqrt(2.0)),
        (lambda x: x.tanh(), "tanh", math.tanh(2.0)),
        (lambda x: x.sigmoid(), "sigmoid", 1 / (1 + math.exp(-2.0))),
        (lambda x: x.sin(), "sin", math.sin(2.0)),
        (lambda x: x.cos(), "cos", math.cos(2.0)),
    ],
)
def test_operators_with_numbers_on_either_side(expr, op: str, value: float) -> None:  # type: ignore[no-untyped-def]
    out = expr(tg.Value(2.0))
    assert isinstance(out, tg.Value)
    assert out.op == op
    assert out.data == pytest.approx(value, rel=1e-15)


def test_a_number_operand_becomes_a_constant_leaf_in_its_place() -> None:
    x = tg.Value(2.0)
    left, right = (7 - x).parents
    assert right is x and left.op == "" and left.data == 7.0


@pytest.mark.parametrize("other", ["a", None, [1.0], {1: 2}, 1j, True, object()])
@pytest.mark.parametrize(
    "combine",
    [
        lambda v, o: v + o,
        lambda v, o: o + v,
        lambda v, o: v - o,
        lambda v, o: o - v,
        lambda v, o: v * o,
        lambda v, o: o * v,
        lambda v, o: v / o,
        lambda v, o: o / v,
        lambda v, o: v**o,
        lambda v, o: o**v,
    ],
)
def test_a_value_with_anything_else_raises_type_error(combine, other: object) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError):
        combine(tg.Value(1.0), other)


def test_repr_shows_data_grad_label_and_op() -> None:
    x = tg.Value(2.0, label="x")
    y = x * 3
    y.backward()
    assert repr(x) == "Value(data=2.0, grad=3.0, label='x')"
    assert repr(y) == "Value(data=6.0, grad=1.0, op='mul')"


@pytest.mark.parametrize("bad", ["1", None, [1.0], True])
def test_backward_refuses_a_seed_that_is_not_a_number(bad: object) -> None:
    with pytest.raises(TypeError, match="grad"):
        tg.Value(1.0).backward(bad)  # type: ignore[arg-type]


def test_no_grad_records_no_parents_and_restores_on_exit() -> None:
    x = tg.Value(2.0)
    assert tg.is_grad_enabled()
    with tg.no_grad():
        assert not tg.is_grad_enabled()
        y = (x * x).tanh() + 1
    assert (y.op, y.parents) == ("", ())
    assert y.data == pytest.approx(math.tanh(4.0) + 1)
    assert tg.is_grad_enabled()
    assert (x * x).op == "mul"


def test_no_grad_restores_after_an_exception() -> None:
    with pytest.raises(RuntimeError), tg.no_grad():
        raise RuntimeError
    assert tg.is_grad_enabled()


def test_no_grad_is_per_thread() -> None:
    x = tg.Value(2.0)
    inside, seen = threading.Event(), threading.Event()
    ops: list[str] = []

    def other_thread() -> None:
        inside.wait()
        ops.append((x * x).op)  # the main thread is inside no_grad meanwhile
        seen.set()

    thread = threading.Thread(target=other_thread)
    thread.start()
    with tg.no_grad():
        inside.set()
        seen.wait(5)
        ops.append((x * x).op)
    thread.join()
    assert ops == ["mul", ""]


# + and * of two Values write new_node out (a call less on the hottest ops): the same slots,
# and while a thread is in a mode other than the default (ALTERED counts them), new_node itself.


SLOTS = ("data", "grad", "label", "_made_by", "_x", "_y", "_stamp")


def test_the_written_out_ops_make_the_node_new_node_makes() -> None:
    from topograd.ops.arithmetic import add, mul
    from topograd.scalar.value import new_node

    x, y = tg.Value(1.5), tg.Value(-2.0)
    for made, op in ((x + y, add), (x * y, mul)):
        model = new_node(op.scalar(x.data, y.data), op, x, y)  # type: ignore[misc]
        assert [getattr(made, s) for s in SLOTS] == [getattr(model, s) for s in SLOTS]
        assert not hasattr(made, "_where")


def test_every_mode_counts_itself_out_again() -> None:
    from topograd.autograd.modes import ALTERED

    before = ALTERED.threads
    with tg.no_grad():
        assert ALTERED.threads == before + 1
        with tg.enable_grad():
            assert ALTERED.threads == before
        with pytest.raises(RuntimeError), tg.no_grad():
            raise RuntimeError
        assert ALTERED.threads == before + 1
    with tg.detect_anomaly():
        assert ALTERED.threads == before + 1
        with tg.no_grad():
            assert ALTERED.threads == before + 1  # this thread is counted once
    tg.set_grad_enabled(False)
    assert ALTERED.threads == before + 1
    tg.set_grad_enabled(True)
    assert ALTERED.threads == before
    x = tg.Value(2.0)
    (x * x).backward()  # (the backward records nothing meanwhile)
    assert ALTERED.threads == before
    assert ((x + x).op, (x * x).op) == ("add", "mul")


def test_the_written_out_ops_keep_no_grad_and_anomaly_mode() -> None:
    x, y = tg.Value(2.0), tg.Value(3.0)
    with tg.no_grad():
        made = [x + y, x * y]
    assert [(v.op, v.parents, v.data) for v in made] == [("", (), 5.0), ("", (), 6.0)]
    with tg.detect_anomaly():
        made = [x + y, x * y]
    assert [v.op for v in made] == ["add", "mul"]
    assert all("test_value.py" in v._where[0] for v in made)
