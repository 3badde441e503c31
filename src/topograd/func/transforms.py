"""The function transforms, with ``torch.func``'s names and signatures, on numbers and Values,
arrays and Tensors (``arguments.py``: results come back in the form the arguments were given,
differentiable again where they were nodes, so transforms compose). ``jvp`` and ``jacfwd`` run
forward mode (``forward.py``); ``vjp``, ``grad``, ``grad_and_value`` and ``jacrev`` run
reverse mode (the engine's ``grad``).

The function is called with recording on: a ``no_grad`` around a transform does not stop it
(as ``torch.func``), one inside the function does stop what it covers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..autograd.engine import grad as engine_grad
from ..autograd.kinds import kind_of
from ..autograd.modes import recording
from ..scalar.value import Value, is_real
from . import arguments
from .arguments import Calling, Structure, basis, columns, rows, shape, shaped
from .forward import tangents as forward_tangents


def _call(
    func: Callable[..., Any], leaves: list[Any], function: str
) -> tuple[list[Any], Structure | None]:
    with recording(True):
        outs, structure = arguments.outputs(func(*leaves), function)
    tensors = bool(leaves) and not isinstance(leaves[0], Value)
    for o in outs:
        if _is_node(o) and isinstance(o, Value) == tensors:
            given, got = (
                ("arrays or Tensors", "a Value") if tensors else ("numbers or Values", "a Tensor")
            )
            raise TypeError(f"{function}: the function was given {given} but returned {got}")
    return outs, structure


def _is_node(x: Any) -> bool:
    return kind_of(x) is not None


def _direction(t: Any, of: Any, calling: Calling, what: str, whose: str) -> Any:
    """A tangent or cotangent checked against what it goes with (``of``, its ``whose``): the
    same family and shape. A node stays one where results keep their graph."""
    if calling.tensors:
        if not arguments.is_tensor_like(t) and not is_real(t):
            raise TypeError(f"{what} must be an array or a Tensor, got {type(t).__name__}")
        if shape(t) != shape(of):
            raise ValueError(
                f"{what} has shape {shape(t)} but its {whose} has shape {shape(of)}: they must "
                "match"
            )
    elif isinstance(t, bool) or not (is_real(t) or kind_of(t) is not None):
        raise TypeError(f"{what} must be a number or a Value, got {type(t).__name__}")
    elif kind_of(t) is not None and kind_of(t).name != "scalar":  # type: ignore[union-attr]
        raise TypeError(f"{what} is a Tensor among numbers or Values: give one kind")
    if _is_node(t) and calling.keep:
        return t
    data = t.data if _is_node(t) else t
    return arguments.array(data) if calling.tensors else float(data)


def _keeps(calling: Calling, given: Sequence[Any]) -> None:
    """A tangent or cotangent that is part of a graph makes the results keep theirs."""
    if any(_is_node(t) and (not calling.tensors or t.requires_grad) for t in given):
        calling.keep = True


def jvp(
    func: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]
) -> tuple[Any, Any]:
    """``(func(*primals), J·tangents)``: forward mode, as ``torch.func.jvp``. ``primals`` and
    ``tangents`` are tuples of the same length, each tangent of its primal's shape; the tangent
    out is the directional derivative of ``func`` at ``primals`` along ``tangents``."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp(func, primals, tangents): primals and tangents must be tuples")
    if len(primals) != len(tangents):
        raise ValueError(
            f"jvp: {len(primals)} primals but {len(tangents)} tangents: one tangent per primal"
        )
    leaves, calling = arguments.leaves(primals, "primals")
    _keeps(calling, tangents)
    seeds: dict[Any, Any] = {}
    for k, (leaf, t) in enumerate(zip(leaves, tangents)):
        t = _direction(t, leaf, calling, f"tangents[{k}]", "primal")
        seeds[leaf] = t if leaf not in seeds else seeds[leaf] + t
    outs, structure = _call(func, leaves, "jvp")
    found = forward_tangents([o for o in outs if _is_node(o)], seeds, calling.keep)
    results = []
    for o in outs:
        tangent = found.get(o) if _is_node(o) else None
        results.append(calling.give(calling.zeros(shape(o)) if tangent is None else tangent))
    return shaped([calling.give(o) for o in outs], structure), shaped(results, structure)


def vjp(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[[Any], tuple[Any, ...]]]:
    """``(func(*primals), vjp_fn)``, as ``torch.func.vjp``: ``vjp_fn(cotangents)`` (one per
    output, in the outputs' structure and shapes) gives the cotangents times the derivative for
    each primal, a tuple."""
    leaves, calling = arguments.leaves(primals, "primals")
    outs, structure = _call(func, leaves, "vjp")
    several = structure is not None

    def vjp_fn(cotangents: Any) -> tuple[Any, ...]:
        given = list(cotangents) if several and isinstance(cotangents, (tuple, list)) else None
        if several and (given is None or len(given) != len(outs)):
            raise ValueError(f"vjp_fn takes {len(outs)} cotangents, one per output, as a tuple")
        given = given if given is not None else [cotangents]
        answer = Calling(calling.tensors, calling.keep, calling.wrapped)
        _keeps(answer, given)
        checked = [
            _direction(c, o, answer, f"cotangent {k}", "output")
            for k, (c, o) in enumerate(zip(given, outs))
        ]
        nodes = [(o, c) for o, c in zip(outs, checked) if _is_node(o)]
        if not nodes:
            return tuple(answer.give(answer.zeros(shape(leaf))) for leaf in leaves)
        found = engine_grad(
            [o for o, _ in nodes], leaves, [c for _, c in nodes], create_graph=answer.keep
        )
        return tuple(answer.give(g) for g in found)

    return shaped([calling.give(o) for o in outs], structure), vjp_fn


def _argnums(argnums: int | tuple[int, ...], count: int, function: str) -> tuple[int, ...]:
    chosen = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for k in chosen:
        if isinstance(k, bool) or not isinstance(k, int) or not -count <= k < count:
            raise ValueError(
                f"{function}: argnums {argnums!r} out of range for {count} positional arguments"
            )
    return tuple(k % count for k in chosen)


def _one_number(out: Any) -> Any:
    if shape(out) != ():
        raise ValueError(
            "grad: the function must return one number (a Value, a float or a 0-d Tensor), "
            f"got an output of shape {shape(out)}; use jacrev or vjp for more"
        )
    return out


def grad_and_value(
    func: Callable[..., Any], argnums: int | tuple[int, ...] = 0
) -> Callable[..., tuple[Any, Any]]:
    """A function giving ``(gradient, value)`` of ``func`` (which returns one number) with
    respect to the arguments ``argnums`` names (a tuple of gradients for a tuple), as
    ``torch.func.grad_and_value``."""

    def transformed(*args: Any) -> tuple[Any, Any]:
        chosen = _argnums(argnums, len(args), "grad")
        leaves, calling = arguments.leaves(args, "args")
        outs, structure = _call(func, leaves, "grad")
        if structure is not None:
            raise TypeError(
                "grad: the function must return one number (a Value, a float or a 0-d Tensor), "
                f"not a {type(structure([])).__name__}; use jacrev or vjp for several"
            )
        out = _one_number(outs[0])
        targets = [leaves[k] for k in chosen]
        if _is_node(out):
            found = engine_grad(out, targets, create_graph=calling.keep)
        else:
            found = [calling.zeros(shape(leaf)) for leaf in targets]
        given = [calling.give(g) for g in found]
        return (given[0] if isinstance(argnums, int) else tuple(given)), calling.give(out)

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
    argnums), of shape output.shape + argument.shape. By reverse mode a backward pass per
    element of the outputs, by forward mode a forward pass per element of the arguments."""

    def transformed(*args: Any) -> Any:
        chosen = _argnums(argnums, len(args), function)
        leaves, calling = arguments.leaves(args, "args")
        outs, structure = _call(func, leaves, function)
        targets = [leaves[k] for k in chosen]
        table = (_by_columns if forward else _by_rows)(outs, targets, calling)
        found = []
        for i in range(len(outs)):
            row = [calling.give(table[i, j]) for j in range(len(targets))]
            found.append(row[0] if isinstance(argnums, int) else tuple(row))
        return shaped(found, structure)

    return transformed


Table = dict[tuple[int, int], Any]  # (output, argument) -> derivative


def _by_rows(outs: list[Any], targets: list[Any], calling: Calling) -> Table:
    """Reverse mode: a backward pass per element of each output."""
    table: Table = {}
    for i, o in enumerate(outs):
        if not _is_node(o):
            table.update(
                {(i, j): calling.zeros(shape(o) + shape(t)) for j, t in enumerate(targets)}
            )
            continue
        passes = [engine_grad(o, targets, seed, create_graph=calling.keep) for seed in basis(o)]
        for j, t in enumerate(targets):
            table[i, j] = rows([p[j] for p in passes], shape(o), shape(t))
    return table


def _by_columns(outs: list[Any], targets: list[Any], calling: Calling) -> Table:
    """Forward mode: a forward pass per element of each argument."""
    table: Table = {}
    nodes = [o for o in outs if _is_node(o)]
    for j, t in enumerate(targets):
        passes = [forward_tangents(nodes, {t: seed}, calling.keep) for seed in basis(t)]
        for i, o in enumerate(outs):
            found = [p.get(o) if _is_node(o) else None for p in passes]
            pieces = [calling.zeros(shape(o)) if f is None else f for f in found]
            table[i, j] = columns(pieces, shape(o), shape(t))
    return table


def jacrev(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0) -> Callable[..., Any]:
    """The Jacobian by reverse mode, as ``torch.func.jacrev``."""
    return _jacobian(func, argnums, "jacrev", forward=False)


def jacfwd(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0) -> Callable[..., Any]:
    """The Jacobian by forward mode, as ``torch.func.jacfwd``."""
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
    both = grad_and_value(func, every)
    _, product = jvp(lambda *xs: both(*xs)[0], primals, tangents)
    return both(*primals)[1], tuple(product)
