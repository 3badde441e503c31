"""The same op on both sides: topograd Values and PyTorch float64 tensors.

Each table is keyed by the names in ``topograd.rules.OPS``; ``test_tables_cover_every_op`` fails
the day an op is added without its entries here.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import torch

import topograd as tg

ON_VALUES: dict[str, Callable[..., tg.Value]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "**": operator.pow,
    "neg": operator.neg,
    "abs": abs,
    "relu": tg.Value.relu,
    "exp": tg.Value.exp,
    "log": tg.Value.log,
    "sqrt": tg.Value.sqrt,
    "tanh": tg.Value.tanh,
    "sigmoid": tg.Value.sigmoid,
    "sin": tg.Value.sin,
    "cos": tg.Value.cos,
    "softplus": tg.Value.softplus,
    "sum": lambda *xs: tg.sum(xs),
    "dot": lambda *xs: tg.dot(xs[: len(xs) // 2], xs[len(xs) // 2 :]),
    "affine": lambda *xs: tg.affine(xs[: len(xs) // 2], xs[len(xs) // 2 : -1], xs[-1]),
}

ON_TENSORS: dict[str, Callable[..., Any]] = {
    "+": torch.add,
    "-": torch.sub,
    "*": torch.mul,
    "/": torch.div,
    "**": torch.pow,
    "neg": torch.neg,
    "abs": torch.abs,
    "relu": torch.relu,
    "exp": torch.exp,
    "log": torch.log,
    "sqrt": torch.sqrt,
    "tanh": torch.tanh,
    "sigmoid": torch.sigmoid,
    "sin": torch.sin,
    "cos": torch.cos,
    "softplus": torch.nn.functional.softplus,
    "sum": lambda *xs: torch.stack(xs).sum(),
    "dot": lambda *xs: torch.dot(torch.stack(xs[: len(xs) // 2]), torch.stack(xs[len(xs) // 2 :])),
    "affine": lambda *xs: (
        torch.dot(torch.stack(xs[: len(xs) // 2]), torch.stack(xs[len(xs) // 2 : -1])) + xs[-1]
    ),
}


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
