"""``topograd ops``: the registry of ops, as a table of text or as the docs' Markdown page
(``docs/ops.md`` is this command's output, checked by a test, never edited by hand)."""

from __future__ import annotations

import argparse
import math
from typing import Any

from ..autograd.registry import OPS, VARIADIC, Op
from ..expr import functions
from ..ops import FAMILIES

HEADER = """# The ops

Every op topograd knows, from its registry (`topograd/ops/`, one family per file). Each row is
one entry: its name (the `.op` of its results), the data kinds it runs on, its value, its
derivative as its rule computes it, and PyTorch's spelling, the reference of the tests. A
function of one number is a method of both kinds and a function of typed expressions.

This page is the output of `topograd ops --markdown`; a test checks that it is up to date.

"""

SPECIAL = """
## Special points

Where a rule follows a convention (kinks, singular points, overflow), the registry lists the
points and what PyTorch 2.13 gives there in float64; `topograd check` and the tests check
every one, on every kind, to the bit and the sign of zero. Contributions are for an upstream
gradient of 1.

"""


def add(commands: Any) -> None:
    ops = commands.add_parser(
        "ops",
        help="list every op: its kinds, value, derivative and PyTorch's spelling",
        description="List every op of the registry: the kinds it runs on, its value, its "
        "derivative, and PyTorch's spelling; --markdown prints the docs' page.",
    )
    ops.add_argument("--markdown", action="store_true", help="print docs/ops.md")
    ops.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    print(markdown() if args.markdown else table(), end="")
    return 0


def _built_in() -> list[Op]:
    """The built-in ops, family by family, each family in the order of its file."""
    order = {family.__name__: k for k, family in enumerate(FAMILIES)}
    ops = [op for op in OPS.values() if not op.custom]
    return sorted(ops, key=lambda op: order.get(getattr(op.rule, "__module__", ""), len(order)))


def _arity(op: Op) -> str:
    return "n" if op.arity == VARIADIC else str(op.arity)


def table() -> str:
    """The registry as aligned text, one op a line."""
    rows = [("op", "kinds", "inputs", "value", "derivative")]
    rows += [
        (op.name, " ".join(op.kinds), _arity(op), op.maths, op.derivative) for op in _built_in()
    ]
    widths = [max(len(r[c]) for r in rows) for c in range(4)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r[:4], widths)) + "  " + r[4] for r in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _number(x: Any) -> str:
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(_number(v) for v in x) + "]"
    if isinstance(x, float) and math.isnan(x):
        return "nan"
    return repr(x)


def markdown() -> str:
    """docs/ops.md: every op, then every special point."""
    parts = [
        HEADER,
        "| op | kinds | inputs | value | derivative | PyTorch |\n",
        "|---|---|---|---|---|---|\n",
    ]
    for op in _built_in():
        name = f"`{op.name}`" + (f" (`{op.symbol}`)" if op.symbol else "")
        parts.append(
            f"| {name} | {', '.join(op.kinds)} | {_arity(op)} | {_cell(op.maths)} | "
            f"{_cell(op.derivative)} | `{op.torch}` |\n"
        )
    parts.append(f"\nFunctions of typed expressions: {', '.join(functions())}.\n")
    parts.append(SPECIAL)
    parts += ["| op | at | value | contributions |\n", "|---|---|---|---|\n"]
    for op in _built_in():
        for xs, value, partials in op.special:
            at = ", ".join(_number(x) for x in xs)
            parts.append(f"| `{op.name}` | ({at}) | {_number(value)} | {_number(partials)} |\n")
    return "".join(parts)
