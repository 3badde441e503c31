"""The ``topograd`` command line: ``demo``, ``grad``, ``train``, ``playground`` and ``check``.

Every refusal of user input is one line, ``error: ...``, on stderr, and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from . import demo, train_command
from .datasets import DATASETS
from .expr import ExpressionError, functions, operator_list, parse
from .playground.server import serve
from .verify.gradcheck import check_rules
from .verify.numeric import central_difference
from .viz.draw import to_dot, to_svg
from .viz.graph import json_number
from .viz.trace import trace


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


class UsageError(Exception):
    """Bad input from the user: reported as one line, exit status 2."""


def _demo(args: argparse.Namespace) -> int:
    try:
        text = demo.run(Path(args.out))
    except OSError as error:
        raise UsageError(f"cannot write the drawing into {args.out}: {error.strerror}") from None
    print(text)
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


def _assignments(texts: Sequence[str]) -> dict[str, float]:
    values: dict[str, float] = {}
    for text in texts:
        name, sep, number = text.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise UsageError(f"{text!r} is not NAME=VALUE")
        if name in values:
            raise UsageError(f"{name} is given twice")
        try:
            values[name] = float(number)
        except ValueError:
            raise UsageError(f"the value of {name}, {number!r}, is not a number") from None
    return values


def _grad(args: argparse.Namespace) -> int:
    expression = parse(args.expression)
    out, inputs = expression.build(_assignments(args.values))
    out.backward()
    checks = {name: central_difference(out, v) for name, v in inputs.items()}
    for path, draw in ((args.svg, to_svg), (args.dot, to_dot)):
        if path:
            _write(path, draw(out))
    if args.json:
        report: dict[str, Any] = {
            "expression": expression.text,
            "value": json_number(out.data),
            "grads": {n: json_number(v.grad) for n, v in inputs.items()},
            "central_differences": {n: json_number(c) for n, c in checks.items()},
        }
        if args.trace:
            report["trace"] = trace(out).to_json()
        print(json.dumps(report))
        return 0
    print(f"{expression.text}  at  {', '.join(f'{n} = {v.data:g}' for n, v in inputs.items())}")
    print(f"value  {out.data!r}\n")
    width = max([len(n) for n in inputs] + [4])
    print(f"{'d/d' + ' ' * (width - 3)}  {'backprop':>24}  {'central difference':>24}  |diff|")
    for name, v in inputs.items():
        gap = abs(v.grad - checks[name])
        print(f"{name:<{width}}  {v.grad!r:>24}  {checks[name]!r:>24}  {gap:.1e}")
    if args.trace:
        print("\nBackward pass, step by step:\n")
        print(trace(out).table())
    return 0


def _train(args: argparse.Namespace) -> int:
    args.engine = args.engine or ("tensor" if args.dataset == "digits" else "scalar")
    try:
        return train_command.run(args)
    except train_command.CommandError as error:
        raise UsageError(str(error)) from None


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text)
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None


def _playground(args: argparse.Namespace) -> int:
    try:
        serve(args.port, open_browser=not args.no_browser)
    except OSError as error:
        raise UsageError(f"cannot serve on port {args.port}: {error.strerror}") from None
    return 0


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, got {value}")
    return value


def _natural(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def parser() -> argparse.ArgumentParser:
    top = _Parser(
        prog="topograd",
        description="Reverse-mode automatic differentiation you can read, check and trust.",
    )
    commands = top.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Parser
    )
    demo_ = commands.add_parser(
        "demo",
        help="the lesson: e = tanh(a*b + c), forward, backward, checks, three experiments",
        description="Build e = tanh(a*b + c) at a=2, b=-3, c=10, run backprop step by step, "
        "check every gradient against central differences (and PyTorch where installed), try "
        "three experiments, and draw the graph as SVG.",
    )
    demo_.add_argument("--out", default="out", help="folder for the drawing (default: out)")
    demo_.set_defaults(run=_demo)
    grad = commands.add_parser(
        "grad",
        help="differentiate an expression: topograd grad 'tanh(a*b + c)' a=2 b=-3 c=10",
        description="Evaluate EXPR at the given values, run backprop, and print the value and "
        "the gradient of every input beside its central-difference check. EXPR uses numbers, "
        f"names, {operator_list()}, and the functions {' '.join(functions())}.",
        epilog="An expression that starts with '-' goes after '--': topograd grad -- '-x' x=1",
    )
    grad.add_argument("expression", metavar="EXPR")
    grad.add_argument("values", metavar="NAME=VALUE", nargs="*")
    grad.add_argument("--json", action="store_true", help="print JSON instead of a table")
    grad.add_argument("--trace", action="store_true", help="add the backward pass step by step")
    grad.add_argument("--svg", metavar="FILE", help="draw the graph as SVG into FILE")
    grad.add_argument("--dot", metavar="FILE", help="write the graph as Graphviz DOT into FILE")
    grad.set_defaults(run=_grad)
    train_ = commands.add_parser(
        "train",
        help="train an MLP: micrograd's demo on a 2-D dataset, or the digits on Tensors",
        description="Train MLP(2, [16, 16, 1]) (more outputs for more classes) on a small 2-D "
        "dataset with micrograd's demo recipe: full batch, hinge (or cross-entropy) loss plus "
        "1e-4 * L2, SGD with the learning rate falling linearly, on scalar Values or, with "
        "--engine tensor, on Tensors (then also timing the scalar run). --dataset digits trains "
        "an MLP 64-64-10 on scikit-learn's 8x8 digits on Tensors. A progress bar, the final "
        "accuracy, and optionally a plot and the saved model.",
    )
    train_.add_argument("--dataset", choices=[*sorted(DATASETS), "digits"], default="moons")
    train_.add_argument(
        "--engine",
        choices=["scalar", "tensor"],
        default=None,
        help="scalar Values or NumPy Tensors (default: scalar; the digits: tensor)",
    )
    train_.add_argument(
        "--steps", type=_positive, default=None, help="steps (default 100; digits 300)"
    )
    train_.add_argument("--seed", type=_natural, default=0, help="seed of the data and the weights")
    train_.add_argument("--points", type=_positive, default=100, help="dataset size (default 100)")
    train_.add_argument("--plot", metavar="FILE.png", help="draw the decision boundary into FILE")
    train_.add_argument("--save", metavar="FILE", help="save the model (FILE.json, or FILE.npz)")
    train_.set_defaults(run=_train)
    playground = commands.add_parser(
        "playground",
        help="a page on 127.0.0.1 to type an expression and step through backprop",
        description="Serve the playground on 127.0.0.1 and open it in the browser. The first "
        "line printed is its address. Ctrl-C stops it.",
    )
    playground.add_argument("--port", type=_port, default=0, help="the port (default: a free one)")
    playground.add_argument("--no-browser", action="store_true", help="do not open a browser")
    playground.set_defaults(run=_playground)
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
    try:
        status: int = args.run(args)
    except (UsageError, ExpressionError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return status
