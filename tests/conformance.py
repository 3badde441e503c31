"""The conformance suite's machinery: every op of the registry, on both kinds, against PyTorch
2.13 float64, at random points of its domain and at all its special points, for every upstream
gradient in ``UPSTREAMS``, first and second order (``create_graph=True``).

A *case* is one op, one kind, one form (which operands are nodes and which plain numbers, as
PyTorch's Scalar overloads take them), one point (or, for a Tensor op with parameters, one of
its ``cases``) and one upstream gradient. Each case yields *results*: the value, each first
derivative (by ``backward``, by ``grad``, and by ``grad`` under ``create_graph``) and each
second derivative, each a number compared with PyTorch's. Nothing here is written per op: a
new entry of the registry is covered as it is added.
"""

from __future__ import annotations

import itertools
import math
import operator
import random
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from oracle import reference, same

import topograd as tg
from topograd.autograd.registry import AWAY_FROM_ZERO, OPS, Case, Difference, Given, Op
from topograd.tensors.tensor import constant
from topograd.verify.scalar_rules import draw_point

INF, NAN = math.inf, math.nan
UPSTREAMS = (1.0, -1.0, 0.0, -0.0, INF, -INF, NAN, 1e-310, 1e308)
RANDOM_POINTS = 3
SYMBOLS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "**": operator.pow,
}
# topograd's parameter names -> PyTorch's
TORCH_NAMES = {
    "axis": "dim",
    "keepdims": "keepdim",
    "axes": "dims",
    "classes": "num_classes",
    "low": "min",
    "high": "max",
}
SUBNORMAL_ULPS = 64 * 5e-324  # a subnormal result has fewer bits: a few roundings apart


@dataclass(frozen=True)
class Result:
    """One number compared: where it comes from, ours and PyTorch's."""

    op: str
    kind: str  # "scalar" or "tensor"
    point: tuple[float, ...]  # () for a Tensor op's case
    case: str  # the point (or Tensor case) and the form
    upstream: float
    what: str  # "value", "d/d1 (backward)", "d2/d1d2", ...
    ours: float
    theirs: float

    def __str__(self) -> str:
        return (
            f"{self.op} {self.case} on {self.kind}s, upstream {self.upstream!r}: "
            f"{self.what} = {self.ours!r}, PyTorch {self.theirs!r}"
        )


def close(a: float, b: float, rel: float = 1e-12) -> bool:
    """Identical, or both finite, non-zero, of one sign and within ``rel`` of each other (or a
    few units apart where both are subnormal): another rounding of the same maths (libm's,
    NumPy's and PyTorch's kernels, or a formula written in another order)."""
    if same(a, b):
        return True
    if not (math.isfinite(a) and math.isfinite(b)) or a == 0.0 or b == 0.0:
        return False
    return (a > 0) == (b > 0) and abs(a - b) <= rel * max(abs(a), abs(b)) + SUBNORMAL_ULPS


# What to compare.


# Every function of one or two numbers is also tried at the edges of the floats.
EDGES = (0.0, -0.0, INF, -INF, NAN, 1e-310, -1e-310, 1e308, -1e308, 0.5, -2.0)
PAIR_EDGES = (0.0, -0.0, INF, -INF, NAN, 1e-310, 2.0, -2.0, 0.5, -0.5, 1.5)
TRIPLE_EDGES = (0.0, -0.0, INF, -INF, NAN, 1.0, -2.0)


def points(op: Op, count: int = RANDOM_POINTS) -> list[tuple[float, ...]]:
    """The op's special points (those of plain numbers), the examples of its documented
    differences, the edges of the floats, then ``count`` random points of its domain."""
    rng = random.Random(f"conformance {op.name}")
    special = [tuple(inputs) for inputs, _, _ in op.special]
    special += [d.point for d in op.differs]
    if op.arity == 1:
        special += [(x,) for x in EDGES]
    elif op.arity == 2:
        special += list(itertools.product(PAIR_EDGES, repeat=2))
    elif op.arity == 3:
        special += list(itertools.product(TRIPLE_EDGES, repeat=3))
    scalar_points = [p for p in special if p and all(isinstance(x, float) for x in p)]
    unique = {tuple(map(repr, p)): p for p in scalar_points}  # -0.0 and 0.0 both, nan once
    return list(unique.values()) + [tuple(draw_point(op, rng)) for _ in range(count)]


def forms(op: Op) -> list[tuple[bool, ...]]:
    """Which operands are nodes: all of them, and for an operator each one alone (the other a
    plain number, as in ``x ** 2.0`` or ``2.0 * x``)."""
    n = len(op.domain)
    if op.symbol and n == 2:
        return [(True, True), (True, False), (False, True)]
    return [(True,) * n]


@dataclass
class Derivatives:
    """The value, the first derivatives by each route, the second derivatives."""

    value: Any
    first: dict[str, list[Any]]  # route -> one per node
    second: list[list[Any]]  # row i: d/dx_j of the i-th first derivative (seeded with ones)


Make = Callable[[], tuple[Any, list[Any]]]  # a fresh graph: its output and its nodes


def topograd_side(make: Make) -> Callable[[float], Derivatives]:
    def run(upstream: float) -> Derivatives:
        out, nodes = make()
        seed = upstream if isinstance(out, tg.Value) else np.full(out.shape, upstream)
        out.backward(seed)
        first = {"backward": [_zero_if_none(n.grad, n) for n in nodes]}
        # zeros for what the output does not reach (PyTorch's side asks for them alike)
        unused = {"allow_unused": True, "materialize_grads": True}
        out, nodes = make()
        first["grad"] = tg.grad(out, nodes, seed, **unused)
        out, nodes = make()
        graphs = tg.grad(out, nodes, seed, create_graph=True, **unused)
        first["grad, create_graph"] = [g.data for g in graphs]
        second = [tg.grad(g, nodes, _ones(g), **unused) for g in graphs]
        return Derivatives(out.data, first, second)

    return run


def _zero_if_none(grad: Any, node: Any) -> Any:
    return np.zeros(node.shape) if grad is None else grad


def _ones(g: Any) -> Any:
    return 1.0 if isinstance(g, tg.Value) else np.ones(g.shape)


def pytorch_side(make: Make) -> Callable[[float], Derivatives]:
    def run(upstream: float) -> Derivatives:
        out, nodes = make()
        seed = torch.full(out.shape, upstream, dtype=torch.float64)
        first = torch.autograd.grad(
            out, nodes, seed, create_graph=True, allow_unused=True, materialize_grads=True
        )
        second = []
        for g in first:
            if g.requires_grad:
                row = torch.autograd.grad(
                    g,
                    nodes,
                    torch.ones_like(g),
                    retain_graph=True,
                    allow_unused=True,
                    materialize_grads=True,
                )
                second.append([h.detach().numpy(force=True) for h in row])  # (ZeroTensors too)
            else:
                second.append([np.zeros(n.shape) for n in nodes])
        value = out.detach().numpy().astype(np.float64)
        return Derivatives(value, {"": [g.detach().numpy() for g in first]}, second)

    return run


def compare(
    ours: Derivatives, theirs: Derivatives, scale: float = 0.0
) -> Iterator[tuple[str, float, float]]:
    """Every number of ours against PyTorch's: (what, ours, theirs). Where a result is a sum
    of many terms (``scale``: the size of those terms), a difference within 1e-12 of it is
    another order of the same additions: PyTorch's result is given for ours there."""

    def pairs(what: str, a: Any, b: Any) -> Iterator[tuple[str, float, float]]:
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        assert a.shape == b.shape, (what, a.shape, b.shape)
        for x, y in zip(a.ravel(), b.ravel(), strict=True):
            x, y = float(x), float(y)
            near = math.isfinite(x) and math.isfinite(y) and abs(x - y) <= 1e-12 * scale
            if scale and near and x != y:  # (zeros of two signs stay two)
                x = y
            yield what, x, y

    yield from pairs("value", ours.value, theirs.value)
    (expected,) = theirs.first.values()
    for route, grads in ours.first.items():
        for i, (g, e) in enumerate(zip(grads, expected, strict=True)):
            yield from pairs(f"d/d{i + 1} ({route})", g, e)
    for i, (row, expected_row) in enumerate(zip(ours.second, theirs.second, strict=True)):
        for j, (g, e) in enumerate(zip(row, expected_row, strict=True)):
            yield from pairs(f"d2/d{i + 1}d{j + 1}", g, e)


# The two kinds of cases.


def _torch_function(op: Op) -> Callable[..., Any]:
    if op.symbol in SYMBOLS and op.arity == 2:
        return SYMBOLS[op.symbol]
    return reference(op)


def _torch_leaf(x: Any) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float64, requires_grad=True)


def elementwise(op: Op, kind: str) -> Iterator[tuple[tuple[float, ...], str, Make, Make]]:
    """Each point and form of an op on numbers: on Values, or on 0-d Tensors; PyTorch's on
    0-d float64 tensors and Python numbers."""
    f = _torch_function(op)
    for point, form in itertools.product(points(op), forms(op)):
        mark = "".join("x" if node else "c" for node in form)
        node = (
            tg.Value
            if kind == "scalar"
            else lambda x: tg.tensor(x, dtype=tg.float64, requires_grad=True)
        )

        def ours(point: Any = point, form: Any = form, node: Any = node) -> Any:
            args = [node(x) if n else x for x, n in zip(point, form, strict=True)]
            return op(*args), [a for a, n in zip(args, form, strict=True) if n]

        def theirs(point: Any = point, form: Any = form) -> Any:
            args = [_torch_leaf(x) if n else x for x, n in zip(point, form, strict=True)]
            return f(*args), [a for a, n in zip(args, form, strict=True) if n]

        yield point, f"at {point} [{mark}]", ours, theirs
    yield from _compositions(op, kind)


def _compositions(op: Op, kind: str) -> Iterator[tuple[tuple[float, ...], str, Make, Make]]:
    """A function of one number applied to another's result, op(inner(x)), at the op's
    points, for each ``inner`` a documented difference names (``Difference.through``)."""
    f = _torch_function(op)
    node = (
        tg.Value
        if kind == "scalar"
        else lambda x: tg.tensor(x, dtype=tg.float64, requires_grad=True)
    )
    for inner in sorted({d.through for d in op.differs if d.through}):
        g = _torch_function(OPS[inner])
        for point in points(op):

            def ours(x: float = point[0], inner: str = inner) -> Any:
                leaf = node(x)
                return op(OPS[inner](leaf)), [leaf]

            def theirs(x: float = point[0], g: Any = g) -> Any:
                leaf = _torch_leaf(x)
                return f(g(leaf)), [leaf]

            yield point, f"at {point} [x] through {inner}", ours, theirs


def _draw(interval: tuple[float, float], shape: Any, rng: np.random.Generator) -> np.ndarray:
    x = rng.uniform(*interval, shape)
    return x * rng.choice([-1.0, 1.0], shape) if interval == AWAY_FROM_ZERO else x


def _with_edges(a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``a`` with about a third of its elements replaced by edges of the floats."""
    out = a.copy().ravel()
    picks = rng.random(out.size) < 0.35
    out[picks] = rng.choice(np.array(EDGES), int(picks.sum()))
    return out.reshape(a.shape)


def _torch_given(value: Any) -> torch.Tensor:
    array = np.asarray(value)
    return torch.tensor(array, dtype=torch.bool if array.dtype == bool else torch.long)


def call_torch(op: Op, args: list[Any], params: dict[str, Any]) -> Any:
    """PyTorch's function for a Tensor op with parameters, in PyTorch's spelling."""
    if op.name == "getitem":
        flips, index = _torch_index(params["index"], tuple(args[0].shape))
        return (args[0].flip(flips) if flips else args[0])[index]
    if op.name == "scatter":
        index = tuple(torch.tensor(i) for i in params["index"])
        zeros = torch.zeros(params["shape"], dtype=args[0].dtype)  # (the values' dtype)
        return zeros.index_put(index, args[0], accumulate=True)
    if op.name == "einsum":
        return torch.einsum(params["equation"], *args)
    if op.name == "astype":
        return args[0].to(getattr(torch, params["dtype"]))
    if op.name in ("reshape", "broadcast_to"):
        return reference(op, scalars=False)(args[0], params["shape"])
    kwargs = {TORCH_NAMES.get(k, k): v for k, v in params.items()}
    if kwargs.get("dim", 0) is None:  # all axes: PyTorch takes no dim
        kwargs.pop("dim")
        kwargs.pop("keepdim", None)
    f = reference(op, scalars=False)
    return f(args, **kwargs) if op.name in ("concatenate", "stack") else f(*args, **kwargs)


def _torch_index(index: Any, shape: tuple[int, ...]) -> tuple[list[int], Any]:
    """A NumPy index as PyTorch takes it: a slice with a negative step becomes a flip of its
    axis and the same elements picked with a positive step."""
    parts = index if isinstance(index, tuple) else (index,)
    flips, out = [], []
    for axis, (i, n) in enumerate(zip(parts, shape)):
        if isinstance(i, slice) and (i.step or 1) < 0:
            start, stop, step = i.indices(n)
            flips.append(axis)
            i = slice(n - 1 - start, n - 1 - stop, -step)
        out.append(i)
    return flips, tuple(out) + tuple(parts[len(out) :])


def with_cases(op: Op) -> Iterator[tuple[tuple[float, ...], str, Make, Make]]:
    """Each of a Tensor op's cases: its inputs drawn from its domain, or given."""
    drawn = [(number, case, False) for number, case in enumerate(op.cases)]
    drawn += [(number, case, True) for number, case in enumerate(op.cases)]
    for number, case, edgy in drawn:
        case = Case(case.inputs, dict(case.params))
        rng = np.random.default_rng(number)
        arrays = [
            None if isinstance(spec, Given) else _draw(interval, spec, rng)
            for spec, interval in zip(case.inputs, op.domain)
        ]
        if edgy:  # the same case with the edges of the floats mixed in, ties and ±0 included
            arrays = [a if a is None else _with_edges(a, rng) for a in arrays]

        def ours(case: Case = case, arrays: Any = arrays) -> Any:
            args = [
                constant(np.asarray(s.value)) if a is None else tg.Tensor(a, requires_grad=True)
                for s, a in zip(case.inputs, arrays)
            ]
            return op(*args, **case.params), [a for a in args if a.requires_grad]

        def theirs(case: Case = case, arrays: Any = arrays) -> Any:
            args = [
                _torch_given(s.value) if a is None else _torch_leaf(a)
                for s, a in zip(case.inputs, arrays)
            ]
            nodes = [a for a in args if a.requires_grad]
            return call_torch(op, args, dict(case.params)), nodes

        name = f"case {number}{' with edges' if edgy else ''} {case.params or ''}".rstrip()
        yield (), name, ours, theirs


def results(op: Op, kind: str) -> Iterator[Result]:
    """Every number of ``op`` on ``kind`` compared with PyTorch's, over every upstream."""
    cases = with_cases(op) if kind == "tensor" and op.cases else elementwise(op, kind)
    sums = kind == "tensor" and bool(op.cases)  # results that add many terms
    for point, case, ours, theirs in cases:
        for upstream in UPSTREAMS:
            scale = _scale(ours, upstream) if sums else 0.0
            found = compare(topograd_side(ours)(upstream), pytorch_side(theirs)(upstream), scale)
            for what, a, b in found:
                yield Result(op.name, kind, point, case, upstream, what, a, b)


def _scale(make: Make, upstream: float) -> float:
    """The size of the terms a Tensor op's results add: |upstream| x (1 + its largest input)²
    (0 for an upstream gradient of ±0 or not finite: there every bit counts)."""
    if not math.isfinite(upstream) or upstream == 0.0:
        return 0.0
    _, nodes = make()
    finite = [np.abs(n.data[np.isfinite(n.data)]) for n in nodes]
    largest = max((float(a.max(initial=0.0)) for a in finite), default=0.0)
    with np.errstate(over="ignore"):  # (the square of 1e308 is inf: the cap keeps it finite)
        size = np.float64(abs(upstream)) * np.float64(1.0 + largest) ** 2
    return float(min(size, sys.float_info.max))


def kind_of_number(x: float) -> str:
    """nan, +inf, -inf, +0, -0, or finite: what no rounding turns into another."""
    if x != x:
        return "nan"
    sign = "-" if math.copysign(1.0, x) < 0 else "+"
    if math.isinf(x):
        return sign + "inf"
    return sign + "0" if x == 0.0 else "finite"


def in_scope(d: Difference, result: Result) -> bool:
    """Whether ``result`` is of the kind the documented difference ``d`` speaks of: its
    upstream gradient, its result, its form and its place (the point, or anywhere)."""
    if d.upstream is not None and not same(d.upstream, result.upstream):
        return False
    if not result.what.startswith(d.what):
        return False
    if d.form and not result.case.endswith(f"[{d.form}]"):
        return False
    if d.through and not result.case.endswith(f"through {d.through}"):
        return False
    if d.region is not None:  # wherever the first input lies in it
        return bool(result.point) and d.region[0] < result.point[0] < d.region[1]
    return d.anywhere or result.case.startswith(f"at {d.point}")


def documents(d: Difference, result: Result) -> bool:
    """Whether the documented difference ``d`` covers this result: in its scope, and of its
    nature: inside ``region`` any answer, elsewhere only an answer of another kind than
    PyTorch's (``kind_of_number``), so that a rule that is merely wrong is never excused."""
    if not in_scope(d, result):
        return False
    ours, theirs = kind_of_number(result.ours), kind_of_number(result.theirs)
    if d.region is not None:  # there: another kind, or within 1e-8 (a wrong rule is not)
        near = abs(result.ours - result.theirs) <= 1e-8 * max(
            1.0, abs(result.ours), abs(result.theirs)
        )
        return ours != theirs or near
    if d.any_kind:
        return ours != theirs
    return (ours, theirs) == (kind_of_number(d.ours), kind_of_number(d.theirs))


def differs_as_documented(result: Result) -> bool:
    """Whether the op's registry entry documents this difference from PyTorch."""
    return any(documents(d, result) for d in OPS[result.op].differs)


def differentiable(op: Op) -> bool:
    """Whether some input of the op can take a gradient (one_hot's class indices cannot)."""
    return not op.cases or any(not isinstance(s, Given) for c in op.cases for s in c.inputs)


def op_kinds() -> list[tuple[str, str]]:
    """Every (op, kind) of the registry, custom ops and ops without a gradient aside."""
    return [
        (name, kind)
        for name, op in sorted(OPS.items())
        if not op.custom and differentiable(op)
        for kind in op.kinds
    ]
