"""Arguments and results as trees, as ``torch.func`` takes them: a tuple, list or dict (nested
any deep) of numbers, Values, arrays or Tensors. ``flatten`` lists the leaves in order and
gives a ``Tree`` that builds the same structure around any other leaves.

>>> leaves, tree = flatten({"w": (1.0, 2.0), "b": [3.0]})
>>> leaves
[1.0, 2.0, 3.0]
>>> tree.build([10.0, 20.0, 30.0])
{'w': (10.0, 20.0), 'b': [30.0]}
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any


class Tree:
    """The structure of a tree without its leaves: a leaf, or a container of subtrees."""

    __slots__ = ("children", "keys", "made", "size")

    def __init__(self, made: type | None, children: Sequence[Tree] = (), keys: Sequence[Any] = ()):
        self.made = made  # tuple, list, dict (or a tuple's subclass); None for a leaf
        self.children = tuple(children)
        self.keys = tuple(keys)  # a dict's, in order
        self.size: int = 1 if made is None else sum(c.size for c in self.children)  # leaves

    @property
    def is_leaf(self) -> bool:
        return self.made is None

    def build(self, leaves: Sequence[Any]) -> Any:
        """This structure around ``leaves`` (as many as it has, in order)."""
        if len(leaves) != self.size:
            raise ValueError(f"a tree of {self.size} leaves, given {len(leaves)}")
        return self._build(iter(leaves))

    def _build(self, leaves: Iterator[Any]) -> Any:
        if self.made is None:
            return next(leaves)
        parts = [child._build(leaves) for child in self.children]
        if self.made is dict:
            return dict(zip(self.keys, parts))
        if self.made is list or self.made is tuple:
            return self.made(parts)
        return self.made(*parts)  # a named tuple

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tree):
            return NotImplemented
        return (self.made, self.keys, self.children) == (other.made, other.keys, other.children)

    def __hash__(self) -> int:
        return hash((self.made, self.keys, self.children))

    def describe(self) -> str:
        """The structure, with * for each leaf: (*, [*, *])."""
        if self.made is None:
            return "*"
        inner = [c.describe() for c in self.children]
        if self.made is dict:
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(self.keys, inner)) + "}"
        if self.made is list:
            return "[" + ", ".join(inner) + "]"
        return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"


LEAF = Tree(None)


def flatten(x: Any) -> tuple[list[Any], Tree]:
    """The leaves of ``x`` in order (depth first; a dict's in its order), and its structure."""
    leaves: list[Any] = []
    return leaves, _flatten(x, leaves)


def _flatten(x: Any, leaves: list[Any]) -> Tree:
    if isinstance(x, dict):
        keys = list(x)
        return Tree(dict, [_flatten(x[k], leaves) for k in keys], keys)
    if isinstance(x, (tuple, list)):
        made = type(x) if type(x) in (tuple, list) or hasattr(x, "_fields") else tuple
        return Tree(made, [_flatten(item, leaves) for item in x])
    leaves.append(x)
    return LEAF
