"""What a failed check reports, for both kinds: ``GradcheckError`` and the ``Fault`` it names,
and the tests a check makes of one number: closeness as PyTorch judges it, and kinks.

>>> close(1.0, 1.0 + 1e-9, atol=1e-5, rtol=1e-3), close(float("nan"), 0.0, 1e-5, 1e-3)
(True, False)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..autograd.engine import topological_order
from ..autograd.kinds import kind_of
from .numeric import STEP, derivative


@dataclass(frozen=True)
class Options:
    """How a gradcheck judges, the same for both kinds (PyTorch's defaults)."""

    eps: float = 1e-6  # the step of a central difference
    atol: float = 1e-5
    rtol: float = 1e-3
    scaled_step: bool = False  # step cbrt(machine eps) * max(1, |x|) instead of eps
    richardson_levels: int = 0  # Richardson extrapolation instead (4, say)
    fast_mode: bool = False  # vᵀJu for random u, v instead of the whole Jacobian
    seed: int = 0  # of u and v

    def derivative(self, f: Callable[[float], Any], x: float, scale: float | None = None) -> Any:
        """f'(x) by central differences, as these options say."""
        return derivative(
            f,
            x,
            eps=self.eps,
            scaled_step=self.scaled_step,
            richardson_levels=self.richardson_levels,
            scale=scale,
        )


@dataclass(frozen=True)
class Fault:
    """The first node whose rule disagrees with central differences of its own forward.

    For a Value, ``inputs`` are its operands' numbers and ``expected`` / ``given`` the partial
    for ``input_index``; for a Tensor, ``inputs`` are its operands' shapes and the two numbers
    are vᵀJu for random u and v, from differences of the forward and from the rule."""

    op: str
    label: str
    inputs: tuple[Any, ...]
    input_index: int
    expected: float
    given: float
    kind: str = "scalar"

    def __str__(self) -> str:
        label = f" (label {self.label!r})" if self.label else ""
        if self.kind == "scalar":
            where, what = f"at inputs {self.inputs}", f"partial for input {self.input_index}"
        else:
            where = f"at inputs of shapes {self.inputs}"
            what = f"vᵀJu for input {self.input_index}"
        return (
            f"The faulty rule is op {self.op!r}{label} {where}: its {what} should be "
            f"{self.expected!r} (central differences of its forward) but its rule gives "
            f"{self.given!r}."
        )


class GradcheckError(RuntimeError):
    """A gradient disagrees with central differences; ``fault`` names the faulty rule, and
    ``input_index`` the input whose gradient is wrong."""

    __module__ = "topograd"  # raised as tg.GradcheckError

    def __init__(self, message: str, input_index: int | None = None, fault: Fault | None = None):
        super().__init__(message)
        self.input_index = input_index
        self.fault = fault


NO_FAULT = (
    "Every node's rule agrees with its own forward. Either the gradient is lost outside the "
    "graph (a value computed from .data, a number where a Value should be), or the numerical "
    "derivative is too noisy for this tolerance: try scaled_step=True or richardson_levels=4."
)


def mismatch(what: str, j: int, numeric: Any, analytic: Any, fault: Fault | None) -> str:
    """PyTorch's words for a failed check, and the fault found, or why none was."""
    return (
        f"{what} mismatch for output 0 with respect to input {j},\n"
        f"numerical:{numeric!r}\nanalytical:{analytic!r}\n\n" + (str(fault) if fault else NO_FAULT)
    )


def not_reentrant(j: int, first: Any, second: Any) -> str:
    """PyTorch's words where backward run twice gives two answers."""
    return (
        "Backward is not reentrant, i.e., running backward with same input and grad_output "
        f"multiple times gives different values, for input {j}: {first!r} then {second!r}"
    )


def localised(output: Any, fault_of: Callable[[Any], Fault | None]) -> Fault | None:
    """The first node, in forward order, whose rule ``fault_of`` finds at fault, or None."""
    kind = kind_of(output)
    assert kind is not None
    for node in topological_order([output]):
        if kind.op(node) is not None:
            fault = fault_of(node)
            if fault is not None:
                return fault
    return None


def close(analytic: float, numeric: float, atol: float, rtol: float) -> bool:
    """PyTorch's test (torch.allclose): nan is never close, an infinity only to itself."""
    if math.isnan(analytic) or math.isnan(numeric):
        return False
    if math.isinf(analytic) or math.isinf(numeric):
        return analytic == numeric
    return abs(analytic - numeric) <= atol + rtol * abs(numeric)


def is_kink(f: Callable[[float], float], x: float) -> bool:
    """No derivative to check here (relu at 0, ...): the one-sided differences disagree, and
    by as much at a step eight times shorter. At a smooth but steep point the disagreement
    shrinks with the step; at a kink it stays."""
    y = f(x)

    def gap(h: float) -> float:
        return (f(x + h) - y) / h - (y - f(x - h)) / h

    h = STEP * max(1.0, abs(x))
    long, short = abs(gap(h)), abs(gap(h / 8))
    return short > 1e-6 * max(1.0, abs(y)) and short > 0.5 * long
