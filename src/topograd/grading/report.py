"""A grade's report: one row per objective of the lesson, as a table for a teacher and as
JSON for a course's autograder. Every field is made safe to show when the report is made: the
learner's class name and error texts reach it, so control characters become escapes (no
terminal escape sequence can clear a teacher's screen or fake a line) and each field is
bounded."""

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
    "missing": "missing",
    "skip": "skipped",
    "blocked": "blocked",
}
SAID: dict[Status, str] = {
    "pass": "passed",
    "fail": "failed",
    "warn": "warned",
    "missing": "missing",
    "skip": "skipped",
    "blocked": "blocked",
}
WIDTH = 100
NAME_LIMIT = 300  # characters of the engine's name, an error, a place in the learner's code
TEXT_LIMIT = 2000  # characters of a row's text


def escape(c: str) -> str:
    """A character as an escape: ``\\x1b``, ``\\u202e``."""
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def shown(text: str, limit: int) -> str:
    r"""``text`` safe to print: each character that is not printable (control characters,
    newlines, the bidirectional overrides that reorder a line) as its escape, and at most
    ``limit`` characters.

    >>> print(shown("a\x1b[2Jb\n", 40))
    a\x1b[2Jb\x0a
    >>> shown("x" * 50, 10)
    'xxxxxxxxxx… (40 more characters)'
    """
    safe = "".join(c if c.isprintable() else escape(c) for c in text)
    if len(safe) <= limit:
        return safe
    return f"{safe[:limit]}… ({len(safe) - limit:,} more characters)"


@dataclass(frozen=True)
class Row:
    id: str
    objective: str
    status: Status
    text: str  # the diagnosis; what was verified; or why it was not

    def __post_init__(self) -> None:
        object.__setattr__(self, "text", shown(self.text, TEXT_LIMIT))


def judge(outcomes: dict[str, Outcome], at: Draw, require: frozenset[str]) -> list[Row]:
    """Every objective judged in turn, on what the probes measured at the points ``at``. One
    that builds on a failure is blocked: it says no more than which failures it waits for."""
    r = Results(outcomes, at, require)
    status, titles = r.status, {o.id: o.title for o in OBJECTIVES}
    roots: dict[str, list[str]] = {}  # a failed or blocked objective -> the failures under it
    rows = []
    for objective in OBJECTIVES:
        under = sorted({root for n in objective.needs for root in roots.get(n, [])})
        lacking = [n for n in objective.needs if status[n] in ("missing", "skip")]
        absent = objective.absent(r) if objective.absent is not None else None
        if absent is not None:  # an op the class lacks is missing, whatever failed before
            verdict = absent
        elif lacking:
            verdict = Verdict("skip", f"needs {', '.join(lacking)}, which the class lacks")
        elif under:
            waits = "; ".join(f"“{titles[root]}”" for root in under)
            verdict = Verdict("blocked", f"builds on {waits}, which fails")
        else:
            try:
                verdict = objective.judge(r)
            except ProbeError as error:
                verdict = Verdict("fail", str(error))
            except (LookupError, TypeError, ValueError, ArithmeticError, AttributeError) as error:
                verdict = Verdict("fail", f"the child's numbers are not its probe's ({error!r})")
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
    allowed), 1 when one fails, 2 when the learner's code could not be loaded, 3 when the
    grader could not grade (no sandbox, or a fault of its own)."""

    engine: str
    rows: list[Row] = field(default_factory=list)
    load_error: str = ""
    where: str = ""  # the learner's line the load error came from
    seed: int | None = None  # the seed the grade's points were drawn from
    grader_error: str = ""  # why the grader could not grade

    def __post_init__(self) -> None:
        for name, limit in (("engine", NAME_LIMIT), ("where", NAME_LIMIT)):
            setattr(self, name, shown(getattr(self, name), limit))
        self.load_error = shown(self.load_error, TEXT_LIMIT)
        self.grader_error = shown(self.grader_error, TEXT_LIMIT)

    @property
    def status(self) -> int:
        if self.grader_error:
            return 3
        if self.load_error:
            return 2
        return 1 if any(row.status in ("fail", "blocked") for row in self.rows) else 0

    @property
    def passed(self) -> bool:
        return self.status == 0

    def summary(self) -> str:
        if self.grader_error:
            return f"the grader could not grade {self.engine}: {self.grader_error}"
        if self.load_error:
            return f"cannot load {self.engine}: {self.load_error}"
        counts = Counter(row.status for row in self.rows)
        parts = [f"{counts[s]} {SAID[s]}" for s in SAID if counts[s]]
        verdict = "every required objective passes" if self.passed else "the engine fails"
        return f"{len(self.rows)} objectives: {', '.join(parts)}; {verdict}."

    def table(self) -> str:
        """The report as text: a row per objective, its diagnosis or what was verified below."""
        if self.grader_error or self.load_error:
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
            "grader_error": self.grader_error or None,
            "seed": self.seed,
            "objectives": [asdict(row) for row in self.rows],
            "summary": self.summary(),
        }

    def to_json(self) -> str:
        return json.dumps(self.as_dict(), indent=2, ensure_ascii=False)

    def __str__(self) -> str:
        return self.table()
