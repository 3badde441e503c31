"""How a loop's body names what it computes: its nodes u0, u1 ... (their gradients du0 ...),
the numbers that differ from one unit of the loop to the next k0, k1 ... (a row of the run's
table each time round), and ``carry``, the previous link of a chain.

>>> import topograd as tg
>>> w = tg.Value(2.0)
>>> unit = [w * 3.0]
>>> body = Body(unit, -1, lambda x: not isinstance(x, tg.Value))
>>> body.local[id(unit[0])], list(body.numbers.values()), body.row  # 3.0: a number
('u0', ['k0'], '(k0,)')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..scalar.value import Value, operands_of


class Body:
    """How a loop's body writes its nodes: u0, u1 ... (gradients du0 ...), the unit's numbers
    k0, k1 ... in the order its ops read them, and the previous link of a chain ``carry``."""

    def __init__(self, unit: list[Value], carry: int, is_number: Callable[[Any], bool]) -> None:
        self.unit = unit
        self.is_number = is_number  # the trace's: a number written into the code as it is
        self.local = {id(n): f"u{i}" for i, n in enumerate(unit)}
        self.carry = carry
        self.numbers: dict[tuple[int, int], str] = {}
        for node in unit:
            for i, x in enumerate(operands_of(node)):
                if not self.is_carry(node, i) and self.is_number(x):
                    self.numbers[(id(node), i)] = f"k{len(self.numbers)}"

    def is_carry(self, node: Value, i: int) -> bool:
        return node is self.unit[-1] and i == self.carry

    @property
    def saved(self) -> str:
        names = [*self.local.values(), *(["carry"] if self.carry >= 0 else [])]
        return f"({', '.join(names)},)"

    @property
    def row(self) -> str:
        return f"({', '.join(self.numbers.values())},)" if self.numbers else "_"
