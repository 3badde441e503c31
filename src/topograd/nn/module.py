"""``Module``: something with parameters, of either data kind, that finds them itself.

Parameters and sub-modules assigned as attributes, or held in lists, tuples and dicts, are found
by ``named_parameters()`` without any code of the subclass, named as PyTorch names them
(``layers.0.weight``); a parameter is a leaf Value, or a Tensor that requires a gradient.
``state_dict``, ``save`` and ``load`` keep them on disk (``state.py``).

>>> import topograd as tg
>>> class TwoLayers(Module):
...     def __init__(self):
...         self.first = tg.nn.MLP(2, [3], seed=0)
...         self.heads = [tg.Value(0.5), tg.Value(-0.5)]
>>> [name for name, _ in TwoLayers().named_parameters()][-3:]
['first.layers.0.neurons.2.b', 'heads.0', 'heads.1']
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..autograd.engine import zero_grad
from ..autograd.kinds import kind_of
from ..autograd.versions import wrote
from . import state as saved

if TYPE_CHECKING:
    from pathlib import Path


def is_parameter(x: object) -> bool:
    """A leaf of a graph that learns: a Value made by no op, a Tensor that requires a gradient."""
    kind = kind_of(x)
    return kind is not None and kind.op(x) is None and getattr(x, "requires_grad", True)


class Module:
    """Something with parameters: ``parameters()``, ``zero_grad()``, and its state."""

    def __call__(self, *args: Any) -> Any:
        """A module is called on its inputs (each module defines what it computes)."""
        raise NotImplementedError(f"{type(self).__name__} defines no __call__")

    def named_children(self) -> Iterator[tuple[str, Any]]:
        """Where parameters are looked for: every attribute, in the order it was assigned."""
        yield from vars(self).items()

    def named_parameters(self) -> Iterator[tuple[str, Any]]:
        """Every parameter by its dotted name, each once (a shared one under its first name)."""
        return _walk(self, named=True)

    def parameters(self) -> list[Any]:
        """Every parameter, in the order of ``named_parameters``."""
        return [p for _, p in _walk(self, named=False)]

    def zero_grad(self) -> None:
        """0.0 for a scalar's gradient, None for an array's (as PyTorch)."""
        zero_grad(self.parameters())

    def state_dict(self) -> dict[str, Any]:
        """Every parameter's value by name: a float, or a copy of an array."""
        return saved.state_of(dict(self.named_parameters()))

    def load_state_dict(self, state: Mapping[str, object]) -> None:
        """Set every parameter from ``state``; all of it is checked before anything changes."""
        named = dict(self.named_parameters())
        values = saved.checked_state(type(self).__name__, named, state)
        for name, p in named.items():
            p.data = values[name]
        wrote(named.values(), f"{type(self).__name__}.load_state_dict")

    def save(self, path: str | Path) -> None:
        """Write the state: JSON (readable, exact to the last bit), or ``.npz`` by its name."""
        saved.save(path, repr(self), self.state_dict())

    def load(self, path: str | Path) -> None:
        """Read a state written by ``save``; a file of the wrong shape or a corrupt one is
        refused with the reason, and the model is left as it was."""
        named = dict(self.named_parameters())
        shapes = {
            n: tuple(p.data.shape) if hasattr(p.data, "shape") else () for n, p in named.items()
        }
        try:
            self.load_state_dict(saved.load(path, shapes))
        except ValueError as error:  # every refusal names the file
            message = str(error)
            raise ValueError(message if str(path) in message else f"{path}: {message}") from None


def _walk(module: Module, named: bool) -> Iterator[tuple[str, Any]]:
    """(name, parameter) depth first in attribute order; names only where asked (a training
    step asks for the parameters alone, twice)."""
    seen: set[int] = set()
    stack: list[tuple[str, Any]] = [("", module)]
    while stack:
        prefix, holder = stack.pop()
        if id(holder) in seen:
            continue
        seen.add(id(holder))
        if is_parameter(holder):
            yield prefix, holder
            continue
        found = _contents(holder)
        if named:
            stack += [(f"{prefix}.{name}" if prefix else name, x) for name, x in reversed(found)]
        else:
            stack += [("", x) for _, x in reversed(found)]


def _contents(holder: object) -> list[tuple[str, Any]]:
    """What may hold parameters inside ``holder``, by name."""
    if isinstance(holder, Module):
        return list(holder.named_children())
    if isinstance(holder, (list, tuple)):
        return [(str(i), x) for i, x in enumerate(holder)]
    if isinstance(holder, dict):
        return [(str(k), x) for k, x in holder.items()]
    return []
