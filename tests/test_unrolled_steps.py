"""The plain backward's written-out steps (``scalar/unrolled.py``) against the op's rule, bit for
bit, for every op of n operands whose registry entry has a ``Code``."""

from __future__ import annotations

import math
import struct
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import topograd as tg
from topograd.autograd.registry import OPS, VARIADIC
from topograd.scalar.backward import many_by_rule as by_rule
from topograd.scalar.unrolled import LONGEST, STEPS, source
from topograd.scalar.value import Value, fused

EDGES = [0.0, -0.0, 1.0, -1.0, 2.5, 1e308, -1e308, 5e-324, math.inf, -math.inf, math.nan]
FLOATS = st.one_of(st.sampled_from(EDGES), st.floats(-10, 10), st.floats(allow_nan=True))
MANY = sorted(
    name
    for name, op in OPS.items()
    if op.code is not None and (op.arity == VARIADIC or op.arity > 2)
)


def bits(x: Any) -> Any:
    return None if x is None else b"nan" if x != x else struct.pack("<d", x)


def counts(name: str) -> list[int]:
    n = len(OPS[name].domain)
    return [n, n + 2, n + 30] if OPS[name].arity == VARIADIC else [n]


def test_the_ops_of_a_network_are_written_out() -> None:
    assert {"neuron", "affine", "dot"} <= set(MANY)
    assert all(source(OPS[name], counts(name)[0]) is not None for name in MANY)


@pytest.mark.parametrize("name", MANY)
@given(data=st.data())
def test_a_written_out_step_adds_what_the_rule_adds(name: str, data: st.DataObject) -> None:
    op = OPS[name]
    n = data.draw(st.sampled_from(counts(name)))
    leaves = [Value(data.draw(FLOATS)) for _ in range(n)]
    if data.draw(st.booleans()):  # one Value twice among the operands: its sums in order
        leaves[-1] = leaves[0]
    node = fused(op, tuple(leaves))
    grad = data.draw(FLOATS)
    earlier = {v: data.draw(st.one_of(st.none(), FLOATS)) for v in leaves}
    mine, theirs = dict(earlier), dict(earlier)
    step = STEPS[op, n]
    assert step is not None
    step(mine, node, grad)
    by_rule(theirs, node, grad, op)
    assert [bits(mine[v]) for v in leaves] == [bits(theirs[v]) for v in leaves]


def test_a_node_longer_than_the_longest_takes_the_rule() -> None:
    assert STEPS[OPS["neuron"], LONGEST + 1] is None
    ws = [tg.Value(0.5 * i) for i in range(LONGEST)]
    xs = [tg.Value(1.0 - i) for i in range(LONGEST)]
    y = tg.affine(ws, xs, tg.Value(0.25))
    y.backward()
    assert [w.grad for w in ws] == [x.data for x in xs]
    assert [x.grad for x in xs] == [w.data for w in ws]


def test_a_network_trains_to_the_rule_s_bits() -> None:
    """tg.nn's neurons through the written-out steps, against the engine's own walk (grad())."""
    model = tg.nn.MLP(3, [8, 8, 1], seed=4)
    points = [[0.1 * i, -0.2 * i, 0.3] for i in range(6)]
    loss = tg.nn.hinge([model(p) for p in points], [1, -1, 1, -1, 1, -1])
    params = model.parameters()
    walked = tg.grad(loss, params)
    loss.backward()
    assert [bits(p.grad) for p in params] == [bits(g) for g in walked]
