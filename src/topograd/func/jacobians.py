"""A Jacobian from passes: by reverse mode a row per element of an output (a backward pass
seeded with that element's unit vector), by forward mode a column per element of an argument
(a forward pass seeded likewise); on Tensors the passes run as one batch (or ``chunk`` at a
time), the unit vectors stacked along a leading axis. Each derivative has the shape
``output.shape + argument.shape``; a Value's by a Value is one number.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..autograd.engine import grad as engine_grad
from ..autograd.kinds import kind_of
from .arguments import Calling, shape
from .forward import tangents as forward_tangents

Table = dict[tuple[int, int], Any]  # (output, argument) -> derivative


def by_rows(
    outs: Sequence[Any], targets: Sequence[Any], calling: Calling, chunk: int | None
) -> Table:
    """Reverse mode: a backward pass per element of each output (for a Value, one), from
    every output at once, as torch.func's: the others seeded with zeros, which carry their
    0 x inf = nan (a row of exp(x) beside x * inf is nan)."""
    table: Table = {}
    nodes = [k for k, o in enumerate(outs) if kind_of(o) is not None]  # by position: an
    roots = [outs[k] for k in nodes]  # output given twice is seeded once for its own row
    for i, o in enumerate(outs):
        if kind_of(o) is None:  # a constant: no input changes it
            for j, t in enumerate(targets):
                table[i, j] = calling.zeros(shape(o) + shape(t), t)
        elif calling.tensors:
            batches = [
                engine_grad(
                    roots,
                    targets,
                    [
                        s if k == i else calling.zeros((len(s), *shape(outs[k])), outs[k])
                        for k in nodes
                    ],
                    create_graph=calling.keep,
                    is_grads_batched=True,
                    materialize_grads=True,
                )
                for s in units(o, chunk)
            ]
            for j, t in enumerate(targets):
                table[i, j] = rows([b[j] for b in batches], shape(o), shape(t))
        else:
            found = engine_grad(
                roots,
                targets,
                [1.0 if k == i else 0.0 for k in nodes],
                create_graph=calling.keep,
                materialize_grads=True,
            )
            table.update({(i, j): g for j, g in enumerate(found)})
    return table


def by_columns(
    outs: Sequence[Any], targets: Sequence[Any], calling: Calling, chunk: int | None
) -> Table:
    """Forward mode: a forward pass per element of each argument (for a Value, one), every
    argument's tangent given, as torch.func's: the others' zeros, which carry their 0 x inf."""
    table: Table = {}
    nodes = [o for o in outs if kind_of(o) is not None]
    for j, t in enumerate(targets):
        if not calling.tensors:
            seeds = {u: 1.0 if u is t else 0.0 for u in targets}
            found = forward_tangents(nodes, seeds, calling.keep)
            for i, o in enumerate(outs):
                table[i, j] = found.get(o, 0.0) if kind_of(o) is not None else 0.0
            continue
        units_of_t = units(t, chunk)
        passes = [
            forward_tangents(nodes, _beside(t, s, targets, calling), calling.keep, s.shape[:1])
            for s in units_of_t
        ]
        for i, o in enumerate(outs):
            pieces = []
            for found, s in zip(passes, units_of_t):
                tangent = found.get(o) if kind_of(o) is not None else None
                if tangent is None:  # the output does not depend on the argument
                    tangent = calling.zeros((len(s), *shape(o)), t)
                pieces.append(tangent)
            table[i, j] = columns(pieces, shape(o), shape(t))
    return table


def _beside(t: Any, s: Any, targets: Sequence[Any], calling: Calling) -> dict[Any, Any]:
    """The batch of tangents ``s`` for ``t``, and a batch of zeros for every other target."""
    return {u: s if u is t else calling.zeros((len(s), *shape(u)), u) for u in targets}


def units(leaf: Any, chunk: int | None) -> list[Any]:
    """The unit arrays of a Tensor's shape, one per element, as batches along a first axis,
    ``chunk`` at a time (None: all in one batch)."""
    import numpy as np

    size = leaf.array.size
    every = np.eye(size, dtype=leaf.dtype).reshape((size, *leaf.shape))
    step = size if chunk is None else chunk
    return [every[k : k + step] for k in range(0, size, step)] if size else [every]


def rows(batches: Sequence[Any], out: tuple[int, ...], of: tuple[int, ...]) -> Any:
    """A derivative of shape ``out + of`` from batches of rows (each row of shape ``of``, one
    per element of the output, in order)."""
    from ..ops.shapes import concatenate, reshape

    whole = batches[0] if len(batches) == 1 else concatenate(*batches, axis=0)
    return reshape(whole, shape=(*out, *of))


def columns(batches: Sequence[Any], out: tuple[int, ...], of: tuple[int, ...]) -> Any:
    """A derivative of shape ``out + of`` from batches of columns (each of shape ``out``, one
    per element of the input, in order)."""
    from ..ops.shapes import concatenate, reshape, transpose

    whole = batches[0] if len(batches) == 1 else concatenate(*batches, axis=0)
    if out:  # the batch's axis, first, goes after the output's
        whole = transpose(whole, axes=(*range(1, len(out) + 1), 0))
    return reshape(whole, shape=(*out, *of))
