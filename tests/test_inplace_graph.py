"""In-place ops in a graph (tensors/inplace.py's recorded writes), beside PyTorch's: each
program below runs against ``torch`` and against topograd, and gives the same numbers and
the same gradients; what topograd does not record is refused, never done differently."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import topograd as tg


def on_a_node(lib: Any) -> list[Any]:
    w = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    h = w * 3.0
    h += w
    h -= 0.5
    h *= w
    h /= 2.0
    h.add_(w, alpha=2.0)
    h.sub_(w, alpha=0.5)
    h.neg_()
    h.tanh_()
    h.sum().backward()
    return [h, w.grad, h.is_leaf, h.requires_grad]


def into_a_constant(lib: Any) -> list[Any]:
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    a = lib.zeros(2)
    a += w * w
    a.mul_(w)
    (a * lib.tensor([1.0, 10.0])).sum().backward()
    return [a, w.grad, a.is_leaf]


def item_assignment(lib: Any) -> list[Any]:
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    m = lib.zeros(3, 2)
    m[1] = w * 2.0
    m[lib.tensor([0, 2]), 1] = w
    m[range(2), lib.tensor([0, 0])] = w.sum()
    (m * lib.arange(6.0).reshape(3, 2)).sum().backward()
    return [m, w.grad]


def index_and_add(lib: Any) -> list[Any]:
    """makemore part 4's ``dC[ix] += demb[k, j]``: read, add, write back, again and again."""
    w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    d = lib.zeros(3, 2)
    for k, row in [(1, 0), (2, 1), (1, 1)]:
        ix = lib.tensor(k)
        d[ix] += w[row] * 2.0
    (d * lib.arange(6.0).reshape(3, 2)).sum().backward()
    return [d, w.grad]


def a_layer_bias(lib: Any) -> list[Any]:
    """makemore part 5's ``self.out = x @ self.weight; self.out += self.bias``."""
    x = lib.ones(4, 3)
    weight = lib.arange(6.0).reshape(3, 2).requires_grad_()
    bias = lib.tensor([0.5, -0.5], requires_grad=True)
    out = x @ weight
    out += bias
    out.relu_()
    out.sum().backward()
    return [out, weight.grad, bias.grad]


PROGRAMS = [on_a_node, into_a_constant, item_assignment, index_and_add, a_layer_bias]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_a_recorded_write_gives_pytorchs_numbers_and_gradients(
    program: Callable[[Any], list[Any]],
) -> None:
    for mine, theirs in zip(program(tg), program(torch), strict=True):
        if isinstance(theirs, torch.Tensor):
            assert mine.dtype.name == str(theirs.dtype).rpartition(".")[2]
            np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), 1e-5, 1e-7)
        else:
            assert mine == theirs


def test_the_tensor_becomes_the_node_its_numbers_shared() -> None:
    """The Tensor itself changes (a view or a detached copy of it sees the new numbers), and
    its former self is the new node's input, with the numbers it had."""
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    h = w * 2.0
    seen = h.detach()
    h += 1.0
    assert seen.tolist() == [3.0, 5.0] and h.op == "add"
    (before,) = [x for x in h._inputs if isinstance(x, tg.Tensor)]
    assert before.op == "mul" and before.tolist() == [2.0, 4.0]


def test_a_node_made_before_the_write_refuses_a_backward() -> None:
    """PyTorch's ``z`` keeps the ``h`` it was made from; topograd's nodes point at Tensors,
    and ``h`` has become another node: a backward through ``z`` is refused, not misrouted."""
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    h = w * 1.0
    z = h + 1.0
    h += w
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()
    h.sum().backward()  # (h itself is fine)
    assert w.grad.tolist() == [2.0, 2.0]


def test_what_is_not_recorded_is_refused() -> None:
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    h = w * 1.0
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w += 1.0
    with pytest.raises(RuntimeError, match="records this in-place op only outside a graph"):
        h.clamp_(0.0, 1.0)
    with pytest.raises(RuntimeError, match="records this in-place op only outside a graph"):
        tg.zeros(2).copy_(h)
    base = tg.zeros(4)
    view = base[1:3]
    view += 0.0  # (a write without a gradient: as ever)
    with pytest.raises(RuntimeError, match="shares them"):
        view += h
    with pytest.raises(RuntimeError, match="names a place twice"):
        tg.zeros(3)[tg.tensor([0, 0])] = h


def test_a_result_of_a_wider_dtype_is_refused_or_cast_as_pytorchs() -> None:
    w = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True)
    h = tg.zeros(2, dtype=tg.float32)
    h += w  # float64 into float32: cast, its gradient back in float64
    h.sum().backward()
    assert h.dtype == tg.float32 and w.grad.dtype == tg.float64
    with pytest.raises(RuntimeError, match="can't be cast"):
        tg.zeros(2, dtype=tg.int64).add_(w)


def test_under_no_grad_nothing_is_recorded() -> None:
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    h = w * 2.0
    with tg.no_grad():
        h += w
    assert h.op == "mul" and h.tolist() == [3.0, 6.0]
