"""How two runs of a program (``program_runs.py``'s records) differ: what one printed and
showed beside the other's, text for text and number for number.

Text must be the same, but for a few spellings of what is not a number (``SPELLINGS``: the
library's name in ``topograd.float64``, ...); whole numbers, booleans, strings, dtypes and
shapes must be equal; other numbers may differ by ``rtol`` times the scale of what they stand
beside: the largest number of the printed line, of the Tensor or of the list (so that a
coefficient that trains to about 0 beside coefficients of about 1 is held to their precision,
not to its own), plus half the last digit the program printed them with. ``worst`` is the
largest difference found beyond that half digit, relative to its scale.

>>> found = Differences(rtol=1e-5)
>>> found.text("loss 2.30260 after 3 steps", "loss 2.30261 after 3 steps", "cell 1")
>>> found.mismatches, f"{found.worst:.1e}"
([], '2.2e-06')
>>> found.text("step 3: 1.0", "step 4: 1.0", "cell 2")
>>> found.mismatches
['cell 2: printed 3 where PyTorch printed 4']
"""

from __future__ import annotations

import math
import re
from typing import Any

# Spellings that differ where the numbers do not, each made PyTorch's before comparing: the
# library's name (topograd.float64), a shape (topograd's is a tuple, PyTorch's a torch.Size),
# and the name of a node's backward (PyTorch's numbers its overloads: MaxBackward1 is max()
# of all elements, MaxBackward0 max along a dim; topograd's op is one).
SPELLINGS = (
    (re.compile(r"\btopograd\."), "torch."),
    (re.compile(r"torch\.Size\(\[(\d+)\]\)"), r"(\1,)"),
    (re.compile(r"torch\.Size\(\[([\d, ]*)\]\)"), r"(\1)"),
    (re.compile(r"grad_fn=<\w+>"), "grad_fn=<...>"),
)
# The least scale a number is held to: one that stands alone near 0 (a sum that cancels, as the
# gradients of a softmax's row) is rounding's noise below it
SMALLEST_SCALE = 1e-3
NUMBER = re.compile(
    r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?<![A-Za-z])(?:nan|inf)(?![A-Za-z])"
)


def printed_precision(text: str) -> float:
    """The unit of the last digit a number was printed with (0.0001 for "2.3026")."""
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** ((int(exponent) if exponent else 0) - decimals)


def is_whole(text: str) -> bool:
    return not any(c in text.lower() for c in ".ena")


class Differences:
    """The mismatches found between a PyTorch run and a topograd run, and the largest gap
    between their numbers, relative to its scale (``worst``)."""

    def __init__(self, rtol: float) -> None:
        self.rtol = rtol
        self.mismatches: list[str] = []
        self.worst = 0.0

    def number(self, mine: float, theirs: float, scale: float, slack: float, where: str) -> None:
        """Two floats, the second PyTorch's: equal within ``rtol * scale`` plus ``slack``."""
        if mine == theirs or (math.isnan(mine) and math.isnan(theirs)):
            return
        scale = max(scale, SMALLEST_SCALE)
        gap = abs(mine - theirs)
        if scale > 0 and math.isfinite(gap):
            self.worst = max(self.worst, max(gap - slack, 0.0) / scale)
        if not gap <= self.rtol * scale + slack:
            self.mismatches.append(f"{where}: {mine!r} where PyTorch gave {theirs!r}")

    def text(self, mine: str, theirs: str, where: str) -> None:
        """Two printed texts, line by line: the same words, and numbers within tolerance."""
        for spelling, spelt in SPELLINGS:
            mine, theirs = spelling.sub(spelt, mine), spelling.sub(spelt, theirs)
        mine_lines, their_lines = mine.splitlines(), theirs.splitlines()
        if len(mine_lines) != len(their_lines):
            self.mismatches.append(
                f"{where}: printed {len(mine_lines)} lines where PyTorch printed {len(their_lines)}"
            )
            return
        for a, b in zip(mine_lines, their_lines):
            self.line(a, b, where)

    def line(self, mine: str, theirs: str, where: str) -> None:
        if NUMBER.split(mine) != NUMBER.split(theirs):
            self.mismatches.append(f"{where}: printed {mine!r} where PyTorch printed {theirs!r}")
            return
        numbers = list(zip(NUMBER.findall(mine), NUMBER.findall(theirs)))
        floats = [abs(float(b)) for a, b in numbers if not is_whole(b)]
        scale = max([f for f in floats if math.isfinite(f)], default=0.0)
        for a, b in numbers:
            if is_whole(a) or is_whole(b):
                if a != b:
                    self.mismatches.append(f"{where}: printed {a} where PyTorch printed {b}")
                continue
            slack = min(printed_precision(a), printed_precision(b)) / 2
            self.number(
                float(a), float(b), max(scale, abs(float(b))), slack, f"{where}: {theirs!r}"
            )

    def value(self, mine: Any, theirs: Any, where: str) -> None:
        """Two recorded values (program_runs.encode's JSON), recursively."""
        if isinstance(theirs, dict) and "dtype" in theirs and "shape" in theirs:
            self.tensor(mine, theirs, where)
        elif isinstance(theirs, dict) and isinstance(mine, dict) and mine.keys() == theirs.keys():
            for key in theirs:
                self.value(mine[key], theirs[key], f"{where}.{key}")
        elif isinstance(theirs, list) and isinstance(mine, list) and len(mine) == len(theirs):
            self.sequence(mine, theirs, where)
        elif isinstance(theirs, float) and isinstance(mine, float):
            self.number(mine, theirs, abs(theirs), 0.0, where)
        elif mine != theirs or type(mine) is not type(theirs):
            self.mismatches.append(f"{where}: {_short(mine)} where PyTorch gave {_short(theirs)}")

    def sequence(self, mine: list[Any], theirs: list[Any], where: str) -> None:
        """A list: its floats held to the scale of its largest one, the rest item by item."""
        flat_mine, flat_theirs = _floats(mine), _floats(theirs)
        if flat_theirs is None or flat_mine is None or len(flat_mine) != len(flat_theirs):
            for i, (a, b) in enumerate(zip(mine, theirs)):
                self.value(a, b, f"{where}[{i}]")
            return
        scale = max([abs(x) for x in flat_theirs if math.isfinite(x)], default=0.0)
        for i, (a, b) in enumerate(zip(flat_mine, flat_theirs)):
            if isinstance(b, float) or isinstance(a, float):
                self.number(float(a), float(b), scale, 0.0, f"{where}[{i}]")
            elif a != b or type(a) is not type(b):
                self.mismatches.append(f"{where}[{i}]: {a!r} where PyTorch gave {b!r}")

    def tensor(self, mine: Any, theirs: dict[str, Any], where: str) -> None:
        if not isinstance(mine, dict) or "shape" not in mine:
            self.mismatches.append(f"{where}: {_short(mine)} where PyTorch gave a Tensor")
            return
        for key in ("dtype", "shape"):
            if mine[key] != theirs[key]:
                self.mismatches.append(
                    f"{where}: {key} {mine[key]} where PyTorch's is {theirs[key]}"
                )
                return
        for key in ("tensor", "head"):
            if key in theirs:
                self.sequence([mine.get(key)], [theirs[key]], where)
        if "sum" in theirs:
            self.number(mine["sum"], theirs["sum"], abs(theirs["sum"]), 0.0, f"{where} (sum)")


def _without(text: str, lines: re.Pattern[str] | None) -> str:
    if lines is None:
        return text
    return "".join(line for line in text.splitlines(keepends=True) if not lines.match(line))


def _short(x: Any) -> str:
    shown = repr(x)
    return shown if len(shown) <= 120 else shown[:117] + "..."


def _floats(items: Any) -> list[Any] | None:
    """The numbers of a nested list, flat (None if it holds anything else)."""
    flat: list[Any] = []
    stack = [items]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(reversed(item))
        elif isinstance(item, bool | int | float):
            flat.append(item)
        else:
            return None
    return flat


def compare(
    mine: dict[str, Any], theirs: dict[str, Any], rtol: float, apart: re.Pattern[str] | None = None
) -> Differences:
    """Every cell of a topograd run (``mine``) against the PyTorch run's; the printed lines
    that ``apart`` matches are left to a test of their own."""
    found = Differences(rtol)
    if len(mine["cells"]) != len(theirs["cells"]):
        found.mismatches.append(
            f"ran {len(mine['cells'])} cells where PyTorch ran {len(theirs['cells'])}"
        )
    for a, b in zip(mine["cells"], theirs["cells"]):
        where = f"the cell at line {b['line']}"
        found.text(_without(a["stdout"], apart), _without(b["stdout"], apart), where)
        found.value(a["value"], b["value"], f"{where}, its value")
        for expression, value in b["watch"].items():
            found.value(a["watch"].get(expression), value, f"{where}, {expression}")
    return found
