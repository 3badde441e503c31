"""The points a grade probes at, drawn from its seed: reproducible from the seed, fresh for
each seed, and, for every seed, where each usual wrong rule gives other numbers than the
right rule and than every other wrong rule (else a diagnosis would name the wrong mistake)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from topograd.grading.lesson import OPS, drawn

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
APART = 1e-6  # relative: far above the grader's tolerance of 1e-9


def apart(one: tuple[float, ...], other: tuple[float, ...]) -> bool:
    return any(abs(a - b) > APART * max(1.0, abs(b)) for a, b in zip(one, other))


@settings(max_examples=300, deadline=None)
@given(SEEDS)
def test_every_wrong_rule_is_told_apart_at_every_draw(seed: int) -> None:
    """As the grader reads a rule: at the first of an op's points where a wrong rule's numbers
    are not the right rule's, the first wrong rule with those numbers is the one named."""
    at = drawn(seed)
    for op in OPS:
        points = at.ops[op.name]
        for i, (mistake, _) in enumerate(op.mistakes):
            shows = [p for p in points if apart(mistake(*p), op.partials(*p))]
            assert shows, (op.name, i, points)
            first = shows[0]
            for earlier, _ in op.mistakes[:i]:
                assert apart(earlier(*first), mistake(*first)), (op.name, i, first)


@settings(max_examples=300, deadline=None)
@given(SEEDS)
def test_the_graphs_points_keep_their_diagnoses_apart(seed: int) -> None:
    at = drawn(seed)
    a, b, c = at.lesson
    assert 0.49 <= a * b + c <= 1.51  # tanh neither flat nor straight there
    k, m = at.diamond
    assert k != m and k + m != 0 and at.chain not in (0.0, 1.0)
    x = at.shared
    assert len({2 * x + 1, 2 * (2 * x + 1), 6 * x + 2}) == 3  # backward twice: its three outcomes
    assert 2 * x != 2 and x != 1  # x * x tells accumulation from overwriting, and x from 1


def test_a_seed_draws_the_same_points_and_another_seed_others() -> None:
    assert drawn(12) == drawn(12)
    sent = {json.dumps(drawn(seed).sent(), sort_keys=True) for seed in range(200)}
    assert len(sent) == 200
    assert drawn().seed != drawn().seed  # fresh from the system's randomness (1 in 2**32)


@pytest.mark.parametrize("seed", [3141592653, 2718281828, 1234567890])
def test_what_the_child_is_sent_holds_no_seed(seed: int) -> None:
    sent = drawn(seed).sent()
    assert "seed" not in sent and str(seed) not in json.dumps(sent)
    values = [v for v in sent.values() if isinstance(v, float)]
    assert all(math.isfinite(v) and v == round(v, 2) for v in values)
