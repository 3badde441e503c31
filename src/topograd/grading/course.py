"""What a course makes of a report: points per objective, from a small course file, and the
report in Gradescope's ``results.json`` shape (an overall score, and one test per objective
with its score, its maximum and its output).

A course file is TOML, naming objectives by id (``docs/grading.md`` lists them)::

    [points]
    default = 2     # each objective not named that can fail the engine (1 unless said)
    lesson = 5
    deep = 1        # a warning-only objective earns points only where named

Without one, each objective is worth 1 point and each warning-only objective (backward twice,
deep graphs, ``_prev``/``_op``) 0, since a warning never fails the engine. A passed objective
and a warned one earn their points; a failed or blocked one earns 0. A missing op (one the
class lacks, or has not written yet) and an objective skipped for want of it count for nothing,
unless the course file names them: then they are worth their points and earn 0.

>>> points = Points.read_text("[points]\\nlesson = 5\\n")
>>> points.of("lesson"), points.of("add"), points.of("deep")
(5.0, 1.0, 0.0)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .objectives import OBJECTIVES
from .report import Report

WARNINGS = frozenset(o.id for o in OBJECTIVES if o.warning)
EARNS = frozenset({"pass", "warn"})  # the statuses that earn an objective's points
ABSENT = frozenset({"missing", "skip"})  # not graded: worth nothing unless the course says


@dataclass(frozen=True)
class Points:
    """Points per objective id; ``default`` for those not named (warnings: 0)."""

    default: float = 1.0
    named: dict[str, float] = field(default_factory=dict)

    def of(self, objective: str) -> float:
        if objective in self.named:
            return self.named[objective]
        return 0.0 if objective in WARNINGS else self.default

    def most(self, objective: str, status: str) -> float:
        """What the objective is worth in a report where its status is ``status``."""
        if status in ABSENT and objective not in self.named:
            return 0.0
        return self.of(objective)

    @classmethod
    def read(cls, path: str | Path) -> Points:
        """The points of the course file at ``path``, or ValueError saying what is wrong."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ValueError(f"--points: cannot read {path}: {error}") from None
        return cls.read_text(text, str(path))

    @classmethod
    def read_text(cls, text: str, name: str = "the course file") -> Points:
        try:
            table = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise ValueError(f"--points: {name} is not TOML: {error}") from None
        unknown = sorted(set(table) - {"points"})
        if unknown:
            raise ValueError(f"--points: {name} holds one table, [points], not {unknown}")
        if not isinstance(table.get("points"), dict):
            raise ValueError(f"--points: {name} holds no [points] table")
        named: dict[str, float] = {}
        ids = {o.id for o in OBJECTIVES}
        for key, value in table["points"].items():
            if key not in ids and key != "default":
                raise ValueError(
                    f"--points: {name} names no objective {key!r} (ids: {', '.join(sorted(ids))})"
                )
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"--points: {key} = {value!r} in {name} is not a number")
            if not 0 <= value <= 1000:  # (inf too; nan fails both comparisons)
                raise ValueError(f"--points: {key} = {value} in {name} is not from 0 to 1000")
            named[key] = float(value)
        return cls(named.pop("default", 1.0), named)


def scored(report: Report, points: Points) -> tuple[float, float]:
    """The report's score and the most it could have scored, under ``points``."""
    score = most = 0.0
    for row in report.rows:
        most += points.most(row.id, row.status)
        score += points.of(row.id) if row.status in EARNS else 0.0
    if not report.rows:  # not loaded, or not graded: every objective counts, none earned
        most = sum(points.of(o.id) for o in OBJECTIVES)
    return score, most


def gradescope(report: Report, points: Points) -> dict[str, Any]:
    """The report as Gradescope's ``results.json``: a file that could not be loaded scores 0
    on every objective; where the grader itself could not grade, no test is scored and the
    output says to grade again."""
    score, _ = scored(report, points)
    extra = {"status": report.status, "seed": report.seed, "engine": report.engine}
    if report.grader_error:
        return {
            "score": 0.0,
            "output": f"{report.summary()} (not the submission's fault: grade it again)",
            "extra_data": extra,
        }
    title = {o.id: o.title for o in OBJECTIVES}
    seed = f" (seed {report.seed})" if report.seed is not None else ""
    tests = []
    for number, objective in enumerate(OBJECTIVES, 1):
        row = next((r for r in report.rows if r.id == objective.id), None)
        status, text = (
            (row.status, row.text) if row else ("fail", f"not graded: {report.summary()}")
        )
        most = points.most(objective.id, status)
        test: dict[str, Any] = {
            "name": title[objective.id],
            "number": str(number),
            "score": most if status in EARNS else 0.0,
            "max_score": most,
            "output": f"{status}: {text}" if text else status,
            "tags": [objective.id],
            "visibility": "visible",
        }
        if status not in ABSENT or most:  # (a test worth nothing, not graded: no verdict)
            test["status"] = "passed" if status in EARNS else "failed"
        tests.append(test)
    return {
        "score": score,
        "output": report.summary() + seed,
        "tests": tests,
        "extra_data": extra,
    }
