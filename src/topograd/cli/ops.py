"""``topograd ops``: the registry of ops, as a table of text or as the docs' Markdown page
(``docs/ops.md`` is this command's output, checked by a test, never edited by hand)."""

from __future__ import annotations

import argparse
import math
from typing import Any

from ..autograd.registry import OPS, VARIADIC, Difference, Op
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


DIFFERS = """
## Where topograd differs from PyTorch

topograd's answers equal PyTorch 2.13's in float64 (the tests compare every op of both kinds,
at random points, at the special points above and at the edges of the floats, for upstream
gradients 1, -1, ±0, ±inf, nan, 1e-310 and 1e308, first and second order): to the bit, the
sign of a zero and nan with nan where the formula is PyTorch's, and within 1e-12 where only
the rounding of the same maths differs (libm's, NumPy's and PyTorch's functions; a sum added
in another order). Where they differ otherwise, it is on purpose or out of reach, and listed
here; a test pins each row on both sides. "d/d1" is the first input's gradient, "d2" a second
derivative, "all" every result; "anywhere" means wherever the reason holds, the point being
an example. The upstream gradient is 1 unless given.

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
    parts.append(DIFFERS)
    parts += ["| op | where | what | topograd | PyTorch | why |\n", "|---|---|---|---|---|---|\n"]
    for op in _built_in():
        for d in op.differs:
            parts.append(
                f"| `{op.name}` | {_where(d)} | {d.what or 'all'} | {_number(d.ours)} | "
                f"{_number(d.theirs)} | {_cell(d.why)} |\n"
            )
    return "".join(parts)


def _where(d: Difference) -> str:
    """Where a difference shows, in words: its point, form and upstream gradient."""
    words = [f"at ({', '.join(_number(x) for x in d.point)})" if d.point else "its cases"]
    if d.form:
        shown = {"x": "a node", "c": "a number"}
        words.append("with " + " and ".join(shown[c] for c in d.form))
    if d.upstream is not None:
        words.append(f"upstream {_number(d.upstream)}")
    if d.through:
        words.append(f"its input made by `{d.through}`")
    if d.anywhere:
        words.append("(anywhere)")
    return ", ".join(words)
