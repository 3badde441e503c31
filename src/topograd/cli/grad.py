"""``topograd grad EXPR NAME=VALUE ...``: differentiate a typed expression, check every
gradient against central differences, and show the backward pass or draw the graph."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from typing import Any

from ..compiler import compile  # noqa: A004 - tg.compile
from ..expr import Expression, functions, operator_list, parse
from ..func.forward import tangents
from ..scalar.value import Value
from ..verify.domain import relative_difference, undefined
from ..verify.numeric import central_difference
from ..viz.draw import to_dot, to_svg
from ..viz.graph import NodeInfo, describe, ids, json_number, walk
from ..viz.trace import aligned, op_column, trace
from .common import UsageError, check_outputs, write_outputs


def add(commands: Any) -> None:
    grad = commands.add_parser(
        "grad",
        help="differentiate an expression: topograd grad 'tanh(a*b + c)' a=2 b=-3 c=10",
        description="Evaluate EXPR at the given values, run backprop, and print the value and "
        "the gradient of every input beside its central-difference check. EXPR uses numbers, "
        f"names, {operator_list()}, and the functions {' '.join(functions())}; it may also "
        "be lines that name their values, 'd = a*b; n = d + c; e = tanh(n)'.",
        epilog="An expression that starts with '-' goes after '--': topograd grad -- '-x' x=1",
    )
    grad.add_argument("expression", metavar="EXPR")
    grad.add_argument("values", metavar="NAME=VALUE", nargs="*")
    grad.add_argument("--json", action="store_true", help="print JSON instead of a table")
    grad.add_argument("--trace", action="store_true", help="add the backward pass step by step")
    grad.add_argument(
        "--forward",
        action="store_true",
        help="add forward mode step by step: one pass per input, carrying d(node)/d(input)",
    )
    grad.add_argument(
        "--code",
        action="store_true",
        help="add the Python that tg.compile writes for it: the forward and the backward pass",
    )
    grad.add_argument("--svg", metavar="FILE", help="draw the graph as SVG into FILE")
    grad.add_argument("--dot", metavar="FILE", help="write the graph as Graphviz DOT into FILE")
    grad.set_defaults(run=run)


def assignments(texts: Sequence[str]) -> dict[str, float]:
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


def run(args: argparse.Namespace) -> int:
    check_outputs({"--svg": (args.svg, ()), "--dot": (args.dot, ())})
    expression = parse(args.expression)
    out, inputs = expression.build(assignments(args.values))
    out.backward()
    checks = {name: central_difference(out, v) for name, v in inputs.items()}
    drawings = _drawings(args)
    write_outputs({flag: (path, draw(out).encode()) for flag, (path, draw, _) in drawings.items()})
    if args.json:
        report: dict[str, Any] = {
            "expression": expression.text,
            "value": json_number(out.data),
            "grads": {n: json_number(v.grad) for n, v in inputs.items()},
            "central_differences": {n: json_number(c) for n, c in checks.items()},
            "relative_differences": {
                n: json_number(relative_difference(v.grad, checks[n])) for n, v in inputs.items()
            },
            "undefined": undefined(out),
        }
        if args.trace:
            report["trace"] = trace(out).to_json()
        if args.code:
            report["code"] = compiled_source(expression, inputs)
        if args.forward:
            names, columns = forward_steps(out, inputs)
            report["forward"] = {
                "nodes": [n.name for n in names],
                "tangents": {k: [json_number(t) for t in c] for k, c in columns.items()},
            }
        if drawings:
            report["files"] = {flag.lstrip("-"): d[0] for flag, d in drawings.items()}
        print(json.dumps(report))
        return 0
    print(f"{expression.text}  at  {', '.join(f'{n} = {v.data:g}' for n, v in inputs.items())}")
    print(f"value  {out.data!r}\n")
    width = max([len(n) for n in inputs] + [4])
    print(f"{'d/d' + ' ' * (width - 3)}  {'backprop':>24}  {'central difference':>24}  rel. diff")
    for name, v in inputs.items():
        gap = relative_difference(v.grad, checks[name])
        print(f"{name:<{width}}  {v.grad!r:>24}  {checks[name]!r:>24}  {gap:.1e}")
    print(RELATIVE)
    if undefined(out):
        print(f"note: {undefined(out)}")
    if args.trace:
        print("\nBackward pass, step by step:\n")
        print(trace(out).table())
    if args.forward:
        print(
            f"\nForward mode, step by step: {len(inputs)} pass{'es' * (len(inputs) != 1)}, one "
            "per input, each node's "
            "tangent\nd(node)/d(input) made from its operands' as the forward pass makes its "
            "value; the\noutput's row is the gradient, which backprop gets in one backward "
            "pass:\n"
        )
        print(forward_table(out, inputs))
    if args.code:
        print("\nThe same, compiled (tg.compile): the backward pass as code, one line per rule:\n")
        print(compiled_source(expression, inputs), end="")
    if drawings:
        print()
    for path, _, what in drawings.values():
        print(f"{what}: {path}")
    return 0


RELATIVE = "(rel. diff: |backprop - central| / max(1, |backprop|, |central|))"


def _drawings(args: argparse.Namespace) -> dict[str, tuple[str, Callable[[Value], str], str]]:
    """Per flag given: its file, how it is drawn, and how the command says it was."""
    drawings = {
        "--svg": (args.svg, to_svg, "the graph drawn as SVG"),
        "--dot": (args.dot, to_dot, "the graph as Graphviz DOT"),
    }
    return {flag: drawing for flag, drawing in drawings.items() if drawing[0]}


def compiled_source(expression: Expression, inputs: dict[str, Value]) -> str:
    """The code ``tg.compile`` writes for the expression at these inputs (its gradients are
    backprop's, bit for bit: a check, not a hope)."""
    names = list(inputs)

    def f(*leaves: Value) -> Value:
        return expression.on(dict(zip(names, leaves)))

    fast = compile(f, grads=True)
    _, grads = fast(*(Value(v.data, label=n) for n, v in inputs.items()))
    backprop = [v.grad for v in inputs.values()]
    assert [float(g).hex() for g in grads] == [float(g).hex() for g in backprop], (grads, backprop)
    return str(fast.source)


def forward_steps(
    out: Value, inputs: dict[str, Value]
) -> tuple[list[NodeInfo], dict[str, list[float]]]:
    """The graph's nodes in forward order, and for each input the tangent of every node in a
    forward pass seeded with d(input)/d(input) = 1."""
    graph = walk(out)
    nodes, _ = describe(out, graph)
    order = list(ids(graph))  # the same forward order as the nodes
    columns = {}
    for name, v in inputs.items():
        found = tangents([out], {v: 1.0}, create_graph=False)
        columns[name] = [float(found.get(node, 0.0)) for node in order]
    return nodes, columns


def forward_table(out: Value, inputs: dict[str, Value]) -> str:
    nodes, columns = forward_steps(out, inputs)
    rows = [("step", "node", "op", "value", *(f"d/d{name}" for name in columns))]
    for k, node in enumerate(nodes, 1):
        tangent = [f"{columns[name][k - 1]:.6g}" for name in columns]
        rows.append((str(k), node.name, op_column(node), f"{node.data:.6g}", *tangent))
    return aligned(rows, right=set(range(len(rows[0]))) - {1, 2})  # node and op: left
