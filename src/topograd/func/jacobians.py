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
    """Reverse mode: a backward pass per element of each output (for a Value, one)."""
    table: Table = {}
    for i, o in enumerate(outs):
        if kind_of(o) is None:  # a constant: no input changes it
            for j, t in enumerate(targets):
                table[i, j] = calling.zeros(shape(o) + shape(t), t)
        elif calling.tensors:
            batches = [
                engine_grad(
                    o,
                    targets,
                    seeds,
                    create_graph=calling.keep,
                    is_grads_batched=True,
                    materialize_grads=True,
                )
                for seeds in units(o, chunk)
            ]
            for j, t in enumerate(targets):
                table[i, j] = rows([b[j] for b in batches], shape(o), shape(t))
        else:
            found = engine_grad(o, targets, create_graph=calling.keep, materialize_grads=True)
            table.update({(i, j): g for j, g in enumerate(found)})
    return table


def by_columns(
    outs: Sequence[Any], targets: Sequence[Any], calling: Calling, chunk: int | None
) -> Table:
    """Forward mode: a forward pass per element of each argument (for a Value, one)."""
    table: Table = {}
    nodes = [o for o in outs if kind_of(o) is not None]
    for j, t in enumerate(targets):
        if not calling.tensors:
            found = forward_tangents(nodes, {t: 1.0}, calling.keep)
            for i, o in enumerate(outs):
                table[i, j] = found.get(o, 0.0) if kind_of(o) is not None else 0.0
            continue
        seeds = units(t, chunk)
        passes = [forward_tangents(nodes, {t: s}, calling.keep, s.shape[:1]) for s in seeds]
        for i, o in enumerate(outs):
            pieces = []
            for found, s in zip(passes, seeds):
                tangent = found.get(o) if kind_of(o) is not None else None
                if tangent is None:  # the output does not depend on the argument
                    tangent = calling.zeros((len(s), *shape(o)), t)
                pieces.append(tangent)
            table[i, j] = columns(pieces, shape(o), shape(t))
    return table


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
