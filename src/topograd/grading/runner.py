"""Running the probes in a child process, never in the grader's own: a fresh interpreter in a
sandbox that loads the learner's file (``sandbox.py``), or a fork that has the class in hand.

The child only measures; this side trusts none of what it says. Its messages are framed,
typed and bounded (``messages.py``), and must come in the order asked: anything malformed,
forged, out of order, late or too large is the submission's failure on the probe it stands
for, never the grader's crash. Each probe has a time limit counted from the end of the one
before (a child that talks without measuring gains nothing), and the whole grade has one
deadline. A probe that runs over, or a child that dies or misbehaves, is recorded for that
probe, and a new child goes on with the probes after it.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import selectors
import signal
import subprocess
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .inside.child import forked
from .inside.probes import Points
from .messages import HEADER, MAX_FRAME, MalformedError, Outcome, outcome_of, parsed
from .sandbox import Submission, command, limiter, located

MAX_TIMEOUTS = 3  # after this many probes ran out of time, the rest are not run
MAX_LOST = 6  # after this many children were lost, the rest are not run
GRACE = 1.0  # seconds a child that closed its stream has to exit on its own, before a kill
PR_SET_PDEATHSIG = 1
SIGNALLED = 128  # bwrap's exit status for a child killed by a signal, less the signal


@dataclass
class Measurements:
    """Every probe's outcome, or why the learner's code could not be loaded."""

    class_name: str = ""
    load_error: str = ""
    where: str = ""
    outcomes: dict[str, Outcome] = field(default_factory=dict)


class Child(Protocol):
    fd: int
    starting: str  # what the child does before its first line: "loading the file"

    def end(self, patient: bool) -> int:
        """Reap the child, after GRACE seconds to exit on its own if ``patient``, then killed
        (with anything it started): its exit code, as subprocess's (-N for signal N)."""
        ...


def kill(pid: int) -> None:
    """SIGKILL to the child's session (what it started) and to the child itself (in case it
    had not yet made its session)."""
    for send in (os.killpg, os.kill):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            send(pid, signal.SIGKILL)


def dies_with_grader() -> None:
    """In the new child, before it runs anything: killed when the grader dies, however."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Spawned:
    """A fresh interpreter that loads the learner's file, in the sandbox unless told not."""

    starting = "loading the file"

    def __init__(self, submission: Submission, request: dict[str, Any], sandboxed: bool) -> None:
        limit = limiter(int(request["memory"]), int(request.pop("cpu_seconds")))

        def prepare() -> None:
            dies_with_grader()
            limit()

        self.process = subprocess.Popen(
            command(submission, sandboxed),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=prepare,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        request.update(located(submission, sandboxed))
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.write(json.dumps(request).encode())
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.close()
        self.fd, self.sandboxed = self.process.stdout.fileno(), sandboxed

    def end(self, patient: bool) -> int:
        if patient:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(GRACE)
        kill(self.process.pid)
        code = self.process.wait()
        assert self.process.stdout is not None
        self.process.stdout.close()
        if self.sandboxed and SIGNALLED < code <= SIGNALLED + 64:
            return SIGNALLED - code  # bwrap tells a death by signal N as status 128 + N
        return code


class Forked:
    """A fork of this process that runs the probes on a class in hand (a learner's own
    self-check: no sandbox)."""

    starting = "starting the forked child"

    def __init__(self, cls: Any, memory: int, names: list[str], at: Points) -> None:
        read, write = os.pipe()
        with warnings.catch_warnings():  # Python 3.12 warns of forking with threads running
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # the child
            os.close(read)
            os.setsid()
            forked(cls, names, at, memory, write)
        os.close(write)
        self.pid, self.fd = pid, read

    def end(self, patient: bool) -> int:
        deadline = time.monotonic() + (GRACE if patient else 0.0)
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.01)
        kill(self.pid)
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


class Frames:
    """The child's framed messages, each awaited until a deadline. After a None, ``why``
    says what happened: "ended", "timed out", or what was malformed."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buffer, self.why = fd, b"", ""
        self.ready = selectors.DefaultSelector()  # (select.select fails on a descriptor >= 1024)
        self.ready.register(fd, selectors.EVENT_READ)

    def read(self, size: int, deadline: float) -> bytes | None:
        while len(self.buffer) < size:
            left = deadline - time.monotonic()
            if left <= 0 or not self.ready.select(left):
                self.why = "timed out"
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                self.why = "ended"
                return None
            self.buffer += chunk
        taken, self.buffer = self.buffer[:size], self.buffer[size:]
        return taken

    def next(self, deadline: float) -> dict[str, Any] | None:
        """The next message; None when the child ended, sent something malformed, or
        ``deadline`` (a time.monotonic()) passed first."""
        header = self.read(HEADER, deadline)
        if header is None:
            return None
        try:
            size = int(header.decode("ascii"), 16)
            if not 0 < size <= MAX_FRAME or not header.isalnum():
                raise ValueError
        except ValueError:
            self.why = f"a message that is not a frame (it began {header[:8]!r})"
            return None
        payload = self.read(size, deadline)
        if payload is None:
            return None
        try:
            return parsed(payload)
        except MalformedError as error:
            self.why = str(error)
            return None

    def close(self) -> None:
        self.ready.close()


def why(frames: Frames, code: int, timeout: float) -> str:
    """Why the child stopped, in words."""
    if frames.why == "timed out":
        return f"did not finish in {timeout:g} s (an endless loop?)"
    if frames.why not in ("", "ended"):
        return f"the child sent {frames.why}: the grader reads only its own messages"
    if code < 0:
        try:
            return f"the process died of {signal.Signals(-code).name}"
        except ValueError:  # a real-time signal has no name
            return f"the process died of signal {-code}"
    return f"the process exited with status {code}"


def listen(child: Child, todo: list[str], found: Measurements, timeout: float, end: float) -> str:
    """One child's messages read into ``found``, each probe's taking it off ``todo``: why the
    child stopped ("" once it loaded and ran them all; "not loaded: ..." or the load error in
    ``found`` when it never loaded)."""
    frames = Frames(child.fd)
    try:
        first = frames.next(min(time.monotonic() + timeout, end))
        if first is not None and "load_error" in first:
            found.load_error, found.where = first["load_error"], first["where"]
            return "not loaded"
        if first is not None and "loaded" not in first:
            frames.why, first = "a probe's result before the class was loaded", None
        if first is not None:
            found.class_name = first["loaded"]
        while first is not None and todo:
            event = frames.next(min(time.monotonic() + timeout, end))
            if event is None:
                break
            if event.get("done") != todo[0]:
                frames.why = f"a message out of order (expected {todo[0]})"
                break
            found.outcomes[todo.pop(0)] = outcome_of(event)
    finally:
        code = child.end(patient=frames.why in ("", "ended"))
        frames.close()
    if first is None:
        found.load_error = (
            f"{child.starting} did not finish in {timeout:g} s (an endless loop, or work "
            "done at import time? raise the timeout)"
            if frames.why == "timed out"
            else f"{child.starting}: {why(frames, code, timeout)}"
        )
        return "not loaded"
    return why(frames, code, timeout) if todo else ""


def measure(
    launch: Callable[[list[str]], Child],
    names: list[str],
    timeout: float,
    follows: dict[str, list[str]],
    deadline: float = 3600.0,
) -> Measurements:
    """Every probe of ``names`` run in children started by ``launch`` (with the probes still to
    run), a new child after each one lost; the probes that ``follows`` a lost one are not
    run, nor any once ``deadline`` seconds have passed."""
    found, todo, lost = Measurements(), list(names), []
    end = time.monotonic() + deadline
    while todo:
        stopped = listen(launch(todo), todo, found, timeout, end)
        if stopped == "not loaded":
            return found
        if not todo:
            break
        over = time.monotonic() >= end
        passed = f"the grade's deadline of {deadline:g} s passed"
        lost.append(stopped)
        name = todo.pop(0)
        found.outcomes[name] = Outcome(error=passed if over else stopped)
        for after in follows.get(name, []):
            if after in todo:
                found.outcomes[after] = Outcome(error=f"not run: {name} was lost")
                todo.remove(after)
        timeouts = sum(text.startswith("did not finish") for text in lost)
        if over or timeouts >= MAX_TIMEOUTS or len(lost) >= MAX_LOST:
            reason = passed if over else f"{timeouts} probes timed out"
            if not over and timeouts < MAX_TIMEOUTS:
                reason = f"{len(lost)} children were lost"
            found.outcomes.update({n: Outcome(error=f"not run: {reason}") for n in todo})
            todo.clear()
    return found
