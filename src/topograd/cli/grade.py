"""``topograd grade FILE.py``: grade a learner's own engine against the lesson's objectives."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..grading import Report, SandboxError, grade
from ..grading.lesson import fresh_seed
from ..grading.sandbox import UNSAFE
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
        "2 when FILE cannot be loaded, 3 when the grader could not grade (no sandbox here, "
        "or a fault of the grader's own): the JSON report is written in every case.",
    )
    command.add_argument(
        "file", metavar="FILE.py", nargs="?", help="the learner's Python file (or --module)"
    )
    command.add_argument(
        "--module",
        metavar="PKG.MODULE",
        help="grade this module of a learner's package instead of a file (with --path)",
    )
    command.add_argument(
        "--path", metavar="DIR", help="the folder holding --module's package (default: .)"
    )
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
        "--deadline",
        type=float,
        default=120.0,
        help="seconds the whole grade may take (default 120)",
    )
    command.add_argument(
        "--unsafe-no-sandbox",
        action="store_true",
        help="grade without the sandbox where it cannot be made (warns what this leaves open)",
    )
    command.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="draw the probe points from this seed, to reproduce a grade (the report names "
        "its seed; default: a fresh one)",
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
    if (args.file is None) == (args.module is None):
        raise UsageError("grade: give FILE.py or --module PKG.MODULE (with --path DIR)")
    if args.path is not None and args.module is None:
        raise UsageError("grade: --path goes with --module")
    if args.unsafe_no_sandbox:
        print(f"warning: {UNSAFE}", file=sys.stderr)
    seed = fresh_seed() if args.seed is None else args.seed
    try:
        report = grade(
            args.file,
            class_name=args.class_name,
            timeout=args.timeout,
            memory=args.memory,
            require=args.require,
            deadline=args.deadline,
            path=args.path,
            module=args.module,
            unsafe_no_sandbox=args.unsafe_no_sandbox,
            seed=seed,
        )
    except ValueError as error:
        raise UsageError(str(error)) from None
    except SandboxError as error:
        report = Report(args.file or args.module, grader_error=str(error), seed=seed)
    except Exception as error:  # the grader's own fault: still a report, with its own status
        why = f"the grader failed: {type(error).__name__}: {error}"
        report = Report(args.file or args.module, grader_error=why, seed=seed)
    if args.json:
        print(report.to_json())
    elif report.status >= 2:
        print(f"error: {report.table()}", file=sys.stderr)
    else:
        print(report.table())
    return report.status
