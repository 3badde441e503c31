"""``einsum``: sums of products named by subscripts (``"bij,bjk->bik"``), on Tensors.

The entry takes an equation in its plain form, one letter per axis and the output spelled out
(``equation_of`` writes any equation so: ``...`` as letters the equation leaves unused, an
implicit output made explicit). Letters are ``a-z`` and ``A-Z``, as in PyTorch. Its rule is
einsum again: each operand's gradient is the contraction of ``grad`` with the other operands
onto that operand's letters. A letter only one operand has, summed away (``"ij->i"``), gets the
gradient broadcast back along it, and so does an axis of length 1 that broadcast against a
longer one (``"ij,ij->"`` on (1, 3) and (4, 3)); a letter repeated within one operand (a
diagonal, ``"ii->i"``) is taken out before the entry by the Tensor function
(``Tensor.diagonal``).

>>> equation_of("ij,jk", [2, 2])
(['ij', 'jk'], 'ik')
>>> equation_of("...ij->...ji", [3])
(['Aij'], 'Aji')
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from typing import Any

from ..autograd.errors import RuntimeValueError
from ..autograd.registry import ANY, VARIADIC, Case, Difference, register
from .floats import INF, NAN
from .helpers import SUM_OF_ZEROS, SUM_OVERFLOW, shape_of
from .shapes import broadcast_to, reshape

# the letters of an equation, capitals first: the axes an ellipsis stands for take the first
# ones the equation leaves unused
ORDER = string.ascii_uppercase + string.ascii_lowercase
LETTERS = frozenset(ORDER)


def equation_of(subscripts: str, ndims: Sequence[int]) -> tuple[list[str], str]:
    """Each operand's letters and the output's, from an einsum equation for operands of
    ``ndims`` axes: spaces dropped, ``...`` replaced by letters the equation does not use
    (aligned on the right, as broadcasting is), an implicit output (no ``->``) made explicit as
    NumPy and PyTorch read it: the letters used once, in the order of their codes (capitals
    first), after the ellipsis's."""
    text = subscripts.replace(" ", "")
    inputs, arrow, out = text.partition("->")
    parts = inputs.split(",")
    if len(parts) != len(ndims):
        raise RuntimeValueError(
            f"einsum(): the equation names {len(parts)} operands, {len(ndims)} were given"
        )
    if (not arrow and "-" in text) or ">" in inputs or "-" in inputs:
        raise RuntimeValueError(f"einsum(): {subscripts!r} is not an equation ('ij,jk->ik')")
    spread = max(
        (n - len(p.replace("...", "")) for p, n in zip(parts, ndims) if "..." in p), default=0
    )
    spare = [c for c in ORDER if c not in text]
    if spread > len(spare):
        raise RuntimeValueError(
            f"einsum(): an ellipsis of {spread} axes is more than the {len(spare)} letters"
            f" {subscripts!r} leaves unused can name"
        )
    ellipsis = "".join(spare[:spread])
    letters = [_expanded(p, n, ellipsis, subscripts) for p, n in zip(parts, ndims)]
    if not arrow:
        counts = "".join(letters)
        out = ellipsis + "".join(
            sorted(c for c in set(counts) if c not in ellipsis and counts.count(c) == 1)
        )
    else:
        out = out.replace("...", ellipsis)
    _check_output(out, letters, subscripts)
    return letters, out


def _expanded(part: str, ndim: int, ellipsis: str, subscripts: str) -> str:
    """One operand's subscripts with its ellipsis as spare letters, checked against its axes."""
    if part.count("...") > 1 or "." in part.replace("...", ""):
        raise RuntimeValueError(
            f"einsum(): {subscripts!r} has a misplaced '.' (an ellipsis is '...')"
        )
    named = part.replace("...", "")
    if any(c not in LETTERS for c in named):
        raise RuntimeValueError(
            f"einsum(): subscripts are lowercase letters or capitals (a-z, A-Z), got {subscripts!r}"
        )
    if "..." in part:
        if ndim < len(named):
            raise RuntimeValueError(f"einsum(): {part!r} names more axes than the operand's {ndim}")
        return part.replace("...", ellipsis[len(ellipsis) - (ndim - len(named)) :])
    if len(named) != ndim:
        raise RuntimeValueError(
            f"einsum(): {part!r} names {len(named)} axes of an operand of {ndim}"
        )
    return named


def _check_output(out: str, letters: list[str], subscripts: str) -> None:
    if len(set(out)) != len(out):
        raise RuntimeValueError(f"einsum(): the output of {subscripts!r} repeats a letter")
    missing = [c for c in out if not any(c in s for s in letters)]
    if missing:
        raise RuntimeValueError(
            f"einsum(): output letter {missing[0]!r} of {subscripts!r} is in no operand"
        )


@register(
    "einsum",
    "Σ over the letters the output lacks of the products of the operands (np.einsum)",
    array="einsum",
    torch="torch.einsum",
    saves=None,
    arity=VARIADIC,
    domain=(ANY, ANY, ANY),  # for each operand of its cases
    takes_needs=True,
    cases=(
        Case(((2, 3), (3, 4)), {"equation": "ij,jk->ik"}),
        Case(((2, 2, 3), (2, 3, 4)), {"equation": "bij,bjk->bik"}),
        Case(((2, 3), (4, 3, 5), (2, 5)), {"equation": "bi,oij,bj->bo"}),
        Case(((2, 3, 4),), {"equation": "ijk->ki"}),
        Case(((2, 3),), {"equation": "ij->"}),
        Case(((3,), (4,)), {"equation": "i,j->ij"}),
        Case(((1, 3), (4, 3)), {"equation": "ij,ij->ij"}),
        Case(((1, 3), (4, 3)), {"equation": "ij,ij->"}),
        Case(((2, 1), (3, 4)), {"equation": "ij,jk->ik"}),
    ),
    differs=[
        Difference((), "", INF, NAN, SUM_OVERFLOW, anywhere=True, any_kind=True, kernel=True),
        Difference((), "", 0.0, -0.0, SUM_OF_ZEROS, anywhere=True, kernel=True),
    ],
    integers="same",
)
def einsum(grad: Any, *args: Any, equation: str, needs: tuple[bool, ...]) -> tuple[Any, ...]:
    """for each operand, grad contracted with the others onto its letters (broadcast along a
    letter it alone has, and along its axes that others of length 1 met)"""
    *operands, _ = args
    inputs, out = equation.split("->")
    letters = inputs.split(",")
    contributions: list[Any] = []
    for k, (x, own) in enumerate(zip(operands, letters, strict=True)):
        if not needs[k]:
            contributions.append(None)
            continue
        others = [s for j, s in enumerate(letters) if j != k]
        shared = set(out).union(*others)
        target = "".join(c for c in own if c in shared)
        terms = ",".join([out, *others])
        g = einsum(
            grad, *(y for j, y in enumerate(operands) if j != k), equation=f"{terms}->{target}"
        )
        contributions.append(_spread(g, target, own, shape_of(x)))
    return tuple(contributions)


def _spread(g: Any, target: str, own: str, shape: tuple[int, ...]) -> Any:
    """``g``, over the letters ``target``, broadcast back along the operand's axes it lacks: a
    letter summed away that only this operand has, and an axis of length 1 in the others that
    broadcast against this operand's longer one. (Where this operand's axis is the one of
    length 1, the engine sums ``g`` back to it.)"""
    sizes = dict(zip(target, shape_of(g), strict=True))
    kept = tuple(sizes.get(c, 1) for c in own)
    if target != own:
        g = reshape(g, shape=kept)
    wanted = tuple(n if k == 1 else k for k, n in zip(kept, shape, strict=True))
    return g if wanted == kept else broadcast_to(g, shape=wanted)
