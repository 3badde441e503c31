"""Every op of the table, at many points of its domain and at the special points, against
central differences and against PyTorch float64."""

from __future__ import annotations

import math
import random

import pytest
from oracle import ON_VALUES, SCALAR_OPS, reference, same, torch_grads

import topograd as tg
from topograd.autograd.registry import OPS
from topograd.verify.numeric import central_difference
from topograd.verify.scalar_rules import draw_point

POINTS_PER_OP = 200


def sample(op: str, rng: random.Random) -> list[float]:
    return draw_point(OPS[op], rng)


def partials(op: str, xs: list[float]) -> tuple[tg.Value, list[tg.Value]]:
    leaves = [tg.Value(x) for x in xs]
    out = ON_VALUES[op](*leaves)
    out.backward()
    return out, leaves


BUILT_IN = sorted(name for name, op in OPS.items() if not op.custom)


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_op_has_a_reference_a_domain_and_its_maths(name: str) -> None:
    op = OPS[name]
    assert op.kinds, name
    assert callable(reference(op, scalars=op.scalar is not None)), name
    assert op.maths and op.derivative, name
    assert len(op.domain) == (len(op.domain) if op.arity < 0 else op.arity) > 0, name
    if op.array is not None and not op.elementwise:
        assert op.cases, f"{name}: a Tensor op with parameters needs cases to be checked"


@pytest.mark.parametrize("op", SCALAR_OPS)
def test_value_names_its_op_and_parents(op: str) -> None:
    out, leaves = partials(op, sample(op, random.Random(0)))
    assert out.op == op
    assert out.parents == tuple(leaves)


@pytest.mark.parametrize("op", SCALAR_OPS)
def test_op_matches_pytorch_float64(op: str) -> None:
    rng = random.Random(op)
    for _ in range(POINTS_PER_OP):
        xs = sample(op, rng)
        out, leaves = partials(op, xs)
        value, expected = torch_grads(op, xs)
        assert same(out.data, value, 1e-12), (op, xs, out.data, value)  # libm's, or Sleef's
        for leaf, g in zip(leaves, expected):
            assert same(leaf.grad, g, 1e-12), (op, xs, leaf.grad, g)


@pytest.mark.parametrize("op", SCALAR_OPS)
def test_op_matches_central_differences(op: str) -> None:
    rng = random.Random(f"cd {op}")
    for _ in range(POINTS_PER_OP):
        xs = sample(op, rng)
        out, leaves = partials(op, xs)
        for leaf in leaves:
            numeric = central_difference(out, leaf)
            assert abs(leaf.grad - numeric) <= 1e-7 * max(1.0, abs(numeric)), (op, xs)


def test_central_difference_of_an_intermediate_recomputes_downstream() -> None:
    x = tg.Value(0.3)
    h = x * 2.0
    y = h.sin() * x
    y.backward()
    assert abs(central_difference(y, h) - math.cos(0.6) * 0.3) < 1e-9
    assert abs(central_difference(y, h) - h.grad) < 1e-9


NAN, INF = math.nan, math.inf

# The special points live in the rule table (from ../shared/reference/special-points.md).
SPECIAL_POINTS = [
    (name, list(xs), value, list(ps))
    for name, op in OPS.items()
    if op.scalar is not None
    for xs, value, ps in op.special
]
# Rows of the reference whose values are not exact in binary: (op, x, value, partial), 4 digits.
SPECIAL_POINTS_ROUNDED = [
    ("tanh", 1.0, 0.7616, 0.41997),
    ("sigmoid", 1.0, 0.7311, 0.19661),
    ("sigmoid", -40.0, 4.25e-18, 4.25e-18),
]


def test_every_row_of_the_reference_is_in_the_table() -> None:
    rows = {(op, tuple(xs)) for op, xs, _, _ in SPECIAL_POINTS}
    for row in [
        ("relu", (0.0,)),
        ("abs", (0.0,)),
        ("abs", (-0.0,)),
        ("sqrt", (0.0,)),
        ("sqrt", (-1.0,)),
        ("log", (0.0,)),
        ("log", (-1.0,)),
        ("div", (1.0, 0.0)),
        ("div", (0.0, 0.0)),
        ("exp", (1000.0,)),
        ("tanh", (1000.0,)),
        ("tanh", (0.0,)),
        ("tanh", (20.0,)),
        ("sigmoid", (0.0,)),
        ("sigmoid", (-1000.0,)),
        ("sigmoid", (1000.0,)),
        ("pow", (0.0, 0.0)),
        ("pow", (0.0, -1.0)),
        ("pow", (-8.0, 1 / 3)),
        ("pow", (0.0, 2.0)),
        ("pow", (0.0, 0.5)),
        ("pow", (-2.0, 2.0)),
    ]:
        assert row in rows, row


@pytest.mark.parametrize(("op", "xs", "value", "expected"), SPECIAL_POINTS)
def test_special_point(op: str, xs: list[float], value: float, expected: list[float]) -> None:
    out, leaves = partials(op, xs)
    assert same(out.data, value)
    assert math.copysign(1, out.data) == math.copysign(1, value)
    for leaf, g in zip(leaves, expected):
        assert same(leaf.grad, g), (leaf.grad, g)


@pytest.mark.parametrize(("op", "xs", "value", "expected"), SPECIAL_POINTS)
def test_special_point_table_agrees_with_pytorch(
    op: str, xs: list[float], value: float, expected: list[float]
) -> None:
    torch_value, torch_partials = torch_grads(op, xs)
    assert same(torch_value, value)
    assert all(same(a, b) for a, b in zip(torch_partials, expected)), torch_partials


@pytest.mark.parametrize(("op", "x", "value", "partial"), SPECIAL_POINTS_ROUNDED)
def test_special_point_rounded(op: str, x: float, value: float, partial: float) -> None:
    out, (leaf,) = partials(op, [x])
    assert out.data == pytest.approx(value, rel=1e-3)
    assert leaf.grad == pytest.approx(partial, rel=1e-3)


@pytest.mark.parametrize("x", [-2.0, -0.0, 0.0, 0.5, 3.0, INF, NAN])
def test_power_zero_has_zero_derivative_everywhere(x: float) -> None:
    v = tg.Value(x)
    (v**0).backward()
    assert v.grad == 0.0


def test_sqrt_times_zero_lets_the_nan_flow() -> None:
    x = tg.Value(0.0)
    y = x.sqrt() * 0
    y.backward()
    assert y.data == 0.0
    assert math.isnan(x.grad)


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (lambda: tg.Value(0.0).log(), -INF),
        (lambda: tg.Value(-1.0).sqrt(), NAN),
        (lambda: tg.Value(1.0) / 0, INF),
        (lambda: 1 / tg.Value(0.0), INF),
        (lambda: tg.Value(-1.0) / 0.0, -INF),
        (lambda: tg.Value(1000.0).exp(), INF),
        (lambda: tg.Value(-8.0) ** (1 / 3), NAN),
        (lambda: (-8.0) ** tg.Value(1 / 3), NAN),
        (lambda: tg.Value(0.0) ** -1, INF),
        (lambda: tg.Value(-1000.0).sigmoid(), 0.0),
        (lambda: tg.Value(1e300) * 1e300, INF),
        (lambda: tg.Value(INF) - INF, NAN),
    ],
)
def test_domain_problems_give_ieee_results_not_exceptions(make, expected) -> None:  # type: ignore[no-untyped-def]
    out = make()
    assert isinstance(out.data, float) and same(out.data, expected)
