"""Grade a learner's own autograd engine against the lesson it was written for.

``grade(Value)`` (a class in hand) or ``grade("engine.py")`` (a file) runs the learner's code in
a child process with a time and memory limit, probes it on small graphs (``probes.py``), and
judges each of the lesson's objectives in the lesson's words (``objectives.py``,
``passes.py``): a ``Report`` (``report.py``) that prints as a table and serialises as JSON.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from . import passes  # noqa: F401 - registers the objectives of the backward pass
from .lesson import BY_NAME
from .probes import FOLLOWS, PROBES
from .report import Report, Row, judge
from .runner import Child, Forked, Spawned, measure

__all__ = ["Report", "Row", "grade"]


def grade(
    engine: Any,
    *,
    class_name: str = "Value",
    timeout: float = 10.0,
    memory: int = 2048,
    require: tuple[str, ...] = (),
) -> Report:
    """Grade ``engine``: a ``Value`` class, or the path of a Python file holding one (named
    ``class_name``; without one of that name, the file's only class with ``__add__``,
    ``__mul__`` and ``backward``).

    Each probe may run ``timeout`` seconds, and the learner's code may allocate ``memory`` MiB.
    The ops named in ``require`` (of add, mul, tanh, neg, sub, div, pow, exp, relu) fail the
    engine when missing; add and mul always do.
    """
    unknown = sorted(set(require) - set(BY_NAME))
    if unknown:
        raise ValueError(f"require: no op named {', '.join(unknown)} (ops: {', '.join(BY_NAME)})")
    if not 0 < timeout <= 3600:
        raise ValueError(f"timeout: seconds above 0 and at most 3600, got {timeout}")
    if memory < 1:
        raise ValueError(f"memory: MiB, at least 1, got {memory}")
    names = list(PROBES)
    if isinstance(engine, type):
        name = f"{engine.__module__}.{engine.__qualname__}"

        def launch(todo: list[str]) -> Child:
            return Forked(engine, memory, todo)

    elif isinstance(engine, (str, os.PathLike)):
        path = Path(engine)
        if not path.is_file():
            raise ValueError(f"{path} is not a file")
        if path.suffix == ".ipynb":
            raise ValueError(
                f"{path} is a notebook: grade its class with tg.grade(Value) in the notebook, "
                "or its code after jupyter nbconvert --to script"
            )
        name = path.name

        def launch(todo: list[str]) -> Child:
            return Spawned(str(path.resolve()), class_name, memory, todo)

    else:
        raise TypeError(f"grade() takes a Value class or a file's path, not {type(engine)!r}")
    found = measure(launch, names, timeout, FOLLOWS)
    if found.load_error:
        return Report(name, load_error=found.load_error, where=found.where)
    if isinstance(engine, (str, os.PathLike)):
        name = f"{found.class_name} from {name}"
    return Report(name, judge(found.outcomes, frozenset({"add", "mul", *require})))
