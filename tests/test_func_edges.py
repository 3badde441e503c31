"""torch.func's Jacobians and Hessians at the edges of the floats: random graphs of every
elementwise op with nan, ±inf, ±0 and subnormals among their inputs, several outputs and every
input an argument, on Values and on Tensors. torch.func seeds every output (jacrev) and every
argument (jacfwd) at once, the others with zeros, and those zeros meet the graph's infinities
(a row of exp(x) beside x * inf is nan): topograd's transforms give the same."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st
from oracle import ON_TENSORS, ON_VALUES
from test_random_graphs import Program, agree, documented_orders, wild_programs

import topograd as tg
from topograd.autograd.registry import OPS

# importing torch.func makes torch warn of its own torch.jit.script
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")

TRANSFORMS = ["jacrev", "jacfwd", "hessian"]


def program_function(
    program: Program, outputs: list[int], table: dict[str, Callable[..., Any]]
) -> Callable[..., Any]:
    """The program as a function of its leaves, giving the chosen nodes as a tuple."""

    def f(*xs: Any) -> tuple[Any, ...]:
        nodes = list(xs)
        for op, args in program.steps:
            nodes.append(table[op](*[nodes[a] for a in args]))
        return tuple(nodes[k] for k in outputs)

    return f


def numbers(found: Any) -> list[float]:
    if isinstance(found, (tuple, list)):
        return [x for item in found for x in numbers(item)]
    return [float(np.asarray(getattr(found, "data", found)).reshape(()))]


def unsigned(found: list[float]) -> list[float]:
    """The numbers with every zero +0.0."""
    return [x + 0.0 for x in found]


@pytest.mark.parametrize("transform", TRANSFORMS)
@given(wild_programs(), st.data())
def test_jacobians_and_hessians_of_random_graphs_at_the_edges_are_torch_funcs(
    transform: str, program: Program, data: st.DataObject
) -> None:
    assume(program.steps)
    n = len(program.leaves) + len(program.steps)
    outputs = data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=3))
    if transform == "hessian" and "second" in documented_orders(program, 1.0):
        return  # (abs of another op's result: its entry documents why, and pins it)
    every = tuple(range(len(program.leaves)))
    theirs = getattr(torch.func, transform)(
        program_function(program, outputs, ON_TENSORS), argnums=every
    )
    expected = numbers(theirs(*[torch.tensor(x, dtype=torch.float64) for x in program.leaves]))
    ours = getattr(tg.func, transform)
    on_values = ours(program_function(program, outputs, ON_VALUES), argnums=every)
    on_tensors = ours(program_function(program, outputs, OPS), argnums=every)
    arrays = [np.asarray(x) for x in program.leaves]
    for kind, found in (("values", on_values(*program.leaves)), ("tensors", on_tensors(*arrays))):
        got = numbers(found)
        if transform != "jacrev":  # forward mode: zeros' signs are PyTorch's ZeroTensors' (see
            got, expected = unsigned(got), unsigned(expected)  # docs/modes.md)
        assert len(got) == len(expected)
        # the seed, 1, is a term of the sums: what cancels is measured against it at least
        scale = max([abs(b) for b in expected if math.isfinite(b)], default=0.0) + 1.0
        wrong = [(a, b) for a, b in zip(got, expected) if not agree(a, b, scale)]
        assert not wrong, (kind, program, outputs, got, expected)


REPORTED = {  # (transform, ours, theirs, point): nan in torch.func, where a true zero was
    "jacrev of (exp(x), x * inf)": (
        "jacrev",
        lambda x, y: (x.exp(), x * math.inf),
        lambda x, y: (x.exp(), x * math.inf),
        (1.0, 0.5),
    ),
    "jacfwd of x / y at y = 0": ("jacfwd", lambda x, y: x / y, lambda x, y: x / y, (1.0, 0.0)),
    "hessian of x y + x / y at y = 0": (
        "hessian",
        lambda x, y: x * y + x / y,
        lambda x, y: x * y + x / y,
        (1.0, 0.0),
    ),
}


@pytest.mark.parametrize("name", REPORTED)
def test_the_reported_cases_are_nan_as_in_torch_func(name: str) -> None:
    transform, ours, theirs, point = REPORTED[name]
    found = getattr(torch.func, transform)(theirs, argnums=(0, 1))(
        *[torch.tensor(x, dtype=torch.float64) for x in point]
    )
    expected = numbers(found)
    assert any(math.isnan(b) for b in expected)
    for args in (point, tuple(np.asarray(x) for x in point)):  # Values, Tensors
        got = numbers(getattr(tg.func, transform)(ours, argnums=(0, 1))(*args))
        assert all(agree(a, b, 0.0) for a, b in zip(got, expected, strict=True)), (got, expected)
