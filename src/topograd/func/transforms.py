"""The function transforms, with ``torch.func``'s names and signatures, on Values and
numbers: numbers in, numbers out; Values in, Values out, differentiable again (so transforms
compose). ``jvp`` runs forward mode (``forward.py``); ``vjp``, ``grad`` and
``grad_and_value`` run reverse mode (the engine's ``grad``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..autograd.engine import grad as engine_grad
from ..scalar.value import Value
from .forward import tangents as forward_tangents

Number = int | float


def _leaves(primals: Sequence[Any], what: str) -> tuple[list[Value], bool]:
    """Values to call the function on: a Value as given (it may belong to an outer transform's
    graph), a number as a new leaf; and whether any was a Value."""
    leaves, any_value = [], False
    for k, p in enumerate(primals):
        if isinstance(p, Value):
            leaves.append(p)
            any_value = True
        elif isinstance(p, (int, float)) and not isinstance(p, bool):
            leaves.append(Value(float(p)))
        else:
            raise TypeError(f"{what}[{k}] must be a number or a Value, got {type(p).__name__}")
    return leaves, any_value


def _scalar_output(out: Any, function: str) -> Value | float:
    if isinstance(out, Value):
        return out
    if isinstance(out, (int, float)) and not isinstance(out, bool):
        return float(out)
    raise TypeError(f"{function}: the function must return a Value or a number, got {out!r}")


def _as_given(x: Any, keep_values: bool) -> Any:
    return x if keep_values or not isinstance(x, Value) else x.data


def jvp(
    func: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]
) -> tuple[Any, Any]:
    """``(func(*primals), J·tangents)``: forward mode, as ``torch.func.jvp``. ``primals`` and
    ``tangents`` are tuples of numbers or Values of the same length; the tangent out is the
    directional derivative of ``func`` at ``primals`` along ``tangents``."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp(func, primals, tangents): primals and tangents must be tuples")
    if len(primals) != len(tangents):
        raise ValueError(
            f"jvp: {len(primals)} primals but {len(tangents)} tangents: one tangent per primal"
        )
    leaves, keep = _leaves(primals, "primals")
    for k, t in enumerate(tangents):
        if not isinstance(t, (int, float, Value)) or isinstance(t, bool):
            raise TypeError(f"tangents[{k}] must be a number or a Value, got {type(t).__name__}")
    keep = keep or any(isinstance(t, Value) for t in tangents)
    out = _scalar_output(func(*leaves), "jvp")
    if not isinstance(out, Value):
        return out, 0.0
    seeds: dict[Any, Any] = {}
    for leaf, t in zip(leaves, tangents):
        seeds[leaf] = t if leaf not in seeds else seeds[leaf] + t
    found = forward_tangents([out], seeds, create_graph=keep)
    tangent = found.get(out, 0.0)
    if keep and not isinstance(tangent, Value):
        tangent = Value(float(tangent))
    return _as_given(out, keep), _as_given(tangent, keep)


def vjp(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """``(func(*primals), vjp_fn)``, as ``torch.func.vjp``: ``vjp_fn(cotangent)`` gives the
    cotangent times the derivative for each primal, a tuple."""
    leaves, keep = _leaves(primals, "primals")
    out = _scalar_output(func(*leaves), "vjp")

    def vjp_fn(cotangent: Any) -> tuple[Any, ...]:
        if isinstance(cotangent, bool) or not isinstance(cotangent, (int, float, Value)):
            raise TypeError(f"vjp_fn takes a number or a Value, got {type(cotangent).__name__}")
        if not isinstance(out, Value):
            return tuple(0.0 for _ in leaves)
        upstream = cotangent if isinstance(cotangent, Value) else float(cotangent)
        found = engine_grad(out, leaves, upstream, create_graph=keep)
        return tuple(_as_given(g, keep) for g in found)

    return _as_given(out, keep), vjp_fn


def _argnums(argnums: int | tuple[int, ...], count: int, function: str) -> tuple[int, ...]:
    chosen = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for k in chosen:
        if isinstance(k, bool) or not isinstance(k, int) or not -count <= k < count:
            raise ValueError(
                f"{function}: argnums {argnums!r} out of range for {count} positional arguments"
            )
    return tuple(k % count for k in chosen)


def grad_and_value(
    func: Callable[..., Any], argnums: int | tuple[int, ...] = 0
) -> Callable[..., tuple[Any, Any]]:
    """A function giving ``(gradient, value)`` of ``func`` (which returns one number) with
    respect to the arguments ``argnums`` names (a tuple of gradients for a tuple), as
    ``torch.func.grad_and_value``."""

    def transformed(*args: Any) -> tuple[Any, Any]:
        chosen = _argnums(argnums, len(args), "grad")
        leaves, keep = _leaves(args, "args")
        out = _scalar_output(func(*leaves), "grad")
        targets = [leaves[k] for k in chosen]
        if isinstance(out, Value):
            found = [_as_given(g, keep) for g in engine_grad(out, targets, create_graph=keep)]
        else:
            found = [0.0 for _ in targets]
        gradient = found[0] if isinstance(argnums, int) else tuple(found)
        return gradient, _as_given(out, keep)

    return transformed


def grad(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0) -> Callable[..., Any]:
    """A function giving the gradient of ``func`` (which returns one number) with respect to
    the arguments ``argnums`` names, as ``torch.func.grad``: ``grad(grad(f))`` is f''."""
    both = grad_and_value(func, argnums)
    return lambda *args: both(*args)[0]
