"""PyTorch's functions that the published programs use (tests/test_programs.py), each beside
PyTorch's own on the same inputs: ``histogram``, ``meshgrid``, ``isclose``/``allclose``/
``equal``, ``nn.functional.one_hot``, ``nn.LazyLinear``, ``Tensor.normal_``/``uniform_``,
``set_default_device``, ``numel``/``nelement``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import topograd as tg
import topograd.nn.functional as F  # noqa: N812 - PyTorch users spell it so


def same(mine: Any, theirs: torch.Tensor) -> None:
    assert mine.dtype.name == str(theirs.dtype).rpartition(".")[2]
    assert tuple(mine.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(mine.detach().numpy(), theirs.detach().numpy())


@pytest.mark.parametrize(
    ("numbers", "arguments"),
    [
        (np.random.default_rng(0).standard_normal(5000).astype(np.float32), {}),
        (np.random.default_rng(1).standard_normal(999), {"bins": 7, "density": True}),
        (np.array([0.0, 1.0, 2.0, 3.0], np.float32), {"bins": 2, "range": (0.5, 2.5)}),
        (np.ones(3, np.float32), {"bins": 4}),  # one number: a bin of width 1 about it
        (np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), {"bins": 3, "density": True}),
    ],
)
def test_histogram_counts_as_pytorchs(numbers: Any, arguments: dict[str, Any]) -> None:
    hist, edges = tg.histogram(tg.tensor(numbers), **arguments)
    theirs = torch.histogram(torch.tensor(numbers), **arguments)
    same(hist, theirs.hist)
    same(edges, theirs.bin_edges)


def test_histogram_takes_edges_and_weights_and_refuses_as_pytorch() -> None:
    x, weight = [0.0, 1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0]
    mine = tg.histogram(tg.tensor(x), tg.tensor([0.0, 1.5, 3.0]), weight=tg.tensor(weight))
    theirs = torch.histogram(
        torch.tensor(x), torch.tensor([0.0, 1.5, 3.0]), weight=torch.tensor(weight)
    )
    same(mine.hist, theirs.hist)
    for bad in ({"bins": 0}, {"range": (2.0, 1.0)}):
        with pytest.raises(RuntimeError):
            torch.histogram(torch.tensor(x), **bad)  # type: ignore[call-overload]
        with pytest.raises(RuntimeError):
            tg.histogram(tg.tensor(x), **bad)
    with pytest.raises(RuntimeError, match="not implemented for 'int64'"):
        tg.histogram(tg.tensor([1, 2]))


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_gives_pytorchs_grids_and_gradients(indexing: str) -> None:
    found = []
    for lib in (tg, torch):
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = lib.tensor([4.0, 5.0], requires_grad=True)
        c = lib.tensor(6.0, requires_grad=True)
        grids = lib.meshgrid(a, b, c, indexing=indexing)
        sum(g * (k + 1) for k, g in enumerate(grids)).sum().backward()  # type: ignore[union-attr]
        found.append([*grids, a.grad, b.grad, c.grad])
    for mine, theirs in zip(*found, strict=True):
        same(mine, theirs)


def test_meshgrid_without_indexing_warns_as_pytorch() -> None:
    with pytest.warns(UserWarning, match="indexing"):
        rows, _ = tg.meshgrid([tg.zeros(3), tg.zeros(2)])
    assert rows.shape == (3, 2)
    with pytest.raises(RuntimeError, match="0D or 1D"):
        tg.meshgrid(tg.zeros(2, 2), indexing="ij")


@pytest.mark.parametrize(
    ("a", "b", "arguments"),
    [
        ([1.0, 2.0, 3.0], [1.0, 2.00001, 3.1], {}),
        ([1.0, float("nan"), float("inf")], [1.0, float("nan"), float("inf")], {}),
        ([1.0, float("nan")], [1.0, float("nan")], {"equal_nan": True}),
        ([100.0, 1e-9], [100.1, 0.0], {"rtol": 1e-3, "atol": 1e-8}),
    ],
)
def test_isclose_and_allclose_decide_as_pytorchs(a: Any, b: Any, arguments: Any) -> None:
    mine = tg.isclose(tg.tensor(a), tg.tensor(b), **arguments)
    same(mine, torch.isclose(torch.tensor(a), torch.tensor(b), **arguments))
    assert tg.allclose(tg.tensor(a), tg.tensor(b), **arguments) == torch.allclose(
        torch.tensor(a), torch.tensor(b), **arguments
    )
    assert tg.equal(tg.tensor(a), tg.tensor(b)) == torch.equal(torch.tensor(a), torch.tensor(b))


def test_allclose_refuses_two_dtypes_as_pytorch() -> None:
    with pytest.raises(RuntimeError, match="Float did not match Double"):
        tg.allclose(tg.zeros(2), tg.zeros(2, dtype=tg.float64))


@pytest.mark.parametrize("classes", [-1, 5])
def test_one_hot_is_pytorchs(classes: int) -> None:
    x = [[0, 3], [2, 2]]
    same(F.one_hot(tg.tensor(x), classes), torch.nn.functional.one_hot(torch.tensor(x), classes))


@pytest.mark.parametrize(
    ("x", "classes", "message"),
    [
        ([0.0, 1.0], 3, "LongTensor"),
        ([-1, 0], 3, "non-negative"),
        ([3], 3, "smaller than num_classes"),
        (np.zeros(0, np.int64), -1, "empty tensor"),
    ],
)
def test_one_hot_refuses_as_pytorch(x: Any, classes: int, message: str) -> None:
    with pytest.raises(RuntimeError, match=message):
        torch.nn.functional.one_hot(torch.tensor(x), classes)
    with pytest.raises(RuntimeError, match=message):
        F.one_hot(tg.tensor(x), classes)


def test_lazy_linear_draws_pytorchs_weights_at_its_first_call() -> None:
    """d2l's way: a write to the weights before the first call changes nothing; the optimizer
    made before it trains the weights made at it."""
    found = []
    for lib in (tg, torch):
        lib.manual_seed(7)
        layer = lib.nn.LazyLinear(2)
        layer.weight.data.normal_(0, 0.01)
        optimizer = lib.optim.SGD(layer.parameters(), lr=0.1)
        layer(lib.ones(4, 3)).sum().backward()
        optimizer.step()
        found.append((type(layer).__name__, layer.in_features, layer.weight, layer.bias))
    (name, features, *mine), (their_name, their_features, *theirs) = found
    assert (name, features) == (their_name, their_features) == ("Linear", 3)
    for m, t in zip(mine, theirs, strict=True):
        same(m, t)


def test_normal_and_uniform_in_place_draw_pytorchs_numbers() -> None:
    for draw in ("normal_", "uniform_"):
        mine = getattr(tg.empty(40), draw)(-1.0, 2.0, generator=tg.Generator().manual_seed(3))
        gen = torch.Generator().manual_seed(3)
        same(mine, getattr(torch.empty(40), draw)(-1.0, 2.0, generator=gen))
    with pytest.raises(RuntimeError, match="leaf Variable"):
        tg.zeros(2, requires_grad=True).normal_()


def test_the_default_device_is_the_cpu() -> None:
    tg.set_default_device("cpu")
    tg.set_default_device(None)
    assert tg.get_default_device() == tg.device("cpu") and tg.zeros(1).device == "cpu"
    with pytest.raises(ValueError, match="CPU only"):
        tg.set_default_device("cuda")


def test_numel_and_nelement_count_the_elements() -> None:
    x = tg.zeros(2, 3)
    assert x.numel() == x.nelement() == tg.numel(x) == torch.zeros(2, 3).nelement()


def test_a_python_number_beside_a_float_tensor_takes_its_dtype() -> None:
    from topograd.tensors.tensor import as_tensor

    like = tg.zeros(2, dtype=tg.float16)
    assert as_tensor(2.5, like).dtype == tg.float16 and as_tensor(True, like).dtype == tg.bool
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert as_tensor(3).dtype == tg.int64


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "int64"])
def test_linspace_is_pytorchs_to_the_bit(dtype: str) -> None:
    """PyTorch's kernel fuses its multiply-adds on AVX2 (not on its default kernels): the
    numbers of both, as the one this process runs."""
    rng = np.random.default_rng(5)
    for _ in range(40):
        steps, (start, end) = int(rng.integers(2, 3000)), rng.normal(size=2) * 10
        mine = tg.linspace(float(start), float(end), steps, dtype=getattr(tg, dtype))
        same(mine, torch.linspace(float(start), float(end), steps, dtype=getattr(torch, dtype)))
