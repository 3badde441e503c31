"""A command's output files under real faults (a full tmpfs, a file that open(path, "w") would
refuse): one error line naming the file and its flag; exit status 2 where the file is refused
before the work, 1 where the writing fails after it; and nothing of the run left behind, not
even a folder the command made for it."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_saving import read_only_mount, tmpfs


def topograd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "topograd", *args], capture_output=True, text=True, timeout=300
    )


@contextlib.contextmanager
def full_disk() -> Iterator[Path]:
    """A tmpfs of 64 kB filled to its last byte by one file, ``filler``."""
    with tmpfs("64k") as disk:
        fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            for size in (4096, 1):  # pages, then the last bytes
                with contextlib.suppress(OSError):
                    while True:
                        os.write(fd, b"\0" * size)
        finally:
            os.close(fd)
        yield disk


# Each row: a command line with DISK for the full disk, and the flags its outputs may go by.
AFTER_THE_WORK = [
    (["grad", "x*x", "x=2", "--svg", "DISK/g.svg", "--dot", "DISK/g.dot"], "--svg|--dot"),
    (["train", "--steps", "3", "--plot", "DISK/p.png", "--save", "DISK/m.json"], "--plot|--save"),
    (["demo", "--out", "DISK/new/deeper"], "--out"),
    (["modes", "--sizes", "1,3", "--out", "DISK/new"], "--out"),
]


@pytest.mark.parametrize(("args", "flags"), AFTER_THE_WORK, ids=[a[0] for a, _ in AFTER_THE_WORK])
def test_a_full_disk_is_one_line_naming_the_file_and_flag_status_1(
    args: list[str], flags: str
) -> None:
    with full_disk() as disk:
        ran = topograd(*[a.replace("DISK", str(disk)) for a in args])
        assert ran.returncode == 1, ran.stderr  # a fault of the machine, not a usage error
        errors = [line for line in ran.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and "Traceback" not in ran.stderr, ran.stderr
        written = rf"cannot write {re.escape(str(disk))}/\S+ \(({flags})\): No space left"
        assert re.fullmatch(rf"error: {written} on device", errors[0]), errors[0]
        assert [p.name for p in disk.iterdir()] == ["filler"]  # no file, no folder made


@contextlib.contextmanager
def unwritable(path: Path) -> Iterator[None]:
    """``path`` made a file open(path, "w") refuses to whoever runs the tests: mode 0o444 for
    an ordinary user; for root, who writes any mode, a read-only mount of the file."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        yield
    else:
        with read_only_mount(path):
            yield


BEFORE_THE_WORK = [
    (["grad", "x*x", "x=2", "--svg", "FILE"], "--svg", "g.svg"),
    (["train", "--steps", "3", "--save", "FILE"], "--save", "m.json"),
]


@pytest.mark.parametrize(
    ("args", "flag", "name"), BEFORE_THE_WORK, ids=[a[0] for a, _, _ in BEFORE_THE_WORK]
)
def test_an_output_open_would_refuse_is_refused_before_the_work(
    tmp_path: Path, args: list[str], flag: str, name: str
) -> None:
    path = tmp_path / name
    path.write_text("the old file")
    with unwritable(path):
        try:
            open(path, "w").close()
        except OSError as error:
            refused = error  # what the command must say
        else:
            pytest.fail("the fault is not real here")
        ran = topograd(*[str(path) if a == "FILE" else a for a in args])
    assert ran.returncode == 2
    expected = f"error: cannot write {path} ({flag}): {refused.strerror}"
    assert ran.stderr.splitlines() == [expected]
    assert ran.stdout == ""  # before the work: no training line
    assert path.read_text() == "the old file"
    assert [p.name for p in tmp_path.iterdir()] == [name]
