"""Ops run with NumPy's floating-point errors ignored and leave the caller's error state as
it was: after an op, after a backward, after an op that raised, and through the fallback that
enters ``np.errstate`` where NumPy lacks the context variable topograd sets."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import topograd as tg
from topograd.tensors import quiet


@pytest.fixture
def strict():
    """A caller who wants every floating-point error raised, and warnings as errors."""
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        yield np.geterr()


def faults() -> tuple[bytes, bytes]:
    """The bits of an op that divides by zero, overflows and leaves the domain, and of its
    gradient."""
    x = tg.tensor([0.0, -1.0, 1e308, 2.0], dtype=tg.float64, requires_grad=True)
    y = tg.log(x) + x * 10.0 - 1.0 / (x - 2.0)
    y.sum().backward()
    assert x.grad is not None
    return y.detach().numpy().tobytes(), x.grad.numpy().tobytes()


def test_ops_give_ieee_results_and_keep_the_callers_state(strict):
    x = tg.tensor([0.0, -1.0, 1e308, 2.0], dtype=tg.float64, requires_grad=True)
    y = tg.log(x) + x * 10.0 - 1.0 / (x - 2.0)
    assert [str(v) for v in y.detach().numpy()] == ["-inf", "nan", "inf", "-inf"]
    y.sum().backward()
    assert x.grad is not None and np.isinf(x.grad.numpy()[[0, 3]]).all()
    assert np.geterr() == strict
    with pytest.raises(FloatingPointError):
        np.log(np.zeros(1))  # the caller's own NumPy still raises


def test_an_op_that_raises_restores_the_state(strict):
    with pytest.raises(RuntimeError):
        tg.tensor([1.0, 2.0]) @ tg.tensor([1.0, 2.0, 3.0])
    assert np.geterr() == strict
    assert quiet.QUIET.depth == 0


def test_inside_ieee_the_errors_are_ignored_once(strict):
    with quiet.IEEE():
        assert quiet.QUIET.depth == 1
        assert np.geterr() == dict.fromkeys(strict, "ignore")
        assert float(np.float64(1e308) * 10) == float("inf")
    assert np.geterr() == strict and quiet.QUIET.depth == 0


def test_numpy_s_own_context_variable_is_the_one_set() -> None:
    """The fast path is the one in use with this NumPy (a rename in NumPy would fall back to
    np.errstate without a word), and it is the variable np.errstate itself sets."""
    assert type(quiet.errors_var).__name__ == "ContextVar"
    before = quiet.errors_var.get()
    with np.errstate(all="ignore"):
        assert quiet.errors_var.get() is not before
    with np.errstate(call=print, all="call"):  # the caller's error callback is kept
        with quiet.IEEE():
            assert np.geterrcall() is print and np.geterr()["divide"] == "ignore"
        assert np.geterr()["divide"] == "call"


def test_the_np_errstate_fallback_gives_the_same(strict, monkeypatch):
    expected = faults()
    monkeypatch.setattr(quiet, "errors_var", quiet.Errstates())
    monkeypatch.setattr(quiet, "error_state", dict)
    assert faults() == expected
    assert np.geterr() == strict
