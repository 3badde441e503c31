"""Output that cannot be written, handled as Unix tools do: each row a real stream (a pipe
whose reader goes away, /dev/full, a closed output, an ASCII-only terminal), the exit status
and the one error line (or none) expected, and never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TOPOGRAD = f"'{sys.executable}' -m topograd"

# (what, shell line with TG for topograd and 2>err.txt on it, environment, statuses allowed,
# the error line expected (or ""), something its output must hold (or ""))
# its trace as JSON is 100 kB: more than a pipe holds (a difference: a chain of sums of x is one
# Σ node, whose trace's one step left the pipe room enough here)
SUM = "-".join(["x"] * 199)

ROWS = [
    ("a reader gone before any output", "TG ops 2>err.txt | true", {}, {141}, "", ""),
    (
        "a reader that takes one byte",
        f"TG grad '{SUM}' x=1 --trace --json 2>err.txt | head -c1",
        {},
        {141},
        "",
        "{",
    ),
    (
        "a reader of the progress that takes one byte",
        "TG train --steps 30 2>&1 | head -c1",  # (its errors would go to the pipe too)
        {},
        {141},
        "",
        "",
    ),
    (
        "a full device",
        "TG ops 2>err.txt >/dev/full",
        {},
        {1},
        "error: cannot write the output: No space left on device",
        "",
    ),
    (
        "a full device after a computation",
        "TG grad 'tanh(a*b + c)' a=2 b=-3 c=10 --trace 2>err.txt >/dev/full",
        {},
        {1},
        "error: cannot write the output: No space left on device",
        "",
    ),
    (
        "a closed output",
        "TG grad 'x*x' x=2 2>err.txt >&-",
        {},
        {1},
        "error: cannot write the output: standard output is closed",
        "",
    ),
    ("an ASCII terminal", "TG ops 2>err.txt", {"PYTHONIOENCODING": "ascii"}, {0}, "", "\\u221a"),
    (
        "an ASCII terminal and a Greek name",
        "TG grad 'λ*2' λ=1 2>err.txt",
        {"PYTHONIOENCODING": "ascii"},
        {0},
        "",
        "\\u03bb",
    ),
]


@pytest.mark.parametrize(
    ("what", "line", "env", "statuses", "error", "output"), ROWS, ids=[r[0] for r in ROWS]
)
def test_an_output_that_cannot_be_written(
    tmp_path: Path,
    what: str,
    line: str,
    env: dict[str, str],
    statuses: set[int],
    error: str,
    output: str,
) -> None:
    script = f"{line.replace('TG', TOPOGRAD)}; echo ${{PIPESTATUS[0]}} >status.txt"
    ran = subprocess.run(
        ["bash", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        env={**os.environ, **env},
        timeout=120,
    )
    status = int((tmp_path / "status.txt").read_text())
    err = tmp_path / "err.txt"
    said = err.read_text() if err.exists() else ""
    assert status in statuses, said
    assert said.splitlines() == ([error] if error else [])
    assert output.encode() in ran.stdout
