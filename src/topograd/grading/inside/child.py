"""The child process that runs a learner's code: it reads the grader's request (which probes, at
which points), loads the learner's module (or is forked with the class in hand), runs the
probes in the order asked and writes one framed message per event to the grader:

    {"loaded": "Value"}                     or  {"load_error": "...", "where": "..."}
    {"done": "op.mul", "numbers": {...}}    or  {"done": "op.mul", "error": "...", "where": "..."}

A frame is its length in 8 hex digits, then that many bytes of JSON. The grader trusts none of
it: a frame out of order, of the wrong shape or too large is the submission's failure on the
probe it stands for (``grading/runner.py``). What the learner's code prints goes to /dev/null;
the grader's stream is a descriptor of its own.

In the sandbox the grader starts ``python -I -S`` on ``main()`` with the request on the
standard input: a JSON object with ``probes``, ``points``, ``memory`` (MiB) and either ``file``
(the learner's ``.py``) or ``path`` and ``module`` (a package on that folder).
"""

from __future__ import annotations

import contextlib
import faulthandler
import importlib
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
from typing import Any, BinaryIO

from .probes import PROBES, Points

CLASS_METHODS = ("__add__", "__mul__", "backward")  # what a class needs to be taken for Value
HERE = str(Path(__file__).parent)


class Channel:
    """The grader's stream: framed JSON messages."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def send(self, message: dict[str, Any]) -> None:
        payload = json.dumps(message).encode()
        self.stream.write(b"%08x" % len(payload) + payload)
        self.stream.flush()


def quiet() -> Channel:
    """A stream for the grader on a copy of the standard output, which (with the standard
    error and input) then points at /dev/null, where the learner's prints go: the descriptors
    and Python's streams both (in a fork of a notebook's kernel, sys.stdout is the kernel's)."""
    channel = Channel(os.fdopen(os.dup(1), "wb"))
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
    MemoryError in the learner's code. (In the sandbox the grader also sets hard limits the
    child cannot raise.)"""
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
    the grader's own files), as "file, line N, in f: code"."""
    if isinstance(error, SyntaxError) and error.filename:
        text = (error.text or "").strip()
        return f"{Path(error.filename).name}, line {error.lineno}: {text}"
    frames = traceback.extract_tb(error.__traceback__)
    own = os.path.realpath(file) if file else None
    mine = [f for f in frames if os.path.realpath(f.filename) == own]
    if not mine:
        mine = [
            f
            for f in frames
            if not f.filename.startswith((HERE, str(Path(HERE).parent)))
            and "<frozen" not in f.filename
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
        return f"the code called sys.exit({error.code!r})"[:300]
    if isinstance(error, MemoryError):
        return "MemoryError (over the grader's memory limit)"
    if isinstance(error, NoClassError):
        return str(error)
    try:
        message = str(error)
    except Exception:  # an exception whose own __str__ fails
        message = "(its message cannot be shown)"
    return f"{type(error).__name__}: {message}"[:300]


def load_file(path: str) -> ModuleType:
    """The learner's module, loaded from ``path`` as ``python path`` would see it (its folder
    first on the path, not as ``__main__``)."""
    file = Path(path).resolve()
    sys.path.insert(0, str(file.parent))
    name = file.stem if file.stem.isidentifier() and file.stem not in sys.modules else "submission"
    loader = importlib.machinery.SourceFileLoader(name, str(file))
    spec = importlib.util.spec_from_loader(name, loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


def load_module(path: str, name: str) -> ModuleType:
    """A module of a learner's package: ``name`` ("pkg.engine") imported with ``path`` (the
    folder that holds ``pkg``) first on the path, as ``python -m`` there would."""
    sys.path.insert(0, path)
    return importlib.import_module(name)


def find_class(module: ModuleType, class_name: str) -> Any:
    found = getattr(module, class_name, None)
    if inspect.isclass(found):
        return found
    classes = [c for _, c in inspect.getmembers(module, inspect.isclass)]
    engines = [c for c in classes if all(hasattr(c, m) for m in CLASS_METHODS)]
    if class_name == "Value" and len(engines) == 1:
        return engines[0]
    names = ", ".join(c.__name__ for c in engines or classes)[:200] or "none"
    raise NoClassError(f"no class {class_name} in the file (classes there: {names}; use --class)")


def run(cls: Any, names: list[str], at: Points, channel: Channel, file: str | None) -> None:
    """Each probe named, in turn, its numbers or its error sent as it finishes."""
    for name in names:
        try:
            event: dict[str, Any] = {"done": name, "numbers": PROBES[name](cls, at)}
        except BaseException as error:  # the learner's code failed: tell, and go on
            event = {"done": name, "error": described(error), "where": learner_frame(error, file)}
        channel.send(event)


def main() -> None:
    """The child in the sandbox: the request from the standard input, then the probes."""
    request = json.loads(sys.stdin.buffer.read())
    channel = quiet()
    limit_memory(int(request["memory"]))
    file = request.get("file")
    try:
        if file is not None:
            module = load_file(file)
        else:
            module = load_module(request["path"], request["module"])
            file = getattr(module, "__file__", None)
        cls = find_class(module, request["class"])
    except BaseException as error:
        where = "" if isinstance(error, NoClassError) else learner_frame(error, file)
        channel.send({"load_error": described(error), "where": where})
        return
    channel.send({"loaded": str(getattr(cls, "__name__", "?"))[:200]})
    run(cls, request["probes"], request["points"], channel, file)


def forked(cls: Any, names: list[str], at: Points, memory: int, write_fd: int) -> None:
    """The child's work after a fork, with the class in hand: it never returns."""
    try:
        faulthandler.disable()  # the parent's (pytest's, say) would print the child's crash
        os.dup2(write_fd, 1)
        channel = quiet()
        limit_memory(memory)
        channel.send({"loaded": cls.__name__})
        try:
            file = inspect.getsourcefile(cls)
        except (TypeError, OSError):  # a built-in class, or one typed into a notebook's cell
            file = None
        run(cls, names, at, channel, file)
    finally:
        os._exit(0)
