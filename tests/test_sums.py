"""Chains of sums folded into one Σ node (``viz/sums.py``): which chains fold, and that the
folded walk's running totals end at the engine's gradients, bit for bit."""

from __future__ import annotations

import random

import topograd as tg
from topograd.expr import parse
from topograd.viz.graph import walk


def ops_of(out: tg.Value) -> list[str]:
    return [n.op for n in tg.trace(out).nodes if n.op]


def test_a_chain_is_one_node_with_a_term_per_edge() -> None:
    out, _ = parse("a*b + c + tanh(d) + a").build({"a": 2, "b": 3, "c": 4, "d": 0.5})
    assert ops_of(out) == ["*", "tanh", "Σ"]
    traced = tg.trace(out)
    first = traced.steps[0]
    assert [e.rule for e in first.edges] == ["∂e/∂f = 1", "∂e/∂c = 1", "∂e/∂g = 1", "∂e/∂a = 1"]
    assert [e.contribution for e in first.edges] == [1.0] * 4
    assert [e.operand for e in first.edges] == [0, 1, 2, 3]


def test_a_named_sum_and_a_sum_of_a_product_keep_their_boxes() -> None:
    named, _ = parse("s = a + b; e = s + c").build({"a": 1, "b": 2, "c": 3})
    assert ops_of(named) == ["+", "+"]
    product, _ = parse("(a + b) * (a + b + c)").build({"a": 1, "b": 2, "c": 3})
    assert ops_of(product) == ["+", "Σ", "*"]  # a sum used by a product is a term of nothing
    two_terms, _ = parse("x*x + x").build({"x": 3})
    assert ops_of(two_terms) == ["*", "+"]


def test_a_chain_whose_totals_could_round_otherwise_stays_a_chain() -> None:
    """q gets 1 from the chain and v, w from two products: in the engine's order (v + w) + 1,
    folded (1 + v) + w, which differ at v = 1e16, w = -1e16."""
    values = {"q": 1.0, "r": 2.0, "v": 1e16, "w": -1e16}
    out, inputs = parse("q + r + q*w + q*v").build(values)
    assert (1.0 + 1e16) + -1e16 != 1.0 + (1e16 + -1e16)  # (the orders do round apart)
    assert "Σ" not in ops_of(out)
    out.backward()
    traced = tg.trace(out)
    q = next(n.id for n in traced.nodes if n.name == "q")
    totals = [e.total for step in traced.steps for e in step.edges if e.parent == q]
    assert totals[-1] == inputs["q"].grad  # the walk's running sum ends at the engine's


def test_folded_totals_end_at_the_engines_gradients() -> None:
    rng = random.Random(7)
    folded = 0
    for _ in range(200):
        names = ["a", "b", "c", "d"]
        terms = [
            rng.choice([*names, f"{rng.choice(names)}*{rng.choice(names)}", "1e16", "-1e16"])
            for _ in range(rng.randint(3, 9))
        ]
        expression = parse(" + ".join(terms))
        values = {n: rng.choice([1.0, 1e16, -1e16, 0.1, 3.0]) for n in expression.names}
        out, _ = expression.build(values)
        out.backward()
        traced = tg.trace(out)
        folded += "Σ" in ops_of(out)
        engine = {v.label: v.grad for v in walk(out) if v.label and not v.op}
        last = {}
        for step in traced.steps:
            for edge in step.edges:
                last[edge.parent] = edge.total
        for node in traced.nodes:
            if node.id in last:
                assert last[node.id] == node.grad, (terms, values)
            if not node.op and node.label:
                assert node.grad == engine[node.label]
    assert folded > 50  # (most of the random sums do fold)
