"""``Module``: something with parameters, of either data kind, that finds them itself.

Parameters and sub-modules assigned as attributes, or held in lists, tuples and dicts, are found
by ``named_parameters()`` without any code of the subclass, named as PyTorch names them
(``layers.0.weight``) and in PyTorch's order (a module's own parameters, then its buffers, then
its sub-modules'); a parameter is a leaf Value, a Tensor that requires a gradient, or a
``tg.nn.Parameter`` (even one frozen with ``requires_grad=False``, as PyTorch counts it).
Buffers (``register_buffer``: a BatchNorm's running statistics) are state that is not learnt:
``state_dict``, ``save`` and ``load`` keep them with the parameters (``state.py``).
``train()`` and ``eval()`` set ``training`` on the module and every sub-module.

>>> import topograd as tg
>>> class TwoLayers(Module):
...     def __init__(self):
...         self.first = tg.nn.MLP(2, [3], seed=0)
...         self.heads = [tg.Value(0.5), tg.Value(-0.5)]
>>> [name for name, _ in TwoLayers().named_parameters()][:3]  # its own first, as PyTorch's
['heads.0', 'heads.1', 'first.layers.0.neurons.0.w.0']
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
from . import state_checks as checks
from .placement import Placement

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


class Module(Placement):
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
        return self._cast("float64", "double")

    def float(self) -> Self:
        """Every float parameter and buffer in float32, in place (as PyTorch's)."""
        return self._cast("float32", "float")

    def to(self, *args: Any, dtype: Any = None, device: Any = None, **flags: Any) -> Self:
        """PyTorch's ``to(device, dtype)``, ``to(dtype)`` or ``to(tensor)``: every float
        parameter and buffer cast to a float dtype, in place; the device is the CPU, the only
        one topograd runs on (another is refused, as a Tensor's ``to`` refuses it).

        >>> import topograd as tg
        >>> tg.nn.Linear(2, 1).to("cpu", tg.float64).weight.dtype
        topograd.float64
        """
        from ..tensors import dtypes
        from ..tensors.devices import device_index
        from ..tensors.pointwise import cast_arguments

        unknown = set(flags) - {"non_blocking", "memory_format"}
        if unknown:
            raise TypeError(f"to() got an unexpected keyword argument {sorted(unknown)[0]!r}")
        dtype, device, _ = cast_arguments(args, dtype, device)
        if device is not None:
            device_index(device)
        if dtype is None:
            return self
        found = dtypes.as_dtype(dtype)
        if not found.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got {found}")
        return self._cast(found.name, "to")

    def requires_grad_(self, requires_grad: bool = True) -> Self:
        """Every parameter made to want a gradient (or frozen, ``False``), as PyTorch's; a
        Value always wants one, and is refused.

        >>> import topograd as tg
        >>> tg.nn.Linear(2, 1).requires_grad_(False).weight.requires_grad
        False
        """
        found = self.parameters()
        fixed = [p for p in found if not hasattr(p, "requires_grad_")]
        if fixed:
            raise TypeError(f"requires_grad_: a {type(fixed[0]).__name__} always wants a gradient")
        for p in found:
            p.requires_grad_(requires_grad)
        return self

    def _cast(self, dtype: str, by: str) -> Self:
        found = [t for _, t in [*self.named_parameters(), *self.named_buffers()]]
        numbers = [checks.numbers_of(t) for t in found]  # (a Value's number: no dtype)
        cast = [
            (t, n)
            for t, n in zip(found, numbers)
            if hasattr(n, "dtype") and n.dtype.kind == "f" and n.dtype != dtype
        ]
        for t, n in cast:
            t.data = n.astype(dtype)
        wrote([t for t, _ in cast], f"{type(self).__name__}.{by}")
        return self

    def zero_grad(self) -> None:
        """0.0 for a scalar's gradient, None for an array's (as PyTorch)."""
        zero_grad(self.parameters())

    def state_dict(self, *, prefix: str = "", keep_vars: bool = False) -> dict[str, Any]:
        """Every parameter's and persistent buffer's value by name (``prefix`` before each),
        as PyTorch's: a Tensor detached, sharing its numbers with the parameter (a write to
        one is a write to the other; ``keep_vars=True``: the parameters themselves), a Value's
        number. A parameter held in two places (a tied weight) is there under both names.

        >>> import topograd as tg
        >>> state = tg.nn.Linear(2, 1).state_dict()
        >>> [(k, tuple(v.shape), v.dtype, v.requires_grad) for k, v in state.items()]
        [('weight', (1, 2), topograd.float32, False), ('bias', (1,), topograd.float32, False)]
        """
        state = checks.state_of(dict(_walk(self, STATE, named=True)), keep_vars)
        return {prefix + name: value for name, value in state.items()}

    def load_state_dict(self, state: Mapping[str, object], strict: bool = True) -> Any:
        """Set every parameter and buffer from ``state`` (Tensors, arrays, PyTorch's tensors,
        anything ``np.asarray`` takes), all of it checked before anything changes, and written
        into the parameters' own numbers, as PyTorch's ``copy_``; as PyTorch's, a RuntimeError
        for a missing or unexpected name unless ``strict=False``, and the names that did not
        match, ``(missing_keys, unexpected_keys)``. A tied weight takes the value of its last
        name.

        >>> import topograd as tg
        >>> tg.nn.Linear(2, 1).load_state_dict({"weight": tg.ones(1, 2)}, strict=False)
        IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])
        """
        named = dict(_walk(self, STATE, named=True))
        values, keys = checks.checked_state(type(self).__name__, named, state, strict)
        for name, value in values.items():
            checks.assign(named[name], value)
        written = {id(named[name]): named[name] for name in values}
        wrote(written.values(), f"{type(self).__name__}.load_state_dict")
        return keys

    def save(self, path: str | Path) -> None:
        """Write the state, in the format of the file's name: ``.safetensors`` (PyTorch's
        ``safetensors.torch.load_file`` reads it), ``.npz``, or else JSON (readable, exact to
        the last bit); whole or not at all."""
        saved.save(path, repr(self), self.state_dict())

    def load(self, path: str | Path) -> None:
        """Read a state written by ``save`` (or a safetensors file of PyTorch's same model); a
        file of the wrong names or shapes, or a corrupt or hostile one, is refused with a
        ValueError naming it and the reason, and the model is left as it was."""
        named = dict(_walk(self, STATE, named=True))
        shapes = {n: tuple(getattr(p, "shape", ())) for n, p in named.items()}
        try:
            self.load_state_dict(saved.load(path, shapes, type(self).__name__))
        except checks.StateError as error:  # in one line, naming the file
            raise checks.StateError(f"{path}: {error.summary}", error.summary) from None
        except ValueError as error:  # every refusal names the file
            message = str(error)
            raise ValueError(message if str(path) in message else f"{path}: {message}") from None


def _walk(module: Module, what: str, named: bool) -> Iterator[tuple[str, Any]]:
    """(name, parameter or buffer) in PyTorch's order; names only where asked (a training step
    asks for the parameters alone, twice)."""
    walk = _Walk(what, named)
    walk.visit("", module)
    return iter(walk.found)


class _Walk:
    """One walk of a module, gathering its parameters, buffers or state (``what``) in PyTorch's
    order: a module's own parameters (and lists of parameters, as micrograd's ``Neuron.w``),
    then its own buffers, then its sub-modules', each group in the order it was assigned. The
    parameters and the buffers come each once (PyTorch's ``remove_duplicate``); the state keeps
    every name, so a weight tied to two modules is saved under both, as PyTorch saves it."""

    def __init__(self, what: str, named: bool) -> None:
        self.what, self.named, self.unique = what, named, what != STATE
        self.seen: set[int] = set()  # what a walk that gives each once has given or entered
        self.path: set[int] = set()  # the holders being entered: a cycle is not followed
        self.found: list[tuple[str, Any]] = []

    def name(self, prefix: str, name: str) -> str:
        if not self.named:
            return ""
        return f"{prefix}.{name}" if prefix else name

    def give(self, name: str, value: Any) -> None:
        if self.unique:
            if id(value) in self.seen:
                return
            self.seen.add(id(value))
        self.found.append((name, value))

    def visit(self, prefix: str, holder: Any) -> None:
        """The parameters and buffers inside ``holder`` (a module, list, tuple or dict)."""
        key = id(holder)
        if key in self.path or (self.unique and key in self.seen):
            return
        self.seen.add(key)
        self.path.add(key)
        if isinstance(holder, Module):
            self.module(prefix, holder)
        else:
            self.items(prefix, _contents(holder))
        self.path.discard(key)

    def items(self, prefix: str, items: list[tuple[str, Any]]) -> None:
        for name, x in items:
            if is_parameter(x):
                if self.what != BUFFERS:
                    self.give(self.name(prefix, name), x)
            elif isinstance(x, HOLDERS):
                self.visit(self.name(prefix, name), x)

    def module(self, prefix: str, module: Module) -> None:
        registered: dict[str, bool] = vars(module).get("_buffers", {})
        own: list[tuple[str, Any]] = []
        inner: list[tuple[str, Any]] = []
        for name, x in module.named_children():
            if name in registered:
                continue
            if is_parameter(x):
                own.append((name, x))
            elif isinstance(x, Module):
                inner.append((name, x))
            elif isinstance(x, CONTAINERS):
                (inner if _holds_module(x, set()) else own).append((name, x))
        self.items(prefix, own)
        for name, persistent in registered.items():
            buffer = vars(module).get(name)
            wanted = self.what == BUFFERS or (self.what == STATE and persistent)
            if wanted and buffer is not None:
                self.give(self.name(prefix, name), buffer)
        self.items(prefix, inner)


CONTAINERS = (list, tuple, dict)
HOLDERS = (Module, *CONTAINERS)  # what may hold parameters


def _holds_module(holder: Any, seen: set[int]) -> bool:
    """Whether a list, tuple or dict holds a module, at any depth (then it counts among a
    module's sub-modules, after its own parameters; else among its own parameters)."""
    if id(holder) in seen:
        return False
    seen.add(id(holder))
    for x in holder.values() if isinstance(holder, dict) else holder:
        if isinstance(x, Module) or (isinstance(x, CONTAINERS) and _holds_module(x, seen)):
            return True
    return False


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
            if not (isinstance(holder, Module) and name in vars(holder).get("_buffers", {}))
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
