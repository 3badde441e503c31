"""The ``topograd`` command line, one module per command: ``demo``, ``grad``, ``train``,
``playground``, ``check``, ``ops``. A new command is a module with ``add(commands)`` and a
line below.

Every refusal of user input is one line, ``error: ...``, on stderr, and exit status 2.
"""

from __future__ import annotations

import argparse
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
    args = parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except (UsageError, ExpressionError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return status
