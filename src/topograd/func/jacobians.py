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
from ..scalar.value import Value
from .arguments import Calling, shape
from .forward import tangents as forward_tangents

Table = dict[tuple[int, int], Any]  # (output, argument) -> derivative


def by_rows(
    outs: Sequence[Any], targets: Sequence[Any], calling: Calling, chunk: int | None
) -> Table:
    """Reverse mode: a backward pass per element of each output."""
    table: Table = {}
    for i, o in enumerate(outs):
        if kind_of(o) is None:  # a constant: no input changes it
            for j, t in enumerate(targets):
                table[i, j] = calling.zeros(shape(o) + shape(t))
        elif calling.tensors:
            batches = [
                engine_grad(o, targets, seeds, create_graph=calling.keep, is_grads_batched=True)
                for seeds in batched_basis(o, chunk)
            ]
            for j, t in enumerate(targets):
                table[i, j] = rows_of([b[j] for b in batches], shape(o), shape(t))
        else:
            passes = [engine_grad(o, targets, s, create_graph=calling.keep) for s in basis(o)]
            for j, t in enumerate(targets):
                table[i, j] = rows([p[j] for p in passes], shape(o), shape(t))
    return table


def by_columns(
    outs: Sequence[Any], targets: Sequence[Any], calling: Calling, chunk: int | None
) -> Table:
    """Forward mode: a forward pass per element of each argument."""
    table: Table = {}
    nodes = [o for o in outs if kind_of(o) is not None]
    for j, t in enumerate(targets):
        if calling.tensors:
            seeds = batched_basis(t, chunk)
            passes = [forward_tangents(nodes, {t: s}, calling.keep, s.shape[:1]) for s in seeds]
        else:
            seeds = basis(t)
            passes = [forward_tangents(nodes, {t: s}, calling.keep) for s in seeds]
        for i, o in enumerate(outs):
            pieces = []
            for found, s in zip(passes, seeds):
                tangent = found.get(o) if kind_of(o) is not None else None
                if tangent is None:  # the output does not depend on the argument
                    tangent = calling.zeros((*shape(s)[:1], *shape(o)) if calling.tensors else ())
                pieces.append(tangent)
            assemble = columns_of if calling.tensors else columns
            table[i, j] = assemble(pieces, shape(o), shape(t))
    return table


def basis(leaf: Any) -> list[Any]:
    """The seeds that pick out each element of ``leaf`` in turn: 1.0 for a Value, the unit
    arrays of its shape for a Tensor."""
    if isinstance(leaf, Value):
        return [1.0]
    import numpy as np

    size = leaf.data.size
    units = np.eye(size, dtype=leaf.dtype).reshape((size, *leaf.shape))
    return list(units)


def batched_basis(leaf: Any, chunk: int | None) -> list[Any]:
    """The unit arrays of a Tensor's shape as batches along a first axis, ``chunk`` at a time
    (None: all in one batch)."""
    import numpy as np

    size = leaf.data.size
    units = np.eye(size, dtype=leaf.dtype).reshape((size, *leaf.shape))
    step = size if chunk is None else chunk
    return [units[k : k + step] for k in range(0, size, step)] if size else [units]


def rows_of(batches: Sequence[Any], out: tuple[int, ...], of: tuple[int, ...]) -> Any:
    """A derivative of shape ``out + of`` from batches of rows (each row of shape ``of``, one
    per element of the output, in order)."""
    from ..ops.shapes import concatenate, reshape

    whole = batches[0] if len(batches) == 1 else concatenate(*batches, axis=0)
    return reshape(whole, shape=(*out, *of))


def columns_of(batches: Sequence[Any], out: tuple[int, ...], of: tuple[int, ...]) -> Any:
    """A derivative of shape ``out + of`` from batches of columns (each of shape ``out``, one
    per element of the input, in order)."""
    from ..ops.shapes import concatenate, reshape, transpose

    whole = batches[0] if len(batches) == 1 else concatenate(*batches, axis=0)
    if out:  # the batch's axis, first, goes after the output's
        whole = transpose(whole, axes=(*range(1, len(out) + 1), 0))
    return reshape(whole, shape=(*out, *of))


def rows(entries: Sequence[Any], out: tuple[int, ...], of: tuple[int, ...]) -> Any:
    """A derivative of shape ``out + of`` from the derivatives of each element of the output
    in turn (each of shape ``of``)."""
    if not out:
        return entries[0]
    from ..ops.shapes import reshape, stack

    return reshape(stack(*entries, axis=0), shape=(*out, *of))


def columns(entries: Sequence[Any], out: tuple[int, ...], of: tuple[int, ...]) -> Any:
    """A derivative of shape ``out + of`` from the derivatives by each element of the input
    in turn (each of shape ``out``)."""
    if not of:
        return entries[0]
    from ..ops.shapes import reshape, stack

    return reshape(stack(*entries, axis=len(out)), shape=(*out, *of))
