"""Where a PyTorch user's call meets an edge: the same call on topograd and on PyTorch 2.13
(float64) gives the same numbers, gradients and refusals. Each case was once a silent wrong
answer or a crash (an audit against PyTorch): var's positional ``unbiased``, a fractional
correction, ``all(dim=())``, ``max()`` of a Tensor holding a nan, a bool or float as a dim,
PyTorch's function spellings (``torch.tril(x)``), keywords and ``int(t)``."""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from oracle import same

import topograd as tg

X = np.array([[1.0, 2.0, 4.0], [0.0, 3.0, 7.0]])


def both(call: Callable[[Any, Any], Any], data: Any = X) -> tuple[Any, Any, Any, Any]:
    """``call(lib, x)`` on each library, then the backward of the sum of its result: the two
    results and the two gradients, as arrays."""
    found = []
    for lib in (tg, torch):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings():  # PyTorch's about no degrees of freedom left
            warnings.simplefilter("ignore", UserWarning)
            out = call(lib, x)
        if out.requires_grad:
            out.sum().backward()
        grad = None if x.grad is None else np.asarray(x.grad)
        found += [np.asarray(out.detach().numpy() if lib is torch else out.data), grad]
    ours, our_grad, theirs, their_grad = found
    return ours, theirs, our_grad, their_grad


CALLS = {
    "var(1, False)": lambda lib, x: x.var(1, False),
    "var(False)": lambda lib, x: x.var(False),
    "var(dim, unbiased, keepdim)": lambda lib, x: x.var(0, True, True),
    "std(unbiased=False)": lambda lib, x: x.std(dim=1, unbiased=False),
    "std(correction=0.5)": lambda lib, x: x.std(correction=0.5),
    "var with no dof left": lambda lib, x: x[:1].var(dim=0, correction=2),
    "all(dim=())": lambda lib, x: (x > 1).all(dim=()),
    "any(dim=())": lambda lib, x: (x > 1).any(dim=()),
    "max() with a nan": lambda lib, x: (x / (x - 3.0 + 3.0) * 0.0 + x).max(),
    "max(other)": lambda lib, x: x.max(x.flip(1)),
    "min(other)": lambda lib, x: lib.min(x, x * 0.5),
    "clamp(min=Tensor)": lambda lib, x: x.clamp(min=x.flip(0), max=x * 0.0 + 3.5),
    "round(decimals=1)": lambda lib, x: (x / 3.0).round(decimals=1),
    "round(decimals=-1)": lambda lib, x: (x * 7.0).round(decimals=-1),
    "masked_fill": lambda lib, x: x.masked_fill(x > 2, -1.0),
    "pow": lambda lib, x: x.pow(2) + x.pow(x * 0.5),
    "clone": lambda lib, x: x.clone() * 2,
    "mT": lambda lib, x: x.mT * lib.arange(2.0),
    "softmax(dim)": lambda lib, x: x.softmax(1) * x.log_softmax(0),
    "torch.tril / triu": lambda lib, x: lib.tril(x) + lib.triu(x, 1) * 2,
    "torch.sum(x, dim)": lambda lib, x: lib.sum(x, dim=1) + lib.mean(x, 1),
    "torch.cat / stack": lambda lib, x: (
        lib.cat([x, x * 2], dim=1)[:, 1:4] + lib.stack([x, x], 0)[1]
    ),
    "torch.matmul / mm": lambda lib, x: lib.matmul(x, x.t()) + lib.mm(x, x.T),
    "torch.clamp / pow": lambda lib, x: lib.clamp(x, 1.0, 3.0) + lib.pow(x, 2),
    "torch.softmax": lambda lib, x: lib.softmax(x, dim=0) + lib.log_softmax(x, 1),
    "torch.dot": lambda lib, x: lib.dot(x[0], x[1]),
    "torch.prod / cumsum": lambda lib, x: lib.prod(x + 1, 1) + lib.cumsum(x, dim=1)[:, -1],
    "torch.permute / flatten": lambda lib, x: lib.flatten(lib.permute(x, (1, 0))),
    "keywords": lambda lib, x: x.permute(dims=(1, 0)).reshape(shape=(6,)).flip(dims=(0,)),
    "expand(size=)": lambda lib, x: x[:1].expand(size=(3, 3)),
    "split(split_size=)": lambda lib, x: x.split(split_size=1)[1],
    "roll((1,))": lambda lib, x: x.roll((1,)),
}


@pytest.mark.parametrize("name", CALLS)
def test_a_call_gives_pytorchs_numbers_and_gradients(name: str) -> None:
    ours, theirs, our_grad, their_grad = both(CALLS[name])
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=1e-15)
    if their_grad is None:
        assert our_grad is None
    else:
        np.testing.assert_allclose(our_grad, their_grad, rtol=1e-14, atol=1e-15)


def test_max_of_a_whole_tensor_gives_the_gradient_to_its_nans() -> None:
    x = tg.tensor([1.0, float("nan"), 3.0, float("nan")], requires_grad=True)
    x.max().backward()
    assert np.isnan(x.max().item()) and x.grad.tolist() == [0.0, 0.5, 0.0, 0.5]
    y = tg.tensor([1.0, float("nan")], requires_grad=True)
    y.amax().backward()  # torch.amax: nan everywhere
    assert np.isnan(y.grad).all()


def pieces(x: Any) -> list[Any]:
    return [tuple(p.shape) for p in x]


def test_split_and_chunk_of_an_empty_axis_are_pytorchs() -> None:
    for lib in (tg, torch):
        empty = lib.zeros(0, 3)
        assert pieces(empty.chunk(2)) == [(0, 3), (0, 3)]
        assert pieces(empty.split(0)) == [(0, 3)]
        assert pieces(lib.zeros(5, 3).chunk(3)) == [(2, 3), (2, 3), (1, 3)]
        with pytest.raises(RuntimeError, match="split_size can only be 0"):
            lib.zeros(2, 3).split(0)


REFUSALS: dict[str, tuple[Callable[[Any, Any], Any], type]] = {
    "sum(dim=True)": (lambda lib, x: x.sum(dim=True), TypeError),
    "sum(dim=1.0)": (lambda lib, x: x.sum(dim=1.0), TypeError),
    "cumsum of a number along dim 5": (lambda lib, x: x[0, 0].cumsum(dim=5), IndexError),
    "arange the wrong way": (lambda lib, x: lib.arange(0, 5, -1), RuntimeError),
    "arange by 0": (lambda lib, x: lib.arange(0, 5, 0), RuntimeError),
    "shapes that do not broadcast": (lambda lib, x: x + lib.ones(4), RuntimeError),
    "permute twice the same": (lambda lib, x: x.permute(0, 0), RuntimeError),
    "split into wrong sizes": (lambda lib, x: x.split([1, 2], dim=0), RuntimeError),
    "expand to fewer axes": (lambda lib, x: x.expand(4), RuntimeError),
    "repeat too few": (lambda lib, x: x.repeat(2), RuntimeError),
    "tril of a vector": (lambda lib, x: x[0].tril(), RuntimeError),
    "flatten backwards": (lambda lib, x: x.flatten(1, 0), RuntimeError),
    "item of many": (lambda lib, x: x.item(), RuntimeError),
    "einsum of a bad equation": (lambda lib, x: lib.einsum("ij,jk->ik", x, x), RuntimeError),
    "int of many": (lambda lib, x: int(x), ValueError),
    "an index of a fraction": (lambda lib, x: [1, 2, 3][x[0, 0] * 0.5], TypeError),
    "mT of a vector": (lambda lib, x: x[0].mT, RuntimeError),
    "dot of matrices": (lambda lib, x: lib.dot(x, x), RuntimeError),
}


@pytest.mark.parametrize("name", REFUSALS)
def test_a_refusal_is_pytorchs_kind_of_error(name: str) -> None:
    call, error = REFUSALS[name]
    for lib in (tg, torch):
        with pytest.raises(error):
            call(lib, lib.tensor(X, dtype=lib.float64))


def test_a_tensor_of_one_integer_is_an_int_and_an_index() -> None:
    for lib in (tg, torch):
        t = lib.tensor(2)
        assert int(t) == 2 and [10, 20, 30][t] == 30
        assert [10, 20, 30][lib.tensor(True)] == 20  # (a boolean is an integer)
        with pytest.raises(TypeError, match="only integer tensors of a single element"):
            [10, 20, 30][lib.tensor(2.0)]
    assert int(tg.tensor([[3.7]])) == int(torch.tensor([[3.7]])) == 3
    for lib in (tg, torch):  # of a float, whole or not: no index, as PyTorch's
        with pytest.raises(TypeError, match="only integer tensors of a single element"):
            [10, 20, 30][lib.tensor(2.0)]


def test_pytorchs_functions_of_tensors_are_there_and_named() -> None:
    for name in ("tril", "triu", "matmul", "softmax", "cat", "permute", "var", "gather"):
        assert callable(getattr(tg, name)) and callable(getattr(torch, name))
    assert tg.tril.__name__ == "tril" and "diagonal" in (tg.tril.__doc__ or "")
    assert tg.autograd.grad is tg.grad and tg.autograd.Function is tg.Function
    with pytest.raises(AttributeError, match="no attribute 'trill'"):
        tg.trill  # noqa: B018
    # tg.sum and tg.dot still fuse Values, as micrograd's users call them
    a, b = tg.Value(2.0), tg.Value(3.0)
    assert tg.sum([a, b]).op == "sum" and tg.dot([a], [b]).op == "dot"


def test_a_function_giving_too_many_gradients_is_refused_as_pytorch_refuses_it() -> None:
    messages = []
    for lib in (tg, torch):

        class Double(lib.autograd.Function):  # type: ignore[misc, name-defined]
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return grad, grad

        x = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="returned an incorrect number of gradients") as e:
            Double.apply(x).sum().backward()
        messages.append(str(e.value).split(":")[0])
    assert messages[0] == messages[1]


SPECIAL = [math.nan, -math.inf, -1.0, -0.0, 0.0, 1.0, math.inf]
LIMITED = {  # x.clamp with Tensor limits: both, min= only, max= only
    "both": lambda x, low, high: x.clamp(low, high),
    "min": lambda x, low, high: x.clamp(min=low),
    "max": lambda x, low, high: x.clamp(max=high),
}


def bits_equal(ours: Any, theirs: Any, what: str, signed_zeros: bool = True) -> None:
    """The same IEEE values element by element: nan with nan, zeros with their signs (unless
    ``signed_zeros`` is False)."""
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    if not signed_zeros:
        ours, theirs = ours + 0.0, theirs + 0.0
    assert ours.shape == theirs.shape, what
    wrong = [
        (i, a, b) for i, (a, b) in enumerate(zip(ours.ravel(), theirs.ravel())) if not same(a, b)
    ]
    assert not wrong, f"{what}: {len(wrong)} differ, first (index, ours, PyTorch) {wrong[:4]}"


@pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")  # (torch.func's import)
@pytest.mark.parametrize("which", LIMITED)
@pytest.mark.parametrize("upstream", [1.0, math.inf, math.nan])
def test_clamp_with_tensor_limits_is_pytorchs_at_nans_ties_and_crossed_limits(
    which: str, upstream: float
) -> None:
    """Every triple of special points (x, low, high; a nan anywhere, ties, low > high): the
    value and each input's gradient (PyTorch's clamp_backward and clamp_backward_min_max, which
    select: +0.0 for an input that gets nothing, whatever comes in), and forward mode (its
    clamp_jvp, which is not the transpose of those at a nan)."""
    grid = np.array(list(itertools.product(SPECIAL, repeat=3))).T.copy()
    f = LIMITED[which]
    ours = [tg.Tensor(a, requires_grad=True) for a in grid]
    theirs = [torch.tensor(a, requires_grad=True) for a in grid]
    out, their_out = f(*ours), f(*theirs)
    # (at a tie of -0.0 and 0.0 PyTorch's vectorised loop picks the other zero than its scalar
    # loop, which the Values and the conformance suite's 0-d Tensors follow)
    bits_equal(out.data, their_out.detach().numpy(), f"{which}: value", signed_zeros=False)
    out.backward(np.full(out.shape, upstream))
    their_out.backward(torch.full(their_out.shape, upstream, dtype=torch.float64))
    for k, (mine, their) in enumerate(zip(ours, theirs)):
        expected = np.zeros(grid.shape[1]) if their.grad is None else their.grad.numpy()
        bits_equal(np.zeros(grid.shape[1]) if mine.grad is None else mine.grad, expected, f"d/d{k}")
    tangents = tuple(np.full(grid.shape[1], 10.0**k) for k in range(3))  # which one passes
    _, tangent = tg.func.jvp(f, tuple(grid), tangents)
    _, their_tangent = torch.func.jvp(
        f, tuple(torch.tensor(a) for a in grid), tuple(torch.tensor(t) for t in tangents)
    )
    bits_equal(tangent, their_tangent.numpy(), f"{which}: forward mode")
