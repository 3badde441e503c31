"""``topograd grade FILE.py``: grade a learner's own engine against the lesson's objectives."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..grading import grade
from .common import UsageError


def ops(text: str) -> tuple[str, ...]:
    """--require's list, checked by grade() with the other arguments."""
    return tuple(n.strip() for n in text.split(",") if n.strip())


def add(commands: Any) -> None:
    command = commands.add_parser(
        "grade",
        help="grade a learner's own Value engine against the lesson's objectives",
        description="Load FILE in a child process (with a time and memory limit), find its "
        "Value class and grade it against the lesson: forward values, each op's local rule, "
        "the seed, += at shared nodes, the topological order, the chain rule, the lesson's "
        "example e = tanh(a*b + c), plain numbers, backward twice and deep graphs. Each "
        "failure is named in the lesson's words with the smallest graph that shows it. Exit "
        "status 0 when every required objective passes (warnings allowed), 1 when one fails, "
        "2 when FILE cannot be loaded.",
    )
    command.add_argument("file", metavar="FILE.py", help="the learner's Python file")
    command.add_argument(
        "--class",
        dest="class_name",
        default="Value",
        help="the engine's class (default: Value, else the file's only class with __add__, "
        "__mul__ and backward)",
    )
    command.add_argument("--json", action="store_true", help="print the report as JSON")
    command.add_argument(
        "--timeout", type=float, default=10.0, help="seconds each probe may run (default 10)"
    )
    command.add_argument(
        "--memory", type=int, default=2048, help="MiB the learner's code may allocate"
    )
    command.add_argument(
        "--require",
        type=ops,
        default=(),
        metavar="OP,...",
        help="ops whose absence fails the engine, e.g. tanh,exp (add and mul always do)",
    )
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        report = grade(
            args.file,
            class_name=args.class_name,
            timeout=args.timeout,
            memory=args.memory,
            require=args.require,
        )
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.json:
        print(report.to_json())
    elif report.load_error:
        print(f"error: {report.table()}", file=sys.stderr)
    else:
        print(report.table())
    return report.status
