"""The child process that runs a learner's code: it loads the learner's module (or is forked
with the class in hand), limits its own memory, runs the probes it was asked for and writes
one JSON line per event to the grader:

    {"loaded": "Value"}                       or  {"load_error": "...", "where": "..."}
    {"start": "op.mul"}
    {"done": "op.mul", "numbers": {...}}      or  {"done": "op.mul", "error": "...", "where": "..."}

What the learner's code prints goes to /dev/null; the grader's stream is a descriptor of its
own. ``python -m topograd.grading.child FILE CLASS MEMORY_MIB PROBE...`` (the grader starts it).
"""

from __future__ import annotations

import contextlib
import faulthandler
import importlib.machinery
import importlib.util
import inspect
import json
import os
import resource
import sys
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from .probes import PROBES

CLASS_METHODS = ("__add__", "__mul__", "backward")  # what a class needs to be taken for Value


def quiet() -> TextIO:
    """A stream for the grader on a copy of the standard output, which (with the standard
    error and input) then points at /dev/null, where the learner's prints go: the descriptors
    and Python's streams both (in a fork of a notebook's kernel, sys.stdout is the kernel's)."""
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - the child's streams, for its whole life
    sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115
    return channel


def limit_memory(mib: int) -> None:
    """At most ``mib`` MiB of data beyond what the process holds now (Linux's RLIMIT_DATA
    counts the heap and private mappings, not shared libraries): a huge allocation raises
    MemoryError in the learner's code."""
    held = 0
    with contextlib.suppress(OSError), open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmData:"):
                held = int(line.split()[1]) * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    soft = held + mib * 2**20
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


def learner_frame(error: BaseException, file: str | None) -> str:
    """The innermost frame of the traceback in the learner's file (or, without one, outside
    topograd), as "file, line N, in f: code"."""
    if isinstance(error, SyntaxError) and error.filename:
        text = (error.text or "").strip()
        return f"{Path(error.filename).name}, line {error.lineno}: {text}"
    ours = str(Path(__file__).parent)
    frames = traceback.extract_tb(error.__traceback__)
    own = os.path.realpath(file) if file else None
    mine = [f for f in frames if os.path.realpath(f.filename) == own]
    if not mine:
        mine = [
            f for f in frames if not f.filename.startswith(ours) and "<frozen" not in f.filename
        ]
    if not mine:
        return ""
    frame = mine[-1]
    return f"{Path(frame.filename).name}, line {frame.lineno}, in {frame.name}: {frame.line}"


class NoClassError(Exception):
    """The file has no class to grade."""


def described(error: BaseException) -> str:
    """The error in one line, as the report shows it."""
    if isinstance(error, SystemExit):
        return f"the code called sys.exit({error.code!r})"
    if isinstance(error, MemoryError):
        return "MemoryError (over the grader's memory limit)"
    if isinstance(error, NoClassError):
        return str(error)
    try:
        message = str(error)
    except Exception:  # an exception whose own __str__ fails
        message = "(its message cannot be shown)"
    return f"{type(error).__name__}: {message}"[:300]


def load(path: str, class_name: str) -> tuple[ModuleType, Any]:
    """The learner's module, loaded from ``path`` as ``python path`` would see it (its folder
    first on the path, not as ``__main__``), and its class."""
    file = Path(path).resolve()
    sys.path.insert(0, str(file.parent))
    name = file.stem if file.stem.isidentifier() and file.stem not in sys.modules else "submission"
    loader = importlib.machinery.SourceFileLoader(name, str(file))
    spec = importlib.util.spec_from_loader(name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module, find_class(module, class_name)


def find_class(module: ModuleType, class_name: str) -> Any:
    found = getattr(module, class_name, None)
    if inspect.isclass(found):
        return found
    classes = [c for _, c in inspect.getmembers(module, inspect.isclass)]
    engines = [c for c in classes if all(hasattr(c, m) for m in CLASS_METHODS)]
    if class_name == "Value" and len(engines) == 1:
        return engines[0]
    names = ", ".join(c.__name__ for c in engines or classes) or "none"
    raise NoClassError(f"no class {class_name} in the file (classes there: {names}; use --class)")


def run(cls: Any, names: list[str], channel: TextIO, file: str | None) -> None:
    """Each probe named, in turn, its numbers or its error written as it finishes."""
    for name in names:
        channel.write(json.dumps({"start": name}) + "\n")
        try:
            event: dict[str, Any] = {"done": name, "numbers": PROBES[name](cls)}
        except BaseException as error:  # the learner's code failed: tell, and go on
            event = {"done": name, "error": described(error), "where": learner_frame(error, file)}
        channel.write(json.dumps(event) + "\n")


def main(argv: list[str]) -> None:
    path, class_name, memory, *names = argv
    channel = quiet()
    limit_memory(int(memory))
    try:
        _, cls = load(path, class_name)
    except BaseException as error:
        where = "" if isinstance(error, NoClassError) else learner_frame(error, path)
        channel.write(json.dumps({"load_error": described(error), "where": where}) + "\n")
        return
    channel.write(json.dumps({"loaded": cls.__name__}) + "\n")
    run(cls, names, channel, path)


def forked(cls: Any, names: list[str], memory: int, write_fd: int) -> None:
    """The child's work after a fork, with the class in hand: it never returns."""
    try:
        faulthandler.disable()  # the parent's (pytest's, say) would print the child's crash
        os.dup2(write_fd, 1)
        channel = quiet()
        limit_memory(memory)
        channel.write(json.dumps({"loaded": cls.__name__}) + "\n")
        try:
            file = inspect.getsourcefile(cls)
        except (TypeError, OSError):  # a built-in class, or one typed into a notebook's cell
            file = None
        run(cls, names, channel, file)
        channel.flush()
    finally:
        os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
