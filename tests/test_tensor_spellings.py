"""How a Tensor spells PyTorch's methods, against PyTorch 2.13 in float64: ``to`` (devices,
dtypes, ``copy=`` and ``non_blocking=``), ``transpose`` (of a number, by keyword), dims given
as booleans or floats (refused, as PyTorch refuses them), and ``tg.tensor`` as
``torch.tensor`` (a copy, a detached leaf, ``requires_grad``, ``dtype``)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import topograd as tg

X = np.array([0.1, 1 / 3, -2.5, 1e4])
WEIGHTS = np.array([1.0, -2.0, 0.5, 3.0])

# The same names in both libraries: what a test case is written against.
OURS = SimpleNamespace(float32=tg.float32, float64=tg.float64, other=tg.Tensor(np.ones(1, "f")))
THEIRS = SimpleNamespace(
    float32=torch.float32, float64=torch.float64, other=torch.ones(1, dtype=torch.float32)
)

Call = Callable[[Any, SimpleNamespace], Any]

TO_CALLS: list[tuple[str, Call]] = [
    ("nothing", lambda x, n: x.to()),
    ("cpu", lambda x, n: x.to("cpu")),
    ("cpu:0", lambda x, n: x.to("cpu:0")),
    ("cpu:1", lambda x, n: x.to("cpu:1")),
    ("device=cpu", lambda x, n: x.to(device="cpu")),
    ("device=cpu:0", lambda x, n: x.to(device="cpu:0")),
    ("torch.device(cpu)", lambda x, n: x.to(torch.device("cpu"))),
    ("torch.device(cpu, 0)", lambda x, n: x.to(torch.device("cpu", 0))),
    ("copy=True", lambda x, n: x.to(copy=True)),
    ("copy=False", lambda x, n: x.to(copy=False)),
    ("non_blocking", lambda x, n: x.to("cpu", non_blocking=True)),
    ("same dtype", lambda x, n: x.to(n.float64)),
    ("same dtype, copy", lambda x, n: x.to(n.float64, copy=True)),
    ("same dtype, flags by position", lambda x, n: x.to(n.float64, False, True)),
    ("same dtype, no copy by position", lambda x, n: x.to(n.float64, True, False)),
    ("float32", lambda x, n: x.to(n.float32)),
    ("dtype=float32", lambda x, n: x.to(dtype=n.float32)),
    ("cpu, float32", lambda x, n: x.to("cpu", n.float32)),
    ("cpu, float64, flags", lambda x, n: x.to("cpu", n.float64, True, True)),
    ("device and dtype by name", lambda x, n: x.to(device="cpu", dtype=n.float32)),
    ("cpu, dtype by name", lambda x, n: x.to("cpu", dtype=n.float32)),
    ("None", lambda x, n: x.to(None)),
    ("None, float32", lambda x, n: x.to(None, n.float32)),
    ("another Tensor", lambda x, n: x.to(n.other)),
    ("another Tensor, copy", lambda x, n: x.to(n.other, False, True)),
]


@pytest.mark.parametrize(("name", "call"), TO_CALLS, ids=[name for name, _ in TO_CALLS])
def test_to_gives_itself_or_a_copy_in_the_graph_as_pytorch(name: str, call: Call) -> None:
    ours = tg.Tensor(X, requires_grad=True)
    theirs = torch.tensor(X, requires_grad=True)
    got, expected = call(ours, OURS), call(theirs, THEIRS)
    assert (got is ours) == (expected is theirs)
    assert got.dtype == np.dtype(str(expected.dtype).removeprefix("torch."))
    assert (got.op != "") == (expected.grad_fn is not None)
    assert got.requires_grad == expected.requires_grad
    np.testing.assert_array_equal(got.data, expected.detach().numpy())
    (got * WEIGHTS).sum().backward()
    (expected * torch.tensor(WEIGHTS)).sum().backward()
    assert ours.grad is not None and theirs.grad is not None
    np.testing.assert_array_equal(ours.grad, theirs.grad.numpy())


def test_a_copy_is_differentiable_to_second_order_and_shares_no_memory() -> None:
    ours = tg.Tensor(X, requires_grad=True)
    theirs = torch.tensor(X, requires_grad=True)
    (g,) = tg.grad(((ours * ours).to(copy=True) ** 3.0).sum(), ours, create_graph=True)
    (e,) = torch.autograd.grad(
        ((theirs * theirs).to(copy=True) ** 3.0).sum(), theirs, create_graph=True
    )
    assert g.requires_grad and e.requires_grad
    np.testing.assert_allclose(g.data, e.detach().numpy(), rtol=1e-14)
    (h,) = tg.grad((g * WEIGHTS).sum(), ours)
    (f,) = torch.autograd.grad((e * torch.tensor(WEIGHTS)).sum(), theirs)
    np.testing.assert_allclose(h, f.numpy(), rtol=1e-14)
    plain, copied = tg.Tensor(X), tg.Tensor(X).to(copy=True)
    copied[0] = 7.0
    assert plain.data[0] == X[0] and copied.data[0] == 7.0


def test_a_copy_under_no_grad_is_a_leaf_as_pytorchs() -> None:
    ours, theirs = tg.Tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    with tg.no_grad():
        got = ours.to(copy=True)
    with torch.no_grad():
        expected = theirs.to(copy=True)
    assert got is not ours and expected is not theirs
    assert (got.requires_grad, got.is_leaf) == (expected.requires_grad, expected.is_leaf)


BAD_TO_CALLS: list[tuple[str, Call]] = [
    ("CPU", lambda x, n: x.to("CPU")),
    ("foo", lambda x, n: x.to("foo")),
    ("cpu:01", lambda x, n: x.to("cpu:01")),
    ("cpu:-1", lambda x, n: x.to("cpu:-1")),
    ("two dtypes", lambda x, n: x.to(n.float32, dtype=n.float32)),
    ("two devices", lambda x, n: x.to("cpu", device="cpu")),
    ("copy=1", lambda x, n: x.to(copy=1)),
    ("copy=None", lambda x, n: x.to(copy=None)),
    ("non_blocking='yes'", lambda x, n: x.to(non_blocking="yes")),
    ("a string after a dtype", lambda x, n: x.to(n.float64, "a")),
    ("five positions", lambda x, n: x.to("cpu", n.float64, True, True, True)),
    ("another Tensor and a dtype", lambda x, n: x.to(n.other, dtype=n.float64)),
    ("an unknown keyword", lambda x, n: x.to(foo=1)),
]


@pytest.mark.parametrize(("name", "call"), BAD_TO_CALLS, ids=[name for name, _ in BAD_TO_CALLS])
def test_to_refuses_what_pytorch_refuses_with_its_error(name: str, call: Call) -> None:
    with pytest.raises((TypeError, RuntimeError)) as theirs:
        call(torch.tensor(X), THEIRS)
    with pytest.raises(theirs.type):
        call(tg.Tensor(X), OURS)


@pytest.mark.parametrize("device", ["cuda", "cuda:0", "mps", "meta"])
def test_to_another_device_says_topograd_runs_on_the_cpu(device: str) -> None:
    with pytest.raises(ValueError, match=f"runs on the CPU only, not on '{device}'"):
        tg.Tensor(X).to(device)
    with pytest.raises(ValueError, match="runs on the CPU only"):
        tg.Tensor(X).to(device=device)


@pytest.mark.parametrize("name", ["int64", "int32", "int8", "uint8", "bool", "float16"])
@pytest.mark.parametrize("spelt", ["dtype", "python"])
def test_to_another_dtype_casts_as_pytorch_does(name: str, spelt: str) -> None:
    if spelt == "python" and name not in ("int64", "bool"):
        pytest.skip("Python's types name only int64 (int) and bool")
    python = {"int64": int, "bool": bool}
    ours, theirs = (
        (getattr(tg, name), getattr(torch, name)) if spelt == "dtype" else (python[name],) * 2
    )
    x = np.array([-2.7, -0.5, 0.0, 0.5, 3.9, 300.2])
    got, expected = tg.tensor(x).to(ours), torch.tensor(x).to(theirs)
    assert repr(got.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    assert tg.tensor(x).to("cpu", dtype=ours).dtype == got.dtype


@pytest.mark.parametrize("dtype", [True, 2, np.complex128, "complex64"])
def test_to_what_is_no_dtype_of_topograds_is_refused(dtype: Any) -> None:
    with pytest.raises(TypeError):
        tg.Tensor(X).to(dtype)


# transpose: of a number, by keyword, and its dims out of range.


@pytest.mark.parametrize("dims", [(0, 0), (-1, -1), (0, -1), (-1, 0)])
def test_a_number_transposed_is_itself_in_the_graph_as_pytorch(dims: tuple[int, int]) -> None:
    ours, theirs = tg.Tensor(2.5, requires_grad=True), torch.tensor(2.5, requires_grad=True)
    got, expected = ours.transpose(*dims), theirs.transpose(*dims)
    assert got.shape == tuple(expected.shape) == ()
    assert got is not ours and got.op != "" and expected.grad_fn is not None
    (got * 3.0).backward()
    (expected * 3.0).backward()
    assert ours.grad is not None and theirs.grad is not None
    assert float(ours.grad) == float(theirs.grad)
    assert ours.swapaxes(*dims).shape == tuple(theirs.swapaxes(*dims).shape)


def dims_of(ndim: int) -> st.SearchStrategy[int]:
    """A dim in range of a Tensor of ``ndim`` axes, or just outside it."""
    span = max(ndim, 1)
    return st.integers(-span - 1, span)


@given(st.data())
def test_transpose_by_position_or_keyword_is_pytorchs(data: Any) -> None:
    x = data.draw(hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=4, max_side=3)))
    dim0, dim1 = data.draw(dims_of(x.ndim)), data.draw(dims_of(x.ndim))
    spelling = data.draw(st.sampled_from(["position", "keywords", "mixed"]))

    def call(t: Any) -> Any:
        if spelling == "position":
            return t.transpose(dim0, dim1)
        if spelling == "keywords":
            return t.transpose(dim0=dim0, dim1=dim1)
        return t.transpose(dim0, dim1=dim1)

    ours, theirs = tg.Tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    try:
        expected = call(theirs)
    except IndexError:
        with pytest.raises(IndexError, match="Dimension out of range"):
            call(ours)
        return
    got = call(ours)
    np.testing.assert_array_equal(got.data, expected.detach().numpy())
    weights = np.arange(1.0, expected.numel() + 1.0).reshape(expected.shape)
    (got * weights).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    assert ours.grad is not None and theirs.grad is not None
    np.testing.assert_array_equal(ours.grad, theirs.grad.numpy())


@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.transpose(0, dim0=1),
        lambda t: t.transpose(dim0=0),
        lambda t: t.transpose(dim1=0),
        lambda t: t.transpose(0, 1, dim1=1),
    ],
)
def test_transpose_refuses_a_dim_given_twice_or_missing_as_pytorch(
    call: Callable[[Any], Any],
) -> None:
    with pytest.raises(TypeError, match="transpose\\(\\)"):
        call(torch.zeros(2, 3))
    with pytest.raises(TypeError, match="transpose\\(\\) takes two dims"):
        call(tg.zeros(2, 3))


# Dims given as booleans or floats: refused by PyTorch (a TypeError), so by topograd.

IDX = np.zeros((2, 3), dtype=np.int64)
BAD_DIMS: list[tuple[str, Callable[[Any], Any]]] = [
    ("transpose(True, False)", lambda t: t.transpose(True, False)),
    ("transpose(0.0, 1)", lambda t: t.transpose(0.0, 1)),
    ("transpose(dim0=True)", lambda t: t.transpose(dim0=True, dim1=0)),
    ("transpose(np.True_)", lambda t: t.transpose(np.True_, 0)),
    ("swapaxes(True, False)", lambda t: t.swapaxes(True, False)),
    ("permute((True, False))", lambda t: t.permute((True, False))),
    ("permute((1.0, 0))", lambda t: t.permute((1.0, 0))),
    ("unsqueeze(True)", lambda t: t.unsqueeze(True)),
    ("unsqueeze(1.0)", lambda t: t.unsqueeze(1.0)),
    ("squeeze(True)", lambda t: t.squeeze(True)),
    ("flatten(True)", lambda t: t.flatten(True)),
    ("flip(True)", lambda t: t.flip(True)),
    ("flip(1.0)", lambda t: t.flip(1.0)),
    ("roll(1, True)", lambda t: t.roll(1, True)),
    ("split(1, True)", lambda t: t.split(1, True)),
    ("chunk(2, True)", lambda t: t.chunk(2, True)),
    ("size(True)", lambda t: t.size(True)),
    ("size(1.0)", lambda t: t.size(1.0)),
    ("diagonal(0, True, False)", lambda t: t.diagonal(0, True, False)),
    ("reshape((True, 6))", lambda t: t.reshape((True, 6))),
    ("view(3.0, 2)", lambda t: t.view(3.0, 2)),
    ("expand(True, 2, 3)", lambda t: t.expand(True, 2, 3)),
    ("repeat(True, 1)", lambda t: t.repeat(True, 1)),
]


@pytest.mark.parametrize(("name", "call"), BAD_DIMS, ids=[name for name, _ in BAD_DIMS])
def test_dims_and_sizes_that_are_booleans_or_floats_are_refused(
    name: str, call: Callable[[Any], Any]
) -> None:
    with pytest.raises(TypeError):
        call(torch.zeros(2, 3))
    with pytest.raises(TypeError, match="must be an int, not"):
        call(tg.zeros(2, 3))


def test_a_gather_along_a_boolean_dim_and_sizes_as_booleans_are_refused() -> None:
    with pytest.raises(TypeError):
        torch.zeros(2, 3).gather(True, torch.tensor(IDX))
    with pytest.raises(TypeError, match="must be an int, not bool"):
        tg.zeros(2, 3).gather(True, IDX)
    for size in (True, 2.0):
        with pytest.raises(TypeError):
            torch.zeros(size)  # type: ignore[call-overload]
        with pytest.raises(TypeError, match="must be an int, not"):
            tg.zeros(size)


GOOD_DIMS: list[tuple[str, Callable[[Any], Any]]] = [
    ("transpose(np.int64)", lambda t: t.transpose(np.int64(1), np.int32(0))),
    ("unsqueeze(np.int64)", lambda t: t.unsqueeze(np.int64(-1))),
    ("reshape(np ints)", lambda t: t.reshape(np.int64(3), 2)),
    ("flip((np.int64,))", lambda t: t.flip((np.int64(0),))),
    ("number: flip(0)", lambda t: t[0, 0].flip(0)),
    ("number: flip(-1)", lambda t: t[0, 0].flip(-1)),
    ("number: squeeze(0)", lambda t: t[0, 0].squeeze(0)),
    ("number: unsqueeze(-1)", lambda t: t[0, 0].unsqueeze(-1)),
    ("number: flatten(0, -1)", lambda t: t[0, 0].flatten(0, -1)),
    ("transpose(1, 1)", lambda t: t.transpose(1, 1)),
]


@pytest.mark.parametrize(("name", "call"), GOOD_DIMS, ids=[name for name, _ in GOOD_DIMS])
def test_dims_pytorch_takes_give_its_numbers_and_gradients(
    name: str, call: Callable[[Any], Any]
) -> None:
    x = np.arange(6.0).reshape(2, 3) - 2.5
    ours, theirs = tg.Tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    got, expected = call(ours), call(theirs)
    np.testing.assert_array_equal(got.data, expected.detach().numpy())
    weights = np.arange(1.0, expected.numel() + 1.0).reshape(expected.shape)
    (got * weights).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    assert ours.grad is not None and theirs.grad is not None
    np.testing.assert_array_equal(ours.grad, theirs.grad.numpy())


OUT_OF_RANGE: list[tuple[str, Callable[[Any], Any]]] = [
    ("permute(0, 2)", lambda t: t.permute(0, 2)),
    ("flip(2)", lambda t: t.flip(2)),
    ("squeeze(2)", lambda t: t.squeeze(2)),
    ("unsqueeze(-4)", lambda t: t.unsqueeze(-4)),
    ("size(2)", lambda t: t.size(2)),
    ("diagonal(0, 0, 2)", lambda t: t.diagonal(0, 0, 2)),
    ("number: size(0)", lambda t: t[0, 0].size(0)),
    ("number: flip(1)", lambda t: t[0, 0].flip(1)),
    ("number: squeeze(1)", lambda t: t[0, 0].squeeze(1)),
    ("number: unsqueeze(1)", lambda t: t[0, 0].unsqueeze(1)),
    ("number: flatten(1)", lambda t: t[0, 0].flatten(1)),
    ("number: transpose(1, 0)", lambda t: t[0, 0].transpose(1, 0)),
    ("number: transpose(0, -2)", lambda t: t[0, 0].transpose(0, -2)),
]


@pytest.mark.parametrize(("name", "call"), OUT_OF_RANGE, ids=[name for name, _ in OUT_OF_RANGE])
def test_dims_out_of_range_are_an_index_error_as_pytorchs(
    name: str, call: Callable[[Any], Any]
) -> None:
    with pytest.raises(IndexError):
        call(torch.zeros(2, 3))
    with pytest.raises(IndexError):
        call(tg.zeros(2, 3))


# tg.tensor, as torch.tensor.


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4)))
def test_tensor_copies_its_data_as_torch_tensor(x: np.ndarray) -> None:
    source = x.copy()
    got, expected = tg.tensor(source), torch.tensor(source)
    source[...] = 42.0  # the source changed after: neither Tensor sees it
    np.testing.assert_array_equal(got.data, expected.numpy())
    assert got.dtype == np.float64 and expected.dtype == torch.float64
    assert got.is_leaf and not got.requires_grad and got.array.base is not source


def test_tensor_of_a_tensor_is_a_detached_leaf_copy() -> None:
    ours = tg.Tensor(X, requires_grad=True) * 2.0
    theirs = torch.tensor(X, requires_grad=True) * 2.0
    got = tg.tensor(ours)
    with pytest.warns(UserWarning, match="copy construct from a tensor"):
        expected = torch.tensor(theirs)
    for t, e in ((got, expected), (tg.tensor(ours, requires_grad=True), theirs.detach())):
        np.testing.assert_array_equal(t.data, e.detach().numpy())
        assert t.is_leaf == e.is_leaf and t.op == ""
    assert got.requires_grad == expected.requires_grad is False
    assert not np.shares_memory(got.data, ours.data)
    got.data[0] = -1.0
    assert ours.data[0] == 2.0 * X[0]


def test_tensor_of_whole_numbers_cannot_require_a_gradient_as_in_pytorch() -> None:
    with pytest.raises(RuntimeError, match="floating point"):
        torch.tensor([1, 2, 3], requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        tg.tensor([1, 2, 3], requires_grad=True)


@pytest.mark.parametrize("data", [[1.0, 2, 3], [[0.5, -1.0]], 2.5, [], np.array([1.0, 2.0])])
def test_tensor_with_requires_grad_is_a_leaf_with_torchs_gradient(data: Any) -> None:
    ours = tg.tensor(data, requires_grad=True)
    theirs = torch.tensor(data, requires_grad=True)  # float32 from lists, as ours
    assert ours.is_leaf and ours.requires_grad and ours.shape == tuple(theirs.shape)
    weights = np.linspace(-1.0, 2.0, theirs.numel()).reshape(theirs.shape)
    (ours.exp() * weights).sum().backward()
    (theirs.exp() * torch.tensor(weights)).sum().backward()
    assert ours.grad is not None and theirs.grad is not None
    # exp's float32 kernels (NumPy's, PyTorch's vectorised one) are a last bit apart here and
    # there, by CPU; float64 ones are correctly rounded in both, almost always
    np.testing.assert_array_max_ulp(ours.grad.numpy(), theirs.grad.numpy(), maxulp=2)


@pytest.mark.parametrize(
    ("data", "ours", "theirs"),
    [
        (X, tg.float32, torch.float32),
        ([1.0, 1e-46, -3.4e38], tg.float32, torch.float32),
        (X, tg.float16, torch.float16),
        (np.array([0.1, 0.7], dtype=np.float32), None, None),
        (np.array([0.1, 0.7], dtype=np.float16), None, None),
        (np.array([0.1, 0.7], dtype=np.float32), tg.float64, torch.float64),
    ],
)
def test_tensor_takes_torchs_dtype(data: Any, ours: Any, theirs: Any) -> None:
    got, expected = tg.tensor(data, dtype=ours), torch.tensor(data, dtype=theirs)
    assert got.dtype == np.dtype(str(expected.dtype).removeprefix("torch."))
    np.testing.assert_array_equal(got.data, expected.numpy())
    leaf = tg.tensor(data, dtype=ours, requires_grad=True)
    assert leaf.requires_grad and leaf.is_leaf and leaf.dtype == got.dtype


def test_tensor_rounds_what_overflows_float32_to_inf_as_torch() -> None:
    """Quietly, as PyTorch's (NumPy's cast would warn of the overflow)."""
    expected = torch.tensor([3.4e39, -1e40], dtype=torch.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        made = tg.tensor([3.4e39, -1e40], dtype=tg.float32)
    np.testing.assert_array_equal(made.array, expected.numpy())
