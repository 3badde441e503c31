"""The Tensor layers of ``tg.nn`` against PyTorch 2.13 float64: Parameter, train/eval, buffers,
Dropout, LayerNorm, BatchNorm1d, Embedding, Flatten and the activations (values, gradients and
second derivatives, over hypothesis shapes with empty ones), their reprs, their refusals, and
``tg.nn.init``.

Where topograd composes the registry's ops and PyTorch runs a fused kernel (the norms, softmax
along an axis), the same maths is rounded in another order: a result is a sum of at most a few
dozen terms here, each rounded once, so the two agree within 1e-12 of the largest number
compared (a few hundred units in the last place of it; a wrong rule is off by far more). Where
the formula is the same, the comparison is to the bit."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as TF  # noqa: N812 - PyTorch's own abbreviation
from hypothesis import given
from hypothesis import strategies as st

import topograd as tg

F = tg.nn.functional
RTOL = 1e-12


@pytest.fixture(autouse=True, scope="module")
def _one_thread() -> Any:
    """PyTorch on one thread for these small tensors: its thread pool costs more than they."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def close(ours: Any, theirs: Any, what: str, exact: bool = False, rtol: float = RTOL) -> None:
    a = np.asarray(ours.data if isinstance(ours, tg.Tensor) else ours, dtype=np.float64)
    b = theirs.detach().numpy() if isinstance(theirs, torch.Tensor) else np.asarray(theirs)
    assert a.shape == b.shape, (what, a.shape, b.shape)
    if exact:
        np.testing.assert_array_equal(a, b, err_msg=what)
        return
    finite = np.abs(b[np.isfinite(b)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * scale, err_msg=what)


def against_torch(
    ours: Callable[..., Any],
    theirs: Callable[..., Any],
    arrays: Sequence[np.ndarray],
    second: bool = True,
    exact: bool = False,
    second_rtol: float = RTOL,
) -> None:
    """``ours`` on Tensors and ``theirs`` on float64 torch tensors of ``arrays``: the values,
    the gradients for a random upstream gradient, and (``second``) the gradient of a random
    combination of those gradients (within ``second_rtol``), as torch.autograd.grad computes
    them all."""
    rng = np.random.default_rng(len(arrays))
    xs = [tg.Tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, their_out = ours(*xs), theirs(*ts)
    close(out, their_out, "value", exact)
    upstream = rng.uniform(-2, 2, their_out.shape)
    grads = tg.grad(out, xs, upstream, create_graph=second, materialize_grads=True)
    their_grads = torch.autograd.grad(
        their_out, ts, torch.tensor(upstream), create_graph=True, materialize_grads=True
    )
    for k, (g, h) in enumerate(zip(grads, their_grads, strict=True)):
        close(g, h, f"d/d{k + 1}", exact)
    if not second or not all(h.requires_grad for h in their_grads):
        return
    directions = [rng.uniform(-2, 2, a.shape) for a in arrays]
    mixed = sum((g * d).sum() for g, d in zip(grads, directions))
    their_mixed = sum((h * torch.tensor(d)).sum() for h, d in zip(their_grads, directions))
    second_ours = tg.grad(mixed, xs, materialize_grads=True)
    second_theirs = torch.autograd.grad(their_mixed, ts, materialize_grads=True)
    for k, (g, h) in enumerate(zip(second_ours, second_theirs, strict=True)):
        close(g, h, f"second, d/d{k + 1}", rtol=second_rtol)


def arrays_of(seed: int, *shapes: tuple[int, ...], scale: float = 2.0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(0.0, scale, shape) for shape in shapes]


SEEDS = st.integers(0, 2**32 - 1)
# (samples, features) shapes, empty and 0-d included where the layer takes them
SHAPES = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)

# Activations: ours and PyTorch's, the formula the same or composed (see the module doc).
ACTIVATIONS: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "relu": (F.relu, TF.relu),
    "sigmoid": (F.sigmoid, torch.sigmoid),
    "tanh": (F.tanh, torch.tanh),
    "gelu": (F.gelu, TF.gelu),
    "gelu tanh": (lambda x: F.gelu(x, "tanh"), lambda x: TF.gelu(x, approximate="tanh")),
    "silu": (F.silu, TF.silu),
    "elu": (lambda x: F.elu(x, 0.5), lambda x: TF.elu(x, 0.5)),
    "leaky_relu": (F.leaky_relu, TF.leaky_relu),
    "leaky_relu 0.2": (lambda x: F.leaky_relu(x, 0.2), lambda x: TF.leaky_relu(x, 0.2)),
    "softplus": (F.softplus, TF.softplus),
    "softplus beta 2": (lambda x: F.softplus(x, 2.0, 5.0), lambda x: TF.softplus(x, 2.0, 5.0)),
    "softmax": (lambda x: F.softmax(x, -1), lambda x: TF.softmax(x, -1)),
    "log_softmax": (lambda x: F.log_softmax(x, 0), lambda x: TF.log_softmax(x, 0)),
}


@given(name=st.sampled_from(sorted(ACTIVATIONS)), shape=SHAPES, seed=SEEDS)
def test_activations_are_pytorchs(name: str, shape: tuple[int, ...], seed: int) -> None:
    ours, theirs = ACTIVATIONS[name]
    (x,) = arrays_of(seed, shape, scale=8.0)  # beyond softplus's threshold, too
    if "softmax" in name and not shape:
        x = np.asarray(x)
    against_torch(ours, theirs, [x])


def test_activations_at_their_edges_are_pytorchs() -> None:
    x = np.array([0.0, -0.0, 20.0, 20.5, 2.5, 10.0, -800.0, 800.0, 1e-310])
    for name, (ours, theirs) in ACTIVATIONS.items():
        if "softmax" not in name:
            against_torch(ours, theirs, [x], second=False)


def test_leaky_relu_with_any_slope_selects_as_pytorch() -> None:
    x = np.array([-1.0, 0.0, -0.0, 3.0, np.nan])
    for upstream in (np.inf, np.nan, -0.0):
        ours = tg.Tensor(x, requires_grad=True)
        theirs = torch.tensor(x, requires_grad=True)
        (g,) = tg.grad(F.leaky_relu(ours, 0.3), [ours], np.full(5, upstream))
        (h,) = torch.autograd.grad(TF.leaky_relu(theirs, 0.3), [theirs], torch.full((5,), upstream))
        close(g, h, f"upstream {upstream}", exact=True)


MODULES: list[tuple[Any, Any]] = [
    (tg.nn.Sigmoid(), torch.nn.Sigmoid()),
    (tg.nn.GELU(), torch.nn.GELU()),
    (tg.nn.GELU("tanh"), torch.nn.GELU("tanh")),
    (tg.nn.SiLU(), torch.nn.SiLU()),
    (tg.nn.ELU(0.5), torch.nn.ELU(0.5)),
    (tg.nn.LeakyReLU(0.2), torch.nn.LeakyReLU(0.2)),
    (tg.nn.Softplus(), torch.nn.Softplus()),
    (tg.nn.Softmax(dim=1), torch.nn.Softmax(dim=1)),
    (tg.nn.LogSoftmax(dim=0), torch.nn.LogSoftmax(dim=0)),
    (tg.nn.ReLU(), torch.nn.ReLU()),
    (tg.nn.Tanh(), torch.nn.Tanh()),
    (tg.nn.Flatten(), torch.nn.Flatten()),
    (tg.nn.Flatten(0, 1), torch.nn.Flatten(0, 1)),
    (tg.nn.Identity(), torch.nn.Identity()),
]


@pytest.mark.parametrize(("ours", "theirs"), MODULES, ids=[repr(t) for _, t in MODULES])
def test_modules_compute_and_print_as_pytorchs(ours: Any, theirs: Any) -> None:
    assert repr(ours) == repr(theirs)
    (x,) = arrays_of(0, (3, 4, 2))
    against_torch(ours, theirs.double(), [x])


def test_reprs_are_pytorchs() -> None:
    pairs = [
        (tg.nn.Dropout(0.25), torch.nn.Dropout(0.25)),
        (
            tg.nn.LayerNorm((2, 3), elementwise_affine=False),
            torch.nn.LayerNorm((2, 3), 1e-5, False),
        ),
        (tg.nn.LayerNorm(4, bias=False), torch.nn.LayerNorm(4, bias=False)),
        (tg.nn.BatchNorm1d(3), torch.nn.BatchNorm1d(3)),
        (
            tg.nn.BatchNorm1d(3, momentum=None, affine=False, track_running_stats=False),
            torch.nn.BatchNorm1d(3, momentum=None, affine=False, track_running_stats=False),
        ),
        (tg.nn.Embedding(5, 2, padding_idx=-1), torch.nn.Embedding(5, 2, padding_idx=-1)),
        (tg.nn.Softmax(), torch.nn.Softmax()),
        (tg.nn.ReLU(inplace=True), torch.nn.ReLU(inplace=True)),
        (tg.nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()),
        (tg.nn.BCEWithLogitsLoss(), torch.nn.BCEWithLogitsLoss()),
        (tg.nn.Linear(2, 3), torch.nn.Linear(2, 3)),
    ]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)
    assert repr(tg.nn.Parameter(tg.ones(2))) == repr(torch.nn.Parameter(torch.ones(2)))


def test_softmax_without_a_dim_chooses_and_warns_as_pytorch() -> None:
    for shape in [(3,), (2, 3), (2, 3, 4), (2, 3, 4, 5)]:
        (x,) = arrays_of(1, shape)
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            ours = tg.nn.Softmax()(tg.Tensor(x))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = torch.nn.Softmax()(torch.tensor(x))
        close(ours, theirs, f"{shape}")
    with pytest.raises(TypeError, match="not both"):
        F.softmax(tg.Tensor([1.0]), dim=0, axis=0)


def test_gelu_refuses_an_unknown_approximation_as_pytorch() -> None:
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        tg.nn.GELU("fast")
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(tg.Tensor([1.0]), approximate="fast")


# Parameter, train/eval, buffers.


def test_a_parameter_is_a_tensor_a_module_registers() -> None:
    data = tg.Tensor([1.0, 2.0])
    w = tg.nn.Parameter(data)
    assert isinstance(w, tg.Tensor) and w.requires_grad and w.is_leaf
    data[0] = 5.0  # the numbers shared, as PyTorch's storage: the parameter sees the write
    theirs = torch.tensor([1.0, 2.0])
    their_w = torch.nn.Parameter(theirs)
    with torch.no_grad():
        theirs[0] = 5.0
    assert w.tolist() == their_w.tolist() == [5.0, 2.0]
    data[0] = 1.0
    y = (w * w).sum()
    assert type(y) is tg.Tensor
    y.backward()
    assert w.grad is not None and w.grad.tolist() == [2.0, 4.0]
    assert tg.nn.Parameter().shape == (0,)

    class Frozen(tg.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.scale = tg.nn.Parameter(tg.ones(2), requires_grad=False)
            self.constant = tg.ones(2)  # a Tensor that wants no gradient: no parameter

    frozen = Frozen()
    assert [n for n, _ in frozen.named_parameters()] == ["scale"]  # listed, as PyTorch's
    assert list(frozen.state_dict()) == ["scale"]
    assert isinstance(tg.nn.Linear(2, 3).weight, tg.nn.Parameter)


class Net(tg.nn.Module):
    """A PyTorch-style module: forward, sub-modules in attributes and a list."""

    def __init__(self) -> None:
        super().__init__()
        self.body = tg.nn.Sequential(tg.nn.Linear(3, 4, seed=0), tg.nn.Dropout(0.5))
        self.norm = tg.nn.BatchNorm1d(4)
        self.heads = [tg.nn.Linear(4, 2, seed=1)]

    def forward(self, x: Any) -> Any:
        return self.heads[0](self.norm(self.body(x)))


def test_train_and_eval_reach_every_module_and_return_it() -> None:
    net = Net()
    assert all(m.training for m in net.modules())
    assert net.eval() is net
    assert [m.training for m in net.modules()] == [False] * 6
    assert net.train() is net and net.heads[0].training and net.body[1].training
    net.train(False)
    assert not net.body[1].training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train("yes")  # type: ignore[arg-type]
    assert [n for n, _ in net.named_modules()] == [
        "",
        "body",
        "body.0",
        "body.1",
        "norm",
        "heads.0",
    ]
    assert list(net.children()) == [net.body, net.norm, net.heads[0]]
    order: list[str] = []
    net.apply(lambda m: order.append(type(m).__name__))
    assert order == ["Linear", "Dropout", "Sequential", "BatchNorm1d", "Linear", "Net"]
    assert net.body[0] is next(iter(net.body)) and len(net.body) == 2
    assert list(net.body.modules()) == [net.body, *net.body]  # the Sequential, then its layers
    assert isinstance(net.body[0:1], tg.nn.Sequential)


def test_buffers_are_saved_state_that_is_not_learnt() -> None:
    net = Net()
    theirs = torch.nn.BatchNorm1d(4)
    assert [n for n, _ in net.norm.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert list(net.norm.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in net.named_buffers()] == [
        "norm.running_mean",
        "norm.running_var",
        "norm.num_batches_tracked",
    ]
    assert len(net.buffers()) == 3 and "norm.running_mean" not in dict(net.named_parameters())
    assert net.state_dict()["norm.num_batches_tracked"].dtype == np.int64
    net.register_buffer("scratch", tg.zeros(2), persistent=False)
    net.register_buffer("nothing", None)
    assert "scratch" in dict(net.named_buffers()) and "scratch" not in net.state_dict()
    assert "nothing" not in dict(net.named_buffers()) and net.nothing is None
    with pytest.raises(KeyError, match="buffer name"):
        net.register_buffer("a.b", tg.zeros(1))
    with pytest.raises(TypeError, match="cannot assign list object to buffer 'x'"):
        net.register_buffer("x", [1.0])
    free = tg.nn.BatchNorm1d(4, track_running_stats=False)
    assert free.buffers() == [] and list(free.state_dict()) == ["weight", "bias"]


# Dropout.


def test_dropout_drops_with_probability_p_and_scales_the_rest() -> None:
    x = tg.Tensor(np.full((400, 50), 2.0, np.float32), requires_grad=True)
    tg.manual_seed(3)
    out = F.dropout(x, p=0.3)
    kept = out.array != 0
    assert out.dtype == np.float32
    assert abs(kept.mean() - 0.7) < 0.01  # 20 000 draws: 4.7 standard deviations
    scale = np.float32(1) / np.float32(0.7)  # PyTorch's: 1 / (1 - p), in the input's dtype
    np.testing.assert_array_equal(out.data[kept], np.float32(2.0) * scale)
    upstream = np.random.default_rng(0).normal(size=x.shape).astype(np.float32)
    (g,) = tg.grad(out, [x], upstream, create_graph=True)
    np.testing.assert_array_equal(g.data, upstream * np.where(kept, scale, np.float32(0)))
    # linear: no curvature (the first derivative has no graph: zeros asked for, as PyTorch's)
    assert np.array_equal(tg.grad(g.sum(), [x], materialize_grads=True)[0], np.zeros(x.shape))
    tg.manual_seed(3)
    assert np.array_equal(F.dropout(x, p=0.3).data, out.data)  # seeded: the same mask
    assert np.array_equal(
        F.dropout(x, 0.3, generator=tg.Generator().manual_seed(1)).data,
        F.dropout(x, 0.3, generator=tg.Generator().manual_seed(1)).data,
    )


def test_dropout_in_evaluation_and_at_the_ends_is_pytorchs() -> None:
    x = tg.Tensor([1.0, np.inf, -2.0], requires_grad=True)
    layer = tg.nn.Dropout(0.5)
    assert layer.eval()(x) is x and F.dropout(x, 0.5, training=False) is x
    theirs = torch.tensor([1.0, np.inf, -2.0])
    close(F.dropout(x, 1.0), TF.dropout(theirs, 1.0), "p = 1: x times 0", exact=True)
    close(F.dropout(x, 0.0), TF.dropout(theirs, 0.0), "p = 0", exact=True)
    for p in (-0.1, 1.5, float("nan"), True):
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
            tg.nn.Dropout(p)
        with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1"):
            F.dropout(x, p)


# LayerNorm.


@given(
    lead=st.lists(st.integers(0, 3), max_size=2).map(tuple),
    normalized=st.lists(st.integers(1, 4), min_size=1, max_size=2).map(tuple),
    affine=st.sampled_from(["none", "weight", "both"]),
    seed=SEEDS,
)
def test_layer_norm_is_pytorchs(
    lead: tuple[int, ...], normalized: tuple[int, ...], affine: str, seed: int
) -> None:
    shapes = [lead + normalized] + [normalized] * {"none": 0, "weight": 1, "both": 2}[affine]
    arrays = arrays_of(seed, *shapes)
    against_torch(
        lambda x, *wb: F.layer_norm(x, normalized, *wb, eps=1e-3),
        lambda x, *wb: TF.layer_norm(x, normalized, *wb, eps=1e-3),
        arrays,
    )


def test_layer_norm_module_and_its_refusals_are_pytorchs() -> None:
    ours, theirs = tg.nn.LayerNorm((2, 3)), torch.nn.LayerNorm((2, 3)).double()
    assert ours.weight is not None and ours.weight.dtype == np.float32
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    ours = tg.nn.LayerNorm((2, 3), dtype=np.float64)
    (x,) = arrays_of(2, (4, 2, 3))
    close(ours(tg.Tensor(x)), theirs(torch.tensor(x)), "module")
    with pytest.raises(RuntimeError, match=r"normalized_shape=\[3\], expected input with shape"):
        tg.nn.LayerNorm(3)(tg.zeros(2, 4, dtype=tg.float32))
    with pytest.raises(RuntimeError, match="expected input with shape"):
        F.layer_norm(tg.zeros(3), (2, 3))
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape"):
        F.layer_norm(tg.zeros(2, 3), (3,), weight=tg.ones(2))


# BatchNorm1d.


@given(
    shape=st.sampled_from([(2, 3), (5, 1), (3, 2, 4), (1, 2, 3), (4, 3, 1)]),
    affine=st.booleans(),
    seed=SEEDS,
)
def test_batch_norm_in_training_is_pytorchs(
    shape: tuple[int, ...], affine: bool, seed: int
) -> None:
    channels = shape[1]
    arrays = arrays_of(seed, shape, *[(channels,)] * (2 if affine else 0))

    def ours(x: Any, *wb: Any) -> Any:
        return F.batch_norm(x, None, None, *wb, training=True, eps=1e-3)

    def theirs(x: Any, *wb: Any) -> Any:
        return TF.batch_norm(x, None, None, *wb, training=True, eps=1e-3)

    against_torch(ours, theirs, arrays)


def test_batch_norm_keeps_pytorchs_running_statistics() -> None:
    for momentum in (0.1, None):
        ours = tg.nn.BatchNorm1d(3, momentum=momentum, dtype=np.float64)
        theirs = torch.nn.BatchNorm1d(3, momentum=momentum).double()
        for step, shape in enumerate([(4, 3), (2, 3, 5), (6, 3)]):
            (x,) = arrays_of(step, shape)
            close(ours(tg.Tensor(x)), theirs(torch.tensor(x)), f"training, step {step}")
            for name, buffer in theirs.named_buffers():
                close(getattr(ours, name), buffer, f"{name}, {momentum}", exact=name[0] == "n")
        (x,) = arrays_of(9, (5, 3, 2))
        ours.eval(), theirs.eval()
        against_torch(lambda t, m=ours: m(t), theirs, [x])  # the running statistics
        assert int(ours.num_batches_tracked.data) == 3  # type: ignore[union-attr]
    free = tg.nn.BatchNorm1d(2, track_running_stats=False, dtype=np.float64)
    their_free = torch.nn.BatchNorm1d(2, track_running_stats=False).double()
    (x,) = arrays_of(4, (3, 2))
    free.eval(), their_free.eval()  # no statistics kept: the batch's, even in evaluation
    close(free(tg.Tensor(x)), their_free(torch.tensor(x)), "no running statistics")
    assert tg.nn.BatchNorm1d(3).running_mean.dtype == np.float32  # type: ignore[union-attr]


def test_batch_norm_refuses_as_pytorch() -> None:
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        tg.nn.BatchNorm1d(3)(tg.zeros(1, 3))
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        tg.nn.BatchNorm1d(3)(tg.zeros(2, 3, 4, 5))
    with pytest.raises(RuntimeError, match="running_mean should contain 4 elements not 3"):
        tg.nn.BatchNorm1d(3)(tg.zeros(2, 4))
    with pytest.raises(RuntimeError, match="must be defined in evaluation mode"):
        F.batch_norm(tg.zeros(2, 3), None, None)


# Embedding.


@given(
    index_shape=st.lists(st.integers(0, 3), max_size=2).map(tuple),
    padding=st.sampled_from([None, 0, 2, -1]),
    seed=SEEDS,
)
def test_embedding_is_pytorchs(index_shape: tuple[int, ...], padding: Any, seed: int) -> None:
    rng = np.random.default_rng(seed)
    index = rng.integers(0, 5, index_shape)  # repeated indices, the padding one too
    (table,) = arrays_of(seed, (5, 3))
    against_torch(
        lambda w: F.embedding(index, w, padding_idx=padding),
        lambda w: TF.embedding(torch.tensor(index), w, padding_idx=padding),
        [table],
        exact=True,
    )


def test_an_embedding_starts_as_pytorchs_and_refuses_as_pytorch() -> None:
    tg.manual_seed(0)
    table = tg.nn.Embedding(2000, 8, padding_idx=3)
    numbers = np.delete(table.weight.data, 3, axis=0)
    assert table.weight.dtype == np.float32 and not table.weight.data[3].any()
    assert abs(numbers.mean()) < 0.01 and abs(numbers.std() - 1) < 0.01  # N(0, 1)
    index = tg.tensor([[3, 1], [1, 1]], dtype=tg.int64)  # as torch.tensor([[3, 1], [1, 1]])
    out = table(index)
    out.sum().backward()
    assert table.weight.grad is not None
    assert table.weight.grad[1].tolist() == [3.0] * 8 and not table.weight.grad[3].any()
    with pytest.raises(IndexError, match="index out of range in self"):
        table(np.array([2000]))
    with pytest.raises(IndexError, match="index out of range in self"):
        table(np.array([-1]))
    for floats in (tg.Tensor([1.0]), tg.Tensor([1.5]), np.array([1.0])):  # whole or not
        with pytest.raises(RuntimeError, match="to have one of the following scalar types: Long"):
            table(floats)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        tg.nn.Embedding(5, 2, padding_idx=5)
    assert tg.nn.Embedding(5, 2, padding_idx=-1).padding_idx == 4


# tg.nn.init.


GAINS = [
    ("linear", None),
    ("conv2d", None),
    ("sigmoid", None),
    ("tanh", None),
    ("relu", None),
    ("leaky_relu", None),
    ("leaky_relu", 0.2),
    ("leaky_relu", 3),
    ("selu", None),
]


def test_gains_and_fans_are_pytorchs() -> None:
    for nonlinearity, param in GAINS:
        theirs = torch.nn.init.calculate_gain(nonlinearity, param)  # type: ignore[arg-type]
        assert tg.nn.init.calculate_gain(nonlinearity, param) == theirs, nonlinearity
    for shape in [(3, 4), (8, 3, 5, 5), (2, 7, 3)]:
        theirs = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
        assert tg.nn.init.fan_in_and_fan_out(tg.zeros(shape)) == theirs
    for bad in ("a", True):
        with pytest.raises(ValueError, match=f"negative_slope {bad} not a valid number"):
            tg.nn.init.calculate_gain("leaky_relu", bad)
    with pytest.raises(ValueError, match="Unsupported nonlinearity softmax"):
        tg.nn.init.calculate_gain("softmax")
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        tg.nn.init.kaiming_uniform_(tg.zeros(3))
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        tg.nn.init.kaiming_uniform_(tg.zeros(3, 4), mode="fan_avg")


INITS: list[tuple[str, dict[str, Any], str]] = [  # (name, options, the draw it makes)
    ("kaiming_uniform_", {}, "uniform_"),
    ("kaiming_uniform_", {"a": math.sqrt(5)}, "uniform_"),  # nn.Linear's
    ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}, "uniform_"),
    ("kaiming_normal_", {"nonlinearity": "tanh"}, "normal_"),
    ("xavier_uniform_", {}, "uniform_"),
    ("xavier_uniform_", {"gain": 5 / 3}, "uniform_"),
    ("xavier_normal_", {"gain": 2.0}, "normal_"),
]


@pytest.mark.parametrize(("name", "options", "draw"), INITS)
def test_an_initialisation_draws_within_pytorchs_bounds(
    name: str, options: dict[str, Any], draw: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bound (or the standard deviation) PyTorch passes to its draw, taken from the call
    it makes, equals topograd's to the bit; the numbers fill it as the distribution says, and
    are PyTorch's for the same seed."""
    shape = (300, 40, 3)
    found: dict[str, list[float]] = {}

    def spy(side: str, original: Any) -> Any:
        def recorded(tensor: Any, *args: Any, **kwargs: Any) -> Any:
            found[side] = [float(a) for a in args[:2]]
            return original(tensor, *args, **kwargs)

        return recorded

    monkeypatch.setattr(torch.Tensor, draw, spy("torch", getattr(torch.Tensor, draw)))
    theirs = torch.empty(shape)
    getattr(torch.nn.init, name)(theirs, **options, generator=torch.Generator().manual_seed(0))
    monkeypatch.setattr(tg.nn.init, draw, spy("ours", getattr(tg.nn.init, draw)))
    w = tg.nn.Parameter(np.zeros(shape, np.float32))
    assert getattr(tg.nn.init, name)(w, **options, generator=tg.Generator().manual_seed(0)) is w
    assert found["ours"] == found["torch"]
    spread = found["ours"][1]
    if draw == "uniform_":
        assert -spread <= w.data.min() < -0.999 * spread and 0.999 * spread < w.data.max() <= spread
        assert abs(w.data.std() - spread / math.sqrt(3)) < 0.01 * spread
    else:
        assert abs(w.data.std() - spread) < 0.01 * spread
    assert abs(w.data.mean()) < 0.02 * spread and w.dtype == np.float32 and w.requires_grad
    assert np.array_equal(w.array.view(np.uint32), theirs.numpy().view(np.uint32))


def test_simple_initialisations_write_in_place_outside_any_graph() -> None:
    w = tg.nn.Parameter(tg.zeros(2, 3))
    y = (w * w).sum()
    assert tg.nn.init.ones_(w) is w and w.tolist() == [[1.0] * 3] * 2
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()  # a write in place: the graph made before it is refused
    assert tg.nn.init.constant_(w, 2.5).tolist() == [[2.5] * 3] * 2
    assert not tg.nn.init.zeros_(w).data.any() and w.is_leaf and w.requires_grad
    tg.nn.init.uniform_(w, -1.0, 2.0)
    assert w.data.min() >= -1.0 and w.data.max() < 2.0
    a = tg.nn.init.normal_(tg.zeros(100), 3.0, 0.5, generator=tg.Generator().manual_seed(2))
    b = tg.nn.init.normal_(tg.zeros(100), 3.0, 0.5, generator=tg.Generator().manual_seed(2))
    assert a.tolist() == b.tolist() and 2.8 < a.data.mean() < 3.2
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        tg.nn.init.kaiming_uniform_(tg.zeros(0, 3))


def test_every_name_of_nn_is_there_and_a_module_casts_its_state() -> None:
    for name in tg.nn.__all__:
        assert getattr(tg.nn, name) is not None, name
    net = Net().double()
    assert {t.dtype for t in net.parameters()} == {np.dtype(np.float64)}
    assert net.norm.num_batches_tracked.dtype == np.int64  # type: ignore[union-attr]
    assert net.float().heads[0].weight.dtype == np.float32
    assert net.norm.running_var.dtype == np.float32  # type: ignore[union-attr]
