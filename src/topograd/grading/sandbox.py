"""The sandbox each submission's child runs in, made with Linux namespaces by Debian's
``bubblewrap`` (``bwrap``), as Gradescope, otter-grader and INGInious grade each submission in a
throwaway container:

- no network (a network namespace of its own, with only its own loopback);
- a PID namespace of its own that dies with the grader: whatever the child starts (a daemon
  included) is killed when the grade ends, killed or not;
- a private, small ``/tmp``; the system and Python's standard library read-only; the
  submission (its file, or its package's folder) read-only at ``/submission``; the child's own
  code (``inside/``) read-only at ``/grader``; nothing else: no home, no classmates' files, not
  topograd, no site-packages;
- hard resource limits the child cannot raise: address space, CPU seconds, processes, file
  size, open files, no core files.

What it does not protect: the CPU and memory the child uses within its limits, and (as Linux
exempts root from the process limit) a grader run as root is open to a fork bomb until the
grade's deadline: run it as an unprivileged user.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

INSIDE = Path(__file__).parent / "inside"  # the child's own code, stdlib only
TMP_BYTES = 64 * 2**20  # the private /tmp
FILE_BYTES = 64 * 2**20  # the largest file the child may write
OPEN_FILES = 256
PROCESSES = 64  # beyond those its user already runs (Linux counts them per user)
HEADROOM_MIB = 512  # address space beyond --memory: the interpreter, its libraries, stacks
START = "import sys; sys.path.insert(0, '/grader'); from inside.child import main; main()"
UNSAFE = (
    "grading without a sandbox: the learner's code runs as you, with your files, your network "
    "and your home; it can read, change or send anything you can, outlive the grade, and fake "
    "its own report. Only a time and memory limit hold."
)


@dataclass(frozen=True)
class Submission:
    """What is graded: a file, or a module of a package under a folder."""

    file: Path | None = None
    path: Path | None = None  # the folder that holds the package
    module: str | None = None  # "pkg.engine"

    @property
    def name(self) -> str:
        return self.file.name if self.file is not None else f"{self.module} in {self.path}"


def python() -> str:
    """The interpreter itself, not a virtual environment's link to it (with ``-I -S`` it sees
    the standard library alone): the first of those this user can run. (The child's code needs
    the standard library only, so the system's Python serves where this one is out of reach.)"""
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    base = getattr(sys, "_base_executable", sys.executable)
    for candidate in (
        os.path.realpath(base),
        os.path.join(sys.base_prefix, "bin", version),
        f"/usr/bin/{version}",
        "/usr/bin/python3",
    ):
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.realpath(candidate)
    return sys.executable


def system_binds() -> list[str]:
    """Read-only binds of the system and of the interpreter's installation."""
    binds: list[str] = []
    for where in ("/usr", "/bin", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache"):
        binds += ["--ro-bind-try", where, where]
    prefix = str(Path(python()).parent.parent)  # .../bin/python3.11 -> ...
    if prefix != "/usr" and not prefix.startswith("/usr/"):
        binds += ["--ro-bind", prefix, prefix]
    return binds


@functools.cache
def inside_copy() -> Path:
    """A read-only copy of the child's code for this grader's sandboxes, in a folder of its
    own (removed at exit): bwrap binds it as the grading user, wherever topograd is installed
    and whoever may write there."""
    folder = Path(tempfile.mkdtemp(prefix="topograd-grader-"))
    atexit.register(shutil.rmtree, folder, True)
    copy = folder / "inside"
    copy.mkdir()
    for source in INSIDE.glob("*.py"):
        (copy / source.name).write_bytes(source.read_bytes())
        (copy / source.name).chmod(0o444)
    copy.chmod(0o555)
    folder.chmod(0o755)
    return copy


def located(submission: Submission, sandboxed: bool) -> dict[str, str]:
    """Where the child's request finds the submission: at /submission in the sandbox."""
    if submission.file is not None:
        name = submission.file.name
        return {"file": f"/submission/{name}" if sandboxed else str(submission.file.resolve())}
    assert submission.path is not None and submission.module is not None
    folder = "/submission" if sandboxed else str(submission.path.resolve())
    return {"path": folder, "module": submission.module}


def command(submission: Submission, sandboxed: bool) -> list[str]:
    """The child's command line: the interpreter on the standard library alone, in bwrap."""
    if not sandboxed:
        return [python(), "-I", "-S", "-c", START.replace("/grader", str(inside_copy().parent))]
    shown = submission.file if submission.file is not None else submission.path
    assert shown is not None
    target = located(submission, sandboxed=True)
    wrap = [bubblewrap(), "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session"]
    wrap += ["--disable-userns", "--clearenv", "--setenv", "PATH", "/usr/bin:/bin"]
    wrap += ["--setenv", "HOME", "/tmp", "--setenv", "LANG", "C.UTF-8"]
    wrap += ["--proc", "/proc", "--dev", "/dev", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    wrap += [*system_binds(), "--ro-bind", str(inside_copy()), "/grader/inside"]
    wrap += ["--ro-bind", str(shown.resolve()), target.get("file", "/submission")]
    return [*wrap, "--chdir", "/tmp", python(), "-I", "-S", "-c", START]


def bubblewrap() -> str:
    return shutil.which("bwrap") or "bwrap"


def processes_of_this_user() -> int:
    """How many processes this user runs now (Linux's process limit counts them all)."""
    uid, count = os.getuid(), 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                count += os.stat(f"/proc/{entry}").st_uid == uid
    return count


def limiter(memory: int, cpu_seconds: int) -> Callable[[], None]:
    """What the child process sets on itself before it runs bwrap: hard limits (soft = hard),
    which neither it nor the learner's code can raise."""
    processes = processes_of_this_user() + PROCESSES

    def limit() -> None:
        for kind, amount in (
            (resource.RLIMIT_AS, (memory + HEADROOM_MIB) * 2**20),
            (resource.RLIMIT_DATA, (memory + HEADROOM_MIB) * 2**20),
            (resource.RLIMIT_CPU, cpu_seconds),
            (resource.RLIMIT_NPROC, processes),
            (resource.RLIMIT_FSIZE, FILE_BYTES),
            (resource.RLIMIT_NOFILE, OPEN_FILES),
            (resource.RLIMIT_CORE, 0),
        ):
            resource.setrlimit(kind, (amount, amount))

    return limit


@functools.cache
def unavailable() -> str:
    """Why the sandbox cannot be made here ("" where it can): bwrap missing, or refused (no
    user namespaces)."""
    if shutil.which("bwrap") is None:
        return "bwrap (Debian's bubblewrap) is not installed (apt-get install bubblewrap)"
    trial = [*command(Submission(file=inside_copy() / "__init__.py"), sandboxed=True)[:-1], "pass"]
    try:
        done = subprocess.run(trial, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap could not run: {error}"
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bwrap cannot make the sandbox here: {said[-1] if said else done.returncode}"
    return ""
