"""The ``topograd`` command line."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from . import demo


def _demo(args: argparse.Namespace) -> int:
    print(demo.run())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="topograd",
        description="Reverse-mode automatic differentiation you can read, check and trust.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser(
        "demo", help="the lesson: e = tanh(a*b + c), forward, backward and a numerical check"
    ).set_defaults(run=_demo)
    args = parser.parse_args(argv)
    status: int = args.run(args)
    return status
