"""The ``topograd`` command line: ``topograd demo``, ``topograd check``."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from . import demo
from .check import check_rules


def _demo(args: argparse.Namespace) -> int:
    print(demo.run())
    return 0


def _check(args: argparse.Namespace) -> int:
    reports = check_rules(args.points, args.seed)
    print(
        f"Every derivative rule against central differences (Richardson extrapolation) at "
        f"{args.points} random points of its domain, and at its special points:\n"
    )
    print(f"{'op':<9} {'points':>7} {'worst rel. error':>17}  verdict")
    for r in reports:
        verdict = "ok" if r.passed else "FAIL"
        print(f"{r.op:<9} {r.points:>7} {r.worst:>17.1e}  {verdict}")
        for failure in r.special_failures:
            print(f"          special point {failure}")
    failed = [r.op for r in reports if not r.passed]
    print(
        f"\n{len(reports)} rules checked (tolerance {reports[0].tolerance:g}), "
        + (f"{len(failed)} failed: {', '.join(failed)}" if failed else "all pass")
    )
    return 1 if failed else 0


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="topograd",
        description="Reverse-mode automatic differentiation you can read, check and trust.",
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser(
        "demo",
        help="the lesson: e = tanh(a*b + c), forward, backward and a numerical check",
        description="Build e = tanh(a*b + c) at a=2, b=-3, c=10, run backprop and check every "
        "gradient against central differences.",
    ).set_defaults(run=_demo)
    check = commands.add_parser(
        "check",
        help="check every built-in derivative rule against central differences",
        description="Check every built-in derivative rule against central differences at "
        "random points of its domain and at its special points (kinks, singular points), "
        "print a table, and exit 1 if any rule fails.",
    )
    check.add_argument("--points", type=_positive, default=1000, help="random points per op")
    check.add_argument("--seed", type=int, default=0, help="seed of the random points")
    check.set_defaults(run=_check)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    status: int = args.run(args)
    return status
