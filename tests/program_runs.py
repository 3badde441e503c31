"""Runs the programs of ``tests/programs/`` as their users run them and records what they show.

A program is stored as topograd runs it: each import line that differs from the published one
ends in ``# was: <the published line>``, so the same file gives PyTorch's run (each such line
put back) and topograd's (as it is). A notebook is stored in cells (``# %%`` lines, as jupytext
writes them) and run as Jupyter runs it: cell by cell, the value of a cell's last expression
shown. What a run records, per cell: the text it printed, the value it showed, and the value of
each watched expression (a loss history the program keeps without printing it), in plain JSON
(a Tensor as its numbers, dtype and shape).

``python tests/program_runs.py torch|topograd SPEC OUT`` imports the library once, then runs
each program of SPEC (JSON: ``[{"name": ..., "watch": [...]}, ...]``) in a process of its own
forked from it (a fresh process, without paying for the import again), seeded alike
(``random.seed`` and ``manual_seed``), and writes ``OUT/<name>.<backend>.json``.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import io
import json
import os
import random
import re
import sys
import time
import traceback
import types
import warnings
from pathlib import Path
from typing import Any

PROGRAMS = Path(__file__).parent / "programs"
SEED = 0
WAS = re.compile(r"^(?P<indent>[ \t]*)(?:import|from) [^#]*# was: (?P<was>.*)$")
CELL = re.compile(r"^# %%")
LARGE = 10_000  # a Tensor of more numbers is recorded by its first ones and its sum
# Modules a program may import as the library's own helpers: d2l's, stored beside the programs
HELPERS = {"d2l.torch": "d2l_torch.py"}
IMPORTS = {
    "torch": ("torch", "torch.nn.functional", "torch.utils.data"),
    "topograd": ("topograd", "topograd.nn.functional", "topograd.utils.data"),
}


def source(path: Path, backend: str) -> str:
    """The program as ``backend`` runs it: PyTorch's has each ``# was:`` line put back."""
    text = path.read_text(encoding="utf-8")
    if backend == "topograd":
        return text
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        found = WAS.match(line.rstrip("\n"))
        if found:
            lines[i] = found["indent"] + found["was"] + "\n"
    return "".join(lines)


def changed_lines(path: Path) -> list[str]:
    """The lines of a stored program that PyTorch's run puts back: its changed imports."""
    return [line for line in path.read_text(encoding="utf-8").splitlines() if WAS.match(line)]


def cells(text: str) -> list[tuple[int, str]]:
    """The program's cells, each with the number of its first line (a script is one cell)."""
    lines = text.splitlines(keepends=True)
    starts = [0] + [i for i, line in enumerate(lines) if CELL.match(line) and i > 0]
    ends = [*starts[1:], len(lines)]
    return [(start + 1, "".join(lines[start:end])) for start, end in zip(starts, ends)]


def run_cell(code: str, first_line: int, filename: str, namespace: dict[str, Any]) -> Any:
    """Runs one cell in ``namespace`` and gives the value of its last expression (None if it
    ends otherwise), as IPython shows it; line numbers are the file's."""
    with warnings.catch_warnings():  # ("\s" in a published docstring)
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        tree = ast.parse(code, filename)
    ast.increment_lineno(tree, first_line - 1)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, filename, "exec"), namespace)
    if last is None:
        return None
    return eval(compile(ast.Expression(last.value), filename, "eval"), namespace)


class Helpers(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the library helpers a program imports (``from d2l import torch as d2l``) in
    ``tests/programs/``, loaded as the backend runs them (their ``# was:`` lines too)."""

    def __init__(self, backend: str) -> None:
        self.backend = backend

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        packages = {helper.rpartition(".")[0] for helper in HELPERS}
        if name not in HELPERS and name not in packages:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=name in packages)

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        if module.__name__ in HELPERS:
            path = PROGRAMS / HELPERS[module.__name__]
            module.__file__ = str(path)
            exec(compile(source(path, self.backend), str(path), "exec"), module.__dict__)


def encode(x: Any) -> Any:
    """``x`` as JSON: numbers, strings and None as they are; a Tensor, array or NumPy number as
    its numbers, dtype and shape (a large one as its first numbers and their sum); sequences
    and dicts item by item; anything else by its type's name."""
    if x is None or isinstance(x, bool | int | float | str):
        return x
    if hasattr(x, "shape") and hasattr(x, "dtype") and hasattr(x, "tolist"):
        return encode_tensor(x)
    if type(x).__name__ == "dtype":
        return {"dtype": str(x).rpartition(".")[2]}
    if isinstance(x, list | tuple):
        return [encode(item) for item in x]
    if isinstance(x, dict):
        return {"dict": [[encode(k), encode(v)] for k, v in x.items()]}
    return {"object": type(x).__name__}


def encode_tensor(x: Any) -> dict[str, Any]:
    shape = [int(n) for n in x.shape]
    record: dict[str, Any] = {"dtype": str(x.dtype).rpartition(".")[2], "shape": shape}
    numbers = x.detach() if hasattr(x, "detach") else x
    count = 1
    for n in shape:
        count *= n
    if count <= LARGE:
        record["tensor"] = numbers.tolist()
        return record
    flat = numbers.reshape(-1)
    record["head"] = flat[:LARGE].tolist()
    record["sum"] = float(sum(float(v) for v in flat.tolist()))
    return record


def watched(expressions: list[str], namespace: dict[str, Any]) -> dict[str, Any]:
    """The value of each watched expression the namespace can give."""
    found = {}
    for expression in expressions:
        try:
            value = eval(expression, namespace)  # the test's own expressions, never user text
        except (NameError, AttributeError):
            continue
        found[expression] = encode(value)
    return found


def run_program(name: str, backend: str, watch: list[str]) -> dict[str, Any]:
    """Runs ``programs/<name>.py`` under ``backend`` in this process: its record."""
    library = importlib.import_module(backend)
    random.seed(SEED)
    library.manual_seed(SEED)
    sys.meta_path.insert(0, Helpers(backend))
    os.chdir(PROGRAMS)
    path = PROGRAMS / f"{name}.py"
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": str(path)}
    record: dict[str, Any] = {"cells": [], "error": None}
    start, cpu = time.perf_counter(), time.process_time()
    for first_line, code in cells(source(path, backend)):
        shown, value, began = io.StringIO(), None, time.perf_counter()
        try:
            with contextlib.redirect_stdout(shown):
                value = run_cell(code, first_line, str(path), namespace)
        except Exception:
            record["error"] = f"line {first_line}: " + traceback.format_exc()
        took = time.perf_counter() - began
        cell = {
            "line": first_line,
            "stdout": shown.getvalue(),
            "value": encode(value),
            "seconds": took,
        }
        record["cells"].append({**cell, "watch": watched(watch, namespace)})
        if record["error"]:
            break
    record["seconds"] = time.perf_counter() - start
    record["cpu_seconds"] = time.process_time() - cpu
    return record


def run_forked(name: str, backend: str, watch: list[str], out: Path) -> None:
    """Runs one program in a child forked from this process, which writes its record."""
    target = out / f"{name}.{backend}.json"
    pid = os.fork()
    if pid == 0:  # the child: run, write, and leave at once (no cleanup of the parent's state)
        code = 0
        try:
            target.write_text(json.dumps(run_program(name, backend, watch)))
        except BaseException:
            traceback.print_exc()
            code = 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if not target.exists():
        message = f"the process running {name} ended without a record (status {status})"
        target.write_text(json.dumps({"cells": [], "error": message}))


def main(argv: list[str]) -> None:
    backend, spec, out = argv[0], json.loads(Path(argv[1]).read_text()), Path(argv[2])
    for module in IMPORTS[backend]:  # once, before the forks (a failure is the programs' to see)
        with contextlib.suppress(Exception):
            importlib.import_module(module)
    for program in spec:
        run_forked(program["name"], backend, program.get("watch", []), out)


if __name__ == "__main__":
    main(sys.argv[1:])
