"""Empty Tensors, along their empty axis and the others: every reduction and every normalising
op of the registry (its families ``reductions`` and ``softmax``, called as a user calls them,
by their PyTorch spelling), the selections (``max``/``min`` along a dim, ``argmax``, ``all``)
and the losses and norms of ``tg.nn.functional``, against PyTorch 2.13 float64: the same
values and gradients where PyTorch answers, the same refusal (class and message) where it
refuses (``max`` over nothing, a dim out of range)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as TF  # noqa: N812 - PyTorch's own abbreviation
from hypothesis import given
from hypothesis import strategies as st

import topograd as tg
from topograd.autograd.registry import OPS

F = tg.nn.functional
# the registry's ops along an axis: its reductions and its normalisations (the softmax family)
ALONG = sorted(
    name
    for name, op in OPS.items()
    if op.rule.__module__ in ("topograd.ops.reductions", "topograd.ops.softmax")
    and any("axis" in case.params for case in op.cases)
)
METHODS = sorted({OPS[name].torch.rsplit(".", 1)[-1] for name in ALONG})  # "torch.amax": amax
SELECTIONS = ["max", "min", "argmax", "argmin", "all", "any"]
KEEPS = {"cumsum", "softmax", "log_softmax"}  # no keepdim: PyTorch's signature

# shapes with an empty axis, of one to three axes
EMPTY = st.lists(st.integers(0, 3), min_size=1, max_size=3).filter(lambda s: 0 in s).map(tuple)


def test_the_tables_hold_the_registrys_ops_along_an_axis() -> None:
    assert {"sum", "mean", "max", "min", "softmax", "log_softmax", "cumsum"} <= set(ALONG)
    assert {"amax", "amin", "sum", "softmax", "logsumexp", "var", "std"} <= set(METHODS)


def outcome(call: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    with warnings.catch_warnings():  # PyTorch's about no degrees of freedom left (var)
        warnings.simplefilter("ignore", UserWarning)
        try:
            return call(), None
        except (RuntimeError, IndexError, ValueError, TypeError) as error:
            return None, error


def numbers(x: Any) -> np.ndarray:
    """An output (a Tensor of either library, a tuple of them) as arrays, stacked."""
    if isinstance(x, tuple):
        return np.concatenate([numbers(p).ravel().astype(np.float64) for p in x])
    return np.asarray(x.detach().numpy() if isinstance(x, torch.Tensor) else x.data)


def same_refusal(ours: BaseException | None, theirs: BaseException) -> None:
    """Ours is an instance of PyTorch's class, and says what PyTorch says."""
    assert isinstance(ours, type(theirs)), f"{theirs!r}, and ours: {ours!r}"
    assert str(theirs) in str(ours), f"{theirs!r}, and ours: {ours!r}"


def against_torch(call: Callable[[Any, Any], Any], shape: tuple[int, ...]) -> None:
    """``call(lib, x)`` on a leaf of ``shape`` in each library: the same refusal, or the same
    values and (for a float result) the same gradient of a weighted sum."""
    data = np.random.default_rng(len(shape)).normal(size=shape)
    x, t = tg.Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    theirs, refused = outcome(lambda: call(torch, t))
    if isinstance(refused, TypeError):  # not a signature PyTorch takes: nothing to compare
        return
    ours, our_refusal = outcome(lambda: call(tg, x))
    if refused is not None:
        same_refusal(our_refusal, refused)
        return
    assert our_refusal is None, f"PyTorch answers {theirs!r}, ours refused: {our_refusal!r}"
    first = theirs[0] if isinstance(theirs, tuple) else theirs
    mine = ours[0] if isinstance(ours, tuple) else ours
    assert tuple(mine.shape) == tuple(first.shape)
    np.testing.assert_array_equal(numbers(ours), numbers(theirs))
    if not first.dtype.is_floating_point:
        return
    weights = np.linspace(-1.0, 2.0, first.numel()).reshape(first.shape)
    (mine * weights).sum().backward()
    (first * torch.tensor(weights)).sum().backward()
    assert x.grad is not None and t.grad is not None
    np.testing.assert_array_equal(x.grad, t.grad.numpy())


def dims(shape: tuple[int, ...]) -> list[Any]:
    """Every dim of the shape (negative too), none, and one out of range."""
    return [None, *range(-len(shape), len(shape)), len(shape)]


@pytest.mark.parametrize("method", METHODS)
@given(shape=EMPTY, keepdim=st.booleans())
def test_the_registrys_reductions_on_empty_tensors_are_torchs(
    method: str, shape: tuple[int, ...], keepdim: bool
) -> None:
    for dim in dims(shape):
        args = () if dim is None else (dim,)
        named = {} if method in KEEPS or dim is None else {"keepdim": keepdim}
        against_torch(lambda lib, x, a=args, n=named: getattr(x, method)(*a, **n), shape)


@pytest.mark.parametrize("method", SELECTIONS)
@given(shape=EMPTY, keepdim=st.booleans())
def test_the_selections_on_empty_tensors_are_torchs(
    method: str, shape: tuple[int, ...], keepdim: bool
) -> None:
    """``max(dim)`` (values and indices), ``argmax``, ``all``: PyTorch refuses a max over
    nothing (no dim, or along the empty one) and answers along the others."""
    for dim in dims(shape):
        args = () if dim is None else (dim,)
        named = {} if dim is None else {"keepdim": keepdim}
        against_torch(lambda lib, x, a=args, n=named: getattr(x, method)(*a, **n), shape)


@pytest.mark.parametrize("dims_", [(0,), (0, 1), (1, 0), (-1, -2), (1,)])
@pytest.mark.parametrize("method", ["amax", "amin", "sum", "mean", "logsumexp"])
def test_reductions_over_several_dims_name_the_empty_one_as_torch(
    method: str, dims_: tuple[int, ...]
) -> None:
    against_torch(lambda lib, x: getattr(x, method)(dims_), (0, 3))
    against_torch(lambda lib, x: getattr(x, method)(dims_), (2, 0))


@pytest.mark.parametrize("function", ["softmax", "log_softmax"])
@given(shape=EMPTY)
def test_softmax_is_one_path_for_the_method_and_the_functions(
    function: str, shape: tuple[int, ...]
) -> None:
    """``x.softmax(dim)``, ``tg.softmax(x, dim)`` and ``tg.nn.functional.softmax(x, dim)``: each
    PyTorch's, on empty Tensors and out of range alike."""
    for dim in dims(shape)[1:]:
        against_torch(lambda lib, x, d=dim: getattr(x, function)(d), shape)
        against_torch(lambda lib, x, d=dim: getattr(lib, function)(x, d), shape)
        against_torch(
            lambda lib, x, d=dim: getattr(TF if lib is torch else F, function)(x, d), shape
        )


@pytest.mark.parametrize("dim", [0, -1, 1])
@pytest.mark.parametrize("function", ["softmax", "log_softmax"])
def test_softmax_of_a_number_is_torchs(function: str, dim: int) -> None:
    """A 0-d Tensor has one axis, as PyTorch's (0 or -1; 1 out of range), by every path."""
    against_torch(lambda lib, x: getattr(x, function)(dim), ())
    against_torch(lambda lib, x: getattr(TF if lib is torch else F, function)(x, dim), ())


NORMALISING: dict[str, Callable[[Any, Any], Any]] = {
    "layer_norm": lambda lib, x: (TF if lib is torch else F).layer_norm(x, x.shape[-1:]),
    "batch_norm": lambda lib, x: (TF if lib is torch else F).batch_norm(
        x, None, None, training=True
    ),
    "cross_entropy, probabilities": lambda lib, x: (TF if lib is torch else F).cross_entropy(
        x, (torch if lib is torch else tg).ones(*x.shape, dtype=lib.float64) / 3
    ),
    "cross_entropy, classes": lambda lib, x: (TF if lib is torch else F).cross_entropy(
        x,
        torch.zeros(x.shape[0], dtype=torch.long)
        if lib is torch
        else np.zeros(x.shape[0], dtype=np.int64),
    ),
    "cross_entropy, smoothed sum": lambda lib, x: (TF if lib is torch else F).cross_entropy(
        x,
        torch.zeros(x.shape[0], dtype=torch.long)
        if lib is torch
        else np.zeros(x.shape[0], dtype=np.int64),
        reduction="sum",
        label_smoothing=0.2,
    ),
    "mse_loss": lambda lib, x: (TF if lib is torch else F).mse_loss(x, x * 0.5),
}


@pytest.mark.parametrize("name", sorted(NORMALISING))
@given(shape=st.sampled_from([(0, 3), (2, 0), (0, 0), (0, 3, 2), (2, 0, 3)]))
def test_the_norms_and_losses_on_empty_tensors_are_torchs(
    name: str, shape: tuple[int, ...]
) -> None:
    against_torch(NORMALISING[name], shape)
