"""``has_aux=True`` on every transform that takes it (grad, grad_and_value, vjp, jvp, jacrev,
jacfwd), against torch.func float64: on Values and on Tensors (arrays in, arrays out), with
aux trees of every kind (a leaf, tuples, lists, dicts, nested), several argnums, the aux not
differentiated by the transform but by an outer one, and PyTorch's refusals, word for word."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
import torch.func as tf
from hypothesis import given
from hypothesis import strategies as st

import topograd as tg

# importing torch.func makes torch warn of its own torch.jit.script
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")

POINTS = st.floats(-2.0, 2.0, allow_nan=False).filter(lambda v: abs(v) > 1e-3)


def f(lib: Any, x: Any, y: Any) -> tuple[Any, Any]:
    """One number out, and an aux tree made of the same computation's nodes."""
    out = (x * y).sin() + x * x
    return out, {"out": out, "parts": [x * 3.0, (y.exp(), x - y)], "x": x}


def f_vector(lib: Any, x: Any, y: Any) -> tuple[Any, Any]:
    """A vector out (of a Tensor), and its aux."""
    out = lib.stack([x.sin() * y, x * y * y])
    return out, ((out * 2.0,), [x])


def numbers(tree: Any) -> Any:
    """A tree's leaves as floats or arrays, its structure (containers) kept."""
    if isinstance(tree, dict):
        return {k: numbers(v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(numbers(v) for v in tree)
    if isinstance(tree, torch.Tensor):
        return tree.detach().numpy().tolist()
    if isinstance(tree, tg.Value):
        return tree.data
    return np.asarray(getattr(tree, "data", tree)).tolist()


def close(ours: Any, theirs: Any) -> None:
    """The same structure, the same numbers (within 1e-13 of the largest)."""
    mine, their = numbers(ours), numbers(theirs)
    assert _shape(mine) == _shape(their), (mine, their)
    a = np.asarray(_flat(mine), dtype=float)
    b = np.asarray(_flat(their), dtype=float)
    np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13 * max(1.0, float(np.abs(b).max())))


def _shape(tree: Any) -> Any:
    if isinstance(tree, dict):
        return {k: _shape(v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return (type(tree).__name__, [_shape(v) for v in tree])
    return np.shape(tree)


def _flat(tree: Any) -> list[float]:
    if isinstance(tree, dict):
        return [v for k in tree for v in _flat(tree[k])]
    if isinstance(tree, (tuple, list)):
        return [v for item in tree for v in _flat(item)]
    return np.ravel(tree).tolist()


def leaves(x: float, y: float, kind: str) -> tuple[Any, Any, Any, Any]:
    """Our arguments (numbers, or arrays of shape (2,)) and PyTorch's."""
    if kind == "values":
        ours: tuple[Any, Any] = (x, y)
    else:
        ours = (np.array([x, x / 2]), np.array([y, -y]))
    theirs = tuple(torch.tensor(a, dtype=torch.float64) for a in ours)
    return (*ours, *theirs)


def ours_f(kind: str) -> Callable[..., Any]:
    if kind == "values":
        return lambda x, y: f(tg, x, y)
    return lambda x, y: (lambda out, aux: (out.sum(), aux))(*f(tg, x, y))


def theirs_f(kind: str) -> Callable[..., Any]:
    if kind == "values":
        return lambda x, y: f(torch, x, y)
    return lambda x, y: (lambda out, aux: (out.sum(), aux))(*f(torch, x, y))


KINDS = ["values", "tensors"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1,)])
@given(x=POINTS, y=POINTS)
def test_grad_and_grad_and_value_give_the_aux_beside(
    kind: str, argnums: Any, x: float, y: float
) -> None:
    a, b, ta, tb = leaves(x, y, kind)
    gradient, aux = tg.func.grad(ours_f(kind), argnums, has_aux=True)(a, b)
    their_gradient, their_aux = tf.grad(theirs_f(kind), argnums, has_aux=True)(ta, tb)
    close(gradient, their_gradient)
    close(aux, their_aux)
    both, (value, aux) = tg.func.grad_and_value(ours_f(kind), argnums, has_aux=True)(a, b)
    their_both, (their_value, their_aux) = tf.grad_and_value(theirs_f(kind), argnums, has_aux=True)(
        ta, tb
    )
    close((both, value, aux), (their_both, their_value, their_aux))


@pytest.mark.parametrize("kind", KINDS)
@given(x=POINTS, y=POINTS)
def test_vjp_and_jvp_give_the_aux_third(kind: str, x: float, y: float) -> None:
    a, b, ta, tb = leaves(x, y, kind)
    out, vjp_fn, aux = tg.func.vjp(ours_f(kind), a, b, has_aux=True)
    their_out, their_vjp_fn, their_aux = tf.vjp(theirs_f(kind), ta, tb, has_aux=True)
    close((out, aux), (their_out, their_aux))
    close(vjp_fn(1.0 if kind == "values" else np.array(1.0)), their_vjp_fn(torch.tensor(1.0)))
    tangents = (a, b)  # any direction: the primals themselves
    found = tg.func.jvp(ours_f(kind), (a, b), tangents, has_aux=True)
    theirs = tf.jvp(theirs_f(kind), (ta, tb), (ta, tb), has_aux=True)
    assert len(found) == len(theirs) == 3
    close(found, theirs)


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
@pytest.mark.parametrize("argnums", [0, (0, 1)])
@given(x=POINTS, y=POINTS)
def test_jacobians_give_the_aux_beside(transform: str, argnums: Any, x: float, y: float) -> None:
    a, b, ta, tb = leaves(x, y, "tensors")
    ours = getattr(tg.func, transform)(lambda p, q: f_vector(tg, p, q), argnums, has_aux=True)
    theirs = getattr(tf, transform)(lambda p, q: f_vector(torch, p, q), argnums, has_aux=True)
    close(ours(a, b), theirs(ta, tb))
    on_values = getattr(tg.func, transform)(lambda p, q: f(tg, p, q), argnums, has_aux=True)
    scalar = getattr(tf, transform)(lambda p, q: f(torch, p, q), argnums, has_aux=True)
    close(on_values(x, y), scalar(*(torch.tensor(v, dtype=torch.float64) for v in (x, y))))


@given(x=POINTS)
def test_the_aux_is_differentiated_by_an_outer_transform_only(x: float) -> None:
    """The inner grad does not differentiate its aux (x³ comes back as it is), an outer one
    does (d/dx of f'(x) + x³), as torch.func's levels do."""

    def inner(lib: Any) -> Callable[..., Any]:
        return lambda v: (v * v * v * v, v * v * v)

    def outer(lib: Any, func: Any) -> Callable[..., Any]:
        return lambda v: (lambda g, aux: g + aux)(*func.grad(inner(lib), has_aux=True)(v))

    ours = tg.func.grad(outer(tg, tg.func))(x)
    theirs = tf.grad(outer(torch, tf))(torch.tensor(x, dtype=torch.float64))
    close(ours, theirs)
    _, aux = tg.func.grad(inner(tg), has_aux=True)(tg.Value(x))
    assert isinstance(aux, tg.Value) and aux.data == x * x * x  # a Value given: Values back


CALLS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "grad": lambda lib, g, x: lib.grad(g, has_aux=True)(x),
    "grad_and_value": lambda lib, g, x: lib.grad_and_value(g, has_aux=True)(x),
    "vjp": lambda lib, g, x: lib.vjp(g, x, has_aux=True),
    "jvp": lambda lib, g, x: lib.jvp(g, (x,), (x,), has_aux=True),
    "jacrev": lambda lib, g, x: lib.jacrev(g, has_aux=True)(x),
    "jacfwd": lambda lib, g, x: lib.jacfwd(g, has_aux=True)(x),
}
RESULTS: dict[str, Callable[[Any], Any]] = {
    "not a tuple": lambda x: x * x,
    "a list": lambda x: [x * x, x],
    "a tuple of three": lambda x: (x * x, x, x),
    "a tuple of one": lambda x: (x * x,),
    "a string as aux": lambda x: (x * x, "aux"),
    "None as aux": lambda x: (x * x, None),
    "a bool as aux": lambda x: (x * x, {"flag": True}),
}


@pytest.mark.parametrize("result", sorted(RESULTS))
@pytest.mark.parametrize("transform", sorted(CALLS))
@pytest.mark.parametrize("kind", KINDS)
def test_what_torch_func_refuses_is_refused_in_its_words(
    transform: str, result: str, kind: str
) -> None:
    x = 1.5 if kind == "values" else np.array(1.5)
    with pytest.raises(RuntimeError) as theirs:
        CALLS[transform](tf, RESULTS[result], torch.tensor(1.5, dtype=torch.float64))
    with pytest.raises(RuntimeError) as ours:
        CALLS[transform](tg.func, RESULTS[result], x)
    assert str(ours.value) == str(theirs.value)
    assert isinstance(ours.value, TypeError)  # as topograd refuses a result of the wrong kind


def test_an_aux_of_the_other_family_is_refused() -> None:
    with pytest.raises(TypeError, match="given numbers or Values but returned a Tensor"):
        tg.func.grad(lambda x: (x * x, tg.ones(2)), has_aux=True)(2.0)
    with pytest.raises(TypeError, match="given arrays or Tensors but returned a Value"):
        tg.func.grad(lambda x: (x.sum(), tg.Value(1.0)), has_aux=True)(np.ones(2))
