"""Tensors against PyTorch float64 (shapes drawn by hypothesis), against the scalar engine, and
the float32 path, the errors, and the gradient bookkeeping PyTorch users expect."""

from __future__ import annotations

import math
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from oracle import ON_VALUES

import topograd as tg

BINARY = {
    "+": (lambda a, b: a + b, (-3, 3), (-3, 3)),
    "-": (lambda a, b: a - b, (-3, 3), (-3, 3)),
    "*": (lambda a, b: a * b, (-3, 3), (-3, 3)),
    "/": (lambda a, b: a / b, (-3, 3), (0.5, 3)),
    "**": (lambda a, b: a**b, (0.2, 3), (-2, 2)),
}
UNARY = {
    "exp": (-3, 3), "log": (0.1, 4), "tanh": (-3, 3), "sigmoid": (-3, 3), "relu": (-3, 3),
    "sqrt": (0.1, 4), "sin": (-3, 3), "cos": (-3, 3), "abs": (-3, 3),
}  # fmt: skip


def draw(rng: np.random.Generator, shape: tuple[int, ...], lo: float, hi: float) -> np.ndarray:
    return rng.uniform(lo, hi, shape)


def both(array: Any) -> tuple[tg.Tensor, torch.Tensor]:
    numbers = np.array(array)  # (an ndarray, or a Tensor's numbers: x.data)
    return tg.Tensor(numbers, requires_grad=True), torch.tensor(numbers, requires_grad=True)


def check(
    ours: tg.Tensor,
    theirs: torch.Tensor,
    pairs: list[tuple[tg.Tensor, torch.Tensor]],
    seed: int = 0,
) -> None:
    """Values equal, and the gradients of a random weighting of the output."""
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=1e-13, atol=1e-15)
    weights = np.random.default_rng(seed).uniform(-1, 1, ours.shape)
    (ours * weights).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    for a, b in pairs:
        assert a.grad is not None and b.grad is not None
        assert a.grad.shape == a.shape
        np.testing.assert_allclose(a.grad, b.grad.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("op", sorted(BINARY))
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
    seed=st.integers(0, 99),
)
def test_binary_ops_broadcast_like_torch(op: str, shapes, seed: int) -> None:  # type: ignore[no-untyped-def]
    fn, dom_a, dom_b = BINARY[op]
    rng = np.random.default_rng(seed)
    (a, ta), (b, tb) = (
        both(draw(rng, shapes.input_shapes[0], *dom_a)),
        both(draw(rng, shapes.input_shapes[1], *dom_b)),
    )
    check(fn(a, b), fn(ta, tb), [(a, ta), (b, tb)], seed)


@pytest.mark.parametrize("op", sorted(UNARY))
@given(shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=4), seed=st.integers(0, 99))
def test_unary_ops_match_torch(op: str, shape: tuple[int, ...], seed: int) -> None:
    x, tx = both(draw(np.random.default_rng(seed), shape, *UNARY[op]))
    check(getattr(x, op)(), getattr(torch, op)(tx), [(x, tx)], seed)


@pytest.mark.parametrize("op", sorted(UNARY) + sorted(BINARY))
def test_elementwise_ops_match_the_scalar_engine(op: str) -> None:
    rng = np.random.default_rng(1)
    if op in UNARY:
        xs = [draw(rng, (5,), *UNARY[op])]
        t = getattr(tg.Tensor(xs[0], requires_grad=True), op)()
    else:
        fn, dom_a, dom_b = BINARY[op]
        xs = [draw(rng, (5,), *dom_a), draw(rng, (5,), *dom_b)]
        t = fn(tg.Tensor(xs[0]), tg.Tensor(xs[1]))
    scalar_op = {"+": "add", "-": "sub", "*": "mul", "/": "div", "**": "pow"}.get(op, op)
    for k in range(5):
        v = ON_VALUES[scalar_op](*[tg.Value(x[k]) for x in xs])
        assert t.data[k] == pytest.approx(v.data, rel=1e-15)


MATMUL_SHAPES = [
    ((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (3, 4)),
    ((3,), (5, 3, 2)), ((5, 2, 3), (3,)), ((1, 2, 3), (4, 3, 2)), ((2, 1, 2, 3), (3, 3, 2)),
]  # fmt: skip


@pytest.mark.parametrize(("sa", "sb"), MATMUL_SHAPES)
def test_matmul_like_np_matmul(sa: tuple[int, ...], sb: tuple[int, ...]) -> None:
    rng = np.random.default_rng(2)
    (a, ta), (b, tb) = both(rng.normal(size=sa)), both(rng.normal(size=sb))
    check(a @ b, ta @ tb, [(a, ta), (b, tb)])


REDUCTIONS = [("sum", None, False), ("sum", 0, False), ("sum", 1, True), ("sum", (0, 2), False),
              ("mean", None, False), ("mean", -1, True), ("max", None, False), ("max", 1, False),
              ("max", (0, 1), True)]  # fmt: skip


@pytest.mark.parametrize(("name", "axis", "keepdims"), REDUCTIONS)
def test_reductions_match_torch(name: str, axis: object, keepdims: bool) -> None:
    x, tx = both(np.random.default_rng(3).normal(size=(2, 3, 4)))
    ours = getattr(x, name)(axis=axis, keepdims=keepdims)
    dims = {"axis": axis} if axis is not None else {}
    torch_name = {"max": "amax"}.get(name, name)
    theirs = (
        getattr(torch, torch_name)(tx, dim=axis, keepdim=keepdims)
        if dims
        else getattr(torch, torch_name)(tx)
    )
    check(ours, theirs, [(x, tx)])


def test_max_ties_share_the_gradient_evenly() -> None:
    x = tg.Tensor([1.0, 3.0, 3.0], requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.5]


INDICES = [2, -1, slice(1, None), slice(None, None, -1), slice(3, 0, -2), (None, slice(1, 3)),
           np.array([0, 2, 2, 1]), (slice(None), np.array([1, 1]))]  # fmt: skip


@pytest.mark.parametrize("index", INDICES, ids=range(len(INDICES)))
def test_indexing_like_torch_repeated_indices_accumulate(index: object) -> None:
    x, tx = both(np.random.default_rng(4).normal(size=(4, 3)))
    torch_index = (
        tuple(torch.tensor(i) if isinstance(i, np.ndarray) else i for i in index)
        if isinstance(index, tuple)
        else torch.tensor(index)
        if isinstance(index, np.ndarray)
        else index
    )
    if isinstance(index, slice) and index.step and index.step < 0:  # torch has no negative steps
        reference = torch.tensor(x.array[index].copy())
        ours = x[index]
        np.testing.assert_array_equal(ours.data, reference.numpy())
        ours.sum().backward()
        expected = np.zeros((4, 3))
        expected[index] = 1.0
        np.testing.assert_array_equal(x.grad, expected)
        return
    check(x[index], tx[torch_index], [(x, tx)])


def test_shapes_where_concatenate_stack() -> None:
    rng = np.random.default_rng(5)
    (x, tx), (y, _) = both(rng.normal(size=(2, 3))), both(rng.normal(size=(2, 3)))
    check(x.reshape(3, 2).T.transpose(1, 0), tx.reshape(3, 2).T.permute(1, 0), [(x, tx)])
    mask = x.array > 0
    (x2, tx2), (y2, ty2) = both(x.array), both(y.array)
    check(tg.where(mask, x2, y2), torch.where(torch.tensor(mask), tx2, ty2), [(x2, tx2), (y2, ty2)])
    (x3, tx3), (y3, ty3) = both(x.array), both(y.array)
    check(
        tg.concatenate([x3, y3, x3], axis=1),
        torch.cat([tx3, ty3, tx3], dim=1),
        [(x3, tx3), (y3, ty3)],
    )
    (x4, tx4), (y4, ty4) = both(x.array), both(y.array)
    check(tg.stack([x4, y4], axis=1), torch.stack([tx4, ty4], dim=1), [(x4, tx4), (y4, ty4)])


@pytest.mark.parametrize("scale", [1.0, 1000.0])
def test_softmax_family_matches_torch_and_is_stable(scale: float) -> None:
    logits = np.random.default_rng(6).normal(size=(4, 5)) * scale
    targets = np.array([0, 4, 2, 2])
    fn = tg.nn.functional
    for ours_fn, theirs_fn in [
        (lambda z: fn.softmax(z, axis=-1), lambda z: torch.softmax(z, dim=-1)),
        (lambda z: fn.log_softmax(z, axis=0), lambda z: torch.log_softmax(z, dim=0)),
        (
            lambda z: fn.cross_entropy(z, targets),
            lambda z: torch.nn.functional.cross_entropy(z, torch.tensor(targets)),
        ),
        (
            lambda z: fn.mse_loss(z, np.ones((4, 5))),
            lambda z: torch.nn.functional.mse_loss(z, torch.ones(4, 5, dtype=torch.float64)),
        ),
    ]:
        z, tz = both(logits)
        out = ours_fn(z)
        assert np.isfinite(out.data).all()
        check(out, theirs_fn(tz), [(z, tz)])


def test_backward_needs_a_gradient_for_a_non_scalar_of_the_right_shape() -> None:
    x = tg.Tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(
        RuntimeError, match="grad can be implicitly created only for scalar outputs"
    ):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(np.ones(3))
    (x * 2).backward(np.array([1.0, -1.0]))
    assert x.grad.tolist() == [2.0, -2.0]


def test_leaves_accumulate_intermediates_keep_none_unless_retained() -> None:
    x = tg.Tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    k = x * 4
    k.retain_grad()
    (h.sum() + k.sum()).backward()
    (h.sum()).backward()
    assert x.grad.tolist() == [10.0, 10.0]
    assert h.grad is None
    assert k.grad.tolist() == [1.0, 1.0]
    c = tg.Tensor([5.0])
    assert (c * x).requires_grad and not (c * 2).requires_grad and c.grad is None


def test_gradient_arrays_are_never_shared() -> None:
    x, y = tg.Tensor([1.0, 2.0], requires_grad=True), tg.Tensor([3.0, 4.0], requires_grad=True)
    (x + y).sum().backward()
    assert x.grad is not y.grad
    x.grad += 100
    assert y.grad.tolist() == [1.0, 1.0]


def test_a_shared_tensor_on_several_paths() -> None:
    x = tg.Tensor([0.5, -2.0, 3.0], requires_grad=True)
    (x * x + x).sum().backward()
    assert x.grad.tolist() == (2 * x.data + 1).tolist()


def test_float32_stays_float32() -> None:
    x = tg.Tensor(np.array([[0.5, -1.0]], dtype=np.float32), requires_grad=True)
    w = tg.Tensor(np.ones((2, 3), dtype=np.float32), requires_grad=True)
    out = ((x @ w).tanh() * 2.0 + 1).sum()
    assert out.dtype == np.float32
    out.backward()
    assert x.grad.dtype == np.float32 and w.grad.dtype == np.float32
    assert tg.Tensor(3).dtype == tg.float32 and tg.Tensor(np.arange(3)).dtype == tg.int64


def test_second_derivatives_under_create_graph_match_torch() -> None:
    data = np.array([0.3, -0.7, 1.2])
    x, tx = both(data)
    f = lambda t: ((t * t).sin() * t.exp()).sum()  # noqa: E731
    (g,) = tg.grad(f(x), [x], create_graph=True)
    (tgrad,) = torch.autograd.grad(f(tx), [tx], create_graph=True)
    np.testing.assert_allclose(g.data, tgrad.detach().numpy(), rtol=1e-13)
    (h,) = tg.grad((g * g).sum(), [x])
    (th,) = torch.autograd.grad((tgrad * tgrad).sum(), [tx])
    np.testing.assert_allclose(h, th.numpy(), rtol=1e-12)


def test_no_grad_and_detach() -> None:
    x = tg.Tensor([1.0, 2.0], requires_grad=True)
    with tg.no_grad():
        y = x * 2
    assert not y.requires_grad and y.op == ""
    d = (x * 3).detach()
    assert not d.requires_grad and d.data.tolist() == [3.0, 6.0]


@pytest.mark.parametrize("bad", ["abc", None, {"a": 1}, [1, "2"], np.array(["x"])])
def test_a_tensor_of_anything_but_numbers_is_refused(bad: object) -> None:
    with pytest.raises(TypeError):
        tg.Tensor(bad)
    with pytest.raises(TypeError):
        tg.Tensor([1.0]) + "x"  # type: ignore[operator]


@pytest.mark.parametrize("make", ["sgd", "adam"])
def test_optimizers_work_on_tensors_as_torch_optim(make: str) -> None:
    start = np.array([[0.5, -1.0], [2.0, 0.1]])
    ours, theirs = tg.Tensor(start, requires_grad=True), torch.tensor(start, requires_grad=True)
    if make == "sgd":
        opt_o, opt_t = (
            tg.optim.SGD([ours], lr=0.1, momentum=0.9, weight_decay=0.01),
            torch.optim.SGD([theirs], lr=0.1, momentum=0.9, weight_decay=0.01),
        )
    else:
        opt_o, opt_t = tg.optim.Adam([ours], lr=0.05), torch.optim.Adam([theirs], lr=0.05)
    for _ in range(10):
        opt_o.zero_grad()
        opt_t.zero_grad()
        (ours * ours).sin().sum().backward()
        (theirs * theirs).sin().sum().backward()
        opt_o.step()
        opt_t.step()
    np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=1e-12)


def test_linear_and_sequential_as_pytorch(tmp_path: Path) -> None:
    model = tg.nn.Sequential(
        tg.nn.Linear(4, 8, seed=0), tg.nn.ReLU(), tg.nn.Linear(8, 3, seed=1), tg.nn.Tanh()
    )
    w = model[0].weight
    assert w.shape == (8, 4) and w.dtype == np.float32 and np.abs(w.data).max() <= 0.5
    x = np.random.default_rng(0).normal(size=(5, 4)).astype(np.float32)
    reference = np.tanh(
        np.maximum(x @ w.data.T + model[0].bias.data, 0) @ model[2].weight.data.T
        + model[2].bias.data
    )
    np.testing.assert_allclose(model(x).data, reference, rtol=1e-6)
    for name in ["model.json", "model.npz"]:
        model.save(tmp_path / name)
        copy = tg.nn.Sequential(
            tg.nn.Linear(4, 8, seed=5), tg.nn.ReLU(), tg.nn.Linear(8, 3, seed=6), tg.nn.Tanh()
        )
        copy.load(tmp_path / name)
        for (n, p), (_, q) in zip(model.named_parameters(), copy.named_parameters()):
            assert q.data.dtype == p.data.dtype
            assert q.array.tobytes() == p.array.tobytes(), n
    other = tg.nn.Sequential(tg.nn.Linear(4, 9), tg.nn.ReLU(), tg.nn.Linear(9, 3))
    before = [p.array.copy() for p in other.parameters()]
    with pytest.raises(ValueError, match="shape"):
        other.load(tmp_path / "model.npz")
    assert all((a == p.data).all() for a, p in zip(before, other.parameters()))


GRADCHECK_CASES = [
    ("matmul-tanh", lambda a, b: (a @ b).tanh(), [(3, 4), (4, 2)]),
    ("broadcast", lambda a, b: (a * b + a / (b * b + 1)).sum(axis=0), [(3, 1), (1, 4)]),
    ("reductions", lambda a: a.max(axis=1) + a.mean(axis=0, keepdims=True).sum(), [(3, 4)]),
    ("indexing", lambda a: a[np.array([0, 2, 2])] * a[1:, ::-1].sum(), [(3, 4)]),
    (
        "softmax",
        lambda a: tg.nn.functional.log_softmax(a, axis=1) * tg.nn.functional.softmax(a, axis=0),
        [(3, 4)],
    ),
    ("cross-entropy", lambda a: tg.nn.functional.cross_entropy(a, np.array([1, 0, 3])), [(3, 4)]),
    (
        "shapes",
        lambda a, b: (
            tg.stack([tg.concatenate([a.T, b]), tg.concatenate([b, a.T])], axis=1).reshape(-1).sin()
        ),
        [(2, 3), (3, 2)],
    ),
]


@pytest.mark.parametrize(
    ("name", "fn", "shapes"), GRADCHECK_CASES, ids=[c[0] for c in GRADCHECK_CASES]
)
@pytest.mark.parametrize("fast_mode", [False, True])
def test_gradcheck_on_tensors(name: str, fn, shapes, fast_mode: bool) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(7)
    inputs = [tg.Tensor(rng.uniform(-1.5, 1.5, s), requires_grad=True) for s in shapes]
    assert tg.gradcheck(fn, inputs, fast_mode=fast_mode)


def test_gradcheck_on_tensors_catches_a_wrong_rule(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from topograd.autograd.registry import OPS

    monkeypatch.setattr(OPS["tanh"], "rule", lambda g, x, out: (g * out,))
    x = tg.Tensor(np.array([[0.5, -1.0], [2.0, 0.3]]), requires_grad=True)
    for fast_mode in (False, True):
        with pytest.raises(
            tg.TensorGradcheckError, match="mismatch for output 0 with respect to input 0"
        ):
            tg.gradcheck(lambda t: (t * 2).tanh(), [x], fast_mode=fast_mode)
    assert tg.gradcheck(lambda t: (t * 2).tanh(), [x], raise_exception=False) is False


def test_anomaly_mode_names_the_tensor_op_and_its_line() -> None:
    x = tg.Tensor([0.0, 1.0], requires_grad=True)
    with tg.detect_anomaly():
        y = x.sqrt() * 0
        with pytest.raises(tg.AnomalyError, match="'sqrt'") as caught:
            y.sum().backward()
    assert "y = x.sqrt() * 0" in str(caught.value)
    y = x.sqrt() * 0
    y.sum().backward()  # off: the nan flows
    assert math.isnan(x.grad[0])


def test_the_engine_frees_intermediate_gradients_as_it_goes() -> None:
    x = tg.Tensor(np.ones((200, 200)), requires_grad=True)
    h = x
    for _ in range(12):
        h = (h * 1.01).tanh()
    size = x.array.nbytes
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    h.sum().backward()
    peak = tracemalloc.get_traced_memory()[1] - start
    tracemalloc.stop()
    assert x.grad is not None
    assert peak < 6 * size  # a few gradients alive at a time, not one per node (24 here)


@pytest.mark.parametrize(
    ("shape", "axes"), [((2, 3), (-1, 0)), ((2, 3, 4), (0, -1, 1)), ((2, 3, 4), (-2, -3, -1))]
)
def test_transpose_with_negative_axes(shape: tuple[int, ...], axes: tuple[int, ...]) -> None:
    x, tx = both(np.arange(float(np.prod(shape))).reshape(shape))
    check(x.transpose(*axes), tx.permute(*axes), [(x, tx)])


def test_tensors_as_indices_mask_or_pick_as_in_torch() -> None:
    x, tx = both(np.random.default_rng(5).normal(size=(3, 4)))
    check(x[x > 0], tx[tx > 0], [(x, tx)])
    rows, cols = tg.tensor([2, 0, 2]), tg.tensor([1, 1, 3])  # int64, as torch.tensor's
    check(x[rows, cols], tx[torch.tensor([2, 0, 2]), torch.tensor([1, 1, 3])], [(x, tx)], 1)
    check(x[(rows, 0)], tx[(torch.tensor([2, 0, 2]), 0)], [(x, tx)], 2)


@pytest.mark.parametrize("index", [[0.5], [math.nan], [math.inf], [1.0], 0.0])
def test_floats_as_an_index_are_refused_whole_or_not(index: Any) -> None:
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool"):
        tg.Tensor([1.0, 2.0])[tg.Tensor(index)]


def test_axes_out_of_range_are_refused_as_numpy_refuses_them() -> None:
    x = tg.Tensor(np.ones((2, 3)))
    with pytest.raises(np.exceptions.AxisError, match="axis 3 is out of bounds"):
        x.transpose(3, 0)
    with pytest.raises(np.exceptions.AxisError, match="axis 5 is out of bounds"):
        x.swapaxes(0, 5)
    with pytest.raises(ValueError, match="not a permutation"):
        x.transpose((0, 0))
    assert x.transpose(0, 0).shape == (2, 3)  # PyTorch's two dims: one exchanged with itself
    assert x.swapaxes(-1, 0).shape == (3, 2)


SECOND_DERIVATIVES = [
    ("square", lambda t: (t**2).sum(), [0.3, -1.2]),
    ("cube of 0-d", lambda t: t**3.0, 0.7),
    ("relu of 0-d", lambda t: (t * t).relu() * t, 0.7),
    ("where of 0-d", lambda t: tg.where(np.asarray(True), t * t * t, t), 0.7),
    ("max", lambda t: (t * t).max() * t.sum(), [0.3, -1.2, 0.5]),
]


@pytest.mark.parametrize(
    ("name", "f", "value"), SECOND_DERIVATIVES, ids=[c[0] for c in SECOND_DERIVATIVES]
)
def test_second_derivatives_through_scalar_exponents_and_0d_tensors(name, f, value) -> None:  # type: ignore[no-untyped-def]
    def torch_f(t):  # type: ignore[no-untyped-def]
        if name == "where of 0-d":
            return torch.where(torch.tensor(True), t * t * t, t)
        return f(t)

    x, tx = both(np.array(value))
    (g,) = tg.grad(f(x), [x], create_graph=True)
    (tgrad,) = torch.autograd.grad(torch_f(tx), [tx], create_graph=True)
    np.testing.assert_allclose(g.data, tgrad.detach().numpy(), rtol=1e-13)
    (h,) = tg.grad(g.sum(), [x])
    (th,) = torch.autograd.grad(tgrad.sum(), [tx])
    np.testing.assert_allclose(h, th.numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    ("base", "exponent"), [(0.0, 0.0), ([0.0, 0.0], [1.5, 2.0]), ([0.0, 2.0], 0.0), (-2.0, 2.0)]
)
def test_pow_at_zero_follows_torch(base: object, exponent: object) -> None:
    (x, tx), (y, ty) = both(np.array(base)), both(np.array(exponent))
    (x**y).sum().backward()
    (tx**ty).sum().backward()
    np.testing.assert_array_equal(x.grad, tx.grad.numpy())
    np.testing.assert_array_equal(y.grad, ty.grad.numpy())


def test_0d_tensors_everywhere() -> None:
    x, tx = both(np.array(-0.5))
    check(
        x.relu() + x.max() + x.sum(axis=None) + x.abs(),
        tx.relu() + tx.amax() + tx.sum() + tx.abs(),
        [(x, tx)],
    )
    y, ty = both(np.array([[1.0, 2.0], [3.0, 4.0]]))
    check(y.sum(axis=np.int64(0)), ty.sum(dim=0), [(y, ty)])


def test_linear_on_one_sample() -> None:
    layer = tg.nn.Linear(3, 2, dtype=np.float64, seed=0)
    reference = torch.nn.Linear(3, 2).double()
    with torch.no_grad():
        reference.weight.copy_(torch.tensor(layer.weight.array))
        reference.bias.copy_(torch.tensor(layer.bias.array))
    x = np.array([0.5, -1.0, 2.0])
    (layer(x) * np.array([1.0, -2.0])).sum().backward()
    (reference(torch.tensor(x)) * torch.tensor([1.0, -2.0])).sum().backward()
    np.testing.assert_allclose(layer.weight.grad, reference.weight.grad.numpy(), rtol=1e-14)
    np.testing.assert_allclose(layer.bias.grad, reference.bias.grad.numpy(), rtol=1e-14)


def test_momentum_keeps_a_buffer_of_its_own() -> None:
    ours, theirs = (
        tg.tensor([1.0, 2.0], dtype=tg.float64, requires_grad=True),
        torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True),
    )
    opt_o, opt_t = (
        tg.optim.SGD([ours], lr=0.1, momentum=0.9),
        torch.optim.SGD([theirs], lr=0.1, momentum=0.9),
    )
    for _ in range(3):
        (ours * ours).sum().backward()
        (theirs * theirs).sum().backward()
        opt_o.step()
        opt_t.step()
        ours.grad.zero_()  # zeroed in place, as torch users do
        theirs.grad.zero_()
    np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=1e-14)


def test_float32_meets_numbers_and_0d_tensors_as_in_pytorch() -> None:
    x = tg.Tensor(np.array([1.0, -2.0], dtype=np.float32), requires_grad=True)
    assert (x + tg.Tensor(2.0)).dtype == np.float32
    assert tg.where(x.data > 0, x, 0.0).dtype == np.float32
    (g,) = tg.grad((x.relu() * x).max(), [x], create_graph=True)
    assert g.dtype == np.float32


def test_what_needs_no_gradient_refuses_backward_and_retain_grad() -> None:
    c = tg.Tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="does not require grad"):
        (c * 2).sum().backward()
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        c.retain_grad()


def test_a_0d_gradient_stays_an_array_after_two_backwards_and_zero_grad_forgets_it() -> None:
    s = tg.Tensor(2.0, requires_grad=True)
    w = tg.Tensor([1.0], requires_grad=True)
    (s * s).backward()
    (s * s).backward()
    assert isinstance(s.grad, tg.Tensor) and s.grad.shape == () and float(s.grad) == 8.0
    opt = tg.optim.Adam([s, w], lr=0.1)
    opt.step()
    opt.zero_grad()
    assert s.grad is None and w.grad is None
    before = s.array.copy()
    (w * w).sum().backward()
    opt.step()  # s took no part: no gradient, no move
    assert s.data == before


def test_an_input_that_gets_nothing_gets_zeros_even_when_it_wants_a_gradient() -> None:
    from topograd.autograd.registry import OPS

    mask = tg.Tensor([1.0, 0.0]) > 0.5
    mask.requires_grad = True  # a mask made to want a gradient (PyTorch's refuse booleans)
    x = tg.Tensor([2.0, 3.0], requires_grad=True)
    OPS["where"](mask, x, 0.0).sum().backward()
    assert mask.grad.tolist() == [0.0, 0.0] and x.grad.tolist() == [1.0, 0.0]


def test_a_tensor_is_true_only_as_a_single_element_is() -> None:
    assert bool(tg.Tensor([2.0]) > 0) and not bool(tg.Tensor(-1.0) > 0)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(tg.Tensor([1.0, -1.0]) > 0)


def test_operators_are_named_as_themselves() -> None:
    assert tg.Tensor.__add__.__name__ == "__add__" and tg.Tensor.__rsub__.__qualname__ == (
        "Tensor.__rsub__"
    )


def test_the_sum_of_several_tensors_is_refused_with_the_way_to_add_them() -> None:
    from topograd.autograd.registry import OPS

    with pytest.raises(TypeError, match="add Tensors with \\+"):
        OPS["sum"](tg.Tensor([1.0]), tg.Tensor([2.0]))


@pytest.mark.parametrize("bias", [True, False])
def test_a_linear_layer_gives_its_own_dtype_to_an_array_input(bias: bool) -> None:
    layer = tg.nn.Linear(3, 2, bias=bias, seed=0)
    out = layer(np.arange(6).reshape(2, 3))  # integers, as NumPy makes them
    assert out.dtype == np.float32
    expected = np.arange(6).reshape(2, 3).astype(np.float32) @ layer.weight.data.T
    np.testing.assert_allclose(out.data - (layer.bias.data if bias else 0), expected, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8", "bool", "float32"])
def test_clone_copies_every_dtype_as_pytorchs(dtype: str) -> None:
    ours, theirs = (
        tg.zeros(3, dtype=getattr(tg, dtype)),
        torch.zeros(3, dtype=getattr(torch, dtype)),
    )
    copy, pytorchs = ours.clone(), theirs.clone()
    copy[0], pytorchs[0] = 1, 1
    assert copy.tolist() == pytorchs.tolist() and ours.tolist() == theirs.tolist()
    assert str(copy.dtype).split(".")[-1] == str(pytorchs.dtype).split(".")[-1]
