"""The ``topograd`` command line, one module per command: ``demo``, ``grad``, ``train``,
``playground``, ``check``, ``ops``. A new command is a module with ``add(commands)`` and a
line below.

Every refusal of user input is one line, ``error: ...``, on stderr, and exit status 2. Output
that cannot be written is handled as Unix tools do: a reader that went away (``| head``) ends
the command quietly (status 141, as SIGPIPE would), a full or closed output is one error line
and status 1.
"""

from __future__ import annotations

import argparse
import errno
import io
import os
import sys
from collections.abc import Sequence

from ..expr import ExpressionError
from . import check, demo, grad, ops, playground, train
from .common import Parser, UsageError

COMMANDS = (demo, grad, train, playground, check, ops)


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
    try:
        if sys.stdout is None:  # started with its output closed (>&-)
            raise OSError(errno.EBADF, "standard output is closed")
        status: int = args.run(args)
        sys.stdout.flush()
    except (UsageError, ExpressionError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (| head): stop quietly, as Unix tools do
        _silence_stdout()
        return 128 + 13  # as a tool killed by SIGPIPE
    except OSError as error:
        if error.filename is not None:  # not the output stream: a file no command expected
            raise
        _silence_stdout()
        print(f"error: cannot write the output: {error.strerror}", file=sys.stderr)
        return 1  # as echo > /dev/full
    return status


def _silence_stdout() -> None:
    """Point the output at /dev/null, so that the flush at exit does not fail again."""
    if sys.stdout is not None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
