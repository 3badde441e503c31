"""Anomaly mode: a NaN in backward names the op, its label and the line that made it."""

from __future__ import annotations

import math

import pytest

import topograd as tg


def test_nan_in_backward_names_sqrt_and_the_line_that_built_it() -> None:
    x = tg.Value(0.0)
    with tg.detect_anomaly():
        y = x.sqrt() * 0  # the line the error must name
        line = (
            test_nan_in_backward_names_sqrt_and_the_line_that_built_it.__code__.co_firstlineno + 3
        )
        with pytest.raises(tg.AnomalyError) as caught:
            y.backward()
    message = str(caught.value)
    assert "backward of 'sqrt'" in message
    assert f"{__file__}:{line}, in test_nan_in_backward" in message
    assert "y = x.sqrt() * 0" in message


def test_the_label_is_named_too() -> None:
    x = tg.Value(0.0)
    with tg.detect_anomaly():
        h = x.sqrt()
        h.label = "root"
        with pytest.raises(tg.AnomalyError, match=r"'sqrt' \(label 'root'\)"):
            (h * 0).backward()


def test_with_the_mode_off_the_nan_flows_and_nothing_raises() -> None:
    x = tg.Value(0.0)
    y = x.sqrt() * 0
    y.backward()
    assert y.data == 0.0
    assert math.isnan(x.grad)


def test_after_the_mode_ends_nothing_is_remembered_or_checked() -> None:
    with tg.detect_anomaly():
        pass
    x = tg.Value(0.0)
    (x.sqrt() * 0).backward()
    assert math.isnan(x.grad)


def test_a_node_made_before_the_mode_is_still_reported() -> None:
    x = tg.Value(0.0)
    y = x.sqrt() * 0
    with (
        tg.detect_anomaly(),
        pytest.raises(tg.AnomalyError, match="created outside detect_anomaly"),
    ):
        y.backward()


def test_no_grad_inside_the_mode_then_back() -> None:
    x = tg.Value(0.0)
    with tg.detect_anomaly():
        with tg.no_grad():
            assert not tg.is_grad_enabled()
            assert (x * 2).op == ""
        assert tg.is_grad_enabled()
        y = x.sqrt() * 0
        with pytest.raises(tg.AnomalyError):
            y.backward()
    assert tg.is_grad_enabled()


def test_grad_with_create_graph_checks_too() -> None:
    x = tg.Value(0.0)
    with tg.detect_anomaly(), pytest.raises(tg.AnomalyError, match="'sqrt'"):
        tg.grad(x.sqrt() * 0, [x], create_graph=True)


def test_finite_gradients_pass_untouched() -> None:
    x = tg.Value(0.5)
    with tg.detect_anomaly():
        y = (x * x).tanh()
        y.backward()
    assert x.grad == pytest.approx(2 * 0.5 * (1 - math.tanh(0.25) ** 2), rel=1e-15)


def test_a_constant_exponent_wants_no_gradient_so_its_nan_is_no_anomaly() -> None:
    x = tg.Value(-2.0)
    with tg.detect_anomaly():
        (x**2).backward()
    assert x.grad == -4.0


def test_nan_is_caught_inside_no_grad_too() -> None:
    x = tg.Value(0.0)
    with tg.detect_anomaly():
        y = x.sqrt() * 0
        with tg.no_grad(), pytest.raises(tg.AnomalyError, match="'sqrt'"):
            y.backward()


def test_the_mode_keeps_no_graph_alive() -> None:
    import gc

    def live() -> int:
        return sum(1 for o in gc.get_objects() if type(o) is tg.Value)

    gc.collect()
    with tg.detect_anomaly():
        before = live()
        y = tg.Value(0.5)
        for _ in range(500):
            y = (y * 1.001).tanh()
        y.backward()
        assert live() - before >= 1000
        del y
        assert live() == before


def test_as_a_decorator_each_call_has_its_own_mode() -> None:
    @tg.detect_anomaly()
    def nan_gradient() -> None:
        (tg.Value(0.0).sqrt() * 0).backward()

    for _ in range(2):
        with pytest.raises(tg.AnomalyError):
            nan_gradient()
    assert tg.is_grad_enabled()
    x = tg.Value(0.0)
    (x.sqrt() * 0).backward()  # off again: the nan flows
    assert math.isnan(x.grad)
