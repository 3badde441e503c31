"""``topograd grade FILE.py ...``: grade learners' own engines against the lesson's objectives,
one file as a table (or JSON, or Gradescope's results.json), many files as a class: a summary
table, each report into a folder, resumable (``grading/batch.py``)."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

from ..grading import Report, SandboxError, checked, grade
from ..grading.batch import KEPT, Entry, as_json, graded_class, status_of, table
from ..grading.course import Points, gradescope, scored
from ..grading.lesson import fresh_seed
from ..grading.report import NAME_LIMIT, shown
from ..grading.sandbox import UNSAFE
from .common import UsageError, check_folder


def ops(text: str) -> tuple[str, ...]:
    """--require's list, checked by grade() with the other arguments."""
    return tuple(n.strip() for n in text.split(",") if n.strip())


def add(commands: Any) -> None:
    command = commands.add_parser(
        "grade",
        help="grade a learner's own Value engine against the lesson's objectives",
        description="Load FILE in a sandboxed child process (with time and memory limits), "
        "find its Value class and grade it against the lesson: forward values, each op's "
        "local rule, the seed, += at shared nodes, the topological order, the chain rule, the "
        "lesson's example e = tanh(a*b + c), plain numbers, backward twice and deep graphs, "
        "at points drawn afresh for each grade. Each failure is named in the lesson's words "
        "with the smallest graph that shows it. Several files grade a class. Exit "
        "status 0 when every required objective passes (warnings allowed), 1 when one fails, "
        "2 when FILE cannot be loaded, 3 when the grader could not grade (no sandbox here, "
        "or a fault of the grader's own): the JSON report is written in every case.",
    )
    command.add_argument(
        "files",
        metavar="FILE.py",
        nargs="*",
        help="the learner's Python file (or --module); several files grade a class: a summary "
        "table, each file in a sandbox of its own at points of its own",
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
    command.add_argument(
        "--format",
        choices=("table", "json", "gradescope"),
        default="table",
        help="the report as a table (default), as JSON, or as Gradescope's results.json",
    )
    command.add_argument("--json", action="store_true", help="the same as --format json")
    command.add_argument(
        "--points",
        metavar="COURSE.toml",
        help="points per objective id, in a [points] table (default: 1 each, warnings 0)",
    )
    command.add_argument(
        "--out",
        metavar="DIR",
        help="write each file's report into DIR (NAME.json, or NAME.txt for a table) with the "
        "batch's record; run again, files unchanged since are not graded again",
    )
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
    files = [Path(f) for f in args.files]
    if bool(files) == (args.module is not None):
        raise UsageError(
            "grade: give FILE.py (or several) or --module PKG.MODULE (with --path DIR)"
        )
    if args.path is not None and args.module is None:
        raise UsageError("grade: --path goes with --module")
    if args.out is not None and args.module is not None:
        raise UsageError("grade: --out grades files (FILE.py ...), not --module")
    if args.json:
        args.format = "json"
    try:  # every argument checked before any grading
        checked(args.require, args.timeout, args.memory, args.deadline)
    except ValueError as error:
        raise UsageError(str(error)) from None
    points = points_of(args.points)
    if args.unsafe_no_sandbox:
        print(f"warning: {UNSAFE}", file=sys.stderr)
    if len(files) > 1 or args.out is not None:
        return run_batch(args, files, points)
    report = graded(args, files[0] if files else None)
    if args.format == "table" and report.status >= 2:
        print(f"error: {report.table()}", file=sys.stderr)
    else:
        print(rendered(args.format, points, report)[0])
    return report.status


def points_of(path: str | None) -> Points:
    try:
        return Points() if path is None else Points.read(path)
    except ValueError as error:
        raise UsageError(str(error)) from None


def graded(args: argparse.Namespace, file: Path | None, in_batch: bool = False) -> Report:
    """One submission's report, whatever happens while grading it (the grader's own failure
    is a report of status 3). What was handed in that is no engine's file (a folder, a
    notebook) is a UsageError, or, in a batch, that file's load error."""
    seed = fresh_seed() if args.seed is None else args.seed
    name = str(file) if file is not None else args.module
    try:
        return grade(
            file,
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
        if in_batch:
            return Report(name, load_error=str(error), seed=seed)
        raise UsageError(str(error)) from None
    except SandboxError as error:
        return Report(name, grader_error=str(error), seed=seed)
    except Exception as error:  # the grader's own fault: still a report, with its own status
        why = f"the grader failed: {type(error).__name__}: {error}"
        return Report(name, grader_error=why, seed=seed)


def rendered(form: str, points: Points, report: Report) -> tuple[str, float, float]:
    """The report in ``form``, with its score and the most it could score."""
    score, most = scored(report, points)
    if form == "gradescope":
        return json.dumps(gradescope(report, points), indent=2, ensure_ascii=False), score, most
    if form == "json":
        return report.to_json(), score, most
    return report.table(), score, most


def fingerprint(args: argparse.Namespace, points: Points) -> str:
    """What a batch grades with: a report made with other options is made again."""
    options = {
        "class": args.class_name,
        "timeout": args.timeout,
        "memory": args.memory,
        "require": sorted(args.require),
        "deadline": args.deadline,
        "format": args.format,
        "points": [points.default, sorted(points.named.items())],
        "seed": args.seed,
        "unsafe": args.unsafe_no_sandbox,
    }
    return hashlib.sha256(json.dumps(options, sort_keys=True).encode()).hexdigest()[:16]


def run_batch(args: argparse.Namespace, files: list[Path], points: Points) -> int:
    """A class: each file graded in turn, a line of progress on stderr per file, then the
    summary table (or, with --format json and no --out, every report as one JSON document)."""
    missing = [shown(str(f), NAME_LIMIT) for f in files if not f.is_file()]
    if missing:
        raise UsageError(f"grade: not a file: {', '.join(missing[:5])}")
    if args.out is not None:
        check_folder(args.out, "--out")
        Path(args.out).mkdir(parents=True, exist_ok=True)
    reports: dict[str, Any] = {}

    def told(entry: Entry, text: str) -> None:
        if text and args.format != "table":
            reports[entry.name] = json.loads(text)
        said = f"{shown(entry.name, NAME_LIMIT)}: {entry.summary}{KEPT if entry.kept else ''}"
        print(said, file=sys.stderr, flush=True)

    try:
        entries = graded_class(
            files,
            partial(graded, args, in_batch=True),
            partial(rendered, args.format, points),
            fingerprint(args, points),
            Path(args.out) if args.out is not None else None,
            ".txt" if args.format == "table" else ".json",
            told,
        )
    except ValueError as error:  # two files that would write one report
        raise UsageError(str(error)) from None
    if args.format != "table" and args.out is None:
        print(as_json(entries, reports))
    else:
        print(table(entries))
    return status_of(entries)
