"""``tg.where``: the registry's one ``where`` entry, on Values and on Tensors, as ``torch.where``.

On Values the condition is a bool (a comparison's result); the gradient goes to the branch
chosen, and the other gets exactly 0 (a selection, not a product: an infinite or nan upstream
gradient gives it 0 too), to second order as PyTorch's on 0-d tensors. On Tensors the
condition holds booleans: a Tensor of numbers is refused, as PyTorch refuses it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import topograd as tg
from topograd.autograd.registry import OPS
from topograd.tensors.tensor import constant

FINITE = st.floats(-1e3, 1e3, allow_nan=False)


def same(ours: float, theirs: float) -> bool:
    return (math.isnan(ours) and math.isnan(theirs)) or ours == theirs


def test_tg_where_is_the_registrys_one_entry() -> None:
    assert tg.where is OPS["where"]
    assert tg.where(True, 2.0, 3.0) == 2.0 and tg.where(False, 2.0, 3.0) == 3.0


@given(st.booleans(), FINITE, FINITE, st.sampled_from(["xy", "x", "y"]))
def test_where_on_values_is_torchs_on_0d_tensors(
    cond: bool, x: float, y: float, nodes: str
) -> None:
    """Values or numbers on either side; the condition a comparison of Values gives."""
    a, b = tg.Value(x), tg.Value(y)
    ta = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    held = (tg.Value(1.0) > 0) if cond else (tg.Value(1.0) < 0)
    ours = tg.where(held, a if "x" in nodes else x, b if "y" in nodes else y)
    theirs = torch.where(torch.tensor(cond), ta if "x" in nodes else x, tb if "y" in nodes else y)
    assert isinstance(ours, tg.Value) and ours.op == "where" and ours.data == theirs.item()
    (ours * 3.0).backward()
    (theirs * 3.0).backward()
    if "x" in nodes:
        assert ta.grad is not None and a.grad == ta.grad.item()
    if "y" in nodes:
        assert tb.grad is not None and b.grad == tb.grad.item()


@pytest.mark.parametrize("upstream", [math.inf, -math.inf, math.nan])
@pytest.mark.parametrize("cond", [True, False])
def test_the_branch_not_chosen_gets_exactly_zero_whatever_comes_down(
    cond: bool, upstream: float
) -> None:
    a, b = tg.Value(2.0), tg.Value(-1.0)
    ta = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(-1.0, dtype=torch.float64, requires_grad=True)
    tg.where(cond, a, b).backward(upstream)
    torch.where(torch.tensor(cond), ta, tb).backward(torch.tensor(upstream, dtype=torch.float64))
    assert ta.grad is not None and tb.grad is not None
    assert same(a.grad, ta.grad.item()) and same(b.grad, tb.grad.item())
    assert (b.grad if cond else a.grad) == 0.0


@given(st.booleans(), st.floats(-10, 10, allow_nan=False), st.floats(-10, 10, allow_nan=False))
def test_second_derivatives_of_where_on_values_are_torchs(cond: bool, x: float, y: float) -> None:
    a, b = tg.Value(x), tg.Value(y)
    ta = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    ours = tg.where(cond, a * a * a, b.sin())
    theirs = torch.where(torch.tensor(cond), ta * ta * ta, tb.sin())
    firsts = tg.grad(ours, [a, b], create_graph=True)
    tfirsts = torch.autograd.grad(theirs, [ta, tb], create_graph=True)
    for d, td in zip(firsts, tfirsts):
        assert d.data == td.item()
    seconds = tg.grad(firsts[0] + firsts[1], [a, b])
    tseconds = torch.autograd.grad(tfirsts[0] + tfirsts[1], [ta, tb])
    assert [float(s) for s in seconds] == pytest.approx([t.item() for t in tseconds], rel=1e-15)


def test_where_on_values_loads_no_numpy(tmp_path: Any) -> None:
    import subprocess
    import sys

    script = (
        "import sys, topograd as tg\n"
        "a = tg.Value(2.0)\n"
        "tg.where(a > 0, a, a * a).backward()\n"
        "print('numpy' in sys.modules, a.grad)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.stdout.split() == ["False", "1.0"], out.stderr


# On Tensors: the condition's dtype, and the numbers beside it.


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32])
def test_a_condition_of_numbers_is_refused_as_torch_refuses_it(dtype: Any) -> None:
    values = np.array([1, 0, 1], dtype=dtype)
    x = tg.Tensor([1.0, 2.0, 3.0])
    with pytest.raises(RuntimeError) as theirs:
        torch.where(torch.from_numpy(values), torch.ones(3), torch.zeros(3))
    with pytest.raises(RuntimeError) as ours:
        tg.where(constant(values), x, 0.0)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor"):
        tg.where(values, x, 0.0)  # an array of numbers too


@given(st.lists(st.booleans(), min_size=1, max_size=6), FINITE, FINITE)
def test_numbers_beside_a_boolean_condition_keep_their_values(
    mask: list[bool], x: float, y: float
) -> None:
    """A number meets the condition's booleans: it keeps its value (PyTorch's float), never
    becomes a boolean; x and y a Tensor and a number, or two numbers."""
    held = tg.Tensor(np.array([float(m) for m in mask])) > 0.5
    theirs = torch.where(torch.tensor(mask), x, y)  # in the default float dtype, float32
    ours = tg.where(held, x, y)
    assert isinstance(ours, tg.Tensor) and ours.dtype == np.dtype(str(theirs.dtype)[6:])
    np.testing.assert_array_equal(ours.array, theirs.numpy())
    branch = tg.Tensor(np.full(len(mask), x), requires_grad=True)
    tbranch = torch.full((len(mask),), x, dtype=torch.float64, requires_grad=True)
    tg.where(held, branch, y).sum().backward()
    torch.where(torch.tensor(mask), tbranch, y).sum().backward()
    assert branch.grad is not None and tbranch.grad is not None
    np.testing.assert_array_equal(branch.grad, tbranch.grad.numpy())


@pytest.mark.parametrize("number", [2.5, -1.0, 3])
def test_a_mask_times_a_number_holds_the_number_as_torchs(number: float) -> None:
    mask = [True, False, True]
    ours = (tg.Tensor([1.0, 0.0, 1.0]) > 0.5) * number
    theirs = torch.tensor(mask) * number
    np.testing.assert_array_equal(ours.data, theirs.numpy())
    assert ours.dtype.is_floating_point == theirs.dtype.is_floating_point
