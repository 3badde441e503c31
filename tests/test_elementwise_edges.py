"""Edges of prod, maximum/minimum, the float16 activations and elu, against PyTorch 2.13:
prod's gradient at its zeros with inf, nan and huge values elsewhere (PyTorch's exclusive
running products), its forward rule and second derivative; the dtype of maximum's tangents;
gelu, its tanh form and silu in half precision (computed in float32, as PyTorch's); elu at
±0.0; and what topograd does at a tie of -0.0 and 0.0."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as fwad
import torch.nn.functional as torch_f
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import topograd as tg
from topograd.autograd.registry import OPS
from topograd.ops import floats

# importing torch.func makes torch warn of its own torch.jit.script
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")

INF, NAN = float("inf"), float("nan")
EDGES = [0.0, -0.0, 1.5, -2.0, 3.0, INF, -INF, NAN, 1e200, -1e-200, 1e300]


def same(ours: Any, theirs: Any) -> bool:
    """Equal to the bit that matters: nan where nan, and the sign of every zero."""
    a, b = np.asarray(ours), np.asarray(theirs)
    return (
        a.shape == b.shape
        and bool(np.array_equal(a, b, equal_nan=True))
        and bool(np.array_equal(np.signbit(a[a == 0]), np.signbit(b[b == 0])))
    )


def near(ours: Any, theirs: Any) -> bool:
    """As ``same`` for nan, inf and zeros; within 1e-15 elsewhere (a sum's order is NumPy's
    or PyTorch's, and its last bit with it)."""
    a, b = np.asarray(ours), np.asarray(theirs)
    exact = ~np.isfinite(b) | (b == 0)
    return same(np.where(exact, a, 1.0), np.where(exact, b, 1.0)) and bool(
        np.allclose(a[~exact], b[~exact], rtol=1e-15, atol=0.0)
    )


def product(t: Any, dim: int | None, keepdim: bool) -> Any:
    return t.prod() if dim is None else t.prod(dim=dim, keepdim=keepdim)


@st.composite
def products(draw: Any, values: list[float], max_side: int = 4) -> tuple[Any, int | None, bool]:
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=max_side))
    x = draw(hnp.arrays(np.float64, shape, elements=st.sampled_from(values)))
    dim = draw(st.sampled_from([None, *range(-x.ndim, x.ndim)]))
    return x, dim, dim is not None and draw(st.booleans())


def prod_grads(x: Any, dim: int | None, keepdim: bool, create: bool) -> tuple[Any, Any, bool]:
    """Our gradient, PyTorch's, and whether the products themselves are equal."""
    ours, theirs = tg.Tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, expected = product(ours, dim, keepdim), product(theirs, dim, keepdim)
    weights = np.linspace(-1.5, 2.0, expected.numel()).reshape(expected.shape)
    (g,) = tg.grad((out * weights).sum(), ours, create_graph=create)
    (e,) = torch.autograd.grad(
        (expected * torch.tensor(weights)).sum(), theirs, create_graph=create
    )
    equal = same(out.data, expected.detach().numpy())
    return np.asarray(getattr(g, "data", g)), e.detach().numpy(), equal


@pytest.mark.parametrize("create", [False, True])
@pytest.mark.parametrize(
    ("x", "dim"),
    [
        ([0.0, INF, 2.0], None),  # out / x would give nan to the inf
        ([0.0, 1e200, 1e200, 1e-200], None),  # the others' product, running from the end
        ([0.0, 0.0, INF], None),  # two zeros: 0 in a plain backward, the products with a graph
        ([[0.0, INF], [2.0, INF]], 1),
        ([[1e300, 1e300, 1e-300], [0.0, 1.0, 1.0]], 1),  # a row without zero, products too
        ([[1e300, 1e300, 1e-300], [0.0, 1.0, 1.0]], 0),
        ([0.0, NAN, -1.0], None),
        ([-0.0, 2.0, -3.0], None),
        (INF, None),  # 0-d: the gradient passes
        (INF, 0),
    ],
)
def test_prod_gradient_at_zeros_is_pytorchs(x: Any, dim: int | None, create: bool) -> None:
    ours, theirs, equal = prod_grads(np.array(x), dim, False, create)
    assert equal and same(ours, theirs), (ours, theirs)


@given(case=products(EDGES), create=st.booleans())
def test_prod_gradient_is_pytorchs_with_any_values(case: Any, create: bool) -> None:
    """With or without a graph, along an axis (kept or not) or all: to the bit."""
    x, dim, keepdim = case
    ours, theirs, equal = prod_grads(x, dim, keepdim, create)
    # the product itself: NumPy multiplies in order, PyTorch's vectorised loop in another, so
    # a long one may differ in its last bit (or overflow or not), and out / x with it
    assume(equal)
    assert same(ours, theirs), (ours, theirs)


@given(case=products([0.0, -0.0, 1.5, -2.0, 0.5, 3.0, 0.1], max_side=3))
def test_prod_second_derivative_is_pytorchs(case: Any) -> None:
    x, dim, keepdim = case
    ours, theirs = tg.Tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, expected = product(ours, dim, keepdim), product(theirs, dim, keepdim)
    weights = np.linspace(0.5, 1.5, expected.numel()).reshape(expected.shape)
    (g,) = tg.grad((out * weights).sum(), ours, create_graph=True)
    (e,) = torch.autograd.grad((expected * torch.tensor(weights)).sum(), theirs, create_graph=True)
    if not e.requires_grad:  # one element: PyTorch's gradient is a constant
        return
    (h,) = tg.grad((g * g * g).sum(), ours)
    (f,) = torch.autograd.grad((e * e * e).sum(), theirs)
    np.testing.assert_allclose(h, f.numpy(), rtol=1e-13, atol=1e-300)


def their_tangent(x: Any, t: Any, dim: int | None, keepdim: bool) -> Any:
    """PyTorch's forward rule for prod (forward AD: torch.func.jvp takes another path for an
    input of one element, where it passes t through)."""
    with fwad.dual_level():
        dual = fwad.make_dual(torch.tensor(x), torch.tensor(t))
        return fwad.unpack_dual(product(dual, dim, keepdim)).tangent.numpy()


@given(case=products(EDGES), data=st.data())
def test_prod_forward_rule_is_pytorchs(case: Any, data: Any) -> None:
    """The entry's forward rule, Σ t · (the product of the others), to the bit: a sum of
    -0.0 terms is +0.0, as PyTorch's."""
    x, dim, keepdim = case
    t = data.draw(hnp.arrays(np.float64, x.shape, elements=st.sampled_from([1.0, -0.0, 2.5])))
    axis = None if dim is None else dim
    with np.errstate(all="ignore"):
        out = np.prod(x, axis=axis, keepdims=keepdim)
        ours = OPS["prod"].forward(t, x, out, axis=axis, keepdims=keepdim)  # type: ignore[misc]
    assert near(ours, their_tangent(x, t, dim, keepdim))


@given(case=products(EDGES, max_side=3))
def test_prods_jvp_and_jacfwd_are_pytorchs(case: Any) -> None:
    x, dim, keepdim = case
    t = np.linspace(-1.0, 2.0, x.size).reshape(x.shape)

    def f(a: Any) -> Any:
        return product(a, dim, keepdim)

    _, tangent = tg.func.jvp(f, (x,), (t,))
    theirs = their_tangent(x, t, dim, keepdim)
    # a 0-d input's tangent runs by transposing the rule, which gives t (PyTorch's sum: t + 0)
    check: Callable[[Any, Any], bool] = near if x.ndim else np.array_equal
    assert check(np.asarray(tangent), theirs)
    jacobian = np.asarray(tg.func.jacfwd(f)(x))
    basis = np.eye(x.size).reshape((x.size, *x.shape))
    columns = [their_tangent(x, e, dim, keepdim) for e in basis]
    expected = np.stack(columns, axis=-1).reshape(jacobian.shape)
    assert near(jacobian, expected)


@pytest.mark.xfail(strict=True, reason="the Tensor kind runs Op.forward for elementwise ops only")
def test_a_0d_prods_jvp_of_minus_zero_is_plus_zero() -> None:
    _, tangent = tg.func.jvp(lambda a: a.prod(), (np.array(2.0),), (np.array(-0.0),))
    assert same(tangent, their_tangent(np.array(2.0), np.array(-0.0), None, False))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_maximums_tangents_keep_the_inputs_dtype(dtype: Any, name: str) -> None:
    x = np.array([1.0, 2.0, 3.0, 0.0, NAN], dtype)
    y = np.array([2.0, 2.0, 1.0, -0.0, 1.0], dtype)
    tx, ty = np.full(5, 1.5, dtype), np.array([0.5, 3.0, -1.0, 2.0, 4.0], dtype)
    ours, theirs = getattr(tg, name), getattr(torch, name)
    _, tangent = tg.func.jvp(ours, (x, y), (tx, ty))
    primals, tangents = (torch.tensor(x), torch.tensor(y)), (torch.tensor(tx), torch.tensor(ty))
    expected = torch.func.jvp(theirs, primals, tangents)[1]
    assert np.asarray(tangent).dtype == dtype and same(tangent, expected.numpy())
    _, one = tg.func.jvp(lambda a: ours(a, tg.Tensor(y)), (x,), (tx,))
    assert np.asarray(one).dtype == dtype
    jacobian = tg.func.jacfwd(lambda a: ours(a, tg.Tensor(y)))(x)
    assert np.asarray(jacobian).dtype == dtype


def half_values() -> Any:
    """Finite float16 values: a spread over the whole range, and every one in [-4, 1], where
    1 + erf, 1 + tanh and 1 - tanh² cancel."""
    every = np.arange(2**16, dtype=np.uint16).view(np.float16)
    every = every[np.isfinite(every)]
    dense = every[(every >= -4.0) & (every <= 1.0)]
    return np.unique(np.concatenate([every[::97], dense[::5]]))


HALF = half_values()
G = np.random.default_rng(3).uniform(-2.0, 2.0, HALF.shape).astype(np.float16)


def ulps(a: Any, b: Any) -> Any:
    """How many float16 steps apart, element by element (0 for nan and nan)."""
    ia, ib = (np.asarray(v, np.float16).view(np.int16).astype(np.int64) for v in (a, b))
    ia, ib = (np.where(i < 0, -(i & 0x7FFF), i) for i in (ia, ib))
    return np.where(np.isnan(a) & np.isnan(b), 0, np.abs(ia - ib))


def one_by_one(f: Callable[..., Any], *arrays: Any) -> Any:
    """PyTorch's result for each element alone: its scalar loop, in float32 with the C
    library's functions (its vectorised loop, for longer tensors, uses approximations)."""
    return np.array(
        [f(*(torch.tensor(a[i : i + 1]) for a in arrays)).item() for i in range(len(arrays[0]))],
        np.float16,
    )


HALF_FORWARDS = {
    "gelu": (lambda t: t.gelu(), torch_f.gelu, 0),
    "gelu_tanh": (
        lambda t: t.gelu(approximate="tanh"),
        lambda t: torch_f.gelu(t, approximate="tanh"),
        1,
    ),
    "silu": (lambda t: t.silu(), torch_f.silu, 0),
}


@pytest.mark.parametrize("name", sorted(HALF_FORWARDS))
def test_float16_activations_are_pytorchs(name: str) -> None:
    """Computed in float32 and rounded, as PyTorch: equal to its result element by element,
    or 1 ulp off where the C library's tanhf is not correctly rounded (tanh form); and no
    further from its result on the whole array than its two loops are from each other, + 1."""
    ours_of, theirs_of, tolerance = HALF_FORWARDS[name]
    with np.errstate(all="ignore"):
        ours = ours_of(tg.Tensor(HALF)).data
    alone, whole = one_by_one(theirs_of, HALF), theirs_of(torch.tensor(HALF)).numpy()
    assert ours.dtype == np.float16 and ulps(ours, alone).max() <= tolerance
    assert (ulps(ours, whole) <= ulps(alone, whole) + 1).all()


HALF_BACKWARDS = {
    "gelu": (lambda t: t.gelu(), torch.ops.aten.gelu_backward, 1),
    "gelu_tanh": (
        lambda t: t.gelu(approximate="tanh"),
        lambda g, x: torch.ops.aten.gelu_backward(g, x, approximate="tanh"),
        1,
    ),
    "silu": (lambda t: t.silu(), torch.ops.aten.silu_backward, 0),
}


@pytest.mark.parametrize("name", sorted(HALF_BACKWARDS))
def test_float16_activations_gradients_are_pytorchs(name: str) -> None:
    """The backward kernels (silu's rule in a plain backward) in float32 too."""
    ours_of, theirs_of, tolerance = HALF_BACKWARDS[name]
    x = tg.Tensor(HALF, requires_grad=True)
    with np.errstate(all="ignore"):
        ours_of(x).backward(G)
    alone, whole = (
        one_by_one(theirs_of, G, HALF),
        theirs_of(torch.tensor(G), torch.tensor(HALF)).numpy(),
    )
    assert x.grad is not None and x.grad.dtype == np.float16
    assert ulps(x.grad, alone).max() <= tolerance
    assert (ulps(x.grad, whole) <= ulps(alone, whole) + 1).all()


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("alpha", [1.0, 0.5, -1.0, 0.0])
def test_elu_keeps_signed_zeros_and_nan(dtype: Any, alpha: float) -> None:
    x = np.array([-0.0, 0.0, NAN, -1.0, 2.0] * 9, dtype)  # past a vector's width
    ours = tg.nn.functional.elu(tg.Tensor(x), alpha=alpha).data
    assert same(ours, torch_f.elu(torch.tensor(x), alpha=alpha).numpy())
    assert same(floats.elu(-0.0, alpha), -0.0) and same(floats.elu(0.0, alpha), 0.0)


@pytest.mark.parametrize("size", [1, 3, 40])
def test_a_tie_of_signed_zeros_gives_the_first(size: int) -> None:
    """What the docstrings say topograd does, on floats, Values and Tensors of any length
    (PyTorch's own choice there changes with the length: its loops differ)."""
    minus, plus = np.full(size, -0.0), np.zeros(size)
    for f, scalar in ((tg.maximum, floats.maximum), (tg.minimum, floats.minimum)):
        for x, y in ((minus, plus), (plus, minus)):
            assert same(f(tg.Tensor(x), tg.Tensor(y)).data, x)
            assert same(scalar(x[0], y[0]), x[0])
            assert same(f(tg.Value(x[0]), tg.Value(y[0])).data, x[0])


SECOND_ORDER = {  # a function of one number whose second derivative meets a zero PyTorch makes
    "leaky_relu(log x)": (lambda x: x.log().leaky_relu(), lambda x: torch_f.leaky_relu(x.log())),
    "-leaky_relu(-x)": (lambda x: -((-x).leaky_relu()), lambda x: -torch_f.leaky_relu(-x)),
    "leaky_relu(x ** -1)": (
        lambda x: (x**-1.0).leaky_relu(),
        lambda x: torch_f.leaky_relu(x**-1.0),
    ),
}


@pytest.mark.parametrize("name", SECOND_ORDER)
@pytest.mark.parametrize("x", [0.0, -0.0, INF, -INF, NAN, 1e-310, -1.5])
def test_leaky_relus_second_derivative_passes_on_pytorchs_zeros(name: str, x: float) -> None:
    """PyTorch's leaky_relu_backward has zeros for its derivative by x, which reach x's own
    rule: through log at 0 they are 0 / 0 = nan (topograd's selection alone passed nothing,
    and the second derivative was -inf). On Values and on Tensors, every upstream gradient."""
    ours, theirs = SECOND_ORDER[name]
    for upstream in [1.0, -1.0, 0.0, INF, NAN, 1e-310]:
        t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        seed = torch.tensor(upstream, dtype=torch.float64)
        (g,) = torch.autograd.grad(theirs(t), [t], seed, create_graph=True)
        (h,) = torch.autograd.grad(g, [t], torch.ones(()), materialize_grads=True)
        for node in (tg.Value(x), tg.tensor(x, dtype=tg.float64, requires_grad=True)):
            (mine,) = tg.grad(ours(node), [node], upstream, create_graph=True)
            (second,) = tg.grad(mine, [node], 1.0, materialize_grads=True)
            assert same(float(mine.data), g.item()), (name, x, upstream, mine)
            assert same(float(second), h.item()), (name, x, upstream, second, h.item())
