"""Random expression DAGs with shared nodes: the value and every node's gradient equal
PyTorch's (float64, ``retain_grad`` on its intermediates) to 1e-9 relative; and random graphs
with the edges of the floats among their inputs (nan, ±inf, ±0, subnormals), on both kinds."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from oracle import ON_TENSORS, ON_VALUES, SCALAR_OPS, leaf, same

import topograd as tg
from topograd.autograd.engine import observe_backward
from topograd.autograd.registry import OPS


@dataclass
class Program:
    leaves: list[float]
    steps: list[tuple[str, list[int]]]  # op and the indices of its operands among earlier nodes


def in_domain(op: str, xs: list[float]) -> bool:
    """Keep values finite and away from singular points, so both engines stay comparable."""
    if op in ("log", "log2", "log10", "sqrt"):
        return xs[0] > 0.1
    if op in ("floor", "ceil"):  # away from the jumps (whole numbers): the derivative is 0
        return abs(xs[0] - math.floor(xs[0]) - 0.5) < 0.45
    if op == "round":  # away from its jumps (halves)
        return abs(xs[0] - math.floor(xs[0]) - 0.5) > 0.05
    if op == "log1p":
        return xs[0] > -0.9
    if op in ("asin", "acos", "atanh"):  # inside (-1, 1), away from the singular ends
        return abs(xs[0]) < 0.9
    if op == "acosh":
        return xs[0] > 1.1
    if op in ("maximum", "minimum"):  # away from ties, where each mode splits its own way
        return abs(xs[0] - xs[1]) > 1e-9
    if op == "div":
        return abs(xs[1]) > 0.1
    if op == "pow":
        return xs[0] > 0.1 and abs(xs[1]) < 3
    if op in ("exp", "expm1", "sinh", "cosh"):
        return abs(xs[0]) < 5
    if op == "tan":
        return abs(xs[0]) < 1.2
    if op in ("abs", "sign", "relu", "leaky_relu"):  # away from the kink, where they agree
        return abs(xs[0]) > 1e-9
    if op == "softplus":  # above 20, PyTorch's softplus is x itself (its threshold); ours exact
        return xs[0] < 20
    return True


def grow(
    draw: st.DrawFn,
    leaves: list[float],
    ops: list[str],
    most: int,
    keep: Callable[[str, list[float], float], bool],
) -> Program:
    """Up to ``most`` steps of ops drawn from ``ops`` on earlier nodes, each kept where
    ``keep(op, inputs, output)`` says so."""
    values = list(leaves)
    steps: list[tuple[str, list[int]]] = []
    for _ in range(draw(st.integers(1, most))):
        op = draw(st.sampled_from(ops))
        n = len(values)
        # recent nodes make chains deep, any node makes them wide and shared
        operand = st.one_of(st.integers(max(0, n - 4), n - 1), st.integers(0, n - 1))
        args = [draw(operand) for _ in OPS[op].domain]  # one per input (variadic: as tested)
        xs = [values[a] for a in args]
        out = OPS[op](*xs)
        if keep(op, xs, out):
            steps.append((op, args))
            values.append(out)
    return Program(leaves, steps)


@st.composite
def programs(draw: st.DrawFn) -> Program:
    leaves = draw(st.lists(st.floats(-2, 2, allow_nan=False), min_size=1, max_size=4))
    return grow(
        draw,
        leaves,
        SCALAR_OPS,
        30,
        lambda op, xs, out: (
            in_domain(op, xs) and math.isfinite(out) and abs(out) <= 1e4 and not documented(op, xs)
        ),
    )


def run(program: Program, make_leaf, table, add):  # type: ignore[no-untyped-def]
    nodes = [make_leaf(x) for x in program.leaves]
    for op, args in program.steps:
        nodes.append(table[op](*[nodes[a] for a in args]))
    out = nodes[len(program.leaves)]
    for node in nodes[len(program.leaves) + 1 :]:
        out = add(out, node)  # every node reaches the output, shared ones by several paths
    return nodes, out


@given(programs())
def test_random_dag_matches_pytorch(program: Program) -> None:
    assume(program.steps)
    ours, ours_out = run(program, tg.Value, ON_VALUES, lambda a, b: a + b)
    theirs, theirs_out = run(program, leaf, ON_TENSORS, torch.add)
    for node in theirs[len(program.leaves) :]:
        node.retain_grad()
    ours_out.backward()
    theirs_out.backward()
    assert same(ours_out.data, theirs_out.item(), 1e-9)
    expected = [0.0 if t.grad is None else t.grad.item() for t in theirs]
    # 1e-9 relative; where contributions cancel (x/x has gradient 0 up to rounding), the
    # rounding left over is measured against the largest gradient of the graph.
    scale = max(abs(g) for g in expected)
    for mine, reference in zip(ours, expected):
        close = (
            abs(mine.grad - reference) <= 1e-9 * max(abs(mine.grad), abs(reference)) + 1e-14 * scale
        )
        assert same(mine.grad, reference) or close, (mine, reference)


# The same, on both kinds, with the edges of the floats among the inputs and no domain kept:
# nan, ±inf, ±0 and subnormals flow through every op as they do in PyTorch.

EDGES = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-310, -1e-310, 1e308, 2.0, -0.5]
BOTH_KINDS = sorted(n for n, op in OPS.items() if op.elementwise and not op.custom)


def documented(op: str, xs: list[float]) -> bool:
    """Inputs inside a region where the registry documents a difference from PyTorch."""
    regions = [d.region for d in OPS[op].differs if d.region is not None]
    return any(low < xs[0] < high for low, high in regions)


@st.composite
def wild_programs(draw: st.DrawFn) -> Program:
    number = st.one_of(st.sampled_from(EDGES), st.floats(-3, 3))
    leaves = draw(st.lists(number, min_size=1, max_size=4))
    return grow(draw, leaves, BOTH_KINDS, 12, lambda op, xs, out: not documented(op, xs))


def agree(a: float, b: float, scale: float) -> bool:
    """Equal as IEEE values (nan with nan, infinities and zeros with their signs), or what the
    order of the additions can change: finite and within 1e-9 relative, or within 1e-14 of
    ``scale``, the largest term any sum of the backward added (what cancels is measured
    against it); or one overflowed where the other did not, with terms near the largest float.
    (The engines add the contributions to a node in the order they run the nodes; PyTorch's
    runs them in reverse order of creation, topograd's in reverse depth-first order.)"""
    if same(a, b):
        return True
    if math.isfinite(a) and math.isfinite(b) and a != b:
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-14 * scale
    overflow = (math.isinf(a) and math.isfinite(b)) or (math.isinf(b) and math.isfinite(a))
    return overflow and scale > 1e307


def largest_term(output: tg.Value) -> float:
    """The largest finite contribution the backward from ``output`` passes along an edge."""
    terms = [0.0]

    def observe(node, grad, parents, contributions):  # type: ignore[no-untyped-def]
        terms.extend(abs(float(c)) for c in contributions if math.isfinite(float(c)))

    observe_backward(output, 1.0, observe)
    return max(terms)


@given(wild_programs(), st.data())
def test_random_graphs_with_non_finite_inputs_match_pytorch_on_both_kinds(
    program: Program, data: st.DataObject
) -> None:
    assume(program.steps)
    n = len(program.leaves) + len(program.steps)
    summed = data.draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3))  # shared nodes

    def grads(make_leaf, table, result):  # type: ignore[no-untyped-def]
        nodes = [make_leaf(x) for x in program.leaves]
        for op, args in program.steps:
            nodes.append(table[op](*[nodes[a] for a in args]))
        out = nodes[-1]
        for k in summed:
            out = out + nodes[k]
        scale = largest_term(out) if isinstance(out, tg.Value) else 0.0
        out.backward()
        return result(out), [result(x.grad) for x in nodes[: len(program.leaves)]], scale

    theirs = grads(leaf, ON_TENSORS, lambda t: 0.0 if t is None else t.item())
    on_values = grads(tg.Value, ON_VALUES, float)
    on_tensors = grads(
        lambda x: tg.tensor(x, dtype=tg.float64, requires_grad=True),
        OPS,
        lambda t: 0.0 if t is None else float(t),
    )
    scale = on_values[2]
    for ours in (on_values, on_tensors):
        assert agree(ours[0], theirs[0], scale), (ours[0], theirs[0])
        for mine, reference in zip(ours[1], theirs[1], strict=True):
            assert agree(mine, reference, scale), (program, summed, ours[1], theirs[1])


# Second derivatives of the same graphs: grad with create_graph, then grad of each first
# derivative again, on both kinds, with every upstream gradient the conformance suite uses.
# Where PyTorch's double backward materialises zeros (a rule's derivative by an input it only
# selects on is zeros_like, not nothing), those zeros meet the infinities of the graph: 0 x inf
# is nan there, and topograd's rules must give the same.

UPSTREAMS = [1.0, -1.0, 0.0, -0.0, math.inf, -math.inf, math.nan, 1e-310, 1e308]


def second_order(program: Program, summed: list[int], upstream: float, kind: str):  # type: ignore[no-untyped-def]
    """The first derivatives (create_graph) and each one's derivatives, as numbers, and the
    largest term the first backward adds (for Values; 0 otherwise)."""
    make, table = {
        "torch": (leaf, ON_TENSORS),
        "scalar": (tg.Value, ON_VALUES),
        "tensor": (lambda x: tg.tensor(x, dtype=tg.float64, requires_grad=True), OPS),
    }[kind]
    nodes = [make(x) for x in program.leaves]
    for op, args in program.steps:
        nodes.append(table[op](*[nodes[a] for a in args]))
    out = nodes[-1]
    for k in summed:
        out = out + nodes[k]
    leaves = nodes[: len(program.leaves)]
    if kind == "torch":
        seed = torch.tensor(upstream, dtype=torch.float64)
        firsts = torch.autograd.grad(out, leaves, seed, create_graph=True, materialize_grads=True)
        rows = [
            torch.autograd.grad(
                g, leaves, torch.ones(()), retain_graph=True, materialize_grads=True
            )
            if g.requires_grad
            else [torch.zeros(())] * len(leaves)
            for g in firsts
        ]
    else:
        seed = upstream if kind == "scalar" else np.array(upstream)
        unused = {"allow_unused": True, "materialize_grads": True}
        firsts = tg.grad(out, leaves, seed, create_graph=True, **unused)
        ones = 1.0 if kind == "scalar" else np.ones(())
        rows = [tg.grad(g, leaves, ones, **unused) for g in firsts]
    number = lambda v: float(v.item() if hasattr(v, "item") else v)  # noqa: E731
    terms = largest_term(out) if kind == "scalar" else 0.0
    size = abs(upstream) if math.isfinite(upstream) else 1.0
    return [number(g) for g in firsts], [[number(h) for h in r] for r in rows], terms * size


def documented_orders(program: Program, upstream: float) -> set[str]:
    """Which derivatives of the program ("first", "second") an op's registry entry documents
    as differing from PyTorch's wherever its reason holds: for this upstream gradient, or in
    a second derivative through the op applied to another op's result (``through``)."""
    found: set[str] = set()
    for op, args in program.steps:
        for d in OPS[op].differs:
            if d.anywhere and d.upstream is not None and same(d.upstream, upstream):
                found |= {"first", "second"}
            if d.anywhere and d.through and any(a >= len(program.leaves) for a in args):
                found.add("second")
    return found


@st.composite
def edge_programs(draw: st.DrawFn) -> Program:
    """Graphs whose inputs are all edges of the floats, so that the zeros a second derivative
    materialises meet infinities and nans (0 x inf, 0 / 0), as they rarely do otherwise."""
    leaves = draw(st.lists(st.sampled_from(EDGES), min_size=1, max_size=3))
    return grow(draw, leaves, BOTH_KINDS, 5, lambda op, xs, out: not documented(op, xs))


# (six times the profile's examples: a case takes a few milliseconds, and the rare one counts)
@settings(max_examples=6 * settings.default.max_examples)
@given(st.one_of(edge_programs(), wild_programs()), st.data())
def test_second_derivatives_of_random_graphs_with_non_finite_inputs_match_pytorch(
    program: Program, data: st.DataObject
) -> None:
    assume(program.steps)
    n = len(program.leaves) + len(program.steps)
    summed = data.draw(st.lists(st.integers(0, n - 1), max_size=2))
    upstream = data.draw(st.sampled_from(UPSTREAMS))
    documented = documented_orders(program, upstream)
    theirs = second_order(program, summed, upstream, "torch")
    for kind in ("scalar", "tensor"):
        ours = second_order(program, summed, upstream, kind)
        firsts = list(zip(ours[0], theirs[0], strict=True))
        seconds = [p for a, b in zip(ours[1], theirs[1]) for p in zip(a, b, strict=True)]
        pairs = ([] if "first" in documented else firsts) + (
            [] if "second" in documented else seconds
        )
        largest = max([abs(b) for _, b in firsts + seconds if math.isfinite(b)], default=0.0)
        scale = max(largest, ours[2])
        wrong = [(a, b) for a, b in pairs if not agree(a, b, scale)]
        assert not wrong, (kind, program, summed, upstream, ours, theirs)


# The plain backward of Values (scalar/backward.py: no graph, nothing captured or observed) is
# the engine's walk written out; the walk itself still runs wherever a backward is observed.
# Both must give every node the same bits: the same order, the same sums.


def bits(x: float) -> bytes:
    """The float's bits, every NaN alike: which NaN a sum of two gives is not the code's to
    choose (CPython 3.11 adds floats on two paths, its generic one and the specialised one it
    switches to once a line is warm, and they keep different operands' NaN)."""
    return struct.pack("<d", math.nan if math.isnan(x) else x)


@given(wild_programs(), st.sampled_from([1.0, -0.5, 3]))
def test_plain_backward_of_values_gives_the_engines_bits(program: Program, seed: float) -> None:
    assume(program.steps)
    # number operands on either side (ints among them), and one node used by two roots
    nodes, out = run(program, tg.Value, ON_VALUES, lambda a, b: 2 * a + (b * 0.5 - 1))
    second = 1.5 - nodes[-1]
    # grad() captures: the engine's own walk; backward() of Values: the plain one
    walked = tg.grad([out, second], nodes, [seed, 1.0])
    tg.backward([out, second], [seed, 1.0])
    assert [bits(n.grad) for n in nodes] == [bits(g) for g in walked]


def test_the_plain_backward_passes_adds_gradient_on_as_the_registry_says() -> None:
    from topograd.ops.arithmetic import add, mul, sub
    from topograd.scalar.backward import passes_gradient_on

    # add's entry writes "{g}" to both operands: the walk skips its rule; mul's and sub's not
    assert [passes_gradient_on(op) for op in (add, mul, sub)] == [True, False, False]
    x = tg.Value(0.5)
    y = x + x  # one node whose two contributions land on one input
    y.backward(-3.0)
    assert x.grad == tg.grad(x + x, [x], -3.0)[0] == -6.0


def test_the_plain_backward_of_a_subclass_of_value_is_the_engines() -> None:
    class Named(tg.Value):
        __slots__ = ()

    for make in (Named, tg.Value):
        x = make(0.5)
        nodes = [x.tanh(), x * 2.0, 3 * x, x * x, x + make(1.0), x.relu()]
        out = nodes[0]
        for n in nodes[1:]:
            out = out * n
        walked = tg.grad(out, [x])
        out.backward()
        assert bits(x.grad) == bits(walked[0])
