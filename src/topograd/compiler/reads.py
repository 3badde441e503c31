"""Where a function reads state from outside its arguments, found in its code.

A trace keeps what the function read: a number from a closure becomes a constant of the code, a
flag the branch it took, a Value from a dict one of the code's inputs. ``tg.compile`` checks
these again on every call (``outside.py``), so it must know where they come from. Each is a
``Source``: a *root* (a closure cell, a name in a module's globals, or an object the compiled
callable is bound to) and the *steps* the code takes from it, attribute and item reads with
constant names and keys: ``state["w"]``, ``cfg.scale``, ``tg.nn.hinge``. ``chains`` finds them
in a code object's bytecode, nested code (lambdas, comprehensions) included; ``functions_of``
says which code a value leads to (a helper function, a method of the user's class), whose own
reads are found in turn.

Only the user's code is read so: a function or class of topograd, of the standard library or
of an installed package (site-packages) reads nothing the user changes between calls, and is
taken as it is.

>>> state = {"w": 2.0}
>>> f = lambda x: x * state["w"]
>>> [(source.where, str(source)) for source in sources_of(f)]
[('global', "state['w']")]
"""

from __future__ import annotations

import dis
import functools
import os
import site
import sys
import sysconfig
import types
from collections.abc import Callable, Iterator
from typing import Any

Step = tuple[bool, Any]  # (True, name): an attribute; (False, key): an item

ROOTS = {"LOAD_GLOBAL": "global", "LOAD_DEREF": "cell", "LOAD_CLASSDEREF": "cell"}
# a write is a read too: the replay would not make it, so a trace that makes one is refused
WRITES = {"STORE_GLOBAL": "global", "DELETE_GLOBAL": "global", "STORE_DEREF": "cell"}
ATTRIBUTES = {"LOAD_ATTR", "LOAD_METHOD"}
CONSTANTS = {"LOAD_CONST", "LOAD_SMALL_INT"}
SKIPPED = {"EXTENDED_ARG", "CACHE", "NOP"}
KEYS = (str, int, bytes, bool, type(None))  # an item's constant key, read again as it is


class Unread:
    """What a source gave where reading it failed (a missing key, an unbound cell): equal to
    another failure of the same kind, so that a read that keeps failing is not a change."""

    __slots__ = ("kind",)

    def __init__(self, kind: type) -> None:
        self.kind = kind

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unread) and other.kind is self.kind

    def __hash__(self) -> int:
        return hash(self.kind)

    def __repr__(self) -> str:
        return f"<unread: {self.kind.__name__}>"


ABSENT = Unread(KeyError)  # a global the module does not define (a builtin): one object


class Source:
    """A value the code reads from outside its arguments: ``read()`` reads it again now."""

    __slots__ = ("name", "root", "steps", "where")

    def __init__(self, where: str, root: Any, name: str, steps: tuple[Step, ...]) -> None:
        self.where = where  # "cell" (root: the cell), "global" (root: the globals), "held"
        self.root = root
        self.name = name
        self.steps = steps

    def read(self) -> Any:
        try:
            if self.where == "cell":
                x = self.root.cell_contents
            elif self.where == "global":
                x = self.root.get(self.name, ABSENT)
                if x is ABSENT:  # a builtin (len, sum), read from the module's globals first
                    return x
            else:
                x = self.root
            for attribute, step in self.steps:
                x = getattr(x, step) if attribute else x[step]
        except Exception as error:  # a read that fails now: a state of its own
            return Unread(type(error))
        return x

    def __str__(self) -> str:
        text = self.name
        for attribute, step in self.steps:
            text += f".{step}" if attribute else f"[{step!r}]"
        return text


def chains(code: types.CodeType) -> Iterator[tuple[str, str, tuple[Step, ...]]]:
    """The reads in ``code`` that start at a global or a closure variable: (root kind, name,
    steps). A chain ends at the first instruction that is not a constant attribute or item
    read, or where a jump lands (another path joins it there). A name written is read."""
    instructions = [i for i in dis.get_instructions(code) if i.opname not in SKIPPED]
    k = 0
    while k < len(instructions):
        root = instructions[k]
        k += 1
        where = ROOTS.get(root.opname)
        if where is None:
            if root.opname in WRITES:
                yield WRITES[root.opname], root.argval, ()
            continue
        steps: list[Step] = []
        while k < len(instructions) and not instructions[k].is_jump_target:
            step = instructions[k]
            if step.opname in ATTRIBUTES:
                steps.append((True, step.argval))
                k += 1
            elif (
                step.opname in CONSTANTS
                and type(step.argval) in KEYS
                and _subscript(instructions, k + 1)
            ):
                steps.append((False, step.argval))
                k += 2
            else:
                break
        yield where, root.argval, tuple(steps)


def _subscript(instructions: list[dis.Instruction], k: int) -> bool:
    if k >= len(instructions) or instructions[k].is_jump_target:
        return False
    step = instructions[k]
    return step.opname == "BINARY_SUBSCR" or (step.opname == "BINARY_OP" and step.argrepr == "[]")


def sources_of(fn: types.FunctionType | Callable[..., Any]) -> Iterator[Source]:
    """The sources a function's code reads (its nested code's included): its globals, its
    closure cells (a nested function's too, where they are the function's own: the others
    are its locals), and its defaults."""
    function: Any = fn
    code = function.__code__
    cells = dict(zip(code.co_freevars, function.__closure__ or ()))
    pending: list[tuple[types.CodeType, dict[str, Any]]] = [(code, cells)]
    while pending:
        code, cells = pending.pop()
        for where, name, steps in chains(code):
            if where == "global":
                yield Source(where, function.__globals__, name, steps)
            elif name in cells:
                yield Source(where, cells[name], name, steps)
        inner = {n: c for n, c in cells.items() if n not in code.co_cellvars}
        for const in code.co_consts:
            if isinstance(const, types.CodeType):
                pending.append((const, {n: inner[n] for n in const.co_freevars if n in inner}))
    if function.__defaults__ or function.__kwdefaults__:
        name = getattr(function, "__qualname__", "function")
        yield Source("held", function, name, ((True, "__defaults__"),))
        yield Source("held", function, name, ((True, "__kwdefaults__"),))


def _library_folders() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    found = [paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths]
    found += [*site.getsitepackages(), site.getusersitepackages()]
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # topograd's own
    return tuple(os.path.join(os.path.realpath(f), "") for f in [*found, here])


LIBRARIES = _library_folders()


@functools.lru_cache(maxsize=4096)
def is_users_file(filename: str) -> bool:
    """Whether code from ``filename`` is the user's: not topograd's, the standard library's
    or an installed package's. A file that is not one (``<stdin>``, a notebook's cell) is."""
    if filename.startswith("<") or not os.path.isabs(filename):
        return not filename.startswith("<frozen")
    return not os.path.realpath(filename).startswith(LIBRARIES)


def is_users_class(kind: type) -> bool:
    """Whether ``kind`` is a class of the user's code (see ``is_users_file``); kept per class."""
    found = _USERS.get(kind)
    if found is None:
        found = _USERS[kind] = _is_users_class(kind)
    return found


_USERS: dict[type, bool] = {}


def _is_users_class(kind: type) -> bool:
    if not isinstance(kind.__module__, str):
        return False
    if kind.__module__ == "__main__":  # a script's, a notebook's (its __main__ a launcher's)
        return True
    module = sys.modules.get(kind.__module__)
    filename = getattr(module, "__file__", None)
    return bool(filename) and is_users_file(filename)


def functions_of(x: Any) -> list[Any]:
    """The user's functions that ``x`` leads to, whose reads count too: a function itself, a
    bound method's, those of a class of the user's (an object's class included), and the one
    a decorator wraps (``functools.wraps``, ``lru_cache``: its ``__wrapped__``)."""
    wrapped = x
    for _ in range(8):  # a chain of decorators, followed a little way
        wrapped = getattr(wrapped, "__wrapped__", None)
        if isinstance(wrapped, types.FunctionType):
            return [*functions_of(wrapped), *_own_functions(x)]
    return _own_functions(x)


def _own_functions(x: Any) -> list[Any]:
    if isinstance(x, types.FunctionType):
        return [x] if is_users_file(x.__code__.co_filename) else []
    if isinstance(x, types.MethodType):
        return functions_of(x.__func__) + functions_of(x.__self__)
    kind = x if isinstance(x, type) else type(x)
    if isinstance(x, types.ModuleType) or not is_users_class(kind):
        return []
    found: list[Any] = []
    for cls in kind.__mro__:
        if not is_users_class(cls):
            continue
        for member in vars(cls).values():
            member = getattr(member, "__func__", member)  # a static or class method
            if isinstance(member, property):
                found += [f for f in (member.fget, member.fset) if f is not None]
            elif isinstance(member, types.FunctionType):
                found.append(member)
    return found
