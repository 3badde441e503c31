"""The ``topograd`` command line, one module per command: ``demo``, ``grad``, ``train``,
``playground``, ``check``, ``ops``, ``grade``, ``modes``. A new command is a module with
``add(commands)`` and a line below.

Every refusal of user input is one line, ``error: ...``, on stderr, and exit status 2 (an
output file that could not be written is refused so, before the work). Output that cannot be
written is handled as Unix tools do: a reader that went away (``| head``) ends the command
quietly (status 141, as SIGPIPE would), a full or closed output is one error line and status
1, and so is an output file whose writing fails (a full disk), the line naming it and its flag.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from ..expr import ExpressionError
from . import check, demo, grad, grade, modes, ops, playground, train
from .common import Parser, UsageError, WriteError

COMMANDS = (demo, grad, train, playground, check, ops, grade, modes)


def parser() -> argparse.ArgumentParser:
    top = Parser(
        prog="topograd",
        description="Reverse-mode automatic differentiation you can read, check and trust.",
    )
    commands = top.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=Parser
    )
    for command in COMMANDS:
        command.add(commands)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # a terminal that cannot show a character: \u221a
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    args = parser().parse_args(argv)
    stdout = sys.stdout
    try:
        if stdout is None:  # started with its output closed (>&-)
            raise OutputStreamError(OSError(errno.EBADF, "standard output is closed"))
        sys.stdout = Guarded(stdout)
        status: int = args.run(args)
        sys.stdout.flush()
    except (UsageError, ExpressionError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except WriteError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1  # as cp onto a full disk
    except BrokenPipeError:  # the reader went away (| head): stop quietly, as Unix tools do
        _silence()
        return 128 + 13  # as a tool killed by SIGPIPE
    except OutputStreamError as error:
        _silence(stderr=False)
        print(f"error: cannot write the output: {error.cause.strerror}", file=sys.stderr)
        return 1  # as echo > /dev/full
    finally:
        sys.stdout = stdout
    return status


class OutputStreamError(Exception):
    """Writing the standard output failed (/dev/full, a closed stream): not a file of a
    command's, whose errors are usage errors."""

    def __init__(self, cause: OSError) -> None:
        super().__init__(cause.strerror)
        self.cause = cause


class Guarded:
    """The standard output, its write errors told apart from every other OSError."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        with _told_apart():
            return self.stream.write(text)

    def flush(self) -> None:
        with _told_apart():
            self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextlib.contextmanager
def _told_apart() -> Iterator[None]:
    """A write error of the output stream raised as OutputStreamError (a broken pipe as it is:
    the reader went away)."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputStreamError(error) from error


def _silence(stderr: bool = True) -> None:
    """Point the broken streams at /dev/null, so that the flush at exit does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.__stdout__, sys.__stderr__ if stderr else None):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                os.dup2(devnull, stream.fileno())
    os.close(devnull)
