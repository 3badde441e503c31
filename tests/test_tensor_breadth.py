"""Every elementwise op of the registry on Tensors of any shape (0-d, empty, broadcast), einsum,
outer, tensordot, prod, the casts, the registry's functions at the top level, and custom ops on
Tensors (``custom_op(..., vjp=)`` and ``Function``), against PyTorch 2.13 float64."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from oracle import reference

import topograd as tg
from topograd.autograd.registry import OPS

RNG = np.random.default_rng(7)
ELEMENTWISE = sorted(n for n, op in OPS.items() if op.elementwise and not op.custom)


@pytest.mark.parametrize("name", ELEMENTWISE)
@given(data=st.data())
def test_every_elementwise_op_on_tensors_of_any_shape_is_pytorchs(name: str, data: Any) -> None:
    """Values and gradients, inputs drawn from the op's domain in shapes that broadcast,
    0-d and empty ones among them."""
    op = OPS[name]
    shapes = data.draw(
        hnp.mutually_broadcastable_shapes(
            num_shapes=len(op.domain), min_dims=0, max_dims=3, min_side=0, max_side=3
        )
    ).input_shapes
    seed = data.draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(*interval, shape) for interval, shape in zip(op.domain, shapes)]
    ours = [tg.Tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, expected = op(*ours), reference(op, scalars=False)(*theirs)
    assert out.shape == tuple(expected.shape)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12, atol=1e-15)
    weights = rng.uniform(-1, 1, out.shape)
    (out * weights).sum().backward()
    if name == "clamp_between" and any(
        np.broadcast_shapes(shapes[0], limit) != out.shape for limit in shapes[1:]
    ):  # PyTorch's clamp_backward ands its masks in place (x >= low with x <= high, ...),
        # refused where x and a limit broadcast to less than the whole shape
        with pytest.raises(RuntimeError, match="match the broadcast shape"):
            (expected * torch.tensor(weights)).sum().backward()
        return
    (expected * torch.tensor(weights)).sum().backward()
    for t, e in zip(ours, theirs, strict=True):
        assert t.grad is not None and t.grad.shape == t.shape
        np.testing.assert_allclose(t.grad, e.grad.numpy(), rtol=1e-12, atol=1e-14)  # type: ignore[union-attr]


# (equation, operand shapes): the contractions of attention and bilinear layers, and the rest
EQUATIONS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("bhqk,bhkd->bhqd", [(2, 2, 3, 5), (2, 2, 5, 4)]),
    ("bi,oij,bj->bo", [(3, 2), (4, 2, 5), (3, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij", [(2, 3)]),
    ("ji", [(2, 3)]),
    ("i,i", [(4,), (4,)]),
    ("i,j", [(3,), (2,)]),
    ("ii", [(3, 3)]),
    ("ii->i", [(3, 3)]),
    ("iij->j", [(2, 2, 3)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 4)]),
    ("...j,j->...", [(2, 3, 4), (4,)]),
    ("i...->...", [(2, 3, 4)]),
    ("ij,ij->ij", [(1, 3), (4, 3)]),
    ("bi,bi->b", [(0, 3), (0, 3)]),
    ("ij,kl->ijkl", [(2, 1), (1, 3)]),
]


def both(shapes: list[tuple[int, ...]]) -> tuple[list[tg.Tensor], list[torch.Tensor]]:
    arrays = [RNG.standard_normal(s) for s in shapes]
    ours = [tg.Tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    return ours, theirs


@pytest.mark.parametrize(("equation", "shapes"), EQUATIONS)
def test_einsum_values_gradients_and_second_order_are_pytorchs(
    equation: str, shapes: list[tuple[int, ...]]
) -> None:
    ours, theirs = both(shapes)
    out, expected = tg.einsum(equation, *ours), torch.einsum(equation, *theirs)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-13, atol=1e-14)
    weights = RNG.standard_normal(expected.shape)
    grads = tg.grad((out * weights).sum() ** 2, ours, create_graph=True)
    expected_grads = torch.autograd.grad(
        (expected * torch.tensor(weights)).sum() ** 2, theirs, create_graph=True
    )
    for g, e in zip(grads, expected_grads, strict=True):
        np.testing.assert_allclose(g.data, e.detach().numpy(), rtol=1e-12, atol=1e-13)
    second = tg.grad(sum(g.sum() for g in grads), ours, allow_unused=True)
    expected_second = torch.autograd.grad(
        sum(e.sum() for e in expected_grads), theirs, allow_unused=True
    )
    for g, e, t in zip(second, expected_second, ours, strict=True):
        assert (g is None) == (e is None)  # an operand nothing depends on: None, as PyTorch's
        if g is not None:
            np.testing.assert_allclose(g, e.numpy(), rtol=1e-12, atol=1e-13)
        assert t.shape == (g if g is not None else t).shape


@pytest.mark.parametrize(
    ("equation", "shapes", "message"),
    [
        ("ij,jk->ik", [(2, 3)], "names 2 operands, 1 were given"),
        ("ij,jk->ik", [(2, 3), (4, 5)], "'j' in 'ij,jk->ik' names axes of 3 and 4"),
        ("ij->k", [(2, 3)], "output letter 'k'"),
        ("ij->ii", [(2, 3)], "repeats a letter"),
        ("ijk->i", [(2, 3)], "names 3 axes of an operand of 2"),
        ("i1->i", [(2, 3)], "subscripts are lowercase letters"),
        ("ii->i", [(2, 3)], "'i' names axes of 2 and 3"),
        ("i..j->i", [(2, 3)], "misplaced '.'"),
    ],
)
def test_einsum_refuses_what_pytorch_refuses(
    equation: str, shapes: list[tuple[int, ...]], message: str
) -> None:
    ours, theirs = both(shapes)
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        tg.einsum(equation, *ours)
    with pytest.raises(RuntimeError):
        torch.einsum(equation, *theirs)


@pytest.mark.parametrize(
    ("dims", "shapes"),
    [
        (2, [(2, 3, 4), (3, 4, 5)]),
        (1, [(2, 3), (3, 4)]),
        (0, [(2,), (3,)]),
        (([1, 0], [0, 1]), [(3, 2), (2, 3)]),
        (([2], [0]), [(2, 3, 4), (4, 5)]),
        (([-1], [-2]), [(2, 3), (4, 3, 2)]),
    ],
)
def test_tensordot_and_outer_are_pytorchs(dims: Any, shapes: list[tuple[int, ...]]) -> None:
    ours, theirs = both(shapes)
    out, expected = tg.tensordot(*ours, dims=dims), torch.tensordot(*theirs, dims=dims)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-13)
    out.sum().backward()
    expected.sum().backward()
    for t, e in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(t.grad, e.grad.numpy(), rtol=1e-13)  # type: ignore[union-attr]
    a, b = both([(3,), (4,)])
    np.testing.assert_allclose(tg.outer(*a).data, torch.outer(*b).detach().numpy())
    with pytest.raises(ValueError, match="outer\\(\\) takes two vectors"):
        tg.outer(a[0], tg.Tensor(np.ones((2, 2))))
    with pytest.raises(ValueError, match="axis 1 of x \\(3\\) and 0 of y \\(4\\)"):
        tg.tensordot(tg.Tensor(np.ones((2, 3))), tg.Tensor(np.ones((4, 3))), dims=1)


def with_zeros(draw: Any) -> np.ndarray:
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    values = st.sampled_from([0.0, -0.0, 1.5, -2.0, 0.5, 3.0])
    return draw(hnp.arrays(np.float64, shape, elements=values))


@given(st.data())
def test_prod_with_zeros_is_pytorchs_to_second_order(data: Any) -> None:
    """The gradient of a product at its zeros (one, two, more in a slice) and the second
    derivative, as PyTorch's, over shapes with 0-d and empty ones."""
    x = with_zeros(data.draw)
    dim = data.draw(st.sampled_from([None, *range(-x.ndim, x.ndim)]))
    ours, theirs = tg.Tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out = ours.prod() if dim is None else ours.prod(dim=dim)
    expected = theirs.prod() if dim is None else theirs.prod(dim=dim)
    # up to 64 factors: NumPy and PyTorch multiply them in other orders, so the last bit may
    # differ (1.5 ** 64, rounded along the way)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-15, atol=0)
    weights = np.linspace(0.5, 1.5, expected.numel()).reshape(expected.shape)
    (g,) = tg.grad((out * weights).sum(), ours, create_graph=True)
    (e,) = torch.autograd.grad((expected * torch.tensor(weights)).sum(), theirs, create_graph=True)
    np.testing.assert_allclose(g.data, e.detach().numpy(), rtol=1e-14)
    if x.size and e.requires_grad:
        (h,) = tg.grad((g * g).sum(), ours)
        (f,) = torch.autograd.grad((e * e).sum(), theirs)
        np.testing.assert_allclose(h, f.numpy(), rtol=1e-13)


def test_prod_takes_one_dim_as_pytorch() -> None:
    with pytest.raises(TypeError, match="prod\\(\\) takes one axis"):
        tg.Tensor(np.ones((2, 2))).prod(dim=(0, 1))


@pytest.mark.parametrize("target", [tg.float16, tg.float32, "float64", np.float32])
def test_casts_round_and_give_the_gradient_back_in_the_inputs_precision(target: Any) -> None:
    x = tg.Tensor(np.array([0.1, 1 / 3, 1e4]), requires_grad=True)
    y = x.to(target)
    assert y.dtype == np.dtype(target)
    assert np.array_equal(y.data, x.data.astype(target))
    (y * 2.0).sum().backward()
    assert x.grad is not None and x.grad.dtype == np.float64
    np.testing.assert_array_equal(x.grad, np.full(3, 2.0))
    assert x.double() is x and x.to("cpu") is x
    assert x.float().dtype == np.float32 and x.half().dtype == np.float16


def test_casts_refuse_what_a_tensor_cannot_hold() -> None:
    x = tg.Tensor([1.0])
    with pytest.raises(ValueError, match="CPU only, not on 'cuda'"):
        x.to("cuda")
    with pytest.raises(TypeError, match="no complex numbers"):
        x.astype(np.complex128)


def test_the_registrys_functions_are_at_the_top_level_for_every_kind() -> None:
    assert tg.exp(0.0) == 1.0
    v = tg.Value(0.5)
    assert tg.gelu(v).op == "gelu" and tg.tanh(v).data == np.tanh(0.5)
    a, b = tg.Value(2.0), tg.Value(2.0)
    tg.maximum(a, b).backward()
    assert (a.grad, b.grad) == (0.5, 0.5)  # a tie: half each, as torch.maximum
    t = tg.Tensor([0.0, 1.0], requires_grad=True)
    assert isinstance(tg.sin(t), tg.Tensor)
    with pytest.raises(AttributeError):
        _ = tg.gelu_backward  # rules' helpers are not functions of the top level


def test_transpose_takes_pytorchs_two_dims_and_numpys_order() -> None:
    x = tg.Tensor(np.arange(6.0).reshape(2, 3))
    assert x.transpose(0, 1).shape == (3, 2) == x.t().shape  # PyTorch's: dims exchanged
    cube = tg.Tensor(np.zeros((2, 3, 4)))
    assert cube.transpose(0, 2).shape == (4, 3, 2)
    assert cube.transpose((1, 2, 0)).shape == (3, 4, 2)  # NumPy's: an order
    with pytest.raises(ValueError, match="at most 2 axes"):
        cube.t()


# custom ops on Tensors

sine = tg.custom_op(np.sin, vjp=lambda grad, x, out: grad * tg.cos(x), name="sine")
wrong_sine = tg.custom_op(np.sin, vjp=lambda grad, x, out: 2 * grad * tg.cos(x), name="2sine")
numpy_sine = tg.custom_op(np.sin, vjp=lambda grad, x, out: grad * np.cos(x), name="npsine")


def test_a_custom_op_with_a_vjp_is_checked_by_gradcheck_and_named_when_wrong() -> None:
    x = tg.Tensor(RNG.standard_normal((2, 3)), requires_grad=True)
    assert tg.gradcheck(lambda t: sine(t), [x])
    with pytest.raises(tg.TensorGradcheckError, match="The faulty rule is op '2sine'"):
        tg.gradcheck(lambda t: wrong_sine(t), [x])
    (g,) = tg.grad(sine(x).sum(), x, create_graph=True)
    (h,) = tg.grad(g.sum(), x)
    np.testing.assert_allclose(h, -np.sin(x.data), rtol=1e-15)  # second order, from tg.cos
    (g,) = tg.grad(numpy_sine(x).sum(), x)  # NumPy's functions: first order
    np.testing.assert_allclose(g, np.cos(x.data), rtol=1e-15)
    with pytest.raises(tg.CustomOpError, match="'npsine' cannot take Tensors"):
        tg.grad(numpy_sine(x).sum(), x, create_graph=True)


def test_a_custom_ops_vjp_must_give_one_gradient_of_each_shape() -> None:
    two = tg.custom_op(np.add, vjp=lambda grad, x, y, out: (grad,), name="two")
    shaped = tg.custom_op(np.sin, vjp=lambda grad, x, out: grad.sum(), name="shaped")
    x = tg.Tensor(np.ones(3), requires_grad=True)
    with pytest.raises(tg.CustomOpError, match="must return 2 gradient"):
        two(x, x).sum().backward()
    with pytest.raises(tg.CustomOpError, match="gradient of shape \\(\\) for an input of"):
        shaped(x).sum().backward()
    with pytest.raises(TypeError, match=r"a derivative .* or vjp="):
        tg.custom_op(np.sin, name="neither")
    stringy = tg.custom_op(lambda x: "x", vjp=lambda grad, x, out: grad, name="stringy")
    with pytest.raises(tg.CustomOpError, match="not an array of real numbers"):
        stringy(x)


def pytorch_style(torch: Any, x: Any) -> list[Any]:
    """A Function written as PyTorch's documentation writes one, run on both."""

    class ScaledExp(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, k: float) -> Any:
            out = (x * k).exp()
            ctx.save_for_backward(x)
            ctx.k = k
            return out

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            assert ctx.needs_input_grad == (True, False)
            return grad * ctx.k * (x * ctx.k).exp(), None

    y = ScaledExp.apply(x, 0.5)
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    return [y, g, h]


def test_a_function_in_pytorchs_spelling_runs_on_topograd() -> None:
    data = RNG.standard_normal((2, 3))
    ours = pytorch_style(_Spelling, tg.Tensor(data, requires_grad=True))
    theirs = pytorch_style(torch, torch.tensor(data, requires_grad=True))
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(np.asarray(getattr(a, "data", a)), b.detach().numpy())
    assert ours[0].op == "ScaledExp"


class _Spelling:
    """topograd under PyTorch's names for what a Function uses."""

    class autograd:  # noqa: N801 - torch.autograd's name
        Function = tg.Function

        @staticmethod
        def grad(out: Any, x: Any, create_graph: bool = False) -> Any:
            return tg.grad(out, x, create_graph=create_graph)


def test_a_wrong_functions_backward_is_named_by_gradcheck() -> None:
    class Twice(tg.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2.0

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 3.0

    class Miscounted(tg.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad, grad

    x = tg.Tensor(np.ones(2), requires_grad=True)
    with pytest.raises(tg.TensorGradcheckError, match="The faulty rule is op 'Twice'"):
        tg.gradcheck(lambda t: Twice.apply(t), [x])
    with pytest.raises(RuntimeError, match="incorrect number of gradients \\(expected 1, got 2\\)"):
        Miscounted.apply(x).sum().backward()
    with tg.no_grad():
        assert not Twice.apply(x).requires_grad  # no graph under no_grad
