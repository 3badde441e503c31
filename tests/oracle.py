"""The same op on both sides: topograd and PyTorch float64, derived from the registry.

Every op of the registry names its PyTorch spelling (``Op.torch``); ``reference(op)`` resolves
it, and the few ops whose operands PyTorch takes differently (topograd's fused n-ary ops on
scalars) have their spelling here. ``test_every_op_has_a_reference_a_domain_and_its_maths``
fails the day an op is added without one.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import torch

import topograd as tg
from topograd.autograd.registry import OPS, Op

SCALAR_OPS = sorted(name for name, op in OPS.items() if op.scalar is not None and not op.custom)
TENSOR_OPS = sorted(name for name, op in OPS.items() if op.array is not None and not op.custom)

# PyTorch spellings of topograd's n-ary scalar ops, whose operands are the summands (sum), or
# w1 ... wn, x1 ... xn (dot), or w1 ... wn, x1 ... xn, b (affine); and where's condition. Each
# is a chain of scalar ops, as the fused node computes it (left to right), so that an operand
# another term does not depend on gets nothing from it, not a zero of a stacked vector.


def _chain_sum(xs: Sequence[Any]) -> Any:
    return functools.reduce(operator.add, xs)


def _dot(xs: Sequence[Any]) -> Any:
    n = len(xs) // 2
    return _chain_sum([w * x for w, x in zip(xs[:n], xs[n:])])


N_ARY: dict[str, Callable[..., Any]] = {
    "sum": lambda *xs: _chain_sum(xs),
    "dot": lambda *xs: _dot(xs),
    "affine": lambda *xs: _dot(xs[:-1]) + xs[-1],
    "neuron": lambda *xs: torch.relu(_dot(xs[:-1]) + xs[-1]),
    "where": lambda c, x, y: torch.where(c != 0, x, y),  # a Value's condition: non-zero holds
    "logsumexp": lambda *xs: torch.logsumexp(torch.stack(xs), 0),
}


# Ops whose PyTorch function takes a parameter topograd's op fixes.
FIXED: dict[str, Callable[..., Any]] = {
    "relu_backward": lambda g, out: torch.ops.aten.threshold_backward(g, out, 0),
    "gelu_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
    # (PyTorch's gelu_double_backward cannot broadcast: its operands are broadcast first)
    "gelu_backward": lambda g, x: torch.ops.aten.gelu_backward(*torch.broadcast_tensors(g, x)),
    "gelu_tanh_backward": lambda g, x: torch.ops.aten.gelu_backward(
        *torch.broadcast_tensors(g, x), approximate="tanh"
    ),
    "elu_backward": lambda g, x, alpha=1.0: torch.ops.aten.elu_backward(g, alpha, 1, 1, False, x),
    "leaky_relu_backward": lambda g, x: torch.ops.aten.leaky_relu_backward(g, x, 0.01, False),
    "clamp_min": lambda x, low: torch.clamp(x, min=low),
    "clamp_max": lambda x, high: torch.clamp(x, max=high),
}


def reference(op: Op, scalars: bool = True) -> Callable[..., Any]:
    """PyTorch's function for ``op`` (on scalars, the n-ary spelling where it differs)."""
    if scalars and op.name in N_ARY:
        return N_ARY[op.name]
    if op.name in FIXED:
        return FIXED[op.name]
    found: Any = torch
    for part in op.torch.split(".")[1:]:
        found = getattr(found, part)
    return found  # type: ignore[no-any-return]


def on_values(name: str) -> Callable[..., tg.Value]:
    """The op applied to Values (and numbers) through the registry."""
    return OPS[name]


ON_VALUES: dict[str, Callable[..., Any]] = {name: on_values(name) for name in SCALAR_OPS}
ON_TENSORS: dict[str, Callable[..., Any]] = {name: reference(OPS[name]) for name in SCALAR_OPS}


def leaf(x: float) -> torch.Tensor:
    return torch.tensor(x, dtype=torch.float64, requires_grad=True)


def torch_grads(op: str, xs: list[float]) -> tuple[float, list[float]]:
    """PyTorch's value and partials of ``op`` at ``xs`` (float64)."""
    leaves = [leaf(x) for x in xs]
    out = ON_TENSORS[op](*leaves)
    grads = torch.autograd.grad(out, leaves, allow_unused=True)
    return out.item(), [0.0 if g is None else g.item() for g in grads]


def same(a: float, b: float, rel: float = 0.0) -> bool:
    """Equal as IEEE values (nan equals nan; the sign of an infinity, and of a zero where
    ``rel`` is 0, counts), or within ``rel`` of each other, relative to the larger."""
    if a != a or b != b:
        return a != a and b != b
    if a == b:
        return rel > 0 or math.copysign(1.0, a) == math.copysign(1.0, b)
    return abs(a - b) <= rel * max(abs(a), abs(b))
