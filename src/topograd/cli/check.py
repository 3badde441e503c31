"""``topograd check``: every op's rule against central differences of its own forward, at
random points of its domain and at its special points, on each kind it has."""

from __future__ import annotations

import argparse
from typing import Any

from ..verify.rules import KINDS, check_rules
from .common import positive


def add(commands: Any) -> None:
    check = commands.add_parser(
        "check",
        help="check every built-in derivative rule against central differences",
        description="Check every built-in derivative rule against central differences at "
        "random points of its domain and at its special points (kinks, singular points), "
        "print a table, and exit 1 if any rule fails.",
    )
    check.add_argument("--points", type=positive, default=1000, help="random points per op")
    check.add_argument("--seed", type=int, default=0, help="seed of the random points")
    check.add_argument(
        "--kind",
        choices=[*KINDS, "all"],
        default="all",
        help="the data kind to check the rules on (default: all; scalar needs no NumPy)",
    )
    check.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    reports = check_rules(args.points, args.seed, KINDS if args.kind == "all" else [args.kind])
    print(
        f"Every derivative rule against central differences (Richardson extrapolation) at "
        f"{args.points} random points of its domain, and at its special points; on Tensors, "
        "against the float rule element by element and as vᵀJu on each case:\n"
    )
    width = max(len(r.op) for r in reports)
    print(f"{'op':<{width}}  {'kind':<6} {'points':>7} {'worst rel. error':>17}  verdict")
    for r in reports:
        verdict = "ok" if r.passed else "FAIL"
        print(f"{r.op:<{width}}  {r.kind:<6} {r.points:>7} {r.worst:>17.1e}  {verdict}")
        for failure in r.special_failures:
            print(f"{'':<{width}}  special point {failure}")
    failed = [f"{r.op} ({r.kind})" for r in reports if not r.passed]
    print(
        f"\n{len(reports)} rules checked (tolerance {reports[0].tolerance:g}), "
        + (f"{len(failed)} failed: {', '.join(failed)}" if failed else "all pass")
    )
    return 1 if failed else 0
