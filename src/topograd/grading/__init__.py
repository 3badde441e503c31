"""Grade a learner's own autograd engine against the lesson it was written for.

``grade("engine.py")`` (a file, or ``grade(path=..., module=...)`` a package's module) runs the
learner's code in a child process inside a sandbox (``sandbox.py``), with time and memory
limits; ``grade(Value)`` (a class in hand) forks this process, a learner's self-check, never a
way to grade others' code. The child measures (``inside/``), sending framed messages the grader
checks (``messages.py``, ``runner.py``); the grader judges each of the lesson's objectives in the
lesson's words (``objectives.py``, ``passes.py``): a ``Report`` (``report.py``) that prints as a
table and serialises as JSON.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from . import passes  # noqa: F401 - registers the objectives of the backward pass
from .inside.probes import PROBES
from .lesson import BY_NAME, drawn
from .report import Report, Row, judge
from .runner import Child, Forked, Spawned, measure
from .sandbox import UNSAFE, Submission, unavailable

__all__ = ["Report", "Row", "SandboxError", "checked", "grade"]

FOLLOWS: dict[str, list[str]] = {f"op.{op}": [f"rule.{op}", f"chain.{op}"] for op in BY_NAME}
FOLLOWS["op.tanh"].append("lesson")  # probe -> those not worth running when it is lost


TOPOGRAD_MISSING = "ModuleNotFoundError: No module named 'topograd'"


def topograds(cls: type) -> str:
    """Whether a class in hand is topograd's own Value or a subclass of it ("" when not)."""
    for base in cls.__mro__:
        if base.__module__.split(".")[0] == "topograd":
            return f"{cls.__qualname__} is topograd's own {base.__qualname__} or a subclass of it"
    return ""


class SandboxError(RuntimeError):
    """The sandbox cannot be made here, so a file is not graded (unless told to run unsafe)."""


def checked(require: tuple[str, ...], timeout: float, memory: int, deadline: float) -> None:
    """ValueError naming the first of ``grade``'s options that is out of range."""
    unknown = sorted(set(require) - set(BY_NAME))
    if unknown:
        raise ValueError(f"require: no op named {', '.join(unknown)} (ops: {', '.join(BY_NAME)})")
    if not 0 < timeout <= 3600:
        raise ValueError(f"timeout: seconds above 0 and at most 3600, got {timeout}")
    if not 0 < deadline <= 36000:
        raise ValueError(f"deadline: seconds above 0 and at most 36000, got {deadline}")
    if memory < 1:
        raise ValueError(f"memory: MiB, at least 1, got {memory}")


def submission_of(engine: Any, path: Any, module: str | None) -> Submission:
    """What ``grade`` was given, as a submission, or ValueError saying why it cannot be."""
    if module is not None:
        folder = Path(path if path is not None else ".")
        if not folder.is_dir():
            raise ValueError(f"{folder} is not a folder")
        return Submission(path=folder, module=module)
    file = Path(engine)
    if not file.is_file():
        raise ValueError(f"{file} is not a file")
    if file.suffix == ".ipynb":
        raise ValueError(
            f"{file} is a notebook: grade its class with tg.grade(Value) in the notebook, "
            "or its code after jupyter nbconvert --to script"
        )
    return Submission(file=file)


def grade(
    engine: Any = None,
    *,
    class_name: str = "Value",
    timeout: float = 10.0,
    memory: int = 2048,
    require: tuple[str, ...] = (),
    deadline: float = 120.0,
    path: Any = None,
    module: str | None = None,
    unsafe_no_sandbox: bool = False,
    seed: int | None = None,
) -> Report:
    """Grade ``engine``: the path of a Python file holding a ``Value`` class (named
    ``class_name``; without one of that name, the file's only class with ``__add__``,
    ``__mul__`` and ``backward``), or ``module`` of a package in the folder ``path``; or a
    class in hand (a self-check, run in a fork of this process, without a sandbox).

    Each probe may run ``timeout`` seconds and the whole grade ``deadline`` seconds; the
    learner's code may allocate ``memory`` MiB. The ops named in ``require`` (of add, mul,
    tanh, neg, sub, div, pow, exp, relu) fail the engine when missing; add and mul always do.
    A file is graded in a sandbox; where none can be made, SandboxError, unless
    ``unsafe_no_sandbox`` (which warns of what it leaves open).

    The points probed are drawn afresh for each grade from ``seed`` (the report names it; the
    same seed probes the same points, to reproduce a grade), and the learner's code is sent
    the points, never the seed.
    """
    checked(require, timeout, memory, deadline)
    names, draw = list(PROBES), drawn(seed)
    at = draw.sent()
    if isinstance(engine, type):
        name = f"{engine.__module__}.{engine.__qualname__}"

        def launch(todo: list[str]) -> Child:
            return Forked(engine, memory, todo, at)

    elif isinstance(engine, (str, os.PathLike)) or module is not None:
        submission = submission_of(engine, path, module)
        name, sandboxed = submission.name, not unsafe_no_sandbox
        why = unavailable() if sandboxed else ""
        if why:
            raise SandboxError(
                f"{name} is not graded, since {why}. To grade it anyway, outside a sandbox "
                f"(--unsafe-no-sandbox, unsafe_no_sandbox=True): {UNSAFE}"
            )
        request = {"class": class_name, "memory": memory, "points": at}

        def launch(todo: list[str]) -> Child:
            asked = {**request, "probes": todo, "cpu_seconds": int(deadline) + 1}
            return Spawned(submission, asked, sandboxed)

    else:
        raise TypeError(f"grade() takes a Value class or a file's path, not {type(engine)!r}")
    if isinstance(engine, type) and topograds(engine):
        return Report(
            name, load_error=f"{topograds(engine)}, not a learner's own engine", seed=draw.seed
        )
    found = measure(launch, names, timeout, FOLLOWS, deadline)
    if found.load_error == TOPOGRAD_MISSING:
        found.load_error = (
            "the file imports topograd, which the sandbox does not hold: it grades the "
            "learner's own engine, not topograd's Value (or a wrapper of it)"
        )
    if found.load_error:
        return Report(name, load_error=found.load_error, where=found.where, seed=draw.seed)
    if not isinstance(engine, type):
        name = f"{found.class_name} from {name}"
    rows = judge(found.outcomes, draw, frozenset({"add", "mul", *require}))
    return Report(name, rows, seed=draw.seed)
