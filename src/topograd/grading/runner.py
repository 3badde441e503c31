"""Running the probes in a child process, never in the grader's own: a fresh interpreter that
imports the learner's file, or a fork that has the class in hand. Each probe has a time limit;
a probe that runs over it, or a child that dies (a segmentation fault, ``os._exit``), is
recorded for that probe, and a new child goes on with the probes after it.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .child import forked

MAX_TIMEOUTS = 3  # after this many probes ran out of time, the rest are not run
GRACE = 1.0  # seconds a child that closed its stream has to exit on its own, before a kill


@dataclass(frozen=True)
class Outcome:
    """What one probe gave: its numbers, or what went wrong and where in the learner's code."""

    numbers: dict[str, Any] | None = None
    error: str = ""
    where: str = ""


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


class Spawned:
    """A fresh interpreter that imports the learner's file."""

    starting = "loading the file"

    def __init__(self, path: str, class_name: str, memory: int, names: list[str]) -> None:
        command = [sys.executable, "-P", "-m", "topograd.grading.child", path, class_name]
        command.append(str(memory))  # (-P: the current folder does not shadow a module)
        self.process = subprocess.Popen(
            [*command, *names],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        assert self.process.stdout is not None
        self.fd = self.process.stdout.fileno()

    def end(self, patient: bool) -> int:
        if patient:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(GRACE)
        kill(self.process.pid)
        code = self.process.wait()
        assert self.process.stdout is not None
        self.process.stdout.close()
        return code


class Forked:
    """A fork of this process that runs the probes on a class in hand."""

    starting = "starting the forked child"

    def __init__(self, cls: Any, memory: int, names: list[str]) -> None:
        read, write = os.pipe()
        with warnings.catch_warnings():  # Python 3.12 warns of forking with threads running
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # the child
            os.close(read)
            os.setsid()
            forked(cls, names, memory, write)
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


class Events:
    """The child's JSON lines, each awaited for at most a given time."""

    def __init__(self, fd: int) -> None:
        self.fd, self.buffer, self.timed_out = fd, b"", False
        self.ready = selectors.DefaultSelector()  # (select.select fails on a descriptor >= 1024)
        self.ready.register(fd, selectors.EVENT_READ)

    def next(self, timeout: float) -> dict[str, Any] | None:
        """The next event; None when the child ended or ``timeout`` seconds passed first."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self.ready.select(left):
                self.timed_out = True
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        try:
            event = json.loads(line)
        except ValueError:
            return None
        return event if isinstance(event, dict) else None


def why(events: Events, code: int, timeout: float) -> str:
    """Why the child stopped, in words."""
    if events.timed_out:
        return f"did not finish in {timeout:g} s (an endless loop?)"
    if code < 0:
        return f"the process died of {signal.Signals(-code).name}"
    return f"the process exited with status {code}"


def measure(
    launch: Callable[[list[str]], Child],
    names: list[str],
    timeout: float,
    follows: dict[str, list[str]],
) -> Measurements:
    """Every probe of ``names`` run in children started by ``launch`` (with the probes still to
    run), a new child after each one lost; the probes that ``follows`` a lost one are not
    run."""
    found = Measurements()
    todo, timeouts = list(names), 0
    while todo:
        child = launch(todo)
        events, running = Events(child.fd), ""
        try:
            first = events.next(timeout)
            if first is not None and "load_error" in first:
                found.load_error, found.where = first["load_error"], first.get("where", "")
                return found
            if first is not None:
                found.class_name = first.get("loaded", "")
                while todo and (event := events.next(timeout)) is not None:
                    if "start" in event:
                        running = event["start"]
                    elif event.get("done") in todo:
                        found.outcomes[event["done"]] = Outcome(
                            event.get("numbers"), event.get("error", ""), event.get("where", "")
                        )
                        todo.remove(event["done"])
                        running = ""
        finally:
            code = child.end(patient=not events.timed_out)
            events.ready.close()
        if first is None:
            found.load_error = (
                f"{child.starting} did not finish in {timeout:g} s (an endless loop, or work "
                "done at import time? raise the timeout)"
                if events.timed_out
                else f"{child.starting}: {why(events, code, timeout)}"
            )
            return found
        if todo:
            lost = running if running in todo else todo[0]
            found.outcomes[lost] = Outcome(error=why(events, code, timeout))
            todo.remove(lost)
            for name in follows.get(lost, []):
                if name in todo:
                    found.outcomes[name] = Outcome(error=f"not run: {lost} was lost")
                    todo.remove(name)
            timeouts += events.timed_out
            if timeouts >= MAX_TIMEOUTS:
                for name in todo:
                    found.outcomes[name] = Outcome(error=f"not run: {timeouts} probes timed out")
                todo = []
    return found
