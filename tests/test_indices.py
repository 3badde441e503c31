"""Every index-taking function (indexing and item assignment, plain and inside a tuple index,
``gather``, ``embedding``, the class targets of ``nll_loss`` and ``cross_entropy``, the masks
of ``masked_fill`` and ``where``, a one-element Tensor as a Python index) given an index
Tensor of every dtype, against PyTorch 2.13: refused where PyTorch refuses (floats, even of
whole numbers, first), with its class and words; where it takes it, the same numbers and
gradients (and the same deprecation warning, for bytes as a mask)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as TF  # noqa: N812 - PyTorch's own abbreviation

import topograd as tg

F = tg.nn.functional
DTYPES = ["float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]
X = np.array([[0.5, -1.0], [2.0, 0.25], [-3.0, 1.5]])


def functional(lib: Any) -> Any:
    return TF if lib is torch else F


def _assigned(lib: Any, x: Any, i: Any) -> Any:
    y = lib.zeros(3, 2, dtype=lib.float64)
    y[i] = 5.0
    return y


# name -> (the call of lib, x and the index, the index's numbers)
CALLS: dict[str, tuple[Callable[[Any, Any, Any], Any], Any]] = {
    "x[i]": (lambda lib, x, i: x[i], [1, 0, 1]),
    "x[i, 1]": (lambda lib, x, i: x[i, 1], [1, 0, 1]),
    "x[:, i]": (lambda lib, x, i: x[:, i], [1, 0]),
    "x[(1, i)]": (lambda lib, x, i: x[(1, i)], [0, 1]),
    "x[i] of one": (lambda lib, x, i: x[i], 1),
    "y[i] = 5": (_assigned, [1, 0, 1]),
    "y[i, 0] = 5": (lambda lib, x, i: _assigned(lib, x, (i, 0)), [1, 0, 1]),
    "gather": (lambda lib, x, i: x.gather(1, i), [[0], [1], [0]]),
    "torch.gather": (lambda lib, x, i: lib.gather(x, 1, i), [[1], [1], [0]]),
    "embedding": (lambda lib, x, i: functional(lib).embedding(i, x), [2, 0, 1]),
    "Embedding": (
        lambda lib, x, i: lib.nn.Embedding.from_pretrained(x.detach(), freeze=False)(i),
        [2, 0],
    ),
    "nll_loss": (lambda lib, x, i: functional(lib).nll_loss(x, i), [1, 0, 1]),
    "cross_entropy": (lambda lib, x, i: functional(lib).cross_entropy(x, i), [1, 0, 1]),
    "CrossEntropyLoss": (lambda lib, x, i: lib.nn.CrossEntropyLoss()(x, i), [0, 0, 1]),
    "masked_fill": (lambda lib, x, i: x.masked_fill(i, 0.0), [[1, 0], [0, 0], [1, 1]]),
    "where": (lambda lib, x, i: lib.where(i, x, 0.0), [[1, 0], [0, 0], [1, 1]]),
    "items[i]": (lambda lib, x, i: x[[10, 20, 30][i] // 10 - 1], 1),
}


def made(lib: Any, numbers: Any, dtype: str) -> Any:
    """The index: a Tensor of these numbers in ``dtype``, as each library makes one."""
    if lib is torch:
        return torch.tensor(numbers, dtype=getattr(torch, dtype))
    return tg.tensor(numbers, dtype=np.dtype(dtype))


def outcome(call: Callable[[], Any]) -> tuple[Any, BaseException | None, bool]:
    """The result or the refusal, and whether a deprecation was warned of."""
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        try:
            found, refused = call(), None
        except (IndexError, RuntimeError, TypeError, ValueError) as error:
            found, refused = None, error
    return found, refused, any("deprecated" in str(w.message) for w in warned)


def numbers(x: Any) -> np.ndarray:
    return np.asarray(x.detach().numpy() if isinstance(x, torch.Tensor) else x.data)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(CALLS))
def test_an_index_of_each_dtype_is_taken_or_refused_as_torch(name: str, dtype: str) -> None:
    call, given = CALLS[name]
    x, tx = tg.Tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    theirs, refused, their_warning = outcome(lambda: call(torch, tx, made(torch, given, dtype)))
    ours, our_refusal, our_warning = outcome(lambda: call(tg, x, made(tg, given, dtype)))
    if name != "where":  # (PyTorch warns of where's bytes once in a process, and so do we)
        assert our_warning == their_warning
    if refused is not None:
        assert isinstance(our_refusal, type(refused)), f"{refused!r}; ours: {our_refusal!r}"
        assert str(refused) in str(our_refusal)
        return
    assert our_refusal is None, f"PyTorch takes it; ours refused: {our_refusal!r}"
    np.testing.assert_array_equal(numbers(ours), numbers(theirs))
    if theirs.requires_grad:
        weights = np.linspace(-1.0, 2.0, theirs.numel()).reshape(theirs.shape)
        (ours * weights).sum().backward()
        with warnings.catch_warnings():  # PyTorch's of bytes as a mask, again
            warnings.simplefilter("ignore", UserWarning)
            (theirs * torch.tensor(weights)).sum().backward()
        if tx.grad is None:  # (an embedding's own weight: a copy of x)
            assert x.grad is None
            return
        np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-14, atol=1e-16)


def test_the_table_holds_every_index_taking_method() -> None:
    """A method of the Tensor that takes an index, a mask or class indices is in CALLS."""
    takers = {"__getitem__", "__setitem__", "gather", "masked_fill", "__index__"}
    assert takers <= set(dir(tg.Tensor))
    named = " ".join(CALLS)
    for spelled in ("x[", "y[", "gather", "masked_fill", "items["):
        assert spelled in named


@pytest.mark.parametrize("numbers_", [[0.0, 1.0], [1.0], 0.0, [[0.0]]])
def test_floats_of_whole_numbers_are_no_index_and_the_refusal_says_what_is(
    numbers_: Any,
) -> None:
    """The finding: x[tg.Tensor([0., 1.])] picked rows; PyTorch refuses it, and so does
    topograd now, in PyTorch's words; ``.long()`` gives integers that pick."""
    x = tg.Tensor(X)
    with pytest.raises(IndexError) as theirs:
        torch.tensor(X)[torch.tensor(numbers_)]
    with pytest.raises(IndexError) as ours:
        x[tg.Tensor(numbers_)]
    assert str(ours.value) == str(theirs.value)
    picks = tg.Tensor(numbers_).long()
    assert picks.dtype == np.int64 and not picks.requires_grad
    np.testing.assert_array_equal(
        x[picks].data, torch.tensor(X)[torch.tensor(numbers_).long()].numpy()
    )


@pytest.mark.parametrize("dtype", DTYPES)
def test_integer_tensors_are_made_as_torch_makes_them(dtype: str) -> None:
    """tg.tensor with an integer (or boolean) dtype, and long(), as PyTorch's: integers cut
    toward zero, no gradient wanted (refused where asked for)."""
    values = [2.7, 1.5, 0.0, 3.0]  # (in every dtype's range: PyTorch's overflows aside)
    ours, theirs = made(tg, values, dtype), made(torch, values, dtype)
    np.testing.assert_array_equal(ours.data, theirs.numpy())
    np.testing.assert_array_equal(ours.long().data, theirs.long().numpy())
    assert ours.dtype == np.dtype(dtype) and ours.long().dtype == np.int64
    if not theirs.dtype.is_floating_point:
        with pytest.raises(RuntimeError) as their_refusal:
            torch.tensor(values, dtype=theirs.dtype, requires_grad=True)
        with pytest.raises(RuntimeError) as our_refusal:
            tg.tensor(values, dtype=np.dtype(dtype), requires_grad=True)
        assert str(our_refusal.value) == str(their_refusal.value)


def test_a_tensor_of_a_tensors_integers_keeps_them_and_booleans_are_a_mask() -> None:
    picks = tg.Tensor(X).argmax(1)
    assert tg.tensor(picks).dtype == np.int64 == torch.tensor(X).argmax(1).numpy().dtype
    mask = tg.tensor([True, False, True])
    assert mask.dtype == np.bool_ and tg.Tensor(X)[mask].shape == (2, 2)


@pytest.mark.parametrize("index", [np.array([2.0, 0.0]), np.array([2.7]), [2.0, 0.0]])
def test_an_array_or_a_list_of_floats_is_refused_where_torch_cuts_it(index: Any) -> None:
    """Not PyTorch's way, and on purpose: PyTorch reads an ndarray or a list of floats as an
    index by cutting each toward zero (2.7 picks row 2, nan a huge negative row); topograd
    refuses them loudly, as NumPy does, rather than guess (README, "Tensors")."""
    cut = torch.tensor(X)[index]
    np.testing.assert_array_equal(cut.numpy(), X[np.trunc(np.asarray(index)).astype(int)])
    with pytest.raises(IndexError, match=r"only integers|integer \(or boolean\) type"):
        tg.Tensor(X)[index]
    with pytest.raises(IndexError, match=r"only integers|integer \(or boolean\) type"):
        tg.Tensor(X)[index] = 1.0
