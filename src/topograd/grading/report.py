"""A grade's report: one row per objective of the lesson, as a table for a teacher and as
JSON for a course's autograder."""

from __future__ import annotations

import json
import textwrap
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from .lesson import Draw
from .messages import Outcome
from .objectives import OBJECTIVES, ProbeError, Results, Status, Verdict

LABELS: dict[Status, str] = {
    "pass": "pass",
    "fail": "FAIL",
    "warn": "warning",
    "skip": "skipped",
    "blocked": "blocked",
}
SAID: dict[Status, str] = {
    "pass": "passed",
    "fail": "failed",
    "warn": "warned",
    "skip": "skipped",
    "blocked": "blocked",
}
WIDTH = 100


@dataclass(frozen=True)
class Row:
    id: str
    objective: str
    status: Status
    text: str  # the diagnosis; what was verified; or why it was not


def judge(outcomes: dict[str, Outcome], at: Draw, require: frozenset[str]) -> list[Row]:
    """Every objective judged in turn, on what the probes measured at the points ``at``. One
    that builds on a failure is blocked: it says no more than which failures it waits for."""
    r = Results(outcomes, at, require)
    status, titles = r.status, {o.id: o.title for o in OBJECTIVES}
    roots: dict[str, list[str]] = {}  # a failed or blocked objective -> the failures under it
    rows = []
    for objective in OBJECTIVES:
        under = sorted({root for n in objective.needs for root in roots.get(n, [])})
        lacking = [n for n in objective.needs if status[n] == "skip"]
        if under:
            waits = "; ".join(f"“{titles[root]}”" for root in under)
            verdict = Verdict("blocked", f"builds on {waits}, which fails")
        elif lacking:
            verdict = Verdict("skip", f"needs {', '.join(lacking)}, which the class lacks")
        else:
            try:
                verdict = objective.judge(r)
            except ProbeError as error:
                verdict = Verdict("fail", str(error))
            if objective.warning and verdict.status == "fail":
                verdict = Verdict("warn", verdict.text)
        status[objective.id] = verdict.status
        if verdict.status == "fail":
            roots[objective.id] = [objective.id]
        elif verdict.status == "blocked":
            roots[objective.id] = under or list(verdict.roots)
        rows.append(Row(objective.id, objective.title, verdict.status, verdict.text))
    return rows


@dataclass
class Report:
    """What ``grade`` found. ``status`` is 0 when every required objective passes (warnings
    allowed), 1 when one fails, 2 when the learner's code could not be loaded."""

    engine: str
    rows: list[Row] = field(default_factory=list)
    load_error: str = ""
    where: str = ""  # the learner's line the load error came from
    seed: int | None = None  # the seed the grade's points were drawn from

    @property
    def status(self) -> int:
        if self.load_error:
            return 2
        return 1 if any(row.status in ("fail", "blocked") for row in self.rows) else 0

    @property
    def passed(self) -> bool:
        return self.status == 0

    def summary(self) -> str:
        if self.load_error:
            return f"cannot load {self.engine}: {self.load_error}"
        counts = Counter(row.status for row in self.rows)
        parts = [f"{counts[s]} {SAID[s]}" for s in SAID if counts[s]]
        verdict = "every required objective passes" if self.passed else "the engine fails"
        return f"{len(self.rows)} objectives: {', '.join(parts)}; {verdict}."

    def table(self) -> str:
        """The report as text: a row per objective, its diagnosis or what was verified below."""
        if self.load_error:
            return self.summary() + (f"\n  {self.where}" if self.where else "")
        seed = f" (seed {self.seed})" if self.seed is not None else ""
        lines = [f"Grading {self.engine} against the lesson's objectives{seed}:", ""]
        for row in self.rows:
            lines.append(f"  {LABELS[row.status]:<8} {row.objective}")
            if row.status == "blocked":  # its text names a failure already shown
                continue
            lines += textwrap.wrap(
                row.text, WIDTH, initial_indent=" " * 11, subsequent_indent=" " * 11
            )
        if any(row.status == "blocked" for row in self.rows):
            lines += ["", "A blocked objective builds on a failure above: mend that one first."]
        return "\n".join([*lines, "", self.summary()])

    def as_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "status": self.status,
            "passed": self.passed,
            "load_error": self.load_error or None,
            "where": self.where or None,
            "seed": self.seed,
            "objectives": [asdict(row) for row in self.rows],
            "summary": self.summary(),
        }

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False)

    def __str__(self) -> str:
        return self.table()
