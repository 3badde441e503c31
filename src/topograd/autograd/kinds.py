"""Data kinds: what the engine and the checks need to know of a kind of node.

topograd has two kinds, scalar ``Value``s (standard library) and NumPy ``Tensor``s. Neither is
imported here: each kind registers itself when its module is imported, so this layer stays
below both, and ``import topograd`` loads NumPy only when a Tensor is first used.

A kind also says how an op of the registry runs on its data: an op record called on Values
records a Value node, on ndarrays it runs its NumPy kernel, on Tensors it records a Tensor
node. Python numbers need no kind: an op runs its float function on them.

>>> import topograd as tg
>>> kind_of(tg.Value(1.0)).name, kind_of(2.0)
('scalar', None)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol


class Kind(Protocol):
    """A data kind, as the engine, the checks and the drawings see it.

    ``op``/``operands``/``params`` tell how a node was made; ``inputs`` are the operands
    gradients flow to; ``vjp`` gives one contribution per input, ``jvp`` the node's tangent
    (forward mode) from theirs; the rest is bookkeeping of
    ``.grad`` and seeds. ``apply`` runs an op of the registry on arguments of this kind.
    """

    name: str
    rank: int  # where kinds meet in one call, the higher rank wins (Tensor over ndarray)

    def apply(self, op: Any, args: tuple[Any, ...], params: dict[str, Any]) -> Any: ...

    def op(self, node: Any) -> Any: ...  # the Op that made the node; None for a leaf

    def operands(self, node: Any) -> tuple[Any, ...]: ...  # as recorded, numbers included

    def params(self, node: Any) -> dict[str, Any]: ...

    def inputs(self, node: Any) -> Sequence[Any]: ...

    # ``batch``: the leading axes of a batch of gradients (or tangents) run at once, () if none;
    # ``wanted``: per input, whether its contribution is needed (None: all are)
    def vjp(
        self,
        node: Any,
        grad: Any,
        create_graph: bool,
        batch: tuple[int, ...] = (),
        wanted: Sequence[bool] | None = None,
    ) -> Sequence[Any]: ...

    # forward mode: the node's tangent from its inputs' (one per input, None: none; None: 0),
    # where the node's rule runs forward as it is (``pointwise``); for any other node forward
    # mode takes the transpose of its vjp, recorded on a stand-in cotangent (``cotangent_leaf``)
    def jvp(
        self, node: Any, tangents: Sequence[Any], create_graph: bool, batch: tuple[int, ...] = ()
    ) -> Any: ...

    def pointwise(self, node: Any) -> bool: ...

    def cotangent_leaf(self, node: Any) -> Any: ...  # zeros in the node's shape, a leaf

    def accumulate(self, node: Any, grad: Any) -> None: ...

    def forget(self, node: Any) -> None: ...  # zero_grad: 0.0 for a Value, None for a Tensor

    def gradient(self, node: Any) -> Any: ...  # .grad's numbers, or None where none reached it

    # what an optimizer moves: an object whose ``.data`` is the node's numbers (a Value itself;
    # for a Tensor its array, written in place by ``data -= ...``, and the same array as
    # ``.array``, into which the optimizer writes a ``.data`` that an update rebinds)
    def moved(self, node: Any) -> Any: ...

    # whether grad() asks for a graph where it differentiates and refuses an unused input, as
    # PyTorch's autograd.grad (Tensors), or gives zeros (Values, as micrograd's users expect)
    strict: bool

    def requires_grad(self, node: Any) -> bool: ...  # a Value always; a Tensor as it says

    # None: d node / d node; ``batched``: a batch of gradients along a new first axis; ``keep``
    # (create_graph): a node given stays one, in the node's dtype (PyTorch's validate_outputs)
    def seed(self, node: Any, gradient: Any, batched: bool = False, keep: bool = False) -> Any: ...

    def as_grad(
        self, node: Any, grad: Any, create_graph: bool, batch: tuple[int, ...] = ()
    ) -> Any: ...

    def has_nan(self, node: Any, grad: Any) -> bool: ...

    def created_at(self, node: Any) -> str | None: ...  # anomaly mode: where user code made it

    def ieee(self) -> AbstractContextManager[Any]: ...  # arithmetic without warnings, IEEE results

    # Writes in place (versions.py): stamp a written node; refuse, before a backward, a node
    # with an input written after it was made; in anomaly mode, one whose saved data changed.
    def written(self, node: Any, count: int) -> None: ...

    def check_versions(self, order: Sequence[Any]) -> None: ...

    def check_saved(self, node: Any) -> None: ...


class ArrayKind(Protocol):
    """Raw data that ops run on without recording (NumPy arrays): only ``apply``."""

    name: str
    rank: int

    def apply(self, op: Any, args: tuple[Any, ...], params: dict[str, Any]) -> Any: ...


# Explicit registrations, and the kind found for every type seen so far (by its classes).
_REGISTERED: dict[type, tuple[Kind | ArrayKind, bool]] = {}  # type -> (kind, is a node)
_NUMBERS: dict[type, tuple[Kind | ArrayKind, bool] | None] = {float: None, int: None, bool: None}
_FOUND: dict[type, tuple[Kind | ArrayKind, bool] | None] = dict(_NUMBERS)
# top-level package of a type -> the module whose import registers its kind (NumPy's arrays
# -> the Tensor kind): an op given an ndarray before any Tensor was made still finds its kind
_LOADERS: dict[str, str] = {}


def load_kind_on_sight(package: str, module: str) -> None:
    """Import ``module`` the first time an op meets a type of ``package`` with no kind yet."""
    _LOADERS[package] = module


# A kind's own backward for the plain case (no graph recorded, nothing captured or observed):
# (roots, seeds, the kind's check_versions). The engine's walk, written out for one kind.
PlainBackward = Callable[[Sequence[Any], Sequence[Any], Callable[[Sequence[Any]], None]], None]
_PLAIN: dict[int, PlainBackward] = {}  # id(kind) -> its plain backward


def register_kind(kind: Kind, node_type: type, plain: PlainBackward | None = None) -> None:
    """Make ``node_type`` a node of ``kind``: the engine backpropagates through it (by
    ``plain``, where given, when it records no graph and captures nothing: it must give the
    engine's gradients to the bit)."""
    _register(node_type, kind, True)
    if plain is not None:
        _PLAIN[id(kind)] = plain


def plain_backward_of(kind: Kind) -> PlainBackward | None:
    """The kind's own plain backward, if it registered one."""
    return _PLAIN.get(id(kind))


def register_array(kind: ArrayKind, *types: type) -> None:
    """Let ops run on raw data of these types (and their subclasses) through ``kind.apply``."""
    for t in types:
        _register(t, kind, False)


def _register(t: type, kind: Kind | ArrayKind, is_node: bool) -> None:
    _REGISTERED[t] = (kind, is_node)
    _FOUND.clear()  # a subclass may now find another kind
    _FOUND.update(_NUMBERS)


def _find(t: type) -> tuple[Kind | ArrayKind, bool] | None:
    entry = next((_REGISTERED[b] for b in t.__mro__ if b in _REGISTERED), None)
    loader = _LOADERS.pop(t.__module__.partition(".")[0], None)
    if entry is None and loader is not None:
        importlib.import_module(loader)  # registers the kind (and clears _FOUND)
        return _find(t)
    _FOUND[t] = entry
    return entry


def kind_of(x: object) -> Kind | None:
    """The node kind of ``x`` (a Value, a Tensor, a subclass), or None for anything else."""
    t = type(x)
    entry = _FOUND[t] if t in _FOUND else _find(t)
    return entry[0] if entry is not None and entry[1] else None  # type: ignore[return-value]


def dispatch(args: Sequence[Any]) -> Kind | ArrayKind | None:
    """The kind an op runs in for these arguments: the highest-ranked one among them, or None
    where all are plain numbers."""
    chosen: Kind | ArrayKind | None = None
    for a in args:
        t = type(a)
        entry = _FOUND[t] if t in _FOUND else _find(t)
        if entry is not None and (chosen is None or entry[0].rank > chosen.rank):
            chosen = entry[0]
    return chosen
