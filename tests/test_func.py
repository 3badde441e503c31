"""topograd.func against torch.func, float64: forward mode (jvp) for every scalar op of the
registry at random points of its domain along random tangents, reverse mode (vjp, grad,
grad_and_value, jacrev, jacfwd, hessian, hvp), compositions, and the refusals. Tensors:
test_func_tensors.py."""

from __future__ import annotations

import math
import random

import pytest
import torch
from oracle import ON_VALUES, SCALAR_OPS, reference, same

import topograd as tg
from topograd.autograd.registry import OPS
from topograd.verify.scalar_rules import draw_point

POINTS = 5
# importing torch.func makes torch warn of its own torch.jit.script
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")


def cases(name: str) -> list[tuple[tuple[float, ...], tuple[float, ...]]]:
    """Random points of the op's domain (as many operands as its domain has), each with a
    random direction."""
    rng = random.Random(f"jvp {name}")
    found = []
    for _ in range(POINTS):
        point = tuple(draw_point(OPS[name], rng))
        found.append((point, tuple(rng.uniform(-2, 2) for _ in point)))
    return found


@pytest.mark.parametrize("name", SCALAR_OPS)
def test_jvp_of_every_scalar_op_is_pytorchs(name: str) -> None:
    ours_op, theirs_op = ON_VALUES[name], reference(OPS[name])
    for point, direction in cases(name):
        value, tangent = tg.func.jvp(ours_op, point, direction)
        primals = tuple(torch.tensor(x, dtype=torch.float64) for x in point)
        tangents = tuple(torch.tensor(t, dtype=torch.float64) for t in direction)
        their_value, their_tangent = torch.func.jvp(theirs_op, primals, tangents)
        assert same(value, their_value.item(), 1e-12), (name, point)
        assert same(tangent, their_tangent.item(), 1e-12), (name, point, direction)


def lesson(a: object, b: object, c: object) -> object:
    return (a * b + c).tanh()  # type: ignore[operator]


def torch_lesson(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    return torch.tanh(a * b + c)


POINT = (2.0, -3.0, 10.0)


def test_each_tangent_direction_is_a_column_of_the_jacobian() -> None:
    grads = tg.func.grad(lesson, argnums=(0, 1, 2))(*POINT)
    for k in range(3):
        direction = tuple(1.0 if j == k else 0.0 for j in range(3))
        value, tangent = tg.func.jvp(lesson, POINT, direction)
        assert value == math.tanh(4.0) and math.isclose(tangent, grads[k], rel_tol=1e-15)


def test_vjp_grad_and_value_are_pytorchs() -> None:
    primals = tuple(torch.tensor(x, dtype=torch.float64) for x in POINT)
    their_value, their_vjp = torch.func.vjp(torch_lesson, *primals)
    value, vjp_fn = tg.func.vjp(lesson, *POINT)
    assert value == their_value.item()
    for ours, theirs in zip(vjp_fn(-0.5), their_vjp(torch.tensor(-0.5, dtype=torch.float64))):
        assert same(ours, theirs.item(), 1e-12)  # (PyTorch rounds tanh's 1 - t² once)
    their_grads, their_value = torch.func.grad_and_value(torch_lesson, argnums=(0, 2))(*primals)
    grads, value = tg.func.grad_and_value(lesson, argnums=(0, 2))(*POINT)
    assert value == their_value.item() and len(grads) == 2
    assert all(same(g, t.item(), 1e-12) for g, t in zip(grads, their_grads))
    assert tg.func.grad(lesson, argnums=-1)(*POINT) == grads[1]  # the last argument


def test_transforms_compose_to_third_order() -> None:
    def f(x: object) -> object:
        return x.sin() * x.exp()  # type: ignore[attr-defined]

    def tf(x: torch.Tensor) -> torch.Tensor:
        return torch.sin(x) * torch.exp(x)

    x = 0.7
    tx = torch.tensor(x, dtype=torch.float64)
    third = tg.func.grad(tg.func.grad(tg.func.grad(f)))(x)
    assert same(third, torch.func.grad(torch.func.grad(torch.func.grad(tf)))(tx).item(), 1e-13)
    # forward over reverse: the second derivative as the tangent of the gradient
    _, second = tg.func.jvp(tg.func.grad(f), (x,), (1.0,))
    theirs = torch.func.jvp(torch.func.grad(tf), (tx,), (torch.tensor(1.0, dtype=torch.float64),))
    assert same(second, theirs[1].item(), 1e-13)
    # reverse over forward
    assert same(tg.func.grad(lambda y: tg.func.jvp(f, (y,), (1.0,))[1])(x), second, 1e-13)


def test_values_in_values_out_numbers_in_numbers_out() -> None:
    x = tg.Value(3.0)
    value, tangent = tg.func.jvp(lambda v: v * v, (x,), (1.0,))
    assert isinstance(value, tg.Value) and isinstance(tangent, tg.Value)
    assert tg.grad(tangent, [x]) == [2.0]  # the tangent 2x, differentiated again
    value, tangent = tg.func.jvp(lambda v: v * v, (3.0,), (1.0,))
    assert (value, tangent) == (9.0, 6.0) and type(tangent) is float
    assert tg.func.jvp(lambda v: 5.0, (3.0,), (1.0,)) == (5.0, 0.0)  # a constant function
    assert x.grad == 0.0  # no transform touches .grad


def test_bad_calls_name_the_argument() -> None:
    with pytest.raises(ValueError, match="2 primals but 1 tangents"):
        tg.func.jvp(lesson, (1.0, 2.0), (1.0,))
    with pytest.raises(TypeError, match="tangents\\[0\\] must be a number or a Value"):
        tg.func.jvp(lambda x: x, (1.0,), ("up",))
    with pytest.raises(TypeError, match="primals and tangents must be tuples"):
        tg.func.jvp(lambda x: x, 1.0, 1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="argnums 3 out of range for 3 positional arguments"):
        tg.func.grad(lesson, argnums=3)(*POINT)
    with pytest.raises(TypeError, match=r"must return one number .* not a tree \[\*\]"):
        tg.func.grad(lambda x: [x])(1.0)
    with pytest.raises(TypeError, match="args\\[0\\] must be a number, a Value, an array"):
        tg.func.grad(lambda x: x)("1")
    with pytest.raises(TypeError, match="given numbers or Values but returned a Tensor"):
        tg.func.jvp(lambda x: tg.Tensor([x.data]).sum(), (1.0,), (1.0,))
    with pytest.raises(TypeError, match="must return Values, numbers, Tensors or arrays"):
        tg.func.jvp(lambda x: "x", (1.0,), (1.0,))


def pair(x: object, y: object) -> tuple[object, object]:
    return x * y, x.sin() + y  # type: ignore[attr-defined, operator]


def torch_pair(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    return x * y, torch.sin(x) + y


def flat(found: object) -> list[float]:
    if isinstance(found, (tuple, list)):
        return [v for item in found for v in flat(item)]
    if isinstance(found, torch.Tensor):
        return [float(v) for v in found.reshape(-1)]
    return [float(found)]  # type: ignore[arg-type]


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0)])
def test_jacobians_both_ways_are_pytorchs(argnums: int | tuple[int, ...]) -> None:
    point = (0.3, -1.7)
    tensors = tuple(torch.tensor(x, dtype=torch.float64) for x in point)
    theirs = torch.func.jacrev(torch_pair, argnums=argnums)(*tensors)
    for transform in (tg.func.jacrev, tg.func.jacfwd):
        ours = transform(pair, argnums=argnums)(*point)
        assert isinstance(ours, tuple) and len(ours) == 2  # a row per output
        assert all(isinstance(row, tuple) == isinstance(argnums, tuple) for row in ours)
        assert all(same(a, b, 1e-15) for a, b in zip(flat(ours), flat(theirs)))


def test_hessian_and_hvp_are_pytorchs() -> None:
    tensors = tuple(torch.tensor(x, dtype=torch.float64) for x in POINT)
    theirs = torch.func.hessian(torch_lesson, argnums=(0, 1, 2))(*tensors)
    ours = tg.func.hessian(lesson, argnums=(0, 1, 2))(*POINT)
    assert len(ours) == 3 and all(len(row) == 3 for row in ours)
    assert all(same(a, b, 1e-12) for a, b in zip(flat(ours), flat(theirs)))
    direction = (0.5, -1.0, 2.0)
    value, product = tg.func.hvp(lesson, POINT, direction)
    their_value, their_product = torch.autograd.functional.hvp(
        torch_lesson, tensors, tuple(torch.tensor(v, dtype=torch.float64) for v in direction)
    )
    assert value == their_value.item() and len(product) == 3
    assert all(same(a, b, 1e-12) for a, b in zip(product, flat(their_product)))
    values, tangents = tg.func.jvp(pair, (0.3, -1.7), (1.0, 0.0))  # a tuple out: tuples
    assert values == (0.3 * -1.7, math.sin(0.3) - 1.7) and tangents == (-1.7, math.cos(0.3))


def flat_numbers(found: object) -> list[float]:
    if isinstance(found, (tuple, list)):
        return [x for item in found for x in flat_numbers(item)]
    return [float(found.item() if isinstance(found, torch.Tensor) else found)]  # type: ignore[arg-type]


@pytest.mark.parametrize("name", SCALAR_OPS)
def test_jacrev_jacfwd_and_hessian_of_every_scalar_op_are_pytorchs(name: str) -> None:
    ours_op, theirs_op = ON_VALUES[name], reference(OPS[name])
    for point, _ in cases(name)[:2]:
        every = tuple(range(len(point)))
        primals = tuple(torch.tensor(x, dtype=torch.float64) for x in point)
        for mine, their in [
            (tg.func.jacrev(ours_op, argnums=every), torch.func.jacrev(theirs_op, argnums=every)),
            (tg.func.jacfwd(ours_op, argnums=every), torch.func.jacfwd(theirs_op, argnums=every)),
            (tg.func.hessian(ours_op, argnums=every), torch.func.hessian(theirs_op, argnums=every)),
        ]:
            found, expected = flat_numbers(mine(*point)), flat_numbers(their(*primals))
            assert len(found) == len(expected)
            for a, b in zip(found, expected):
                assert same(a, b, 1e-12) or abs(a - b) < 1e-14, (name, point, found, expected)


@pytest.mark.parametrize("name", ["dot", "affine", "neuron", "sum"])
def test_a_fused_op_of_many_operands_runs_forward_in_one_pass(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its forward rule runs once for the node, its reverse rule not at all (not once per
    operand's tangent), and the tangent is the one its partials give."""
    op = OPS[name]
    calls = {"rule": 0, "forward": 0}
    rule, forward = op.rule, op.forward
    assert forward is not None
    monkeypatch.setattr(op, "rule", lambda *a, **k: calls.__setitem__("rule", 1) or rule(*a, **k))

    def counted(*args: object) -> object:
        calls["forward"] += 1
        return forward(*args)

    monkeypatch.setattr(op, "forward", counted)
    rng = random.Random(name)
    count = 41 if name in ("affine", "neuron") else 40
    point = tuple(rng.uniform(0.1, 1.0) for _ in range(count))
    direction = tuple(rng.uniform(-1.0, 1.0) for _ in range(count))
    _, tangent = tg.func.jvp(ON_VALUES[name], point, direction)
    assert calls == {"rule": 0, "forward": 1}
    monkeypatch.setattr(op, "rule", rule)
    partials = tg.func.grad(ON_VALUES[name], argnums=tuple(range(count)))(*point)
    assert math.isclose(
        tangent, math.fsum(p * d for p, d in zip(partials, direction)), rel_tol=1e-12
    )
