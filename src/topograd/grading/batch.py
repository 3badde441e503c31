"""Grading a class: many files, each in a sandbox of its own and at points of its own, one
summary table, and resumable.

With a folder for the reports, each file's report is written there as soon as it is made
(``NAME.json``, or ``NAME.txt`` for the table), and so is the batch's record, ``batch.json``:
for each file, the SHA-256 of its content, the options it was graded with and its outcome.
Run again on the same folder, the batch keeps every report whose file and options are
unchanged and grades the rest, so a batch that was stopped (or killed) goes on where it
stopped, and a file handed in again is graded again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..disk import write_atomically
from .report import LABELS, NAME_LIMIT, Report, shown

RECORD = "topograd-batch.json"
CANNOT = {2: "cannot load", 3: "not graded"}  # the table's word for statuses 2 and 3
KEPT = " (kept from an earlier run)"


@dataclass(frozen=True)
class Entry:
    """One file of the batch, as its record keeps it."""

    file: str  # as given
    name: str  # its report's name in the folder
    sha256: str  # of the file's content when graded ("" where it could not be read)
    options: str  # what it was graded with
    status: int
    score: float
    most: float
    seed: int | None
    summary: str
    kept: bool = False  # from an earlier run of the batch, not graded again


TYPES: dict[str, type | tuple[type, ...]] = {
    "status": int,
    "score": (int, float),
    "most": (int, float),
    "seed": (int, type(None)),
}
Render = Callable[[Report], tuple[str, float, float]]  # a report -> its text, score, most


def digest(path: Path) -> tuple[str, Report | None]:
    """The SHA-256 of the file's content; where it cannot be read (gone since the batch
    began, say), "" and the report that says so."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest(), None
    except OSError as error:
        return "", Report(str(path), load_error=f"cannot read it: {error.strerror}")


def names_of(files: Sequence[Path], suffix: str = ".json") -> list[str]:
    """Each file's report name: its stem, or, where two files share a stem (a folder per
    student, each with its engine.py), its path from the files' common folder ("alice--engine");
    ValueError where two files would still write one report."""
    stems = [file.stem for file in files]
    if len(set(stems)) < len(stems):
        common = Path(os.path.commonpath([file.resolve().parent for file in files]))
        parts = [file.resolve().with_suffix("").relative_to(common).parts for file in files]
        stems = ["--".join(p) for p in parts]
    names: dict[str, Path] = {}
    for file, name in zip(files, stems):
        if name in names or f"{name}{suffix}" == RECORD:
            other = f"{shown(str(names[name]), NAME_LIMIT)} and " if name in names else ""
            raise ValueError(
                f"{other}{shown(str(file), NAME_LIMIT)} would write the report "
                f"{shown(name + suffix, NAME_LIMIT)}, which another file (or the batch's "
                "record) writes: give each submission a name of its own"
            )
        names[name] = file
    return list(names)


def earlier(folder: Path | None) -> dict[str, Entry]:
    """The record of an earlier run into ``folder``: name -> entry (none where there is no
    record or it cannot be read; an entry of another shape is graded again)."""
    if folder is None or not (folder / RECORD).is_file():
        return {}
    try:
        files = json.loads((folder / RECORD).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    found = {}
    for e in files if isinstance(files, list) else []:
        try:
            entry = Entry(**e, kept=True)
        except TypeError:
            continue
        texts = (entry.file, entry.name, entry.sha256, entry.options, entry.summary)
        kinds = all(isinstance(getattr(entry, k), t) for k, t in TYPES.items())
        if kinds and all(isinstance(t, str) for t in texts) and not isinstance(entry.status, bool):
            found[entry.name] = entry
    return found


def recorded(entries: dict[str, Entry]) -> bytes:
    files = [{k: v for k, v in asdict(e).items() if k != "kept"} for e in entries.values()]
    return json.dumps({"files": files}, indent=2, ensure_ascii=False).encode()


def graded_class(
    files: Sequence[Path],
    grade_one: Callable[[Path], Report],
    render: Render,
    options: str,
    folder: Path | None = None,
    suffix: str = ".json",
    told: Callable[[Entry, str], None] = lambda entry, text: None,
) -> list[Entry]:
    """Grade each of ``files`` with ``grade_one`` and render its report; with ``folder``,
    write each report there and then the batch's record, keeping the reports of an earlier
    run whose file and options are unchanged. ``told`` hears of each entry as the batch goes
    (with its rendered report, or "" for one kept)."""
    record, entries = earlier(folder), []
    for file, name in zip(files, names_of(files, suffix)):
        sha, unread = digest(file)
        report_file = folder / f"{name}{suffix}" if folder is not None else None
        before = record.get(name)
        if before is not None and unchanged(before, sha, options, report_file):
            entries.append(before)
            told(before, "")
            continue
        report = unread or grade_one(file)
        text, score, most = render(report)
        status, seed, summary = report.status, report.seed, report.summary()
        entry = Entry(str(file), name, sha, options, status, score, most, seed, summary)
        if folder is not None and report_file is not None:
            write_atomically(report_file, text.encode())
            record[name] = entry
            write_atomically(folder / RECORD, recorded(record))
        entries.append(entry)
        told(entry, text)
    return entries


def unchanged(before: Entry, sha: str, options: str, report: Path | None) -> bool:
    """Whether an earlier run's entry stands: the same content, graded with the same options,
    its report still there."""
    same = sha != "" and (before.sha256, before.options) == (sha, options)
    return same and report is not None and report.is_file()


def status_of(entries: Sequence[Entry]) -> int:
    """The batch's exit status: its worst file's (0 when every file passes)."""
    return max((e.status for e in entries), default=0)


def table(entries: Sequence[Entry]) -> str:
    """The batch as a teacher reads it: a line per file, then the counts."""
    width = min(40, max((len(e.name) for e in entries), default=4))
    lines = [f"{'file':<{width}}  {'status':<11}  {'score':>9}  summary"]
    for e in entries:
        word = CANNOT.get(e.status) or LABELS["fail" if e.status else "pass"]
        score = f"{e.score:g}/{e.most:g}"
        said = shown(e.summary, NAME_LIMIT) + (KEPT if e.kept else "")
        lines.append(f"{shown(e.name, width):<{width}}  {word:<11}  {score:>9}  {said}")
    counts = [sum(e.status == s for e in entries) for s in range(4)]
    words = ("passed", "failed", "could not be loaded", "were not graded")
    parts = [f"{n} {what}" for n, what in zip(counts, words) if n]
    lines += ["", f"{len(entries)} files: {', '.join(parts) or 'none'}."]
    return "\n".join(lines)


def as_json(entries: Sequence[Entry], reports: dict[str, Any]) -> str:
    """The batch as one JSON document: its files' entries, each with its report where made
    in this run."""
    files = [{**asdict(e), "report": reports.get(e.name)} for e in entries]
    return json.dumps({"status": status_of(entries), "files": files}, indent=2, ensure_ascii=False)
