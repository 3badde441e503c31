"""Contractions of Tensors in PyTorch's spelling: ``einsum``, ``outer`` and ``tensordot``, each
the registry's ``einsum`` (whose gradient is einsum again).

>>> import topograd as tg
>>> a, b = tg.Tensor([[1.0, 2.0], [3.0, 4.0]]), tg.Tensor([1.0, -1.0])
>>> tg.einsum("ij,j->i", a, b).tolist(), tg.einsum("ii", a).item()
([-1.0, -1.0], 5.0)
>>> tg.outer(b, b).tolist(), tg.tensordot(a, a, dims=([1], [0])).tolist()
([[1.0, -1.0], [-1.0, 1.0]], [[7.0, 10.0], [15.0, 22.0]])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from numpy.lib.array_utils import normalize_axis_index

from ..autograd.errors import RuntimeValueError
from ..ops import einsum as entry
from .tensor import Operand, Tensor, as_tensor


def einsum(equation: str, *operands: Any) -> Tensor:
    """Σ of products named by subscripts, as torch.einsum: ``einsum("bij,bjk->bik", x, y)``;
    ``...`` for any leading axes, an implicit output (no ``->``), a letter repeated within an
    operand (its diagonal: ``"ii->i"``, the trace ``"ii"``), operands given as a list too."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    tensors = [as_tensor(x) for x in operands]
    letters, out = entry.equation_of(equation, [t.ndim for t in tensors])
    for k, own in enumerate(letters):
        tensors[k], letters[k] = _diagonals(tensors[k], own)
    _check_sizes(equation, tensors, letters)
    return entry.einsum(*tensors, equation=f"{','.join(letters)}->{out}")  # type: ignore[no-any-return]


def _diagonals(x: Tensor, own: str) -> tuple[Tensor, str]:
    """``x`` with each letter it repeats taken once, by its diagonal (which goes last)."""
    while len(set(own)) < len(own):
        letter = next(c for c in own if own.count(c) > 1)
        first = own.index(letter)
        second = own.index(letter, first + 1)
        if x.shape[first] != x.shape[second]:
            raise RuntimeValueError(
                f"einsum(): {letter!r} names axes of {x.shape[first]} and {x.shape[second]}"
            )
        x = x.diagonal(0, first, second)
        own = own[:first] + own[first + 1 : second] + own[second + 1 :] + letter
    return x, own


def _check_sizes(equation: str, tensors: Sequence[Tensor], letters: Sequence[str]) -> None:
    """Every letter names axes of one length (or 1, which broadcasts), as PyTorch requires."""
    sizes: dict[str, int] = {}
    for t, own in zip(tensors, letters):
        for c, n in zip(own, t.shape):
            if n != 1 and sizes.setdefault(c, n) != n:
                raise RuntimeValueError(
                    f"einsum(): {c!r} in {equation!r} names axes of {sizes[c]} and {n}"
                )


def outer(x: Operand, y: Operand) -> Tensor:
    """The outer product of two vectors: out[i, j] = x[i] y[j], as torch.outer."""
    a, b = as_tensor(x), as_tensor(y)
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeValueError(f"outer() takes two vectors, got {a.ndim}-d and {b.ndim}-d")
    return entry.einsum(a, b, equation="i,j->ij")  # type: ignore[no-any-return]


def tensordot(x: Operand, y: Operand, dims: Any = 2) -> Tensor:
    """x and y contracted over ``dims``: the last n axes of x with the first n of y (an int), or
    the axes listed for each (``([1, 0], [0, 1])``, each from -ndim to ndim - 1, none twice),
    as torch.tensordot."""
    a, b = as_tensor(x), as_tensor(y)
    pairs = _pairs(dims, a.ndim, b.ndim)
    for i, j in pairs:
        if a.shape[i] != b.shape[j]:
            raise RuntimeValueError(
                f"tensordot(): axis {i} of x ({a.shape[i]}) and {j} of y ({b.shape[j]})"
            )
    if a.ndim + b.ndim - len(pairs) > len(entry.ORDER):  # more axes than letters
        return _by_matmul(a, b, pairs)
    names = iter(entry.ORDER)
    ours = [next(names) for _ in range(a.ndim)]
    theirs = [""] * b.ndim
    for i, j in pairs:
        theirs[j] = ours[i]
    theirs = [c or next(names) for c in theirs]
    contracted = {ours[i] for i, _ in pairs}
    out = [c for c in ours if c not in contracted] + [c for c in theirs if c not in contracted]
    equation = f"{''.join(ours)},{''.join(theirs)}->{''.join(out)}"
    return entry.einsum(a, b, equation=equation)  # type: ignore[no-any-return]


def _pairs(dims: Any, ndim_a: int, ndim_b: int) -> list[tuple[int, int]]:
    """The axes ``dims`` contracts, as (axis of x, axis of y) pairs, each in 0..ndim-1."""
    if isinstance(dims, int):
        if not 0 <= dims <= min(ndim_a, ndim_b):
            raise RuntimeValueError(
                f"tensordot(): dims={dims} for {ndim_a}-d and {ndim_b}-d Tensors"
            )
        return list(zip(range(ndim_a - dims, ndim_a), range(dims)))
    first, second = (list(map(int, d)) if isinstance(d, Sequence) else [int(d)] for d in dims)
    if len(first) != len(second):
        raise RuntimeValueError(f"tensordot(): {len(first)} axes of x against {len(second)} of y")
    pairs = [
        (normalize_axis_index(i, ndim_a), normalize_axis_index(j, ndim_b))
        for i, j in zip(first, second)
    ]
    for which, axes in (("x", [i for i, _ in pairs]), ("y", [j for _, j in pairs])):
        if len(set(axes)) < len(axes):
            repeated = next(n for n in axes if axes.count(n) > 1)
            raise RuntimeValueError(f"tensordot(): axis {repeated} of {which} is contracted twice")
    return pairs


def _by_matmul(a: Tensor, b: Tensor, pairs: list[tuple[int, int]]) -> Tensor:
    """tensordot as one matrix product, for more axes than einsum has letters: each operand's
    axes moved (kept ones and contracted ones apart) and flattened to a matrix."""
    ours, theirs = [i for i, _ in pairs], [j for _, j in pairs]
    free_a = [k for k in range(a.ndim) if k not in ours]
    free_b = [k for k in range(b.ndim) if k not in theirs]
    rows, inner, columns = (
        math.prod(shape[k] for k in axes)
        for shape, axes in ((a.shape, free_a), (a.shape, ours), (b.shape, free_b))
    )
    left = a.permute(*free_a, *ours).reshape(rows, inner)
    right = b.permute(*theirs, *free_b).reshape(inner, columns)
    product = entry.einsum(left, right, equation="ij,jk->ik")
    return product.reshape(*(a.shape[k] for k in free_a), *(b.shape[k] for k in free_b))  # type: ignore[no-any-return]
