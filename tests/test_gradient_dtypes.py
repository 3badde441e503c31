"""A gradient in each node's dtype, as PyTorch's engine casts it (its validate_outputs:
``grad.to(input's dtype)`` on every edge, differentiably under ``create_graph``): random
trees of + - * / over float32 and float64 leaves, the upstream gradient of either dtype (an
array, or a Tensor kept in the graph), with and without ``create_graph``. + - * / round
correctly on both sides and a tree passes one contribution along each edge, so every first
derivative is PyTorch's to the bit, in its dtype; second derivatives are in PyTorch's dtypes
and within float32's rounding of its values."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from hypothesis import given
from hypothesis import strategies as st
from oracle import same

import topograd as tg

ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": operator.truediv,
}
DTYPES = {"float32": torch.float32, "float64": torch.float64}


@dataclass
class Tree:
    leaves: list[tuple[str, list[float]]]  # dtype and numbers of each leaf
    steps: list[tuple[str, int, int]]  # op and two earlier nodes, each used once
    upstream: str  # the upstream gradient's dtype


@st.composite
def trees(draw: st.DrawFn) -> Tree:
    number = st.floats(-4, 4, allow_nan=False, width=32).filter(lambda v: abs(v) > 0.1)
    count = draw(st.integers(2, 5))
    leaves = [
        (draw(st.sampled_from(list(DTYPES))), draw(st.lists(number, min_size=3, max_size=3)))
        for _ in range(count)
    ]
    free, steps = list(range(count)), []
    while len(free) > 1:  # each node feeds one op: a tree
        i = free.pop(draw(st.integers(0, len(free) - 1)))
        j = free.pop(draw(st.integers(0, len(free) - 1)))
        steps.append((draw(st.sampled_from(list(ARITHMETIC))), i, j))
        free.append(count + len(steps) - 1)
    return Tree(leaves, steps, draw(st.sampled_from(list(DTYPES))))


def build(tree: Tree, make: Callable[[str, list[float]], Any]) -> tuple[list[Any], Any]:
    nodes = [make(dtype, numbers) for dtype, numbers in tree.leaves]
    for op, i, j in tree.steps:
        nodes.append(ARITHMETIC[op](nodes[i], nodes[j]))
    return nodes[: len(tree.leaves)], nodes[-1]


def ours(dtype: str, numbers: list[float]) -> tg.Tensor:
    return tg.Tensor(np.array(numbers, dtype), requires_grad=True)


def theirs(dtype: str, numbers: list[float]) -> torch.Tensor:
    return torch.tensor(numbers, dtype=DTYPES[dtype], requires_grad=True)


def equal_bits(mine: Any, their: torch.Tensor, what: str) -> None:
    expected = their.detach().numpy()
    mine = np.asarray(mine.data if isinstance(mine, tg.Tensor) else mine)
    assert mine.dtype == expected.dtype, (what, mine.dtype, expected.dtype)
    assert all(same(float(a), float(b)) for a, b in zip(mine, expected)), (what, mine, expected)


@given(trees(), st.booleans())
def test_each_gradient_is_in_its_nodes_dtype_as_pytorch_casts_it(
    tree: Tree, create_graph: bool
) -> None:
    leaves, out = build(tree, ours)
    their_leaves, their_out = build(tree, theirs)
    numbers = np.array([0.3, -1.7, 2.5], tree.upstream)
    upstream: Any = tg.Tensor(numbers) if create_graph else numbers
    found = tg.grad(out, leaves, grad_outputs=upstream, create_graph=create_graph)
    expected = torch.autograd.grad(
        their_out, their_leaves, torch.tensor(numbers), create_graph=create_graph
    )
    for k, (mine, their) in enumerate(zip(found, expected, strict=True)):
        equal_bits(mine, their, f"d/d leaf {k}")
    firsts = [g for g in found if create_graph and g.requires_grad]
    if not firsts:  # (a sum's first derivatives are constants)
        return
    ones = [np.ones(3, g.dtype) for g in firsts]
    seconds = tg.grad(firsts, leaves, ones, allow_unused=True, materialize_grads=True)
    their_firsts = [(g, torch.ones_like(g)) for g in expected if g.requires_grad]
    their_seconds = torch.autograd.grad(
        [g for g, _ in their_firsts],
        their_leaves,
        [ones for _, ones in their_firsts],
        allow_unused=True,
        materialize_grads=True,
    )
    for k, (mine, their) in enumerate(zip(seconds, their_seconds, strict=True)):
        assert mine.dtype == their.numpy().dtype, (k, mine.dtype, their.dtype)
        np.testing.assert_allclose(mine, their.numpy(), rtol=1e-5, atol=1e-5)


def test_a_float64_upstream_of_a_float32_output_is_cast_in_the_graph() -> None:
    """The reported case: float32 exp at 0.22, upstream 0.3 in float64, create_graph."""
    x = tg.Tensor(np.array([0.22], np.float32), requires_grad=True)
    tx = torch.tensor([0.22], dtype=torch.float32, requires_grad=True)
    upstream = tg.Tensor(np.array([0.3]), requires_grad=True)
    their_upstream = torch.tensor([0.3], dtype=torch.float64, requires_grad=True)
    (g,) = tg.grad(x.exp(), [x], grad_outputs=upstream, create_graph=True)
    (tg_,) = torch.autograd.grad(tx.exp(), [tx], their_upstream, create_graph=True)
    equal_bits(g, tg_, "d/dx")
    (by_upstream,) = tg.grad(g, [upstream], np.ones(1, np.float32))
    (their_by_upstream,) = torch.autograd.grad(tg_, [their_upstream], torch.ones(1))
    equal_bits(by_upstream, their_by_upstream, "d/d upstream (the cast's rule casts back)")
