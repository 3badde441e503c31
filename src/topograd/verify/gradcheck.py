"""``gradcheck``, one for both kinds: every gradient of a function against central
differences, with PyTorch's options and tolerances, and, where one disagrees, the faulty rule.

>>> import topograd as tg
>>> tg.gradcheck(lambda x, y: (x * y).sin() / y, [0.5, 2.0])
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..autograd.kinds import kind_of
from . import scalars
from .faults import Fault, GradcheckError, Options

__all__ = ["Fault", "GradcheckError", "gradcheck"]


def gradcheck(
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    scaled_step: bool = False,
    richardson_levels: int = 0,
    raise_exception: bool = True,
    fast_mode: bool = False,
    seed: int = 0,
) -> bool:
    """Check the gradients of ``fn`` at ``inputs`` against central differences.

    Inputs are numbers (``fn`` gets Values) or Tensors (those that require a gradient are
    checked). Passes where ``|analytic - numeric| <= atol + rtol * |numeric|`` everywhere and
    backward run twice gives the same bits. On failure raises ``GradcheckError`` in PyTorch's
    words, naming the faulty rule: the first node whose rule disagrees with central
    differences of its own forward at its recorded inputs. Every option means the same on both
    kinds: ``scaled_step`` takes h = cbrt(machine eps) * max(1, |x|) instead of ``eps``;
    ``richardson_levels`` (e.g. 4) extrapolates, to tell a real bug from finite-difference
    noise; ``fast_mode`` checks vᵀJu for random u and v (drawn from ``seed``), as PyTorch's.
    """
    options = _options(eps, atol, rtol, scaled_step, richardson_levels, fast_mode, seed)
    inputs = list(inputs)
    if not inputs:
        raise ValueError("gradcheck: no inputs, nothing to check")
    kinds = {kind.name for kind in map(kind_of, inputs) if kind is not None}
    try:
        if "tensor" in kinds:  # arrays and numbers beside them are constants, as in PyTorch
            from . import tensors  # NumPy, only when Tensors are checked

            tensors.check(fn, inputs, options)
        else:
            scalars.check(fn, [x.data if kind_of(x) else x for x in inputs], options)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _options(
    eps: float,
    atol: float,
    rtol: float,
    scaled_step: bool,
    richardson_levels: int,
    fast_mode: bool,
    seed: int,
) -> Options:
    """The options, each checked: a bad one is an error, never silently ignored."""
    for name, value in (("eps", eps), ("atol", atol), ("rtol", rtol)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
            raise ValueError(f"gradcheck: {name} must be a number >= 0, got {value!r}")
    if not eps > 0:
        raise ValueError(f"gradcheck: eps must be > 0, got {eps!r}")
    if isinstance(richardson_levels, bool) or not isinstance(richardson_levels, int):
        raise TypeError(f"gradcheck: richardson_levels must be an int, got {richardson_levels!r}")
    if richardson_levels < 0 or richardson_levels == 1:
        raise ValueError(
            f"gradcheck: richardson_levels must be 0 or 2 and more, got {richardson_levels}"
        )
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"gradcheck: seed must be an int, got {seed!r}")
    return Options(eps, atol, rtol, bool(scaled_step), richardson_levels, bool(fast_mode), seed)
