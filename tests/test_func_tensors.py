"""topograd.func on Tensors against torch.func, float64, table-driven from the registry: every
Tensor op's jvp, jacrev, jacfwd and hessian at random points (each op's cases, elementwise ops
with broadcasting), every elementwise op's jvp at its special points on both kinds, random
graphs (hypothesis), compositions to third order, and how the transforms meet no_grad,
anomaly mode, create_graph and bad calls."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
import torch
from conformance import call_torch
from hypothesis import assume, given
from hypothesis import strategies as st
from oracle import ON_TENSORS, ON_VALUES, SCALAR_OPS, TENSOR_OPS, reference, same
from test_random_graphs import programs, run

import topograd as tg
from topograd.autograd.registry import AWAY_FROM_ZERO, OPS, Given
from topograd.tensors.tensor import constant

# importing torch.func makes torch warn of its own torch.jit.script
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")

DIFFERENTIABLE = [
    n for n in TENSOR_OPS if any(not isinstance(s, Given) for c in OPS[n].cases for s in c.inputs)
]
DIFFERENTIABLE += [n for n in TENSOR_OPS if not OPS[n].cases]
BROADCAST = {1: [(2, 3)], 2: [(2, 3), (3,)], 3: [(2, 3), (3,), (2, 1)]}

Call = tuple[str, Callable[..., Any], Callable[..., Any], list[np.ndarray]]


def draw(rng: np.random.Generator, shape: tuple[int, ...], interval: tuple[float, float]) -> Any:
    x = rng.uniform(*interval, shape)
    return x * rng.choice([-1.0, 1.0], shape) if interval == AWAY_FROM_ZERO else x


def calls(name: str) -> Iterator[Call]:
    """The op as a function of its drawn inputs, on both sides, with those inputs: one per
    case of a Tensor op with parameters; broadcast shapes for an elementwise op."""
    op = OPS[name]
    rng = np.random.default_rng(len(name))
    if not op.cases:
        shapes = BROADCAST[len(op.domain)]
        arrays = [draw(rng, s, interval) for s, interval in zip(shapes, op.domain)]
        yield "broadcast", op, reference(op, scalars=False), arrays
        return
    for number, case in enumerate(op.cases):
        specs = case.inputs
        arrays = [
            draw(rng, s, interval)
            for s, interval in zip(specs, op.domain)
            if not isinstance(s, Given)
        ]

        def ours(*xs: Any, specs: Any = specs, params: Any = case.params) -> Any:
            given_ = iter(xs)
            args = [
                constant(np.asarray(s.value)) if isinstance(s, Given) else next(given_)
                for s in specs
            ]
            return op(*args, **params)

        def theirs(*xs: Any, specs: Any = specs, params: Any = case.params) -> Any:
            given_ = iter(xs)
            args = [
                torch.tensor(np.asarray(s.value)) if isinstance(s, Given) else next(given_)
                for s in specs
            ]
            if any(isinstance(s, Given) for s in specs) and name != "where":
                args = [a.long() if a.dtype != torch.float64 else a for a in args]
            if name == "where":
                args = [a.bool() if a.dtype != torch.float64 else a for a in args]
            return call_torch(op, args, dict(params))

        yield f"case {number}", ours, theirs, arrays


def as_torch(a: Any) -> torch.Tensor:
    return torch.tensor(np.asarray(a), dtype=torch.float64)


def close(ours: Any, theirs: torch.Tensor, what: str) -> None:
    expected = theirs.detach().numpy()
    ours = np.asarray(ours.data if isinstance(ours, tg.Tensor) else ours)
    assert ours.shape == expected.shape, (what, ours.shape, expected.shape)
    scale = max(float(np.abs(expected).max()), 1.0) if expected.size else 1.0
    np.testing.assert_allclose(ours, expected, rtol=1e-12, atol=1e-14 * scale, err_msg=what)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_jvp_of_every_tensor_op_is_pytorchs(name: str) -> None:
    for label, ours, theirs, arrays in calls(name):
        rng = np.random.default_rng(7)
        directions = [rng.uniform(-2, 2, a.shape) for a in arrays]
        value, tangent = tg.func.jvp(ours, tuple(arrays), tuple(directions))
        their_value, their_tangent = torch.func.jvp(
            theirs, tuple(as_torch(a) for a in arrays), tuple(as_torch(d) for d in directions)
        )
        assert isinstance(value, np.ndarray) and isinstance(tangent, np.ndarray)
        close(value, their_value, f"{name} {label} value")
        close(tangent, their_tangent, f"{name} {label} tangent")


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_jacrev_and_jacfwd_of_every_tensor_op_are_pytorchs(name: str) -> None:
    for label, ours, theirs, arrays in calls(name):
        every = tuple(range(len(arrays)))
        expected = torch.func.jacrev(theirs, argnums=every)(*[as_torch(a) for a in arrays])
        for transform in (tg.func.jacrev, tg.func.jacfwd):
            found = transform(ours, argnums=every)(*arrays)
            assert isinstance(found, tuple) and len(found) == len(arrays)
            for k, (mine, their) in enumerate(zip(found, expected)):
                close(mine, their, f"{transform.__name__} of {name} {label} by input {k}")


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_hessian_of_every_tensor_op_is_pytorchs(name: str) -> None:
    for label, ours, theirs, arrays in calls(name):
        expected = torch.func.hessian(lambda *xs, f=theirs: f(*xs).sin().sum())(
            *[as_torch(a) for a in arrays]
        )
        found = tg.func.hessian(lambda *xs, f=ours: f(*xs).sin().sum())(*arrays)
        close(found, expected, f"hessian of sum(sin({name})) {label}")


ELEMENTWISE = sorted(n for n in SCALAR_OPS if OPS[n].elementwise and OPS[n].special)


@pytest.mark.parametrize("name", ELEMENTWISE)
def test_jvp_at_special_points_is_pytorchs_on_both_kinds(name: str) -> None:
    """Each input's tangent 1 in turn, at each special point of the op: on Values and on 0-d
    Tensors, the tangent out is PyTorch's forward mode's, and the registry's partial; jacrev's
    is PyTorch's reverse mode's."""
    op = OPS[name]
    f = reference(op, scalars=False)
    for point, _, partials in op.special:
        for k in range(len(point)):
            direction = tuple(1.0 if j == k else 0.0 for j in range(len(point)))
            _, theirs = torch.func.jvp(
                f, tuple(as_torch(x) for x in point), tuple(as_torch(d) for d in direction)
            )
            _, on_values = tg.func.jvp(ON_VALUES[name], point, direction)
            arrays = tuple(np.asarray(x) for x in point)
            _, on_tensors = tg.func.jvp(op, arrays, tuple(np.asarray(d) for d in direction))
            assert same(on_values, theirs.item()), (name, point, k, on_values, theirs)
            assert same(float(on_tensors), theirs.item()), (name, point, k, on_tensors)
            (their_row,) = [torch.func.jacrev(f, argnums=k)(*(as_torch(x) for x in point))]
            row = tg.func.jacrev(ON_VALUES[name], argnums=k)(*point)
            assert same(row, their_row.item()), (name, point, k, row, their_row)
            if len(point) == 1:  # (where other inputs have tangent 0, 0 x inf is nan)
                assert same(on_values, partials[0]), (name, point)


@given(programs(), st.data())
def test_jvp_of_random_graphs_is_pytorchs(program: Any, data: st.DataObject) -> None:
    """Random expression DAGs of every scalar op, shared nodes included: the tangent along a
    random direction equals PyTorch's forward mode to 1e-9 relative, on Values."""
    assume(program.steps)
    n = len(program.leaves)
    direction = data.draw(st.lists(st.floats(-2, 2), min_size=n, max_size=n))

    def ours(*xs: Any) -> Any:
        return run(_with(program, xs), lambda x: x, ON_VALUES, lambda a, b: a + b)[1]

    def theirs(*xs: Any) -> Any:
        return run(_with(program, xs), lambda x: x, ON_TENSORS, torch.add)[1]

    _, tangent = tg.func.jvp(ours, tuple(program.leaves), tuple(direction))
    _, expected = torch.func.jvp(
        theirs, tuple(as_torch(x) for x in program.leaves), tuple(as_torch(d) for d in direction)
    )
    assert math.isclose(tangent, expected.item(), rel_tol=1e-9, abs_tol=1e-12), (tangent, expected)


def _with(program: Any, xs: tuple[Any, ...]) -> Any:
    return type(program)(list(xs), program.steps)


W = np.random.default_rng(3).standard_normal((3, 4))


def mlp(x: Any) -> Any:
    return (x @ W.T).tanh() * x[:3] if isinstance(x, tg.Tensor) else None


def torch_mlp(x: torch.Tensor) -> torch.Tensor:
    return torch.tanh(x @ as_torch(W).T) * x[:3]


X = np.array([0.3, -1.2, 0.7, 2.0])


def test_compositions_to_third_order_on_tensors() -> None:
    def ours(x: Any) -> Any:
        return mlp(x).sum() * x[0]

    def theirs(x: torch.Tensor) -> torch.Tensor:
        return torch_mlp(x).sum() * x[0]

    for mine, their in [
        (tg.func.jacfwd(tg.func.jacrev(tg.func.jacrev(ours))), torch.func.jacrev),
        (tg.func.jacrev(tg.func.hessian(ours)), torch.func.jacfwd),
        (tg.func.jacfwd(tg.func.jacfwd(tg.func.grad(ours))), torch.func.jacfwd),
    ]:
        expected = torch.func.jacfwd(torch.func.jacrev(torch.func.jacrev(theirs)))(as_torch(X))
        found = mine(X)
        assert found.shape == (4, 4, 4)
        close(found, expected, f"third derivative by {their.__name__}")
    # a Tensor in gives Tensors out; an array in, arrays out
    assert isinstance(tg.func.hessian(ours)(tg.Tensor(X)), tg.Tensor)
    assert type(tg.func.hessian(ours)(X)) is np.ndarray


def test_results_stay_differentiable_for_an_outer_backward() -> None:
    """A Tensor that requires a gradient, given to a transform, gets results with a graph:
    the tangent of jvp and the rows of jacrev backpropagate to it, as in PyTorch."""
    x, v = tg.Tensor(X, requires_grad=True), np.array([1.0, -2.0, 0.5, 0.25])
    _, tangent = tg.func.jvp(mlp, (x,), (v,))
    (tangent * tangent).sum().backward()
    theirs = as_torch(X).requires_grad_()
    _, their_tangent = torch.func.jvp(torch_mlp, (theirs,), (as_torch(v),))
    (their_tangent * their_tangent).sum().backward()
    assert x.grad is not None and theirs.grad is not None
    close(x.grad, theirs.grad, "d |J v|² / dx")
    (found,) = tg.grad(tg.func.jacrev(mlp)(x).sum(), [x])
    leaf = as_torch(X).requires_grad_()
    (expected,) = torch.autograd.grad(torch.func.jacrev(torch_mlp)(leaf).sum(), [leaf])
    close(found, expected, "d sum(J) / dx")


def test_no_grad_outside_is_ignored_and_inside_is_respected() -> None:
    """As torch.func: a no_grad around a transform does not stop it; one inside the function
    stops what it covers (there, x * 2 is a constant)."""

    def ours(x: Any) -> Any:
        with tg.no_grad():
            c = x * 2
        return x * c

    def theirs(x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            c = x * 2
        return x * c

    with torch.no_grad():
        expected = torch.func.grad(theirs)(as_torch(1.5))
    for point, one in ((1.5, 1.0), (np.array(1.5), np.array(1.0))):
        with tg.no_grad():
            found = tg.func.grad(ours)(point)
            _, tangent = tg.func.jvp(ours, (point,), (one,))
        assert float(found) == float(tangent) == expected.item() == 3.0  # c, not 2c + 2x
        assert tg.is_grad_enabled()


def test_anomaly_mode_names_the_op_in_both_modes() -> None:
    """A tangent that turns nan in forward mode (sqrt's rule: 0 / 0), or a gradient in reverse
    mode (sqrt's rule 0 / 0 for a seed's zero, or the mul's 0 x inf), raises AnomalyError
    naming the op inside detect_anomaly, on both kinds; outside, nan comes out (as PyTorch)."""

    def f(x: Any) -> Any:
        return (x * 0).sqrt()  # sqrt at 0: its rule divides by 2 sqrt(0) = 0

    for point, one in ((1.0, 1.0), (np.array([1.0, 2.0]), np.ones(2))):
        _, tangent = tg.func.jvp(f, (point,), (one,))
        assert np.isnan(tangent).all()
        with tg.detect_anomaly():
            with pytest.raises(tg.AnomalyError, match="forward mode: the tangent of 'sqrt'"):
                tg.func.jvp(f, (point,), (one,))
            with pytest.raises(tg.AnomalyError, match=r"backward of '(sqrt|mul)' produced nan"):
                tg.func.jacrev(f)(point)


def test_bad_calls_on_tensors_name_the_argument() -> None:
    x = np.ones(3)
    with pytest.raises(
        ValueError, match=r"must return one number .* got an output of shape \(3,\)"
    ):
        tg.func.grad(lambda x: x * 2)(x)
    with pytest.raises(ValueError, match="argnums 1 out of range for 1 positional arguments"):
        tg.func.jacrev(lambda x: x, argnums=1)(x)
    with pytest.raises(
        ValueError, match=r"tangents\[0\] has shape \(2,\) but its primal has shape \(3,\)"
    ):
        tg.func.jvp(lambda x: x, (x,), (np.ones(2),))
    _, vjp_fn = tg.func.vjp(lambda x: x.sum(), x)
    with pytest.raises(
        ValueError, match=r"cotangent 0 has shape \(3,\) but its output has shape \(\)"
    ):
        vjp_fn(np.ones(3))
    with pytest.raises(TypeError, match=r"args\[1\] is a Value among arrays or Tensors"):
        tg.func.jacrev(lambda x, y: x)(x, tg.Value(1.0))
    with pytest.raises(TypeError, match="given arrays or Tensors but returned a Value"):
        tg.func.jacrev(lambda x: tg.Value(1.0) * 2)(x)
    _, vjp_fn = tg.func.vjp(lambda x: (x, x.sum()), x)
    with pytest.raises(
        ValueError,
        match=r"vjp_fn takes cotangents in the structure of the outputs, \(\*, \*\), got \*",
    ):
        vjp_fn(np.ones(3))


def test_vjp_of_several_outputs_is_pytorchs() -> None:
    def ours(x: Any, y: Any) -> Any:
        return (x * y).sum(), (x @ W.T).tanh()

    def theirs(x: torch.Tensor, y: torch.Tensor) -> Any:
        return (x * y).sum(), torch.tanh(x @ as_torch(W).T)

    y = np.array([2.0, 0.5, -1.0, 3.0])
    (value, rows), vjp_fn = tg.func.vjp(ours, X, y)
    (their_value, their_rows), their_vjp = torch.func.vjp(theirs, as_torch(X), as_torch(y))
    close(value, their_value, "value")
    close(rows, their_rows, "rows")
    cotangents = (np.array(-1.5), np.array([1.0, 2.0, -0.5]))
    for mine, their in zip(vjp_fn(cotangents), their_vjp(tuple(as_torch(c) for c in cotangents))):
        close(mine, their, "vjp")


def test_arguments_and_results_may_be_trees_as_in_torch_func() -> None:
    """Tuples, lists and dicts of Tensors (nested) in and out, the results in the same
    structure as torch.func gives them."""
    params = {"w": W, "b": np.array([0.5, -0.5, 1.0])}

    def loss(p: Any, x: Any) -> Any:
        return ((x @ p["w"].T + p["b"]).tanh() ** 2).sum()

    def their_loss(p: Any, x: torch.Tensor) -> torch.Tensor:
        return (torch.tanh(x @ p["w"].T + p["b"]) ** 2).sum()

    theirs = {k: as_torch(v) for k, v in params.items()}
    found = tg.func.grad(loss)(params, X)
    expected = torch.func.grad(their_loss)(theirs, as_torch(X))
    assert isinstance(found, dict) and list(found) == ["w", "b"]
    for key in found:
        close(found[key], expected[key], f"d loss / d {key}")

    def pair(xy: Any) -> Any:
        x, y = xy
        return {"sum": x * y, "both": [x.sin(), (x * y).sum()]}

    def their_pair(xy: Any) -> Any:
        x, y = xy
        return {"sum": x * y, "both": [torch.sin(x), (x * y).sum()]}

    xy = (np.array([0.2, 1.5]), np.array([-1.0, 0.5]))
    for transform, their_transform in (
        (tg.func.jacrev, torch.func.jacrev),
        (tg.func.jacfwd, torch.func.jacfwd),
    ):
        found = transform(pair)(xy)
        expected = their_transform(their_pair)(tuple(as_torch(a) for a in xy))
        assert list(found) == ["sum", "both"] and isinstance(found["both"], list)
        flat = [found["sum"][0], found["sum"][1], found["both"][0][0], found["both"][0][1]]
        flat += list(found["both"][1])
        their_flat = [expected["sum"][0], expected["sum"][1], expected["both"][0][0]]
        their_flat += [expected["both"][0][1], *expected["both"][1]]
        for mine, their in zip(flat, their_flat, strict=True):
            close(mine, their, f"{transform.__name__} of a tree")
    _, tangent = tg.func.jvp(pair, (xy,), ((np.ones(2), np.zeros(2)),))
    assert list(tangent) == ["sum", "both"]
    close(tangent["sum"], as_torch(xy[1]), "d(x y)/dx along 1")
    with pytest.raises(
        ValueError,
        match=r"tangents\[0\] must have the structure of primals\[0\], \(\*, \*\), got \*",
    ):
        tg.func.jvp(pair, (xy,), (np.ones(2),))
    _, vjp_fn = tg.func.vjp(pair, xy)
    (back,) = vjp_fn({"sum": np.ones(2), "both": [np.zeros(2), np.array(1.0)]})
    assert isinstance(back, tuple) and len(back) == 2
    close(back[0], as_torch(2 * xy[1]), "vjp by x")  # from x * y, then from sum(x * y)


def test_trees_of_numbers_and_values() -> None:
    found = tg.func.grad(lambda ab: ab[0] * ab[1] + ab[0])((2.0, 5.0))
    assert found == (6.0, 2.0) and all(type(g) is float for g in found)
    a = tg.Value(2.0)
    nested = tg.func.grad(lambda d: d["a"] ** 3)({"a": a})
    assert isinstance(nested["a"], tg.Value) and nested["a"].data == 12.0
    (second,) = tg.grad(nested["a"], [a])
    assert second == 12.0  # 6a


def test_the_same_node_twice_is_two_variables_as_in_pytorch() -> None:
    """A node given as two arguments, or given and also used inside the function (a nested
    transform's closure), counts as the variables it is given as: no derivative is summed
    into another's."""

    def f(a: Any, b: Any) -> Any:
        return (a * b).sin() * a

    x = np.array([0.5, -1.0])
    mine = tg.func.jacrev(f, argnums=(0, 1))(
        tg.Tensor(x, requires_grad=True), tg.Tensor(x, requires_grad=True)
    )
    shared = tg.Tensor(x, requires_grad=True)
    twice = tg.func.jacrev(f, argnums=(0, 1))(shared, shared)
    theirs = torch.func.jacrev(lambda a, b: torch.sin(a * b) * a, argnums=(0, 1))(
        as_torch(x), as_torch(x)
    )
    for found in (mine, twice):
        for k in range(2):
            close(found[k], theirs[k], f"by argument {k}")
    # a closure over the outer argument, on numbers, Values and arrays
    nested = lambda x: x * tg.func.grad(lambda y: x * y)(x)  # noqa: E731
    their_nested = lambda x: x * torch.func.grad(lambda y: x * y)(x)  # noqa: E731
    expected = torch.func.grad(their_nested)(torch.tensor(3.0, dtype=torch.float64)).item()
    assert tg.func.grad(nested)(3.0) == expected == 6.0
    assert tg.func.grad(nested)(tg.Value(3.0)).data == 6.0
    inner = lambda x: tg.func.jacrev(lambda y: x * y * y)(x)  # noqa: E731
    their_inner = lambda x: torch.func.jacrev(lambda y: x * y * y)(x)  # noqa: E731
    close(
        tg.func.jacfwd(inner)(np.array([1.0, 2.0])),
        torch.func.jacfwd(their_inner)(as_torch([1.0, 2.0])),
        "nested",
    )


def test_anomaly_mode_with_inputs_no_target_needs() -> None:
    """grad() skips a weight's gradient that nobody asked for; anomaly mode's check skips it
    too."""
    x = tg.Tensor(np.ones((2, 3)), requires_grad=True)
    w = tg.Tensor(np.ones((4, 3)), requires_grad=True)
    with tg.detect_anomaly():
        (found,) = tg.grad((x @ w.T).sum(), [x])
        rows = tg.func.jacrev(lambda x: x @ w.T)(x.data)
    np.testing.assert_array_equal(found, np.full((2, 3), 4.0))
    assert rows.shape == (2, 4, 2, 3)


def test_float32_stays_float32_and_keywords_pass_through() -> None:
    x32 = np.array([1.0, 2.0], dtype=np.float32)
    for transform in (tg.func.jacrev, tg.func.jacfwd):
        found = transform(lambda x, y: y * 2, argnums=(0, 1))(x32, x32)
        assert found[0].dtype == found[1].dtype == np.float32 and not found[0].any()
    _, tangent = tg.func.jvp(lambda x: np.ones(2, dtype=np.float32), (x32,), (x32,))
    assert tangent.dtype == np.float32
    scaled = tg.func.grad(lambda x, scale=1.0: (x * scale).sum())(np.ones(3), scale=3.0)
    np.testing.assert_array_equal(scaled, np.full(3, 3.0))
    assert tg.func.jacrev(lambda x, *, p: x**p)(np.array([2.0]), p=3)[0, 0] == 12.0


BAD_CALLS = [
    (
        lambda: tg.func.jvp(lambda x: x * 2, (np.ones(3),), (np.ones(3, dtype=int),)),
        TypeError,
        r"tangents\[0\] must hold floating-point numbers, got an array of int64",
    ),
    (
        lambda: tg.func.jvp(lambda x: x, (np.ones(2),), (tg.Value(1.0),)),
        TypeError,
        r"tangents\[0\] must be an array or a Tensor, got Value",
    ),
    (
        lambda: tg.func.jacrev(lambda x: x, chunk_size=2.5),
        ValueError,
        "chunk_size must be None or a whole number >= 1",
    ),  # type: ignore[arg-type]
    (
        lambda: tg.func.jacrev(lambda x, y: x, argnums=(0, 0))(1.0, 2.0),
        ValueError,
        r"argnums \(0, 0\) names an argument twice",
    ),
    (
        lambda: tg.func.grad(lambda x, y: x, argnums=(1, -1))(1.0, 2.0),
        ValueError,
        r"argnums \(1, -1\) names an argument twice",
    ),
    (
        lambda: tg.func.grad(lambda x: x, argnums=())(1.0),
        ValueError,
        r"argnums must name at least one argument",
    ),
    (
        lambda: tg.func.grad(lambda x: x.sum())(np.array([True, False])),
        TypeError,
        r"args\[0\] must hold real numbers, got an array of bool",
    ),
    (
        lambda: tg.func.grad(lambda x: x.sum())(np.array([1j])),
        TypeError,
        r"args\[0\] must hold real numbers, got an array of complex128",
    ),
]


@pytest.mark.parametrize(("call", "error", "message"), BAD_CALLS)
def test_bad_calls_are_refused_with_the_argument_named(
    call: Any, error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        call()
