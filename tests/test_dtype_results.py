"""Integer and boolean results of float Tensors that require a gradient want none, as PyTorch's;
integers mixed with a float leaf promote as PyTorch's and give the leaf PyTorch's gradient (its
dtype and values) and the integers none; ``item`` gives PyTorch's Python type; ``tensor``
infers PyTorch's dtype; the default dtype moves the factories as PyTorch's does."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import torch

import topograd as tg

WHOLE_RESULTS: dict[str, Callable[[Any], Any]] = {
    "<": lambda x: x < 0.5,
    "==": lambda x: x == x,
    "!=": lambda x: x != 1.0,
    ">= Tensor": lambda x: x >= x * 2.0,
    "argmax": lambda x: x.argmax(),
    "argmin(dim)": lambda x: x.argmin(dim=0),
    "long": lambda x: x.long(),
    "int": lambda x: x.int(),
    "bool": lambda x: x.bool(),
    "byte": lambda x: x.byte(),
    "long // int": lambda x: x.long() // 2,
    "to(int64)": lambda x: x.to(tg.int64 if isinstance(x, tg.Tensor) else torch.int64),
}


@pytest.mark.parametrize("what", WHOLE_RESULTS)
def test_a_bool_or_integer_result_of_a_float_leaf_wants_no_gradient(what: str) -> None:
    values = [0.25, 1.0, 2.5]
    ours = WHOLE_RESULTS[what](tg.tensor(values, requires_grad=True))
    theirs = WHOLE_RESULTS[what](torch.tensor(values, requires_grad=True))
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    assert ours.requires_grad is theirs.requires_grad is False
    assert ours.is_leaf is theirs.is_leaf is True
    assert ours.tolist() == theirs.tolist()


MIXED: dict[str, Callable[[Any, Any], Any]] = {
    "int * leaf": lambda i, x: i * x,
    "leaf + int": lambda i, x: x + i,
    "int / leaf": lambda i, x: i / x,
    "leaf - int": lambda i, x: x - i,
    "leaf ** int": lambda i, x: x**i,
    "int ** leaf": lambda i, x: i**x,
    "maximum": lambda i, x: i.maximum(x),
    "where": lambda i, x: (tg if isinstance(x, tg.Tensor) else torch).where(i > 0, i, x),
}
INTEGERS = ("int64", "int32", "uint8", "bool")
FLOATS = ("float32", "float64", "float16")


def _cases() -> Iterator[tuple[str, str, str]]:
    for what in MIXED:
        for whole in INTEGERS:
            for name in FLOATS:
                if not (whole == "bool" and what in ("leaf - int", "int ** leaf", "leaf ** int")):
                    yield what, whole, name


@pytest.mark.parametrize(("what", "whole", "name"), list(_cases()))
def test_integers_with_a_float_leaf_promote_and_give_it_pytorchs_gradient(
    what: str, whole: str, name: str
) -> None:
    ints = [True, False, True] if whole == "bool" else [1, 2, 3]
    floats = [0.5, 1.25, 2.0]
    found = []
    for lib in (tg, torch):
        i = lib.tensor(ints, dtype=getattr(lib, whole))
        x = lib.tensor(floats, dtype=getattr(lib, name), requires_grad=True)
        out = MIXED[what](i, x)
        out.sum().backward()
        assert i.grad is None and not i.requires_grad
        found.append((out, x.grad))
    (out, grad), (their_out, their_grad) = found
    assert out.dtype.name == str(their_out.dtype).removeprefix("torch.")
    assert grad.dtype.name == str(their_grad.dtype).removeprefix("torch.") == name
    eps = float(torch.finfo(their_grad.dtype).eps)
    if what == "int ** leaf":  # (PyTorch takes the integer base's log in float32, the default)
        eps = max(eps, float(torch.finfo(torch.float32).eps))
    np.testing.assert_allclose(grad.numpy(), their_grad.numpy(), rtol=4 * eps)
    np.testing.assert_allclose(out.detach().numpy(), their_out.detach().numpy(), rtol=4 * eps)


def test_a_float_leaf_to_a_bool_power_has_a_gradient_where_pytorchs_backward_refuses() -> None:
    """PyTorch's pow_backward computes exponent - 1 in the exponent's dtype, a subtraction it
    refuses for booleans: its x ** bool Tensor has a value and no gradient. topograd's gives
    the gradient of x ** (the booleans as integers), documented in the README."""
    ours, theirs = (
        tg.tensor([0.5, 2.0], requires_grad=True),
        torch.tensor([0.5, 2.0], requires_grad=True),
    )
    (ours ** tg.tensor([True, False])).sum().backward()
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor"):
        (theirs ** torch.tensor([True, False])).sum().backward()
    (theirs ** torch.tensor([1, 0])).sum().backward()
    assert ours.grad is not None and ours.grad.tolist() == theirs.grad.tolist()


ITEMS = [
    ([3], "int64"),
    ([3], "int32"),
    ([200], "uint8"),
    ([True], "bool"),
    ([1.5], "float32"),
    ([1.5], "float16"),
    ([1.5], "float64"),
]


@pytest.mark.parametrize(("value", "name"), ITEMS)
def test_item_gives_pytorchs_python_type(value: list[Any], name: str) -> None:
    ours = tg.tensor(value, dtype=getattr(tg, name)).item()
    theirs = torch.tensor(value, dtype=getattr(torch, name)).item()
    assert type(ours) is type(theirs) and ours == theirs


INFERRED = [
    3,
    [1, 2],
    2.5,
    [1, 2.5],
    True,
    [True, False],
    [True, 2],
    [True, 2.5],
    [[1, 2], [3, 4]],
    [[1.0], [2.0]],
    [],
    np.int32(4),
    np.float16(1.5),
    np.float64(1.5),
    np.bool_(True),
    [np.int64(1), 2],
]


@pytest.mark.parametrize("data", INFERRED, ids=repr)
def test_tensor_infers_pytorchs_dtype(data: Any) -> None:
    assert tg.tensor(data).dtype.name == str(torch.tensor(data).dtype).removeprefix("torch.")


def test_tensor_of_tensors_and_arrays_keeps_their_dtype() -> None:
    for name in ("int32", "uint8", "bool", "float16", "float64"):
        array = np.ones(2, dtype=name)
        assert tg.tensor(tg.from_numpy(array)).dtype.name == name
        assert tg.from_numpy(array).dtype.name == str(torch.from_numpy(array).dtype)[6:]
        assert tg.tensor(array).dtype.name == str(torch.tensor(array).dtype)[6:]


@pytest.fixture
def double_default() -> Iterator[None]:
    tg.set_default_dtype(tg.float64)
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        tg.set_default_dtype(tg.float32)
        torch.set_default_dtype(torch.float32)


FACTORIES: dict[str, Callable[[Any], Any]] = {
    "tensor(float)": lambda lib: lib.tensor([1.5]),
    "tensor(int)": lambda lib: lib.tensor([1]),
    "zeros": lambda lib: lib.zeros(2),
    "ones": lambda lib: lib.ones(2),
    "full": lambda lib: lib.full((2,), 1.5),
    "empty": lambda lib: lib.empty(2),
    "randn": lambda lib: lib.randn(2),
    "rand": lambda lib: lib.rand(2),
    "arange(float)": lambda lib: lib.arange(0.0, 2.0),
    "arange(int)": lambda lib: lib.arange(3),
    "linspace": lambda lib: lib.linspace(0, 1, 3),
    "eye": lambda lib: lib.eye(2),
    "int / int": lambda lib: lib.tensor([1]) / lib.tensor([2]),
    "int + float": lambda lib: lib.tensor([1]) + 0.5,
}


@pytest.mark.usefixtures("double_default")
@pytest.mark.parametrize("what", FACTORIES)
def test_the_default_dtype_moves_the_factories_as_pytorchs(what: str) -> None:
    ours, theirs = FACTORIES[what](tg), FACTORIES[what](torch)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")


def test_the_fixture_restores_the_default() -> None:
    assert tg.get_default_dtype() is tg.float32 and tg.tensor([1.5]).dtype is tg.float32
    assert operator.truediv(tg.tensor([1]), 2).dtype is tg.float32
