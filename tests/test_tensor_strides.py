"""A Tensor's layout as PyTorch tells it: ``stride()``, ``storage_offset()``,
``is_contiguous()``, ``contiguous()`` and the distances between ``data_ptr()``s of views, for
the same views in both libraries; ``tg.Size`` as ``torch.Size`` (printed under topograd's
name); and PyTorch's constants ``tg.inf``, ``tg.nan``, ``tg.pi``, ``tg.e``."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch

import topograd as tg

VIEWS = [
    "M.zeros(2, 3)",
    "M.zeros(2, 3)[1:]",
    "M.zeros(2, 3)[1]",
    "M.zeros(2, 3)[1, 2]",
    "M.zeros(2, 3)[:, 1]",
    "M.zeros(2, 3)[:, 1:]",
    "M.zeros(4, 6)[1::2, 2:]",
    "M.zeros(2, 3).t()",
    "M.zeros(2, 3).t()[1:]",
    "M.zeros(2, 3).T",
    "M.zeros(2, 3).transpose(0, 1)",
    "M.zeros(2, 3, 4).permute(2, 0, 1)",
    "M.zeros(2, 3).view(3, 2)",
    "M.zeros(5)[1:4].view(3, 1)",
    "M.zeros(2, 3).unsqueeze(0)",
    "M.zeros(2, 1, 3)",
    "M.zeros(2, 1, 3)[:, :, 1:]",
    "M.zeros(())",
    "M.zeros(0, 3)",
    "M.zeros(3, 0)",
    "M.zeros(2, 3).t().contiguous()",
    "M.zeros(2, 3, 4)[:, 1].reshape(-1)",
    "M.zeros(2, 3, 4)[1].flatten()",
]


def both(program: str) -> tuple[Any, Any]:
    """The program's Tensor in topograd and in PyTorch."""
    return eval(program, {"M": tg}), eval(program, {"M": torch})


@pytest.mark.parametrize("program", VIEWS)
def test_the_layout_is_pytorchs(program: str) -> None:
    ours, theirs = both(program)
    assert ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset()
    assert ours.is_contiguous() == theirs.is_contiguous()
    for dim in range(-ours.ndim, ours.ndim):
        assert ours.stride(dim) == theirs.stride(dim)


@pytest.mark.parametrize(
    "view",
    [
        lambda x: x[1:],
        lambda x: x[:, 2],
        lambda x: x[2:, 1:],
        lambda x: x.t(),
        lambda x: x.view(24),
        lambda x: x.t()[1:, 3:],
        lambda x: x.permute(1, 0)[2],
    ],
)
def test_views_lie_where_pytorchs_do(view: Any) -> None:
    """The distance from a Tensor's first element to its view's, in bytes, as PyTorch's."""
    x, t = tg.zeros(4, 6), torch.zeros(4, 6)
    assert view(x).data_ptr() - x.data_ptr() == view(t).data_ptr() - t.data_ptr()
    assert view(x).storage_offset() == view(t).storage_offset()


def test_contiguous_is_itself_or_an_ordered_copy_in_the_graph() -> None:
    x, t = tg.ones(2, 3, requires_grad=True), torch.ones(2, 3, requires_grad=True)
    assert x.contiguous() is x and t.contiguous() is t
    ours, theirs = x.t().contiguous(), t.t().contiguous()
    assert ours.is_contiguous() and ours.stride() == theirs.stride()
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    assert ours.data_ptr() != x.data_ptr()
    (ours * tg.arange(6.0).view(3, 2)).sum().backward()
    (theirs * torch.arange(6.0).view(3, 2)).sum().backward()
    assert x.grad.tolist() == t.grad.tolist()
    whole = tg.arange(6).view(2, 3).t().contiguous()
    assert whole.is_contiguous() and whole.tolist() == torch.arange(6).view(2, 3).t().tolist()


def test_expand_is_a_copy() -> None:
    """topograd's ``expand`` copies (README's "Coming from PyTorch"): its strides are those of a
    new Tensor, where PyTorch's repeat an element with a stride of 0."""
    ours = tg.zeros(3, 1).expand(3, 4)
    assert ours.is_contiguous() and ours.stride() == tg.zeros(3, 4).stride()
    assert torch.zeros(3, 1).expand(3, 4).stride() == (1, 0)


def test_a_size_is_pytorchs() -> None:
    ours, theirs = tg.zeros(2, 3, 4), torch.zeros(2, 3, 4)
    for mine, pytorchs in [(ours.shape, theirs.shape), (ours.size(), theirs.size())]:
        assert isinstance(mine, tg.Size) and isinstance(mine, tuple)
        assert mine == pytorchs == (2, 3, 4) and mine.numel() == pytorchs.numel()
        assert type(mine[1:]) is tg.Size and mine[1:] == pytorchs[1:]
        assert mine[0] == pytorchs[0] and type(mine[0]) is int
        assert repr(mine).replace("topograd", "torch") == repr(pytorchs)
        assert str(mine[1:]).replace("topograd", "torch") == str(pytorchs[1:])
    assert ours.size(1) == theirs.size(1) == 3
    assert tg.Size([2, 3]) == torch.Size([2, 3]) and tg.Size().numel() == torch.Size().numel()
    assert repr(tg.zeros(()).shape).replace("topograd", "torch") == repr(torch.zeros(()).shape)


def test_the_constants_are_pytorchs() -> None:
    assert tg.pi == torch.pi and tg.e == torch.e and tg.inf == torch.inf
    assert math.isnan(tg.nan) and math.isnan(torch.nan)
