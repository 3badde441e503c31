"""The backward pass: order, sums over paths, repeated calls, several outputs, grad(), depth,
and memory that reference counting alone frees."""

from __future__ import annotations

import gc
import math
import random
import sys

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from oracle import ON_TENSORS, ON_VALUES, SCALAR_OPS, leaf

import topograd as tg
from topograd.autograd.engine import topological_order
from topograd.autograd.registry import OPS
from topograd.verify.scalar_rules import draw_point

finite = st.floats(-10, 10, allow_nan=False)


def test_seed_example_every_gradient_to_1e_12() -> None:
    a, b, c = tg.Value(2.0, label="a"), tg.Value(-3.0, label="b"), tg.Value(10.0, label="c")
    d = a * b
    n = d + c
    e = n.tanh()
    e.backward()
    dn = 1 - math.tanh(4.0) ** 2  # tanh' at n = a*b + c = 4
    expected = {e: 1.0, n: dn, d: dn, c: dn, a: -3.0 * dn, b: 2.0 * dn}
    for node, grad in expected.items():
        assert node.grad == pytest.approx(grad, rel=1e-12, abs=1e-12)
    # the figures in the README and in the issue, to the last digit printed
    assert (a.grad, b.grad, c.grad) == pytest.approx(
        (-0.0040228520490775965, 0.002681901366051731, 0.0013409506830258655), rel=1e-12
    )


@given(finite)
def test_x_times_x_plus_x(x: float) -> None:
    v = tg.Value(x)
    y = v * v + v
    y.backward()
    assert v.grad == pytest.approx(2 * x + 1, rel=1e-15, abs=1e-15)  # summed in another order


def test_a_node_shared_by_several_paths_gets_the_sum() -> None:
    x, y = tg.Value(0.7), tg.Value(-1.3)
    z = x * y  # used three times below
    out = z * z + z.tanh() + 3 * z
    out.backward()
    dz = 2 * z.data + (1 - math.tanh(z.data) ** 2) + 3
    assert z.grad == pytest.approx(dz, rel=1e-15)
    assert x.grad == pytest.approx(dz * y.data, rel=1e-15)
    assert y.grad == pytest.approx(dz * x.data, rel=1e-15)


def graph() -> tuple[tg.Value, list[tg.Value]]:
    x, y = tg.Value(0.3), tg.Value(-2.0)
    h = (x * y).tanh()
    out = h * h + (h + x).sigmoid() * y + (x / y).exp()
    return out, topological_order([out])  # type: ignore[return-value]


def test_backward_twice_gives_exactly_twice_everywhere() -> None:
    out, nodes = graph()
    out.backward()
    once = [n.grad for n in nodes]
    out.backward()
    assert [n.grad for n in nodes] == [2 * g for g in once]


def test_backward_seed_scales_every_gradient() -> None:
    out, nodes = graph()
    out.backward()
    once = [n.grad for n in nodes]
    for n in nodes:
        n.grad = 0.0
    out.backward(4.0)
    assert [n.grad for n in nodes] == [4 * g for g in once]


def test_several_outputs_at_once_sum_their_seeded_gradients() -> None:
    x, y = tg.Value(1.5), tg.Value(-0.5)
    f = x * y
    g = f.sin() + x  # depends on f: f must wait for g's contribution
    tg.backward([f, g], [2.0, -3.0])
    df = 2.0 + -3.0 * math.cos(f.data)
    assert f.grad == pytest.approx(df, rel=1e-15)
    assert x.grad == pytest.approx(df * y.data - 3.0, rel=1e-15)
    assert y.grad == pytest.approx(df * x.data, rel=1e-15)


def test_several_outputs_need_as_many_gradients() -> None:
    x = tg.Value(1.0)
    with pytest.raises(ValueError, match="2 outputs but 1 gradients"):
        tg.backward([x * 2, x * 3], [1.0])
    with pytest.raises(TypeError):
        tg.backward([x, 3.0], [1.0, 1.0])  # type: ignore[list-item]


def test_grad_touches_no_grad_and_gives_zero_for_unused_inputs() -> None:
    x, y, unused = tg.Value(2.0), tg.Value(3.0), tg.Value(5.0)
    h = x * y
    out = h.tanh()
    dx, dy, dh, du = tg.grad(out, [x, y, h, unused])
    dh_expected = 1 - math.tanh(6.0) ** 2
    assert (dx, dy, dh, du) == pytest.approx((3 * dh_expected, 2 * dh_expected, dh_expected, 0))
    assert all(type(g) is float for g in (dx, dy, dh, du))
    assert [v.grad for v in (x, y, h, out, unused)] == [0.0] * 5


def test_grad_refuses_what_is_not_a_value() -> None:
    x = tg.Value(1.0)
    with pytest.raises(TypeError, match="output"):
        tg.grad(2.0, [x])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="inputs"):
        tg.grad(x * x, [x, 2.0])  # type: ignore[list-item]


UNARY = [name for name in SCALAR_OPS if OPS[name].arity == 1]
BINARY = [name for name in SCALAR_OPS if OPS[name].arity == 2]
VARIADIC = [name for name in SCALAR_OPS if OPS[name].arity not in (1, 2)]


def inside(op: str, position: int) -> float:
    lo, hi = OPS[op].domain[position]
    return lo + 0.37 * (hi - lo)


def derivatives(values: list[float], make, order: int):  # type: ignore[no-untyped-def]
    """Derivatives of make(*inputs) up to ``order`` by repeated grad, topograd and torch:
    the partials of f, then of the sum of those partials, and so on."""
    ours_in = [tg.Value(v) for v in values]
    theirs_in = [leaf(v) for v in values]
    ours, theirs = make[0](*ours_in), make[1](*theirs_in)
    results = []
    for k in range(order):
        ours = tg.grad(ours, ours_in, create_graph=k < order - 1)
        if theirs.requires_grad:
            theirs = torch.autograd.grad(theirs, theirs_in, create_graph=True, allow_unused=True)
            theirs = [leaf(0.0) * 0 if t is None else t for t in theirs]
        else:  # a constant: torch recorded no graph for it
            theirs = [torch.zeros((), dtype=torch.float64) for _ in theirs_in]
        results.append(
            (
                [float(g.data if isinstance(g, tg.Value) else g) for g in ours],
                [t.item() for t in theirs],
            )
        )
        ours = sum(ours, tg.Value(0.0))
        theirs = sum(theirs)
    return results


@pytest.mark.parametrize("op", UNARY)
def test_second_and_third_derivatives_of_unary_ops_match_torch(op: str) -> None:
    for ours, theirs in derivatives([inside(op, 0)], (ON_VALUES[op], ON_TENSORS[op]), 3):
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("op", BINARY)
def test_second_and_third_derivatives_of_binary_ops_match_torch(op: str) -> None:
    values = [inside(op, 0), inside(op, 1)]
    for ours, theirs in derivatives(values, (ON_VALUES[op], ON_TENSORS[op]), 3):
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("op", VARIADIC)
def test_second_and_third_derivatives_of_variadic_ops_match_torch(op: str) -> None:
    values = [inside(op, k) + 0.1 * k for k in range(len(OPS[op].domain))]
    for ours, theirs in derivatives(values, (ON_VALUES[op], ON_TENSORS[op]), 3):
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12)


def test_higher_derivatives_of_a_composite_match_torch() -> None:
    def f(x, y):  # type: ignore[no-untyped-def]
        return (x * y).tanh() * x.exp() + (x / y) ** 2.5 - (y * y).sin()

    results = derivatives([0.8, 1.7], (f, f), 3)
    assert len(results) == 3
    for ours, theirs in results:
        assert ours == pytest.approx(theirs, rel=1e-11)


def test_create_graph_results_are_values_even_when_constant() -> None:
    x = tg.Value(2.0)
    (d1,) = tg.grad(x * 3 + 1, [x], create_graph=True)
    assert isinstance(d1, tg.Value) and d1.data == 3.0
    assert tg.grad(d1, [x]) == [0.0]
    (unused,) = tg.grad(tg.Value(1.0) * 2, [x], create_graph=True)
    assert isinstance(unused, tg.Value) and unused.data == 0.0


def test_a_million_node_chain_under_the_default_recursion_limit() -> None:
    assert sys.getrecursionlimit() <= 1000 * 10
    x = tg.Value(0.5)
    v = x
    for _ in range(1_000_000):
        v = v + 1.0
    v.backward()
    assert x.grad == 1.0
    assert v.data == 1_000_000.5


def test_a_node_used_a_hundred_thousand_times() -> None:
    x = tg.Value(1.5)
    out = tg.Value(0.0)
    for i in range(100_000):
        out = out + x * (i % 3)
    out.backward()
    assert x.grad == sum(i % 3 for i in range(100_000))


def live_values() -> int:
    return sum(1 for o in gc.get_objects() if type(o) is tg.Value)


def test_a_dropped_graph_is_freed_by_reference_counting_alone() -> None:
    gc.collect()
    gc.disable()
    try:
        before = live_values()
        out, _ = graph()
        for _ in range(2000):
            out = (out * 1.0001).tanh() + out
        out.backward()
        assert live_values() - before > 6000
        del out, _
        assert live_values() == before  # freed at once, by reference counts
        assert gc.collect() == 0  # and nothing was left for the cycle collector
    finally:
        gc.enable()


def test_topological_order_puts_parents_first() -> None:
    out, nodes = graph()
    position = {node: i for i, node in enumerate(nodes)}
    assert nodes[-1] is out
    for node in nodes:
        for parent in node.parents:
            assert position[parent] < position[node]


def test_create_graph_records_even_inside_no_grad() -> None:
    x = tg.Value(2.0)
    with tg.no_grad():
        y = x * x * x  # not recorded: a constant
    assert y.op == ""
    z = x * x * x
    with tg.no_grad():
        (d1,) = tg.grad(z, [x], create_graph=True)
        (d2,) = tg.grad(d1, [x])
    assert (d1.data, d2) == (12.0, 12.0)


def test_a_negative_zero_gradient_keeps_its_sign() -> None:
    x, y = tg.Value(3.0), tg.Value(-0.0)
    (x * y).backward()
    assert math.copysign(1.0, x.grad) == -1.0
    assert math.copysign(1.0, tg.grad(x * y, [x])[0]) == -1.0


def test_a_value_with_an_ndarray_is_a_type_error() -> None:
    import numpy as np

    with pytest.raises(TypeError):
        tg.Value(1.0) + np.array([1.0, 2.0])
    with pytest.raises(TypeError):
        np.array([1.0, 2.0]) * tg.Value(1.0)


@pytest.mark.parametrize("op", BINARY + VARIADIC)
def test_every_entry_of_the_hessian_matches_torch(op: str) -> None:
    rng = random.Random(op)
    for _ in range(3):
        point = draw_point(OPS[op], rng)
        xs = [tg.Value(v) for v in point]
        firsts = tg.grad(ON_VALUES[op](*xs), xs, create_graph=True)
        ours = [[float(g) for g in tg.grad(d, xs)] for d in firsts]  # type: ignore[arg-type]
        theirs = torch.autograd.functional.hessian(
            lambda t: ON_TENSORS[op](*t.unbind()), torch.tensor(point, dtype=torch.float64)
        )
        for mine, reference in zip(ours, theirs.tolist()):
            assert mine == pytest.approx(reference, rel=1e-12, abs=1e-12), (op, point)


def test_grad_outputs_as_a_list_is_a_gradient_per_output_as_in_pytorch() -> None:
    """A list or a tuple of grad_outputs holds one gradient per output (None: ones), even for
    one output; any other grad_outputs is the one output's; a count that does not match the
    outputs' is refused, naming both (PyTorch's engine: "got 2 tensors and 1 gradients")."""
    for kind in ("value", "tensor"):
        make = (
            tg.Value
            if kind == "value"
            else lambda v: tg.tensor([v], dtype=tg.float64, requires_grad=True)
        )
        wrap = (lambda v: v) if kind == "value" else lambda v: tg.tensor([v], dtype=tg.float64)
        tx = torch.tensor([0.22], dtype=torch.float64, requires_grad=True)
        x = make(0.22)
        upstream = torch.tensor([0.3], dtype=torch.float64)
        theirs = torch.autograd.grad(tx.exp(), [tx], grad_outputs=[upstream])
        for upstreams in ([wrap(0.3)], (wrap(0.3),), wrap(0.3)):
            (found,) = tg.grad(x.exp(), [x], grad_outputs=upstreams)
            assert float(np.asarray(found).reshape(())) == theirs[0].item()
        (ones,) = tg.grad(x.exp(), [x], grad_outputs=[None])
        assert float(np.asarray(ones).reshape(())) == math.exp(0.22)
        pair = tg.grad([x.exp(), x.sin()], [x], grad_outputs=[wrap(0.3), wrap(2.0)])
        expected = 0.3 * math.exp(0.22) + 2.0 * math.cos(0.22)
        assert float(np.asarray(pair[0]).reshape(())) == pytest.approx(expected)
        for wrong, counts in (([wrap(0.3), wrap(1.0)], "1 outputs but 2"), ([], "1 outputs but 0")):
            with pytest.raises(ValueError, match=counts):
                tg.grad(x.exp(), [x], grad_outputs=wrong)
        with pytest.raises(RuntimeError, match="2 outputs but 1 grad_outputs"):
            tg.grad([x.exp(), x.sin()], [x], grad_outputs=wrap(0.3))
    with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
        torch.autograd.grad([tx.exp(), tx.sin()], [tx], grad_outputs=torch.tensor([0.3]))
