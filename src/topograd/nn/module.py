"""``Module``: something with parameters, of either data kind, that finds them itself.

Parameters and sub-modules assigned as attributes, or held in lists, tuples and dicts, are found
by ``named_parameters()`` without any code of the subclass, named as PyTorch names them
(``layers.0.weight``); a parameter is a leaf Value, a Tensor that requires a gradient, or a
``tg.nn.Parameter`` (even one frozen with ``requires_grad=False``, as PyTorch counts it).
Buffers (``register_buffer``: a BatchNorm's running statistics) are state that is not learnt:
``state_dict``, ``save`` and ``load`` keep them with the parameters (``state.py``).
``train()`` and ``eval()`` set ``training`` on the module and every sub-module.

>>> import topograd as tg
>>> class TwoLayers(Module):
...     def __init__(self):
...         self.first = tg.nn.MLP(2, [3], seed=0)
...         self.heads = [tg.Value(0.5), tg.Value(-0.5)]
>>> [name for name, _ in TwoLayers().named_parameters()][-3:]
['first.layers.0.neurons.2.b', 'heads.0', 'heads.1']
>>> TwoLayers().eval().first.training
False
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Self

from ..autograd.engine import zero_grad
from ..autograd.kinds import kind_of
from ..autograd.versions import wrote
from . import state as saved

if TYPE_CHECKING:
    from pathlib import Path

# What a walk of a module gives: its parameters, its buffers, or both as its saved state (the
# buffers registered as persistent only).
PARAMETERS, BUFFERS, STATE = "parameters", "buffers", "state"


def is_parameter(x: object) -> bool:
    """A leaf of a graph that learns: a Value made by no op, a Tensor that requires a gradient,
    or a ``Parameter`` (frozen or not)."""
    kind = kind_of(x)
    if kind is None or kind.op(x) is not None:
        return False
    return bool(getattr(x, "requires_grad", True) or getattr(x, "is_parameter", False))


class Module:
    """Something with parameters: ``parameters()``, ``zero_grad()``, ``train()``/``eval()``,
    and its state. A subclass computes in ``forward`` (PyTorch's way) or in ``__call__``."""

    training = True  # until train() or eval() says otherwise, as PyTorch's modules start

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """A module is called on its inputs: its ``forward``."""
        return self.forward(*args, **kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """What the module computes (each module defines it)."""
        raise NotImplementedError(f"{type(self).__name__} defines no forward")

    def named_children(self) -> Iterator[tuple[str, Any]]:
        """Where parameters are looked for: every attribute, in the order it was assigned."""
        yield from vars(self).items()

    def named_parameters(self) -> Iterator[tuple[str, Any]]:
        """Every parameter by its dotted name, each once (a shared one under its first name)."""
        return _walk(self, PARAMETERS, named=True)

    def parameters(self) -> list[Any]:
        """Every parameter, in the order of ``named_parameters``."""
        return [p for _, p in _walk(self, PARAMETERS, named=False)]

    def register_buffer(self, name: str, tensor: Any, persistent: bool = True) -> None:
        """Keep ``tensor`` (a Tensor, or None) as the attribute ``name``: state that is saved
        with the parameters (unless ``persistent=False``) but not learnt, as PyTorch's."""
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f'buffer name must be a non-empty string without ".", got {name!r}')
        if tensor is not None and kind_of(tensor) is None:
            raise TypeError(
                f"cannot assign {type(tensor).__name__} object to buffer {name!r} "
                "(a Tensor or None required)"
            )
        buffers = vars(self).setdefault("_buffers", {})
        buffers[name] = bool(persistent)
        setattr(self, name, tensor)

    def named_buffers(self) -> Iterator[tuple[str, Any]]:
        """Every buffer of this module and its sub-modules by its dotted name (None skipped)."""
        return _walk(self, BUFFERS, named=True)

    def buffers(self) -> list[Any]:
        """Every buffer, in the order of ``named_buffers``."""
        return [b for _, b in _walk(self, BUFFERS, named=False)]

    def named_modules(self) -> Iterator[tuple[str, Module]]:
        """This module (named "") and every sub-module by its dotted name, each once."""
        return _modules(self)

    def modules(self) -> Iterator[Module]:
        """This module and every sub-module, in the order of ``named_modules``."""
        return (m for _, m in _modules(self))

    def children(self) -> Iterator[Module]:
        """The sub-modules this module holds itself (in attributes, lists, dicts), each once."""
        seen: set[int] = set()
        stack = [x for _, x in reversed(list(self.named_children()))]
        while stack:
            holder = stack.pop()
            if id(holder) in seen:
                continue
            seen.add(id(holder))
            if isinstance(holder, Module):
                yield holder
            else:
                stack += [x for _, x in reversed(_contents(holder))]

    def apply(self, fn: Callable[[Module], Any]) -> Self:
        """``fn`` on every sub-module, then on this one (as PyTorch's, to initialise weights)."""
        for m in _after_their_insides(self):
            fn(m)
        return self

    def train(self, mode: bool = True) -> Self:
        """Training mode (``mode=True``) or evaluation mode, for this module and every
        sub-module: Dropout drops and BatchNorm uses the batch's statistics only in training."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for _, m in _modules(self):
            m.training = mode
        return self

    def eval(self) -> Self:
        """Evaluation mode: ``train(False)``."""
        return self.train(False)

    def double(self) -> Self:
        """Every float parameter and buffer in float64, in place (as PyTorch's)."""
        return self._cast("float64")

    def float(self) -> Self:
        """Every float parameter and buffer in float32, in place (as PyTorch's)."""
        return self._cast("float32")

    def _cast(self, dtype: str) -> Self:
        found = [t for _, t in [*self.named_parameters(), *self.named_buffers()]]
        kinds = [getattr(t.data, "dtype", None) for t in found]  # (a Value's number: None)
        cast = [t for t, k in zip(found, kinds) if k is not None and k.kind == "f" and k != dtype]
        for t in cast:
            t.data = t.data.astype(dtype)
        wrote(cast, f"{type(self).__name__}.{'double' if dtype == 'float64' else 'float'}")
        return self

    def zero_grad(self) -> None:
        """0.0 for a scalar's gradient, None for an array's (as PyTorch)."""
        zero_grad(self.parameters())

    def state_dict(self) -> dict[str, Any]:
        """Every parameter's and persistent buffer's value by name: a float, or a copy of an
        array."""
        return saved.state_of(dict(_walk(self, STATE, named=True)))

    def load_state_dict(self, state: Mapping[str, object]) -> None:
        """Set every parameter and buffer from ``state``; all of it is checked before anything
        changes."""
        named = dict(_walk(self, STATE, named=True))
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
        named = dict(_walk(self, STATE, named=True))
        shapes = {
            n: tuple(p.data.shape) if hasattr(p.data, "shape") else () for n, p in named.items()
        }
        try:
            self.load_state_dict(saved.load(path, shapes))
        except ValueError as error:  # every refusal names the file
            message = str(error)
            raise ValueError(message if str(path) in message else f"{path}: {message}") from None


def _walk(module: Module, what: str, named: bool) -> Iterator[tuple[str, Any]]:
    """(name, parameter or buffer) depth first in attribute order; names only where asked (a
    training step asks for the parameters alone, twice). A module's buffers are its attributes
    it registered, so a BatchNorm's state comes in PyTorch's order: weight, bias, running_mean,
    running_var, num_batches_tracked."""
    seen: set[int] = set()
    stack: list[tuple[str, Any, bool]] = [("", module, False)]  # (name, holder, is a buffer)
    while stack:
        prefix, holder, buffer = stack.pop()
        if id(holder) in seen:
            continue
        seen.add(id(holder))
        if buffer:
            yield prefix, holder
            continue
        if is_parameter(holder):
            if what != BUFFERS:
                yield prefix, holder
            continue
        found = []
        for name, x in reversed(_contents(holder)):
            kept = _buffer(holder, name, what)
            if kept is False or (kept and x is not None):
                found.append((f"{prefix}.{name}" if prefix and named else name, x, kept))
        stack += found if named else [("", x, kept) for _, x, kept in found]


def _buffer(holder: object, name: str, what: str) -> bool | None:
    """Whether ``holder.name`` is a buffer the walk gives (True), a buffer it skips (None), or
    not a buffer at all (False: look inside it for parameters)."""
    registered = vars(holder).get("_buffers", {}) if isinstance(holder, Module) else {}
    if name not in registered:
        return False
    wanted = what == BUFFERS or (what == STATE and registered[name])
    return True if wanted else None


def _modules(module: Module) -> Iterator[tuple[str, Module]]:
    """Every module inside ``module`` (itself first, named ""), depth first, each once."""
    seen: set[int] = set()
    stack: list[tuple[str, Any]] = [("", module)]
    while stack:
        prefix, holder = stack.pop()
        if id(holder) in seen or is_parameter(holder):
            continue
        seen.add(id(holder))
        if isinstance(holder, Module):
            yield prefix, holder
        stack += [
            (f"{prefix}.{name}" if prefix else name, x)
            for name, x in reversed(_contents(holder))
            if not (isinstance(holder, Module) and _buffer(holder, name, BUFFERS))
        ]


def _after_their_insides(module: Module) -> Iterator[Module]:
    """Every module inside ``module``, each after the modules inside it (``module`` last),
    siblings in attribute order, each once: the order of PyTorch's ``apply``."""
    seen: set[int] = {id(module)}
    stack: list[tuple[Any, bool]] = [(module, False)]  # (holder, its insides are done)
    while stack:
        holder, done = stack.pop()
        if done:
            if isinstance(holder, Module):
                yield holder
            continue
        stack.append((holder, True))
        for _, x in reversed(_contents(holder)):
            if id(x) not in seen and not is_parameter(x):
                seen.add(id(x))
                stack.append((x, False))


def _contents(holder: object) -> list[tuple[str, Any]]:
    """What may hold parameters inside ``holder``, by name."""
    if isinstance(holder, Module):
        return list(holder.named_children())
    if isinstance(holder, (list, tuple)):
        return [(str(i), x) for i, x in enumerate(holder)]
    if isinstance(holder, dict):
        return [(str(k), x) for k, x in holder.items()]
    return []
