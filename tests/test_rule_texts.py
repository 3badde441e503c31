"""The local rule written on each edge of the playground (``viz/rules.py``): taken from the
registry's derivative, the text ``topograd ops`` prints, for every op an expression can use,
and written in the graph's names."""

from __future__ import annotations

import pytest

import topograd as tg
from topograd.autograd.registry import OPS, Op
from topograd.cli.ops import table
from topograd.expr import functions, operators, parse
from topograd.viz.rules import bracketed, partials, rule

TYPED = {op.name: op for op in [*operators().values(), *functions().values(), OPS["neg"]]}


@pytest.mark.parametrize("op", TYPED.values(), ids=TYPED)
def test_every_op_of_an_expression_has_a_formula_per_input_from_its_derivative(op: Op) -> None:
    formulas = partials(op)
    assert formulas is not None and len(formulas) == op.arity
    printed = next(line for line in table().splitlines() if line.split()[0] == op.name)
    for formula in formulas:
        assert formula and formula in op.derivative and formula in printed
        assert "grad" not in formula  # the partial itself, not the contribution


@pytest.mark.parametrize(
    ("name", "out", "operands", "k", "written"),
    [
        ("mul", "d", ["a", "b"], 0, "∂d/∂a = b"),
        ("mul", "d", ["a", "b"], 1, "∂d/∂b = a"),
        ("add", "a*b + c", ["a*b", "c"], 0, "∂(a*b + c)/∂(a*b) = 1"),
        ("sub", "a - b", ["a", "b"], 1, "∂(a - b)/∂b = -1"),
        ("tanh", "tanh(a*b + c)", ["a*b + c"], 0, "∂tanh(a*b + c)/∂(a*b + c) = 1 - tanh²(a*b + c)"),
        ("div", "a/b", ["a", "b"], 1, "∂(a/b)/∂b = -a / b²"),
        ("pow", "x**2", ["x", "2"], 0, "∂(x**2)/∂x = 2 x^(2-1)"),
        ("relu", "relu(n)", ["n"], 0, "∂relu(n)/∂n = 1 where relu(n) > 0 and 0 elsewhere"),
        ("exp", "exp(-x)", ["-x"], 0, "∂exp(-x)/∂(-x) = e^(-x)"),
        ("mul", "2*x", ["2", "x"], 1, "∂(2*x)/∂x = 2"),
    ],
)
def test_a_rule_is_written_in_the_graphs_names(
    name: str, out: str, operands: list[str], k: int, written: str
) -> None:
    assert rule(OPS[name], out, operands, k) == written


def test_an_op_without_a_formula_per_input_is_given_its_first_clause() -> None:
    assert partials(OPS["maximum"]) is None
    words = OPS["maximum"].derivative.split(", ")[0]
    assert rule(OPS["maximum"], "m", ["a", "b"], 0) == f"∂m/∂a: {words}"


def test_names_are_bracketed_unless_one_name_number_or_call() -> None:
    assert [bracketed(n) for n in ["x1", "2.5", "1e+06", "tanh(a + b)", "σ"]] == [
        "x1",
        "2.5",
        "1e+06",
        "tanh(a + b)",
        "σ",
    ]
    assert [bracketed(n) for n in ["a*b", "-3", "tanh(a) + tanh(b)", "(a) * (b)"]] == [
        "(a*b)",
        "(-3)",
        "(tanh(a) + tanh(b))",
        "((a) * (b))",
    ]


def test_the_trace_gives_each_contribution_its_rule() -> None:
    out, _ = parse("tanh(a*b + c)").build({"a": 2, "b": -3, "c": 10})
    traced = tg.trace(out)
    names = {n.id: n.name for n in traced.nodes}
    made_by = {n.id: n.op for n in traced.nodes}
    by_symbol = {op.written: op for op in [*operators().values(), *functions().values()]}
    for step in traced.steps:
        operands = [names[e.parent] for e in step.edges]
        for e in step.edges:
            op = by_symbol[made_by[step.node]]
            assert e.rule == rule(op, names[step.node], operands, e.operand)
    assert traced.to_json()["steps"][-1]["edges"] == []  # an input passes nothing on
    rules = {e["rule"] for s in traced.to_json()["steps"] for e in s["edges"]}
    assert rules >= {"∂d/∂a = b", "∂e/∂n = 1 - tanh²(n)"}  # in the lesson's names
