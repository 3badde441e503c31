"""The function transforms, with ``torch.func``'s names and signatures, on numbers and Values,
arrays and Tensors, and trees of them (tuples, lists, dicts; ``trees.py``): results come back in
the form and structure the arguments were given, differentiable again where they were nodes
(``arguments.py``), so transforms compose. ``jvp`` and ``jacfwd`` run forward mode
(``forward.py``); ``vjp``, ``grad``, ``grad_and_value`` and ``jacrev`` run reverse mode (the
engine's ``grad``); ``jacobians.py`` makes a Jacobian of passes.

The function is called with recording on: a ``no_grad`` around a transform does not stop it
(as ``torch.func``), one inside the function does stop what it covers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..autograd.engine import grad as engine_grad
from ..autograd.kinds import kind_of
from ..autograd.modes import recording
from ..ops.helpers import data as numbers
from ..scalar.value import Value, is_real
from . import arguments
from .arguments import Calling, rebuilt, shape, spans
from .aux import Aux, split
from .forward import tangents as forward_tangents
from .jacobians import by_columns, by_rows
from .trees import Tree, flatten


def _call(
    func: Callable[..., Any],
    leaves: list[Any],
    trees: list[Tree],
    function: str,
    kwargs: dict[str, Any] | None = None,
    has_aux: bool = False,
) -> tuple[list[Any], Tree, Aux | None]:
    """The function called on the leaves in the arguments' structure (keyword arguments passed
    on as they are, not differentiated, as torch.func's): its outputs' leaves and tree, and
    what it gave beside them (``has_aux``: it returns ``(output, aux)``)."""
    with recording(True):
        result, aux = split(func(*rebuilt(leaves, trees), **(kwargs or {})), has_aux, function)
        outs, tree = arguments.outputs(result, function)
    tensors = bool(leaves) and not isinstance(leaves[0], Value)
    for o in [*outs, *(aux.leaves if aux is not None else ())]:
        if _is_node(o) and isinstance(o, Value) == tensors:
            given, got = (
                ("arrays or Tensors", "a Value") if tensors else ("numbers or Values", "a Tensor")
            )
            raise TypeError(f"{function}: the function was given {given} but returned {got}")
    return outs, tree, aux


def _with(result: Any, aux: Aux | None, calling: Calling) -> Any:
    """``result``, and beside it the aux where the function gave one: ``(result, aux)``."""
    return result if aux is None else (result, aux.give(calling))


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
        arguments.real(t, what, floating=True)
    elif isinstance(t, bool) or not (is_real(t) or kind_of(t) is not None):
        raise TypeError(f"{what} must be a number or a Value, got {type(t).__name__}")
    elif kind_of(t) is not None and kind_of(t).name != "scalar":  # type: ignore[union-attr]
        raise TypeError(f"{what} is a Tensor among numbers or Values: give one kind")
    if _is_node(t) and calling.keep:
        return t
    data = numbers(t) if _is_node(t) else t
    return arguments.array(data) if calling.tensors else float(data)


def _keeps(calling: Calling, given: Sequence[Any]) -> None:
    """A tangent or cotangent that is part of a graph makes the results keep theirs (one of
    the other family is refused by ``_direction``)."""
    if any(_is_node(t) and getattr(t, "requires_grad", True) for t in given):
        calling.keep = True


def _same_tree(given: Any, tree: Tree, what: str) -> list[Any]:
    """The leaves of ``given``, which must have the structure ``tree`` (``what`` says so)."""
    found, structure = flatten(given)
    if structure != tree:
        raise ValueError(f"{what}, {tree.describe()}, got {structure.describe()}")
    return found


def jvp(
    func: Callable[..., Any],
    primals: Sequence[Any],
    tangents: Sequence[Any],
    *,
    has_aux: bool = False,
) -> tuple[Any, ...]:
    """``(func(*primals), J·tangents)``: forward mode, as ``torch.func.jvp``. ``primals`` and
    ``tangents`` are tuples of the same length, each tangent of its primal's structure and
    shapes; the tangent out is the directional derivative of ``func`` at ``primals`` along
    ``tangents``. With ``has_aux``, ``func`` returns ``(output, aux)`` and the aux comes third."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp(func, primals, tangents): primals and tangents must be tuples")
    if len(primals) != len(tangents):
        raise ValueError(
            f"jvp: {len(primals)} primals but {len(tangents)} tangents: one tangent per primal"
        )
    leaves, calling, trees = arguments.prepare(primals, "primals")
    flat: list[tuple[Any, str]] = []
    for k, (t, tree) in enumerate(zip(tangents, trees)):
        flat += [
            (x, f"tangents[{k}]")
            for x in _same_tree(t, tree, f"tangents[{k}] must have the structure of primals[{k}]")
        ]
    _keeps(calling, [t for t, _ in flat])
    seeds = {  # (each leaf is a node of its own: arguments.prepare)
        leaf: _direction(t, leaf, calling, name, "primal") for leaf, (t, name) in zip(leaves, flat)
    }
    outs, tree, aux = _call(func, leaves, trees, "jvp", has_aux=has_aux)
    found = forward_tangents([o for o in outs if _is_node(o)], seeds, calling.keep)
    results = []
    for o in outs:
        tangent = found.get(o) if _is_node(o) else None
        if tangent is None:  # the output does not depend on the primals
            tangent = calling.zeros(shape(o), o)
        results.append(calling.give(tangent))
    answer = (tree.build([calling.give(o) for o in outs]), tree.build(results))
    return answer if aux is None else (*answer, aux.give(calling))


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``(func(*primals), vjp_fn)``, as ``torch.func.vjp``: ``vjp_fn(cotangents)`` (in the
    outputs' structure and shapes) gives the cotangents times the derivative for each primal,
    a tuple (each in its primal's structure). With ``has_aux``, ``func`` returns ``(output,
    aux)`` and the aux comes third."""
    leaves, calling, trees = arguments.prepare(primals, "primals")
    outs, tree, aux = _call(func, leaves, trees, "vjp", has_aux=has_aux)

    def vjp_fn(cotangents: Any) -> tuple[Any, ...]:
        given = _same_tree(
            cotangents, tree, "vjp_fn takes cotangents in the structure of the outputs"
        )
        answer = Calling(calling.tensors, calling.keep, calling.wrapped)
        _keeps(answer, given)
        checked = [
            _direction(c, o, answer, f"cotangent {k}", "output")
            for k, (c, o) in enumerate(zip(given, outs))
        ]
        nodes = [(o, c) for o, c in zip(outs, checked) if _is_node(o)]
        if not nodes:
            found = [answer.zeros(shape(leaf), leaf) for leaf in leaves]
        else:
            found = engine_grad(
                [o for o, _ in nodes],
                leaves,
                [c for _, c in nodes],
                create_graph=answer.keep,
                materialize_grads=True,
            )
        return tuple(rebuilt([answer.give(g) for g in found], trees))

    answer = (tree.build([calling.give(o) for o in outs]), vjp_fn)
    return answer if aux is None else (*answer, aux.give(calling))


def _argnums(argnums: int | tuple[int, ...], count: int, function: str) -> tuple[int, ...]:
    """The positions ``argnums`` names among ``count`` arguments (negative from the end)."""
    chosen = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not chosen:
        raise ValueError(f"{function}: argnums must name at least one argument, got ()")
    for k in chosen:
        if isinstance(k, bool) or not isinstance(k, int) or not -count <= k < count:
            raise ValueError(
                f"{function}: argnums {argnums!r} out of range for {count} positional arguments"
            )
    positions = tuple(k % count for k in chosen)
    if len(set(positions)) != len(positions):
        raise ValueError(f"{function}: argnums {argnums!r} names an argument twice")
    return positions


def _by_argument(
    flat: Sequence[Any], chosen: Sequence[int], trees: Sequence[Tree], argnums: Any
) -> Any:
    """Results for the chosen arguments' leaves, each argument's in its tree: one for an int
    ``argnums``, a tuple for a tuple."""
    found = rebuilt(flat, [trees[k] for k in chosen])
    return found[0] if isinstance(argnums, int) else tuple(found)


def grad_and_value(
    func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, has_aux: bool = False
) -> Callable[..., tuple[Any, Any]]:
    """A function giving ``(gradient, value)`` of ``func`` (which returns one number) with
    respect to the arguments ``argnums`` names (a tuple of gradients for a tuple; each in its
    argument's structure), as ``torch.func.grad_and_value``; with ``has_aux``, ``func`` returns
    ``(number, aux)`` and this gives ``(gradient, (value, aux))``."""

    def transformed(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        chosen = _argnums(argnums, len(args), "grad")
        leaves, calling, trees = arguments.prepare(args, "args")
        outs, tree, aux = _call(func, leaves, trees, "grad", kwargs, has_aux)
        if not tree.is_leaf:
            raise TypeError(
                "grad: the function must return one number (a Value, a float or a 0-d Tensor), "
                f"not a tree {tree.describe()}; use jacrev or vjp for several"
            )
        out = outs[0]
        if shape(out) != ():
            raise ValueError(
                "grad: the function must return one number (a Value, a float or a 0-d Tensor), "
                f"got an output of shape {shape(out)}; use jacrev or vjp for more"
            )
        whose = spans(trees)
        targets = [leaves[i] for k in chosen for i in whose[k]]
        if _is_node(out):
            found = engine_grad(out, targets, create_graph=calling.keep, materialize_grads=True)
        else:
            found = [calling.zeros(shape(leaf), leaf) for leaf in targets]
        given = [calling.give(g) for g in found]
        return _by_argument(given, chosen, trees, argnums), _with(calling.give(out), aux, calling)

    return transformed


def grad(
    func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """A function giving the gradient of ``func`` (which returns one number) with respect to
    the arguments ``argnums`` names, as ``torch.func.grad``: ``grad(grad(f))`` is f''. With
    ``has_aux``, ``func`` returns ``(number, aux)`` and this gives ``(gradient, aux)``."""
    both = grad_and_value(func, argnums, has_aux)

    def transformed(*args: Any, **kwargs: Any) -> Any:
        gradient, value = both(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient

    return transformed


def _jacobian(
    func: Callable[..., Any],
    argnums: int | tuple[int, ...],
    function: str,
    forward: bool,
    chunk_size: int | None,
    has_aux: bool,
) -> Callable[..., Any]:
    """The Jacobian of ``func`` with respect to the arguments ``argnums`` names: for each
    output (its structure kept), the derivative by each argument (a tuple for a tuple of
    argnums; each in its argument's structure), of shape output.shape + argument.shape. By
    reverse mode a backward pass per element of the outputs, by forward mode a forward pass
    per element of the arguments; on Tensors, ``chunk_size`` of those passes at a time (None:
    all at once)."""
    if chunk_size is not None and (
        isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1
    ):
        raise ValueError(f"{function}: chunk_size must be None or a whole number >= 1")

    def transformed(*args: Any, **kwargs: Any) -> Any:
        chosen = _argnums(argnums, len(args), function)
        leaves, calling, trees = arguments.prepare(args, "args")
        outs, tree, aux = _call(func, leaves, trees, function, kwargs, has_aux)
        whose = spans(trees)
        targets = [leaves[i] for k in chosen for i in whose[k]]
        table = (by_columns if forward else by_rows)(outs, targets, calling, chunk_size)
        found = []
        for i in range(len(outs)):
            row = [calling.give(table[i, j]) for j in range(len(targets))]
            found.append(_by_argument(row, chosen, trees, argnums))
        return _with(tree.build(found), aux, calling)

    return transformed


def jacrev(
    func: Callable[..., Any],
    argnums: int | tuple[int, ...] = 0,
    *,
    has_aux: bool = False,
    chunk_size: int | None = None,
) -> Callable[..., Any]:
    """The Jacobian by reverse mode, as ``torch.func.jacrev``: on Tensors, ``chunk_size``
    backward passes at a time (None: all at once; 1: one after the other). With ``has_aux``,
    ``func`` returns ``(output, aux)`` and this gives ``(jacobian, aux)``."""
    return _jacobian(func, argnums, "jacrev", False, chunk_size, has_aux)


def jacfwd(
    func: Callable[..., Any],
    argnums: int | tuple[int, ...] = 0,
    has_aux: bool = False,
    *,
    chunk_size: int | None = None,
) -> Callable[..., Any]:
    """The Jacobian by forward mode, as ``torch.func.jacfwd``: on Tensors, ``chunk_size``
    forward passes at a time (None: all at once; 1: one after the other). With ``has_aux``,
    ``func`` returns ``(output, aux)`` and this gives ``(jacobian, aux)``."""
    return _jacobian(func, argnums, "jacfwd", True, chunk_size, has_aux)


def hessian(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0) -> Callable[..., Any]:
    """The Hessian, forward over reverse (``jacfwd(jacrev(func))``), as ``torch.func.hessian``."""
    return jacfwd(jacrev(func, argnums), argnums)


def hvp(
    func: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]
) -> tuple[Any, tuple[Any, ...]]:
    """``(func(*primals), H·tangents)``, forward over reverse, as
    ``torch.autograd.functional.hvp``: the Hessian of ``func`` (one number out) times the
    tangents, one per primal, without forming the Hessian."""
    both = grad_and_value(func, tuple(range(len(primals))))
    (_, value), (product, _) = jvp(both, primals, tangents)  # one pass gives the value too
    return value, tuple(product)
