"""einsum and tensordot where they meet PyTorch's edges: axes of length 1 that broadcast and are
then summed away, capital letters, tensordot's axes (negative, out of range, repeated, more than
the alphabet), and random equations (diagonals, ellipses, broadcasting) against torch.einsum,
values, gradients and second order, in float64."""

from __future__ import annotations

import string
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import topograd as tg
from topograd.autograd.registry import OPS

RNG = np.random.default_rng(11)


def assert_like_torch(equation: str, arrays: list[np.ndarray], weights_seed: int = 0) -> None:
    """tg.einsum's value, gradients (of a loss that is not linear, so that they depend on the
    operands) and second order are torch.einsum's."""
    ours = [tg.Tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, expected = tg.einsum(equation, *ours), torch.einsum(equation, *theirs)
    assert out.shape == tuple(expected.shape)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12, atol=1e-12)
    weights = np.random.default_rng(weights_seed).standard_normal(tuple(expected.shape))
    grads = tg.grad((out * weights).sum() ** 2, ours, create_graph=True)
    expected_grads = torch.autograd.grad(
        (expected * torch.tensor(weights)).sum() ** 2, theirs, create_graph=True
    )
    for g, e, t in zip(grads, expected_grads, ours, strict=True):
        assert g.shape == t.shape
        np.testing.assert_allclose(g.data, e.detach().numpy(), rtol=1e-11, atol=1e-11)
    second = tg.grad(sum(g.sum() for g in grads), ours, allow_unused=True)
    expected_second = torch.autograd.grad(
        sum(e.sum() for e in expected_grads), theirs, allow_unused=True
    )
    for g2, e2, t in zip(second, expected_second, ours, strict=True):
        assert (g2 is None) == (e2 is None)  # None: nothing of second order depends on it
        if g2 is None or e2 is None:
            continue
        assert g2.shape == t.shape
        np.testing.assert_allclose(g2, e2.numpy(), rtol=1e-11, atol=1e-11)


def normal(*shapes: tuple[int, ...]) -> list[np.ndarray]:
    return [RNG.standard_normal(s) for s in shapes]


@pytest.mark.parametrize(
    ("equation", "shapes"),
    [
        ("ij,ij->", [(1, 3), (4, 3)]),
        ("ij,ij->", [(4, 3), (1, 3)]),
        ("ij,ij->i", [(1, 3), (4, 1)]),
        ("ij,ij->j", [(1, 3), (4, 1)]),
        ("ij,jk->ik", [(2, 1), (3, 4)]),
        ("ij,jk->", [(2, 3), (1, 4)]),
        ("i,i->", [(1,), (4,)]),
        ("ij,jk,kl->", [(2, 1), (3, 4), (1, 2)]),
        ("ij,jk,kl->j", [(2, 3), (1, 4), (4, 2)]),
        ("...i,...i->", [(1, 3), (4, 3)]),
        ("ii,i->", [(1, 1), (3,)]),
        ("ij,ij->", [(1, 3), (0, 3)]),
    ],
)
def test_an_axis_of_length_one_broadcast_then_summed_away(
    equation: str, shapes: list[tuple[int, ...]]
) -> None:
    assert_like_torch(equation, normal(*shapes))


def test_the_entry_itself_takes_an_axis_that_broadcast() -> None:
    """The registry's einsum, called without the Tensor function, spreads the gradient back
    along a broadcast axis too (the rule, not only the Tensor function, knows it)."""
    a, b = normal((1, 3), (4, 3))
    ours = [tg.Tensor(a, requires_grad=True), tg.Tensor(b, requires_grad=True)]
    theirs = [torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)]
    OPS["einsum"](*ours, equation="ij,ij->").backward()
    torch.einsum("ij,ij->", *theirs).backward()
    for t, e in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(t.grad, e.grad.numpy(), rtol=1e-13)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("equation", "shapes"),
    [
        ("Ab,bA", [(2, 3), (3, 2)]),
        ("ABC->CA", [(2, 3, 4)]),
        ("bA", [(2, 3)]),
        ("iI,Ii", [(2, 3), (3, 2)]),
        ("...A,A->...", [(2, 3, 4), (4,)]),
        ("...A,Ab", [(2, 3, 4), (4, 5)]),
        ("a...,Z", [(2, 3, 4), (5,)]),
        ("AA->A", [(3, 3)]),
        ("Ba,aZ->ZB", [(2, 3), (3, 4)]),
    ],
)
def test_capital_letters_are_pytorchs(equation: str, shapes: list[tuple[int, ...]]) -> None:
    """a-z and A-Z, capitals before small letters in an implicit output (PyTorch's order); an
    ellipsis takes letters the equation leaves unused."""
    assert_like_torch(equation, normal(*shapes))


def test_fifty_two_letters() -> None:
    letters = string.ascii_letters
    arrays = normal(tuple([1] * 26), tuple([1] * 26))
    assert_like_torch(f"{letters[:26]},{letters[26:]}", arrays)
    assert_like_torch(f"{letters[:25]}...,{letters[26:]}", arrays)


@pytest.mark.parametrize(
    ("equation", "shapes", "message"),
    [
        ("i1->i", [(2, 3)], "subscripts are lowercase letters or capitals"),
        ("i_,i->", [(2, 3), (2,)], "subscripts are lowercase letters or capitals"),
        ("iA,Ai->i", [(2, 3), (4, 2)], "'A' in 'iA,Ai->i' names axes of 3 and 4"),
        ("AA->A", [(2, 3)], "'A' names axes of 2 and 3"),
        ("ij,ij->", [(2, 3), (4, 3)], "'i' in 'ij,ij->' names axes of 2 and 4"),
    ],
)
def test_einsum_refuses_what_pytorch_refuses(
    equation: str, shapes: list[tuple[int, ...]], message: str
) -> None:
    arrays = normal(*shapes)
    with pytest.raises(ValueError, match=message):
        tg.einsum(equation, *[tg.Tensor(a) for a in arrays])
    with pytest.raises(RuntimeError):
        torch.einsum(equation, *[torch.tensor(a) for a in arrays])


def assert_tensordot_like_torch(dims: Any, shapes: list[tuple[int, ...]]) -> None:
    arrays = normal(*shapes)
    ours = [tg.Tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, expected = tg.tensordot(*ours, dims=dims), torch.tensordot(*theirs, dims=dims)
    assert out.shape == tuple(expected.shape)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12, atol=1e-13)
    weights = RNG.standard_normal(tuple(expected.shape))
    (out * weights).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    for t, e in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(t.grad, e.grad.numpy(), rtol=1e-12, atol=1e-13)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("dims", "shapes"),
    [
        (([-2], [-1]), [(2, 3), (4, 2)]),
        (([1, -2], [-1, 0]), [(3, 2), (3, 2)]),
        (([-1], [0]), [(2, 3), (3, 4)]),
        (([], []), [(2,), (3,)]),
        # more axes than 26 letters, then more than 52: one matrix product
        (0, [(1, 2) * 7, (2, 1) * 7]),
        (([0, 27, 5], [1, 2, 28]), [(1, 2, 1) * 10, (2, 1, 1) * 10]),
        (3, [(1, 2, 1) * 10, (1, 2, 1) * 10]),
        (0, [(1,) * 30, (2, 1) + (1,) * 28]),
        (([0, 5], [1, 2]), [(0, 2) + (1,) * 28, (3, 0, 1) + (1,) * 27]),
    ],
)
def test_tensordot_axes_as_pytorch_reads_them(dims: Any, shapes: list[tuple[int, ...]]) -> None:
    assert_tensordot_like_torch(dims, shapes)


@pytest.mark.parametrize(
    ("dims", "error", "message"),
    [
        (([2], [0]), IndexError, "axis 2 is out of bounds for array of dimension 2"),
        (([-3], [0]), IndexError, "axis -3 is out of bounds for array of dimension 2"),
        (([1], [-3]), IndexError, "axis -3 is out of bounds for array of dimension 2"),
        (([1, 1], [0, 0]), ValueError, "axis 1 of x is contracted twice"),
        (([0, -2], [1, 0]), ValueError, "axis 0 of x is contracted twice"),
        (([0, 1], [1, -1]), ValueError, "axis 1 of y is contracted twice"),
        (([1], [0, 1]), ValueError, "1 axes of x against 2 of y"),
        (3, ValueError, "dims=3 for 2-d and 2-d Tensors"),
        (-1, ValueError, "dims=-1"),
    ],
)
def test_tensordot_refuses_what_pytorch_refuses(
    dims: Any, error: type[Exception], message: str
) -> None:
    """An axis out of -ndim..ndim-1 (IndexError, as PyTorch's), an axis given twice, lists of
    different lengths (ValueError where PyTorch raises RuntimeError, as our other ops)."""
    a, b = np.ones((2, 3)), np.ones((3, 2))
    with pytest.raises(error, match=message.replace("(", r"\(")):
        tg.tensordot(tg.Tensor(a), tg.Tensor(b), dims=dims)
    with pytest.raises(IndexError if error is IndexError else RuntimeError):
        torch.tensordot(torch.tensor(a), torch.tensor(b), dims=dims)


@st.composite
def equations(draw: Any) -> tuple[str, list[tuple[int, ...]]]:
    """An equation over 1 to 3 operands and shapes it fits: letters from a-z and A-Z, some
    repeated within an operand (a diagonal), an ellipsis in some operands, axes of length 1
    that broadcast against the letter's length, an explicit output or an implicit one."""
    pool = draw(
        st.lists(st.sampled_from(string.ascii_letters), min_size=1, max_size=5, unique=True)
    )
    size = {c: draw(st.integers(0, 3)) for c in pool}
    spread = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 2)))]
    parts, shapes = [], []
    for _ in range(draw(st.integers(1, 3))):
        own = draw(st.lists(st.sampled_from(pool), max_size=3))
        length = {c: draw(st.sampled_from([size[c], 1])) for c in set(own)}
        dots = draw(st.integers(-1, len(own))) if spread else -1  # where the ellipsis goes
        front = len(spread) - draw(st.integers(0, len(spread)))
        tail = [draw(st.sampled_from([n, 1])) for n in spread[front:]]
        shape = [length[c] for c in own]
        if dots >= 0:
            own.insert(dots, "...")
            shape[dots:dots] = tail
        parts.append("".join(own))
        shapes.append(tuple(shape))
    equation = ",".join(parts)
    if draw(st.booleans()):
        used = sorted({c for p in parts for c in p.replace("...", "")})
        out = draw(st.permutations(used))[: draw(st.integers(0, len(used)))]
        ellipsis = "..." if any("..." in p for p in parts) and draw(st.booleans()) else ""
        at = draw(st.integers(0, len(out)))
        equation += "->" + "".join(out[:at]) + ellipsis + "".join(out[at:])
    return equation, shapes


@given(drawn=equations(), seed=st.integers(0, 2**16))
def test_random_equations_are_pytorchs(drawn: tuple[str, list[tuple[int, ...]]], seed: int) -> None:
    equation, shapes = drawn
    rng = np.random.default_rng(seed)
    assert_like_torch(equation, [rng.standard_normal(s) for s in shapes], seed)
