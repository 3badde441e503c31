"""Saves that are whole or nothing, under real faults: a file-size limit (RLIMIT_FSIZE), a
child killed with SIGKILL in the middle of a save, a full tmpfs and a read-only one (where this
machine lets the tests mount one), a missing folder, a folder in the way. After each, the
previous file is byte-identical and no temporary file is left beside it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import topograd as tg

SUFFIXES = [".json", ".npz"]


def saved_bytes(model: tg.nn.Module, path: Path) -> bytes:
    model.save(path)
    return path.read_bytes()


def model(size: int, seed: int = 0) -> tg.nn.Linear:
    return tg.nn.Linear(size, size, seed=seed)


def child(script: str, *, fsize: int | None = None) -> subprocess.Popen[bytes]:
    """A Python process running ``script`` (with a file-size limit, if given)."""

    def limit() -> None:
        if fsize is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)],
        preexec_fn=limit,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_file_size_limit_leaves_the_previous_file(tmp_path: Path, suffix: str) -> None:
    target = tmp_path / f"model{suffix}"
    before = saved_bytes(model(3), target)
    process = child(
        f"""
        import topograd as tg
        tg.nn.Linear(300, 300, seed=1).save({str(target)!r})
        """,
        fsize=64 * 1024,
    )
    _, err = process.communicate(timeout=120)
    assert process.returncode != 0 and b"File too large" in err
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def _writing(pid: int, folder: Path) -> bool:
    """Whether process ``pid`` has a file of ``folder`` open (a save under way)."""
    fds = Path(f"/proc/{pid}/fd")
    with contextlib.suppress(OSError):
        for fd in fds.iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd).startswith(str(folder) + os.sep):
                    return True
    return False


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_save_killed_midway_leaves_one_whole_file_and_nothing_else(
    tmp_path: Path, suffix: str
) -> None:
    target = tmp_path / f"model{suffix}"
    before = saved_bytes(model(3), target)
    after = saved_bytes(model(400, seed=2), tmp_path / f"reference{suffix}")
    (tmp_path / f"reference{suffix}").unlink()
    process = child(
        f"""
        import topograd as tg
        m = tg.nn.Linear(400, 400, seed=2)
        while True:
            m.save({str(target)!r})
        """
    )
    deadline = time.monotonic() + 60
    try:
        while not _writing(process.pid, tmp_path) and time.monotonic() < deadline:
            time.sleep(0.0005)
        assert process.poll() is None, "the saving process ended by itself"
    finally:
        process.send_signal(signal.SIGKILL)
        process.communicate()  # (waits, and closes its pipes)
    assert process.returncode == -signal.SIGKILL
    assert target.read_bytes() in (before, after)  # never a cut file
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


@contextlib.contextmanager
def tmpfs(size: str, read_only: bool = False) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted for the test, or a skip where this machine does not allow
    mounting one (not root, or no CAP_SYS_ADMIN in a container)."""
    folder = Path(tempfile.mkdtemp())
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
    )
    if mounted.returncode != 0:
        folder.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)
        folder.rmdir()


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_full_disk_leaves_the_previous_file(suffix: str) -> None:
    with tmpfs("256k") as disk:
        target = disk / f"model{suffix}"
        before = saved_bytes(model(3), target)
        with pytest.raises(OSError, match="No space left"):
            model(300, seed=1).save(target)
        assert target.read_bytes() == before
        assert sorted(p.name for p in disk.iterdir()) == [target.name]


def test_a_read_only_disk_leaves_the_previous_file_and_the_command_says_so() -> None:
    with tmpfs("1m") as disk:
        target = disk / "model.json"
        before = saved_bytes(model(3), target)
        svg = disk / "g.svg"
        svg.write_text("old drawing")
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        with pytest.raises(OSError, match="Read-only"):
            model(3, seed=1).save(target)
        assert target.read_bytes() == before
        ran = subprocess.run(
            [sys.executable, "-m", "topograd", "grad", "x*x", "x=2", "--svg", str(svg)],
            capture_output=True,
            text=True,
        )
        assert ran.returncode == 2
        assert ran.stderr.count("error:") == 1 and "Traceback" not in ran.stderr
        assert svg.read_text() == "old drawing"
        assert sorted(p.name for p in disk.iterdir()) == ["g.svg", "model.json"]


def test_a_missing_folder_or_a_folder_in_the_way_is_an_error_and_changes_nothing(
    tmp_path: Path,
) -> None:
    with pytest.raises(FileNotFoundError):
        model(3).save(tmp_path / "missing" / "model.json")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "model.json").mkdir()
    with pytest.raises(IsADirectoryError):
        model(3).save(tmp_path / "model.json")
    assert [p.name for p in tmp_path.iterdir()] == ["model.json"]
    assert list((tmp_path / "model.json").iterdir()) == []


def topograd(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "topograd", *args], cwd=cwd, capture_output=True, text=True
    )


# A command that fails leaves no output of that run: each row, the command line (run in an
# empty folder) and the flag its one error line names.
COMMANDS = [
    (["grad", "x*x", "x=2", "--svg", "ok.svg", "--dot", "missing/g.dot"], "--dot"),
    (["grad", "x*x", "x=2", "--svg", "ok.svg", "--dot", "."], "--dot"),
    (["train", "--steps", "3", "--plot", "ok.png", "--save", "/proc/m.json"], "--save"),
    (["train", "--steps", "3", "--plot", "ok.png", "--save", "m.txt"], "--save"),
]


@pytest.mark.parametrize(("args", "flag"), COMMANDS, ids=[" ".join(a) for a, _ in COMMANDS])
def test_a_command_that_cannot_write_an_output_writes_none(
    tmp_path: Path, args: list[str], flag: str
) -> None:
    ran = topograd(*args, cwd=tmp_path)
    assert ran.returncode == 2
    assert ran.stderr.count("error:") == 1 and flag in ran.stderr, ran.stderr
    assert "Traceback" not in ran.stderr
    assert list(tmp_path.iterdir()) == []


def test_several_outputs_are_written_all_or_none() -> None:
    from topograd.disk import write_all

    with tmpfs("1m") as disk:
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        good = Path(tempfile.mkdtemp()) / "ok.svg"
        with pytest.raises(OSError, match="Read-only"):
            write_all({good: b"<svg/>", disk / "g.dot": b"digraph {}"})
        assert not good.exists() and list(good.parent.iterdir()) == []
        good.parent.rmdir()


def test_a_reader_that_goes_away_ends_the_command_quietly(tmp_path: Path) -> None:
    """`topograd ops | true`: the pipe is closed before topograd writes; no traceback."""
    ran = subprocess.run(
        ["sh", "-c", f"'{sys.executable}' -m topograd ops 2>err.txt | true"],
        cwd=tmp_path,
        capture_output=True,
    )
    assert ran.returncode == 0  # the pipeline's: true's
    assert (tmp_path / "err.txt").read_text() == ""


def test_a_terminal_that_cannot_show_a_character_gets_it_escaped() -> None:
    ran = subprocess.run(
        [sys.executable, "-m", "topograd", "ops"],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii"},
    )
    assert ran.returncode == 0 and ran.stderr == b""
    assert b"\\u221a" in ran.stdout  # the square root of sqrt's maths
