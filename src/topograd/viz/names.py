"""Names for the values a graph computes but nobody named, given as the lesson gives them.

The lesson writes ``d = a*b; n = d + c; e = tanh(n)``: the output is ``e``, a function's
operand (tanh's net input) is ``n``, and the other values take letters in forward order,
``d, f, g, h, ...``. A letter the graph already uses is skipped, so the names stay unique;
when the letters run out they come again with a number (``d2, f2, ...``). Leaves keep what
they are: a labelled leaf is an input, an unlabelled one a constant.

>>> import topograd as tg
>>> a, b, c = (tg.Value(v, label=k) for k, v in (("a", 2.0), ("b", -3.0), ("c", 10.0)))
>>> e = (a * b + c).tanh()
>>> sorted(lesson_names(e).values())
['d', 'e', 'n']
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..autograd.engine import topological_order
from ..autograd.registry import OPS
from ..scalar.value import Value

OUTPUT = "e"
FUNCTION_OPERAND = "n"
LETTERS = "dfghkmpqrsuvwyz"  # e and n have their roles; i, j, l, o, t read as other things


def lesson_names(
    output: Value, graph: Mapping[Value, tuple[Value, ...]] | None = None
) -> dict[Value, str]:
    """A name for each operation of ``output``'s graph that has no label, by the lesson's
    roles; labelled values and leaves are left out. ``graph`` is ``viz.graph.walk(output)``
    (every node in forward order, with its operands) where the caller has it."""
    if graph is None:
        graph = {v: v.parents for v in topological_order([output], lambda v: v.parents)}
    order = list(graph)
    taken = {v.label for v in order if v.label}
    fed_to_function = {p for v in order if _is_function(v) for p in graph[v]}
    letters, operands = _fresh(LETTERS, taken), _fresh(FUNCTION_OPERAND, taken)
    names: dict[Value, str] = {}
    if not output.label and output.op and OUTPUT not in taken:
        names[output] = OUTPUT
        taken.add(OUTPUT)
    for v in order:
        if v.label or not v.op or v in names:
            continue
        names[v] = next(operands if v in fed_to_function else letters)
    return names


def _is_function(v: Value) -> bool:
    op = OPS.get(v.op)
    return op is not None and op.function


def _fresh(letters: str, taken: set[str]) -> Iterator[str]:
    """The letters, then again with 2, 3, ...; each name not in ``taken`` (which grows with
    every name given, so that two sequences never give the same one)."""
    round_ = 1
    while True:
        for letter in letters:
            name = letter if round_ == 1 else f"{letter}{round_}"
            if name not in taken:
                taken.add(name)
                yield name
        round_ += 1
