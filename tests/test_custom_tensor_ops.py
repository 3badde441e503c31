"""Custom ops on Tensors (``tg.Function`` and ``tg.custom_op(..., vjp=)``) where they meet
PyTorch 2.13 float64: a saved output under create_graph, several outputs, gradients in a
broadcast shape, results that are not floats, the user's own errors, the entries' names and
their lifetime."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import topograd as tg
from topograd.autograd.registry import OPS

FINITE = st.floats(-3.0, 3.0, allow_nan=False)
SHAPES = hnp.array_shapes(min_dims=0, max_dims=2, max_side=3)


def exp_function(base: Any) -> Any:
    """PyTorch's documented example: exp, saving its own output for backward."""

    class Exp(base):  # type: ignore[misc, valid-type]
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            out = x.exp()
            ctx.save_for_backward(out)
            return out

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (out,) = ctx.saved_tensors
            return grad * out

    return Exp


def three_orders(apply: Any, x: Any, grad: Any) -> list[Any]:
    """The value, and the first three derivatives of (apply(x) * w).sum() by x."""
    y = apply(x)
    found = [y]
    total = (y * w_like(x, grad)).sum()
    for _ in range(3):
        (total,) = grad(total, x)
        found.append(total)
        total = total.sum()
    return found


def w_like(x: Any, grad: Any) -> Any:
    """Weights 1, 2, 3, ... in x's shape, on x's side."""
    w = np.arange(1.0, np.prod(x.shape) + 1.0).reshape(tuple(x.shape))
    return torch.tensor(w) if isinstance(x, torch.Tensor) else tg.Tensor(w)


def tg_grad(out: Any, x: Any) -> Any:
    return tg.grad(out, x, create_graph=True)


def torch_grad(out: Any, x: Any) -> Any:
    return torch.autograd.grad(out, x, create_graph=True)


def as_numpy(t: Any) -> Any:
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.data)


@settings(max_examples=40, deadline=None)
@given(
    hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3), elements=FINITE)
)
def test_a_saved_output_carries_higher_derivatives_as_pytorchs(data: Any) -> None:
    ours = three_orders(
        exp_function(tg.Function).apply, tg.Tensor(data, requires_grad=True), tg_grad
    )
    theirs = three_orders(
        exp_function(torch.autograd.Function).apply,
        torch.tensor(data, requires_grad=True),
        torch_grad,
    )
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(as_numpy(a), as_numpy(b), rtol=1e-14, atol=0)


def test_a_saved_output_in_a_plain_backward_is_the_forwards_value() -> None:
    x = tg.Tensor([0.5, -1.0], requires_grad=True)
    exp_function(tg.Function).apply(x).sum().backward()
    np.testing.assert_array_equal(x.grad, np.exp(x.data))


def pieces_function(base: Any) -> Any:
    """Two outputs of different shapes, one of them saved: (sum of x squared, exp(x))."""

    class Pieces(base):  # type: ignore[misc, valid-type]
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            total, grown = (x * x).sum(), x.exp()
            ctx.save_for_backward(x, grown)
            return total, grown

        @staticmethod
        def backward(ctx: Any, grad_total: Any, grad_grown: Any) -> Any:
            x, grown = ctx.saved_tensors
            return grad_total * 2 * x + grad_grown * grown

    return Pieces


@pytest.mark.parametrize("use", ["both", "first", "second"])
def test_several_outputs_are_pytorchs_with_zeros_for_an_unused_one(use: str) -> None:
    data = np.array([[0.3, -1.2, 2.0], [0.7, 0.1, -0.4]])

    def run(base: Any, x: Any, grad: Any) -> list[Any]:
        total, wave = pieces_function(base).apply(x)
        loss = {"both": total * 3.0 + (wave * wave).sum(), "first": total, "second": wave.sum()}
        (g,) = grad(loss[use], x)
        (h,) = grad((g * g).sum(), x)
        return [total, wave, g, h]

    ours = run(tg.Function, tg.Tensor(data, requires_grad=True), tg_grad)
    theirs = run(torch.autograd.Function, torch.tensor(data, requires_grad=True), torch_grad)
    for a, b in zip(ours, theirs, strict=True):
        assert a.shape == tuple(b.shape)
        np.testing.assert_allclose(as_numpy(a), as_numpy(b), rtol=1e-13, atol=1e-15)


def test_several_outputs_keep_their_dtypes_and_a_wrong_backward_is_named() -> None:
    class Split(tg.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.astype(np.float32) * 2.0, x * 3.0

        @staticmethod
        def backward(ctx: Any, a: Any, b: Any) -> Any:
            assert a.dtype == np.float32 and b.dtype == np.float64
            return a.astype(np.float64) * 2.0 + b * 3.0

    class Wrong(tg.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2.0, x * 3.0

        @staticmethod
        def backward(ctx: Any, a: Any, b: Any) -> Any:
            return a * 2.0 + b * 4.0

    x = tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True)
    a, b = Split.apply(x)
    assert (a.dtype, b.dtype) == (np.float32, np.float64)
    (a.sum() + b.sum()).backward()
    np.testing.assert_array_equal(x.grad, [5.0, 5.0])
    with pytest.raises(tg.TensorGradcheckError, match="The faulty rule is op 'Wrong'"):
        tg.gradcheck(lambda t: sum(o.sum() for o in Wrong.apply(t)), [x])


@pytest.mark.parametrize(
    ("returned", "match"),
    [((), "empty tuple"), ((None,), "must return floats"), ((1.0, "x"), "must return floats")],
)
def test_a_forward_that_returns_no_float_tensors_is_refused(returned: Any, match: str) -> None:
    class Odd(tg.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return tuple(x if r == 1.0 else r for r in returned)

    with pytest.raises(TypeError, match=match):
        Odd.apply(tg.Tensor([1.0], requires_grad=True))


@pytest.mark.parametrize("result", [np.arange(3), np.ones(3, dtype=bool), np.ones(3) * 1j, 3])
def test_a_custom_ops_forward_must_give_floats(result: Any) -> None:
    ints = tg.custom_op(lambda x: result, vjp=lambda grad, x, out: grad, name="integers")
    with pytest.raises(tg.CustomOpError, match=r"'integers' returned .*not an array of real") as e:
        ints(tg.Tensor(np.ones(3), requires_grad=True))
    assert isinstance(e.value, TypeError)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_a_custom_ops_float_forward_of_any_precision_is_taken(dtype: Any) -> None:
    half = tg.custom_op(lambda x: (x / 2).astype(dtype), vjp=lambda g, x, out: g / 2, name="h")
    x = tg.Tensor(np.ones(3), requires_grad=True)
    y = half(x)
    assert y.dtype == dtype
    y.sum().backward()
    np.testing.assert_array_equal(x.grad, [0.5] * 3)


@settings(max_examples=40, deadline=None)
@given(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3))
def test_a_vjp_may_give_a_gradient_in_the_broadcast_shape(shapes: Any) -> None:
    """Each input gets the output's gradient unsummed: the engine sums it back, as PyTorch's
    custom Functions have it summed back (validate_outputs)."""
    rng = np.random.default_rng(3)
    a, b = (rng.uniform(-2, 2, s) for s in shapes.input_shapes)
    times = tg.custom_op(np.multiply, vjp=lambda g, x, y, out: (g * y, g * x), name="times")

    class Times(tg.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, y: Any) -> Any:
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            x, y = ctx.saved_tensors
            return g * y, g * x

    ta, tb = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    w = rng.uniform(-1, 1, shapes.result_shape)
    ga, gb = torch.autograd.grad(
        ((ta * tb).sin() * torch.tensor(w)).sum(), (ta, tb), create_graph=True
    )
    ha, hb = torch.autograd.grad((ga * ga).sum() + (gb * gb).sum(), (ta, tb))
    for op in (times, Times.apply):
        xa, xb = tg.Tensor(a, requires_grad=True), tg.Tensor(b, requires_grad=True)
        fa, fb = tg.grad((op(xa, xb).sin() * w).sum(), [xa, xb], create_graph=True)
        assert (fa.shape, fb.shape) == (a.shape, b.shape)
        sa, sb = tg.grad((fa * fa).sum() + (fb * fb).sum(), [xa, xb])
        for ours, theirs in ((fa, ga), (fb, gb), (sa, ha), (sb, hb)):
            np.testing.assert_allclose(as_numpy(ours), as_numpy(theirs), rtol=1e-12, atol=1e-14)


def test_a_gradient_in_a_shape_the_input_cannot_broadcast_to_is_refused() -> None:
    first = tg.custom_op(lambda x: x[:2], vjp=lambda g, x, out: g, name="first two")

    class First(tg.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x[:2]

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    class TorchFirst(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x[:2]

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    x = tg.Tensor(np.ones(3), requires_grad=True)
    with pytest.raises(
        tg.CustomOpError, match=r"'first two' .* shape \(2,\) for an input of shape \(3,\)"
    ):
        first(x).sum().backward()
    with pytest.raises(RuntimeError) as theirs:
        TorchFirst.apply(torch.ones(3, dtype=torch.float64, requires_grad=True)).sum().backward()
    with pytest.raises(
        RuntimeError, match=r"First.backward returned an invalid gradient at index 0"
    ) as ours:
        First.apply(x).sum().backward()
    assert "got [2] but expected shape compatible with [3]" in str(theirs.value)
    assert "got [2] but expected shape compatible with [3]" in str(ours.value)


def test_a_mistake_inside_the_users_vjp_is_reported_as_itself_under_create_graph() -> None:
    def forgot_out(grad: Any, x: Any) -> Any:  # the engine passes out too: a TypeError
        return grad * tg.cos(x)

    def divides(grad: Any, x: Any, out: Any) -> Any:
        raise ZeroDivisionError("the user's own")

    x = tg.Tensor([0.5, 1.0], requires_grad=True)
    for vjp, error in ((forgot_out, TypeError), (divides, ZeroDivisionError)):
        op = tg.custom_op(np.sin, vjp=vjp, name="buggy")
        for create_graph in (False, True):
            with pytest.raises(error) as caught:
                tg.grad(op(x).sum(), x, create_graph=create_graph)
            assert not isinstance(caught.value, tg.CustomOpError)
    numpy_cos = tg.custom_op(np.sin, vjp=lambda g, x, out: g * np.cos(x), name="np cos")
    with pytest.raises(tg.CustomOpError, match="'np cos' cannot take Tensors"):
        tg.grad(numpy_cos(x).sum(), x, create_graph=True)


def named_function(name: str) -> type:
    def forward(ctx: Any, x: Any) -> Any:
        return x * 2.0

    def backward(ctx: Any, grad: Any) -> Any:
        return grad * 2.0

    methods = {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    return type(name, (tg.Function,), methods)


def test_a_function_named_as_an_op_never_shadows_it() -> None:
    builtin = OPS["exp"]
    user = tg.custom_op(np.sin, vjp=lambda g, x, out: g * tg.cos(x), name="Twice")
    x = tg.Tensor([0.5, 1.0], requires_grad=True)
    names, alive = set(), []  # (a freed class frees its name)
    for name in ("exp", "Exp", "Twice", "Twice", "exp"):
        alive.append(named_function(name))
        y = alive[-1].apply(x)
        assert y.op not in names
        names.add(y.op)
        assert y.op.split("_")[0] == name
        y.sum().backward()
    assert OPS["exp"] is builtin and OPS["Twice"] is user
    assert tg.exp(x).op == "exp"
    np.testing.assert_array_equal(x.grad, [10.0, 10.0])


def test_a_functions_entry_goes_with_its_class() -> None:
    x = tg.Tensor([0.5], requires_grad=True)
    classes, names = [], []
    for _ in range(5):
        cls = named_function("Looped")
        names.append(cls.apply(x).op)  # (the graph dies with the statement)
        classes.append(weakref.ref(cls))
        del cls
    gc.collect()
    assert all(ref() is None for ref in classes)
    assert not [n for n in names if n in OPS]
    kept = named_function("Kept")
    y = kept.apply(x)
    del kept
    gc.collect()
    y.sum().backward()  # a graph keeps its Function alive
    assert x.grad.tolist() == [2.0]
    assert y.op in OPS


def numpy_sin(base: Any, tensor: Any) -> Any:
    """A Function whose backward computes with NumPy: it has no graph to differentiate."""

    class NumpySin(base):  # type: ignore[misc, valid-type]
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return tensor(np.sin(x.detach().numpy() if hasattr(x, "numpy") else x.data))

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return grad * tensor(np.cos(x.detach().numpy() if hasattr(x, "numpy") else x.data))

    return NumpySin


def test_a_second_derivative_through_numpy_is_refused_as_pytorch_refuses_it() -> None:
    """No silent zero: a first derivative without a graph cannot be differentiated again."""
    messages = []
    for lib, base in ((tg, tg.Function), (torch, torch.autograd.Function)):
        x = lib.tensor([0.3, 1.2], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(numpy_sin(base, lib.tensor).apply(x).sum(), [x], create_graph=True)
        with pytest.raises(RuntimeError, match="does not require grad") as error:
            lib.autograd.grad((g * g).sum(), [x])
        messages.append(str(error.value))
    assert messages[0] == messages[1]


def test_an_input_the_output_does_not_reach_is_refused_unless_allowed() -> None:
    x, y = tg.tensor([1.0, 2.0], requires_grad=True), tg.tensor([3.0], requires_grad=True)
    tx, ty = torch.tensor([1.0, 2.0], requires_grad=True), torch.tensor([3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used") as ours:
        tg.grad((x * x).sum(), [x, y])
    with pytest.raises(RuntimeError, match="appears to not have been used") as theirs:
        torch.autograd.grad((tx * tx).sum(), [tx, ty])
    assert str(ours.value) == str(theirs.value)
    dx, dy = tg.grad((x * x).sum(), [x, y], allow_unused=True)
    tdx, tdy = torch.autograd.grad((tx * tx).sum(), [tx, ty], allow_unused=True)
    assert dy is None and tdy is None and dx.tolist() == tdx.tolist()
    _, zeros = tg.grad((x * x).sum(), [x, y], allow_unused=True, materialize_grads=True)
    _, tzeros = torch.autograd.grad(
        (tx * tx).sum(), [tx, ty], allow_unused=True, materialize_grads=True
    )
    assert zeros.tolist() == tzeros.tolist() == [0.0]
    # Values keep micrograd's answer: 0.0 for what the output does not depend on
    a, b = tg.Value(2.0), tg.Value(5.0)
    assert tg.grad(a * a, [a, b]) == [4.0, 0.0]
