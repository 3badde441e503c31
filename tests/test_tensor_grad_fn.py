"""``Tensor.grad_fn`` as PyTorch's: None for leaves and for Tensors made without a graph; for
an op's result a node whose ``name()``, class name, ``repr`` and place in a printed Tensor are
PyTorch's for the same program, whose ``next_functions`` lead to the inputs' nodes (a leaf's
``AccumulateGrad``, its ``variable`` the leaf), the same node at each asking; and no
reference cycle for the garbage collector."""

from __future__ import annotations

import gc
import re
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as torch_f

import topograd as tg
import topograd.nn.functional as tg_f

# programs whose last op is the same in both libraries, the node named alike
SAME = """
x * y | x * 2 | 2 * x | x + y | x + 2 | 2 + x | x - y | x - 2 | 2 - x | x / y | x / 2 | -x
x ** 2 | x ** y | 2 ** x | x.sum() | x.sum(0) | x.sum(dim=1, keepdim=True) | x.mean()
x.mean(0) | x @ y.t() | x @ v | v @ v | v @ x.t() | b @ w.t() | b @ v | b @ b.transpose(1, 2)
x.transpose(0, 1) | b.permute(2, 0, 1) | x.reshape(-1) | x.view(6) | x.flatten()
x.t().reshape(-1) | x.t().reshape(3, 2) | x[0] | x[:, 1] | x[1:] | x[0, 1] | x[0, 1:]
x[[0, 1]] | x[x > 0] | x[None] | x[..., 0] | x[1:, None] | x.exp() | x.log() | x.tanh()
x.sigmoid() | x.relu() | x.abs() | x.sqrt() | x.clamp(0, 1) | x.clamp(min=0) | x.max()
x.amax(0) | x.min() | x.amin(1) | x.std() | x.var() | x.softmax(1) | x.log_softmax(1)
x.logsumexp(1) | x.cumsum(1) | x.prod() | x.prod(0) | x.double() | x.to(M.float64)
x.clone() | x.expand(2, 2, 3) | M.cat([x, y]) | M.stack([x, y]) | M.where(x > 0, x, y)
M.maximum(x, y) | M.minimum(x, y) | x.sin() | x.cos() | x.round() | x.floor() | x.sign()
F.linear(x, w, bias) | F.linear(x, w) | F.linear(b, w, bias) | F.relu(x) | F.gelu(x)
F.gelu(x, approximate="tanh") | F.silu(x) | F.elu(x) | F.leaky_relu(x)
F.cross_entropy(x, target) | F.conv2d(img, kern) | F.conv2d(img, kern, kb)
F.max_pool2d(img, 2) | F.avg_pool2d(img, 2) | x.erf() | x.expm1() | x.log1p() | x.log2()
x.log10() | x.clamp(M.zeros(3), M.ones(3))
"""
PROGRAMS = [p.strip() for line in SAME.strip().splitlines() for p in line.split("|")]


def names(library: Any, functional: Any) -> dict[str, Any]:
    """The same numbers in either library: leaves that require grad, and constants."""
    draw = np.random.default_rng(0)

    def leaf(*shape: int) -> Any:
        numbers = draw.standard_normal(shape).astype(np.float32)
        return library.tensor(numbers, requires_grad=True)

    return {
        "M": library,
        "F": functional,
        "x": leaf(2, 3),
        "y": leaf(2, 3),
        "v": leaf(3),
        "b": leaf(4, 2, 3),
        "w": leaf(5, 3),
        "bias": leaf(5),
        "target": library.tensor([0, 2]),
        "img": leaf(1, 2, 4, 4),
        "kern": leaf(3, 2, 3, 3),
        "kb": leaf(3),
    }


def _kind(node: Any) -> str | None:
    return None if node is None else node.name()


@pytest.mark.parametrize("program", PROGRAMS)
def test_the_node_is_named_as_pytorchs(program: str) -> None:
    ours = eval(program, names(tg, tg_f))
    theirs = eval(program, names(torch, torch_f))
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    assert f"grad_fn=<{theirs.grad_fn.name()}>" in repr(ours)


# programs whose inputs are the same in both libraries: next_functions alike too
CHAINS = [
    "(x * y).sum()",
    "(x * 2).exp()",
    "x.exp() + y",
    "(x @ v).tanh()",
    "x[0] * v",
    "(x.sum(0) - v).relu()",
    "M.stack([x.sin(), y]).mean()",
    "x.reshape(-1)[1:]",
]


@pytest.mark.parametrize("program", CHAINS)
def test_next_functions_are_pytorchs(program: str) -> None:
    ours = eval(program, names(tg, tg_f))
    theirs = eval(program, names(torch, torch_f))
    todo = [(ours.grad_fn, theirs.grad_fn)]
    while todo:  # (the two graphs side by side, without recursion)
        mine, pytorchs = todo.pop()
        assert _kind(mine) == _kind(pytorchs)
        if mine is None:
            continue
        assert [i for _, i in mine.next_functions] == [i for _, i in pytorchs.next_functions]
        todo += [(a, b) for (a, _), (b, _) in zip(mine.next_functions, pytorchs.next_functions)]


def test_leaves_and_tensors_made_without_a_graph_have_none() -> None:
    x = tg.ones(3, requires_grad=True)
    with tg.no_grad():
        made = x * 2
    for tensor in [x, tg.ones(3), tg.ones(3) * 2, made, (x * 2).detach(), tg.arange(3) + 1]:
        assert tensor.grad_fn is None
    t = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        assert (t * 2).grad_fn is None
    assert t.grad_fn is None and (t * 2).detach().grad_fn is None


def test_a_leaf_is_reached_through_accumulate_grad() -> None:
    x, t = tg.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    ours, theirs = (x * 2 + x).grad_fn, (t * 2 + t).grad_fn
    (mine, _), (leaf, _) = ours.next_functions
    (pytorchs, _), (accumulated, _) = theirs.next_functions
    assert leaf.variable is x and accumulated.variable is t
    assert leaf.name() == accumulated.name() and leaf.next_functions == ()
    assert type(leaf).__name__ == type(accumulated).__name__
    assert mine.next_functions[1] == pytorchs.next_functions[1] == (None, 0)  # the number 2


def test_the_repr_and_the_identity_are_pytorchs() -> None:
    x, t = tg.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    y, u = x * 2, t * 2
    shape = r"<MulBackward0 object at 0x[0-9a-f]+>"
    assert re.fullmatch(shape, repr(y.grad_fn)) and re.fullmatch(shape, repr(u.grad_fn))
    assert repr(y.grad_fn) == f"<MulBackward0 object at {id(y.grad_fn):#x}>"
    assert (y.grad_fn is y.grad_fn) == (u.grad_fn is u.grad_fn) is True
    assert ((y + 1).grad_fn.next_functions[0][0] is y.grad_fn) is True
    assert ((u + 1).grad_fn.next_functions[0][0] is u.grad_fn) is True
    assert repr(tg.tensor([1.0, 2.0], requires_grad=True) * 2) == repr(
        torch.tensor([1.0, 2.0], requires_grad=True) * 2
    )


def test_an_op_in_place_makes_the_tensor_another_node() -> None:
    x, t = tg.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    h, g = x * 1, t * 1
    before = h.grad_fn
    h += x
    g += t
    assert h.grad_fn is not before and h.grad_fn.name() == g.grad_fn.name() == "AddBackward0"
    assert h.grad_fn.next_functions[0][0].name() == "MulBackward0"


def test_a_function_s_node_is_named_after_its_class() -> None:
    def double(base: Any) -> Any:
        class Double(base):  # type: ignore[misc, valid-type]
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return grad * 2

        return Double

    ours = double(tg.Function).apply(tg.ones(2, requires_grad=True))
    theirs = double(torch.autograd.Function).apply(torch.ones(2, requires_grad=True))
    assert ours.grad_fn.name() == theirs.grad_fn.name() == "DoubleBackward"


def test_nodes_make_no_reference_cycle() -> None:
    gc.collect()
    gc.disable()
    try:
        x = tg.ones(2, 3, requires_grad=True)
        y = ((x * 2).sum(0) @ tg.ones(3)).exp()
        todo = [y.grad_fn]
        while todo:
            node = todo.pop()
            todo += [n for n, _ in getattr(node, "next_functions", ()) if n is not None]
        print(y)
        del x, y, todo, node
        assert gc.collect() == 0
    finally:
        gc.enable()
