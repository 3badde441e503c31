"""The backward trace: golden steps for the lesson, contributions at shared nodes, JSON."""

from __future__ import annotations

import json
import math

import topograd as tg
from topograd.autograd.engine import topological_order
from topograd.cli.demo import lesson_graph
from topograd.viz.trace import trace

DN = 1 - math.tanh(4.0) ** 2  # tanh' at n = a*b + c = 4

GOLDEN_TABLE = """\
step  node         op        gradient  -> operand       partial  contribution        total
   1  e = tanh(n)  tanh             1  -> n = d + c  0.00134095    0.00134095   0.00134095
   2  n = d + c    +       0.00134095  -> d = a*b             1    0.00134095   0.00134095
                                       -> c                   1    0.00134095   0.00134095
   3  c            input   0.00134095
   4  d = a*b      *       0.00134095  -> a                  -3   -0.00402285  -0.00402285
                                       -> b                   2     0.0026819    0.0026819
   5  b            input    0.0026819
   6  a            input  -0.00402285"""


def test_golden_trace_of_the_lesson() -> None:
    t = trace(lesson_graph())
    names = {n.id: n.label for n in t.nodes}
    got = [
        (
            names[s.node],
            s.grad,
            [(names[e.parent], e.partial, e.contribution, e.total) for e in s.edges],
        )
        for s in t.steps
    ]
    assert [g[0] for g in got] == ["e = tanh(n)", "n = d + c", "c", "d = a*b", "b", "a"]
    e, n, c, d, b, a = got
    assert e[1:] == (1.0, [("n = d + c", DN, DN, DN)])
    assert n[1] == DN
    assert n[2] == [("d = a*b", 1.0, DN, DN), ("c", 1.0, DN, DN)]
    assert (c[1], c[2]) == (DN, [])
    assert d[2] == [("a", -3.0, -3.0 * DN, -3.0 * DN), ("b", 2.0, 2.0 * DN, 2.0 * DN)]
    assert (b[1], a[1]) == (2.0 * DN, -3.0 * DN)
    assert t.table() == GOLDEN_TABLE


def test_a_shared_node_receives_three_contributions() -> None:
    x = tg.Value(3.0, label="x")
    t = trace(x * x + x)
    into_x = [(e.contribution, e.total) for s in t.steps for e in s.edges if e.parent == "n0"]
    assert into_x == [(1.0, 1.0), (3.0, 4.0), (3.0, 7.0)]
    assert t.steps[-1].node == "n0"
    assert t.steps[-1].grad == 7.0


def test_the_trace_runs_the_engine_order_and_touches_no_grad() -> None:
    x, y = tg.Value(0.5, label="x"), tg.Value(-1.5, label="y")
    h = (x * y).tanh()
    out = h * h + h.sigmoid() * x
    t = trace(out)
    ids = {f"n{i}": node for i, node in enumerate(topological_order([out]))}
    seen: set[str] = set()
    for step in t.steps:  # each node once, after every node that uses it
        node = ids[step.node]
        assert step.node not in seen
        assert all(p not in seen for p in (k for k, v in ids.items() if v in node.parents))
        seen.add(step.node)
    assert seen == set(ids)
    assert all(v.grad == 0.0 for v in ids.values())
    out.backward()
    assert {s.node: s.grad for s in t.steps} == {k: v.grad for k, v in ids.items()}


def test_the_trace_is_json_even_with_infinities() -> None:
    x = tg.Value(0.0, label="x")
    data = trace(x.log() * 2).to_json()
    text = json.dumps(data, allow_nan=False)
    assert json.loads(text)["steps"][-1] == {"node": "n0", "grad": "inf", "edges": []}
    assert {"nodes", "edges", "steps"} <= set(data)


def test_a_seed_scales_the_trace() -> None:
    x = tg.Value(2.0, label="x")
    assert trace(x * x, grad=3.0).steps[-1].grad == 12.0


def test_a_number_operand_is_drawn_and_traced_as_a_constant() -> None:
    x = tg.Value(3.0, label="x")
    y = x * 2.0
    assert y.parents[0] is x and y.parents[1].data == 2.0 and y.parents[1].op == ""
    result = tg.trace(y + x)
    constant = next(n for n in result.nodes if not n.op and not n.label)
    assert constant.data == 2.0
    into_constant = [e for s in result.steps for e in s.edges if e.parent == constant.id]
    assert [(e.operand, e.partial, e.contribution) for e in into_constant] == [(1, 3.0, 3.0)]
    assert [s.grad for s in result.steps if s.node == "n0"] == [3.0]  # x: 1 + 2, not the 3
    assert 'class="node value constant"' in tg.to_svg(y)
