"""Finding the loops in a traced graph: the same ops, run again and again on other numbers.

A training step's graph repeats itself: the loss of a batch is a sum over samples of one
computation on each. Written out, every sample costs its own lines (micrograd's demo step,
70,000 of them: seconds to compile); rolled into a loop, one body serves them all. A *run* is
a sequence of *units* of nodes that the code can compute in a loop:

- the operands of one node, each with the nodes only it leads to (``total`` over the samples'
  losses: ``tg.nn.hinge``, ``tg.sum``): a *sibling* run;
- a chain of one op, each link adding one operand and the nodes only it leads to (Python's
  ``sum()`` over the samples' losses: ``0 + l1 + l2 + ...``): a *spine* run, the chain's value
  carried from one unit to the next.

"The nodes only it leads to" are those the unit's root post-dominates: every path from them to
the output passes through it. A unit may read nodes outside it (the weights) and constants
(the samples' numbers, kept per unit in a table). Units of a run are *alike*: the same ops in
the same order on the same outside nodes, only the constants differ. So a loop runs exactly the
statements the unrolled code would, in the same order, and the floats are the same. Units
also follow one another in the engine's order, so the backward loop visits them as the engine
does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..scalar.kind import SCALAR
from ..scalar.value import Value, operands_of

MIN_UNITS = 3  # fewer are written out


class Run:
    """Units (forward order, each its nodes in forward order) computed in one loop; for a
    sibling run ``hub`` is the node whose operands ``first:first + len(units)`` are the units'
    roots, for a spine run ``hub`` is None and each unit's root is a link of the chain, whose
    operand ``carry`` is the previous link. ``rows``: each unit's constants, in the order the
    body reads them."""

    def __init__(self, units: list[list[Value]], hub: Value | None, first: int, carry: int):
        self.units = units
        self.hub = hub
        self.first = first
        self.carry = carry
        self.rows: list[tuple[Any, ...]] = []

    @property
    def roots(self) -> list[Value]:
        return [unit[-1] for unit in self.units]


def find_runs(
    order: Sequence[Value], fixed: set[int], is_number: Callable[[Any], bool]
) -> list[Run]:
    """The runs of ``order`` (the engine's forward order), none overlapping, none holding a
    node of ``fixed`` (a guard reads it). ``is_number``: the trace's, a number written into
    the code as it is (a constant, a leaf the function made)."""
    nodes = [n for n in order if SCALAR.inputs(n)]
    at = {id(n): i for i, n in enumerate(nodes)}
    users: dict[int, list[Value]] = {id(n): [] for n in nodes}
    numbers: set[int] = set()
    for n in nodes:
        for x in SCALAR.inputs(n):
            if id(x) in users:
                users[id(x)].append(n)
            elif is_number(x):
                numbers.add(id(x))
    below = _post_dominated(nodes, users)
    found: list[Run] = []
    taken: set[int] = set()
    candidates = [*_siblings(nodes, users, below, at), *_spines(nodes, users, below, at)]
    candidates.sort(key=lambda run: -sum(map(len, run.units)))
    for run in candidates:
        ids = {id(n) for unit in run.units for n in unit}
        if ids & taken or (run.hub is not None and id(run.hub) in taken):
            continue
        split = _alike(run, fixed, numbers)
        for part in split:
            found.append(part)
            taken |= {id(n) for unit in part.units for n in unit}
    return found


def _post_dominated(nodes: list[Value], users: dict[int, list[Value]]) -> dict[int, list[Value]]:
    """Per node, the nodes it immediately post-dominates (its children in the tree whose root
    is the output): each node's parent is the nearest node common to all its users' paths."""
    parent: dict[int, Value | None] = {}
    depth: dict[int, int] = {}
    children: dict[int, list[Value]] = {id(n): [] for n in nodes}
    for n in reversed(nodes):
        up: Value | None = None
        for i, u in enumerate(users[id(n)]):
            up = u if i == 0 else _meeting(up, u, parent, depth)
        parent[id(n)] = up
        depth[id(n)] = 0 if up is None else depth[id(up)] + 1
        if up is not None:
            children[id(up)].append(n)
    return children


def _meeting(
    a: Value | None, b: Value, parent: dict[int, Value | None], depth: dict[int, int]
) -> Value | None:
    while a is not None and b is not None and a is not b:
        if depth[id(a)] >= depth[id(b)]:
            a = parent[id(a)]
        else:
            b = parent[id(b)]  # type: ignore[assignment]
    return a if a is b else None


def _region(root: Value, below: dict[int, list[Value]], at: dict[int, int]) -> list[Value]:
    """``root`` and every node it post-dominates, in forward order."""
    found = [root]
    stack = [root]
    while stack:
        for child in below[id(stack.pop())]:
            found.append(child)
            stack.append(child)
    return sorted(found, key=lambda n: at[id(n)])


def _contiguous(units: list[list[Value]], at: dict[int, int]) -> bool:
    """Each unit a block of the forward order, each right after the one before."""
    start = at[id(units[0][0])]
    for unit in units:
        if [at[id(n)] for n in unit] != list(range(start, start + len(unit))):
            return False
        start += len(unit)
    return True


def _siblings(
    nodes: list[Value],
    users: dict[int, list[Value]],
    below: dict[int, list[Value]],
    at: dict[int, int],
) -> list[Run]:
    runs = []
    sole_user = {k: found[0] for k, found in users.items() if len(found) == 1}
    for hub in nodes:
        operands = operands_of(hub)
        if len(operands) < MIN_UNITS:
            continue
        sole = [sole_user.get(id(x)) is hub for x in operands]
        i = 0
        while i < len(operands):
            j = i
            while j < len(operands) and sole[j]:
                j += 1
            if j - i >= MIN_UNITS:
                units = [_region(x, below, at) for x in operands[i:j]]
                if _contiguous(units, at):
                    runs.append(Run(units, hub, i, -1))
            i = j + 1
    return runs


def _spines(
    nodes: list[Value],
    users: dict[int, list[Value]],
    below: dict[int, list[Value]],
    at: dict[int, int],
) -> list[Run]:
    """Chains s1 -> s2 -> ... of one binary op, each link's first operand the link before
    (its only user), its second a node whose only user is the link."""

    def link(n: Value) -> Value | None:
        operands = operands_of(n)
        if len(operands) != 2 or not all(isinstance(x, Value) for x in operands):
            return None
        if any([id(u) for u in users.get(id(x), [])] != [id(n)] for x in operands):
            return None
        return operands[0] if SCALAR.op(operands[0]) is SCALAR.op(n) else None

    runs = []
    done: set[int] = set()
    for n in reversed(nodes):  # from the end of each chain
        if id(n) in done or link(n) is None:
            continue
        chain = [n]
        while (before := link(chain[-1])) is not None and link(before) is not None:
            chain.append(before)
        done |= {id(c) for c in chain}
        chain.reverse()
        if len(chain) >= MIN_UNITS:
            units = [[*_region(operands_of(c)[1], below, at), c] for c in chain]
            if _contiguous(units, at):
                runs.append(Run(units, None, 0, 0))
    return runs


def signature(
    unit: Sequence[Value], carry: int, fixed: set[int], numbers: set[int]
) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """What must be the same for two units to share a loop body: per node, its op and where
    each operand comes from (this unit, the previous link, a number, a node outside); and the
    unit's numbers, in that order. ``numbers``: the constant Values and the leaves made."""
    local = {id(n): i for i, n in enumerate(unit)}
    parts: list[Any] = []
    row: list[Any] = []
    last = len(unit) - 1
    for k, node in enumerate(unit):
        if id(node) in fixed:
            return ("fixed", id(node)), ()
        where: list[Any] = []
        for i, x in enumerate(operands_of(node)):
            if not isinstance(x, Value):
                where.append(type(x))
                row.append(x)
            elif k == last and i == carry:
                where.append("carry")
            elif id(x) in local:
                where.append(local[id(x)])
            elif id(x) in numbers:
                where.append("constant")
                row.append(x.data)
            else:
                where.append(id(x))
        parts.append((SCALAR.op(node), tuple(where)))
    return tuple(parts), tuple(row)


def _alike(run: Run, fixed: set[int], numbers: set[int]) -> list[Run]:
    """The longest stretches of units alike, as runs of their own."""
    found = [signature(u, run.carry, fixed, numbers) for u in run.units]
    marks = [mark for mark, _ in found]
    parts = []
    i = 0
    while i < len(marks):
        j = i
        while j < len(marks) and marks[j] == marks[i]:
            j += 1
        if j - i >= MIN_UNITS and marks[i][0] != "fixed":
            part = Run(run.units[i:j], run.hub, run.first + i, run.carry)
            part.rows = [row for _, row in found[i:j]]
            parts.append(part)
        i = j
    return parts
