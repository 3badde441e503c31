"""Modules that hold modules, as PyTorch's: ``Sequential`` (applied one after the other),
``ModuleList`` and ``ModuleDict`` (held, by position or by name). What they hold is named as
PyTorch names it, by position (``0.weight``) or by key (``encoder.weight``).

>>> import topograd as tg
>>> heads = ModuleDict({"a": tg.nn.Linear(2, 1), "b": tg.nn.Linear(2, 3)})
>>> blocks = ModuleList([tg.nn.Linear(2, 2)]).append(tg.nn.ReLU())
>>> list(heads.state_dict())[:2], len(blocks), list(blocks.state_dict())
(['a.weight', 'a.bias'], 2, ['0.weight', '0.bias'])
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .module import Module


def _shown(name: str, module: Any) -> str:
    """A held module's line in its holder's repr, its own lines indented, as PyTorch's."""
    return f"\n  ({name}): " + repr(module).replace("\n", "\n  ")


def _checked_module(module: Any, holder: str) -> Any:
    if not isinstance(module, Module):
        raise TypeError(f"{holder} holds modules, not {type(module).__name__}")
    return module


def _checked_name(name: Any) -> str:
    """A key of a ``ModuleDict``, refused as PyTorch refuses it."""
    if not isinstance(name, str):
        raise TypeError(f"module name should be a string. Got {type(name).__name__}")
    if "." in name or not name:
        raise KeyError(f'module name can\'t contain ".", got: {name}' if name else "empty name")
    return name


class Sequential(Module):
    """The modules applied one after the other, named by position (``0.weight``), or by the
    keys of an ``OrderedDict`` given alone (also attributes: ``model.encoder``), as PyTorch's.
    Index it (``model[0]``; a slice is a Sequential keeping the names), iterate over it or take
    its length.

    >>> from collections import OrderedDict
    >>> import topograd as tg
    >>> model = Sequential(OrderedDict(hidden=tg.nn.Linear(2, 3), act=tg.nn.ReLU()))
    >>> type(model.act).__name__, list(model[:1].state_dict())
    ('ReLU', ['hidden.weight', 'hidden.bias'])
    """

    def __init__(self, *modules: Any) -> None:
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            self._modules: dict[str, Any] = {_checked_name(k): m for k, m in modules[0].items()}
        else:
            self._modules = {str(i): m for i, m in enumerate(modules)}

    def forward(self, input: Any) -> Any:  # noqa: A002 - PyTorch's names
        out = input
        for module in self._modules.values():
            out = module(out)
        return out

    def named_children(self) -> Iterator[tuple[str, Any]]:
        """The modules by name, in order: ``0``, ``1``... or the keys given."""
        yield from self._modules.items()

    def __getattr__(self, name: str) -> Any:
        """A module by the name it was given (only asked where no attribute has that name)."""
        held = vars(self).get("_modules", {})
        if name in held:
            return held[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __getitem__(self, index: int | slice) -> Any:
        """The module at ``index``; a slice is a Sequential of those modules, their names
        kept (as PyTorch's)."""
        if isinstance(index, slice):
            return Sequential(OrderedDict(list(self._modules.items())[index]))
        return self._modules[self._key(index)]

    def __setitem__(self, index: int, module: Any) -> None:
        self._modules[self._key(index)] = module

    def __delitem__(self, index: int) -> None:
        del self._modules[self._key(index)]

    def _key(self, index: int) -> str:
        keys = list(self._modules)
        if not -len(keys) <= index < len(keys):
            raise IndexError(f"index {index} is out of range")
        return keys[index]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._modules.values()))

    def append(self, module: Any) -> Sequential:
        """``module`` added at the end (named by its position); the Sequential itself."""
        self._modules[str(len(self._modules))] = module
        return self

    def __repr__(self) -> str:
        inner = "".join(_shown(name, m) for name, m in self._modules.items())
        return f"Sequential({inner}\n)"


class ModuleList(Module):
    """Modules held by position, as PyTorch's: indexed (a slice is a ModuleList), iterated,
    ``append``, ``extend``, ``insert``; their parameters named ``0.weight``, ``1.weight``..."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        self._list: list[Module] = []
        self.extend(modules or [])

    def named_children(self) -> Iterator[tuple[str, Any]]:
        """The modules by position: ``0``, ``1``..."""
        for i, module in enumerate(self._list):
            yield str(i), module

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return ModuleList(self._list[index])
        return self._list[self._index(index)]

    def __setitem__(self, index: int, module: Module) -> None:
        self._list[self._index(index)] = _checked_module(module, "ModuleList")

    def __delitem__(self, index: int | slice) -> None:
        del self._list[index if isinstance(index, slice) else self._index(index)]

    def _index(self, index: int) -> int:
        if not -len(self._list) <= index < len(self._list):
            raise IndexError(f"index {index} is out of range")
        return index

    def __len__(self) -> int:
        return len(self._list)

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._list))

    def append(self, module: Module) -> ModuleList:
        """``module`` added at the end; the ModuleList itself."""
        self._list.append(_checked_module(module, "ModuleList"))
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Each of ``modules`` added at the end; the ModuleList itself."""
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        """``module`` put before position ``index`` (those after it move up one)."""
        self._list.insert(index, _checked_module(module, "ModuleList"))

    def __repr__(self) -> str:
        inner = "".join(_shown(str(i), m) for i, m in enumerate(self._list))
        return f"ModuleList({inner}\n)" if inner else "ModuleList()"


class ModuleDict(Module):
    """Modules held by name (in the order they were put in), as PyTorch's: ``d[name]``,
    ``in``, ``len``, iteration over the names, ``keys``, ``values``, ``items``, ``update``,
    ``pop``, ``clear``; their parameters named ``name.weight``."""

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        self._dict: dict[str, Module] = {}
        if modules is not None:
            self.update(modules)

    def named_children(self) -> Iterator[tuple[str, Any]]:
        """The modules by name, in the order they were put in."""
        yield from self._dict.items()

    def __getitem__(self, key: str) -> Any:
        return self._dict[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self._dict[_checked_name(key)] = _checked_module(module, "ModuleDict")

    def __delitem__(self, key: str) -> None:
        del self._dict[key]

    def __contains__(self, key: object) -> bool:
        return key in self._dict

    def __len__(self) -> int:
        return len(self._dict)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._dict))

    def keys(self) -> list[str]:
        return list(self._dict)

    def values(self) -> list[Module]:
        return list(self._dict.values())

    def items(self) -> list[tuple[str, Module]]:
        return list(self._dict.items())

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        """The modules of a mapping, or of (name, module) pairs, put in by name."""
        pairs = modules.items() if isinstance(modules, Mapping) else modules
        for key, module in pairs:
            self[key] = module

    def pop(self, key: str) -> Module:
        """The module named ``key``, taken out."""
        return self._dict.pop(key)

    def clear(self) -> None:
        self._dict.clear()

    def __repr__(self) -> str:
        inner = "".join(_shown(name, m) for name, m in self._dict.items())
        return f"ModuleDict({inner}\n)" if inner else "ModuleDict()"
