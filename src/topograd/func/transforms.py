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


def _outputs(out: Any, function: str) -> tuple[list[Value | float], Callable[[list[Any]], Any]]:
    """The function's outputs as a flat list (one Value or number, or a tuple or list of
    them), and how to give results the same structure."""
    if isinstance(out, (tuple, list)):
        kind = type(out)
        return [_scalar_output(o, function) for o in out], lambda xs: kind(xs)
    return [_scalar_output(out, function)], lambda xs: xs[0]


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
    outs, shaped = _outputs(func(*leaves), "jvp")
    seeds: dict[Any, Any] = {}
    for leaf, t in zip(leaves, tangents):
        seeds[leaf] = t if leaf not in seeds else seeds[leaf] + t
    found = forward_tangents([o for o in outs if isinstance(o, Value)], seeds, keep)
    results = []
    for o in outs:
        tangent = found.get(o, 0.0) if isinstance(o, Value) else 0.0
        if keep and not isinstance(tangent, Value):
            tangent = Value(float(tangent))
        results.append(_as_given(tangent, keep))
    return shaped([_as_given(o, keep) for o in outs]), shaped(results)


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


def _jacobian(
    func: Callable[..., Any], argnums: int | tuple[int, ...], function: str, forward: bool
) -> Callable[..., Any]:
    """The Jacobian of ``func`` with respect to the arguments ``argnums`` names: for each
    output (its structure kept), the derivative by each argument (a tuple for a tuple of
    argnums). By reverse mode a row per output, by forward mode a column per argument."""

    def transformed(*args: Any) -> Any:
        chosen = _argnums(argnums, len(args), function)
        leaves, keep = _leaves(args, "args")
        outs, shaped = _outputs(func(*leaves), function)
        nodes = [o for o in outs if isinstance(o, Value)]
        table: dict[tuple[int, int], Any] = {}  # (output, argument) -> derivative
        if forward:
            for j, k in enumerate(chosen):
                found = forward_tangents(nodes, {leaves[k]: 1.0}, keep)
                for i, o in enumerate(outs):
                    table[i, j] = found.get(o, 0.0) if isinstance(o, Value) else 0.0
        else:
            for i, o in enumerate(outs):
                row = (
                    engine_grad(o, [leaves[k] for k in chosen], create_graph=keep)
                    if isinstance(o, Value)
                    else [0.0] * len(chosen)
                )
                table.update({(i, j): g for j, g in enumerate(row)})
        rows = []
        for i in range(len(outs)):
            row = [_as_given(table[i, j], keep) for j in range(len(chosen))]
            rows.append(row[0] if isinstance(argnums, int) else tuple(row))
        return shaped(rows)

    return transformed


def jacrev(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0) -> Callable[..., Any]:
    """The Jacobian by reverse mode, a backward pass per output, as ``torch.func.jacrev``."""
    return _jacobian(func, argnums, "jacrev", forward=False)


def jacfwd(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0) -> Callable[..., Any]:
    """The Jacobian by forward mode, a forward pass per argument, as ``torch.func.jacfwd``."""
    return _jacobian(func, argnums, "jacfwd", forward=True)


def hessian(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0) -> Callable[..., Any]:
    """The Hessian, forward over reverse (``jacfwd(jacrev(func))``), as ``torch.func.hessian``."""
    return jacfwd(jacrev(func, argnums), argnums)


def hvp(
    func: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]
) -> tuple[Any, tuple[Any, ...]]:
    """``(func(*primals), H·tangents)``, forward over reverse, as
    ``torch.autograd.functional.hvp``: the Hessian of ``func`` (one number out) times the
    tangents, one per primal, without forming the Hessian."""
    every = tuple(range(len(primals)))
    gradient = grad(func, argnums=every)
    _, product = jvp(lambda *xs: gradient(*xs), primals, tangents)
    value = grad_and_value(func, every)(*primals)[1]
    return value, tuple(product)
