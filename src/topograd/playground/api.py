"""The playground's API, apart from HTTP: a request body in, a status and a JSON object out.

``POST /api/graph`` with ``{"expr": str, "values": {name: number}}``: one expression, or lines
that name their values (``d = a*b; n = d + c; e = tanh(n)``). A name without a value gets
1.0, and the response says which values it used; values for names not in the expression are
ignored. The response names the output (``"output"``: the last line's name, or ``e`` as the
lesson names it) and its ``"formula"`` as typed; ``"curves"`` holds, for each tanh, sigmoid
and relu node, the function and its derivative around its input (``viz/curves.py``). With
``"paths_for": name``, ``"paths"`` lists every path from that input to the output with its
local derivatives and their product, whose sum is the gradient. With ``"down": true`` the
graph is drawn top to bottom (a phone's narrow screen), else left to right. Every refusal is
a 4xx with ``{"error": str}``.

>>> status, reply = graph_request(b'{"expr": "x*x + x", "values": {"x": 3}}')
>>> status, reply["value"], reply["grads"], reply["output"]
(200, 12.0, {'x': 7.0}, 'e')
"""

from __future__ import annotations

import json
import math
from typing import Any

from ..expr import ExpressionError, functions, operators, parse
from ..scalar.value import Value
from ..verify.domain import relative_difference, undefined
from ..verify.numeric import central_difference
from ..viz.curves import curves
from ..viz.draw import LEGEND, to_svg
from ..viz.graph import ids, json_number, walk
from ..viz.paths import paths
from ..viz.trace import trace

MAX_BODY = 64 * 1024  # bytes
# Edges (one per operand) a graph may have to be drawn on the page: the layout's work and the
# labels of a step grow with them (60 products a*b summed are 180, their sum one Σ node)
MAX_DRAWN = 250
DEFAULT_VALUE = 1.0


class RequestError(Exception):
    """A request the API refuses: its HTTP status and the reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _refuse_constant(name: str) -> float:
    raise RequestError(400, f"the JSON holds {name}, which is not a number JSON allows")


STEPS = [10.0**-k for k in range(1, 16)]  # the central difference's step h, for its chart


def _decode(body: bytes) -> tuple[str, dict[str, float], dict[str, str], bool]:
    try:
        request = json.loads(body.decode("utf-8"), parse_constant=_refuse_constant)
    except ValueError as error:  # not UTF-8, not JSON, or an integer of over 4300 digits
        raise RequestError(400, f"the body is not JSON topograd reads: {error}") from None
    except RecursionError:
        raise RequestError(400, "the JSON is nested too deeply") from None
    if not isinstance(request, dict):
        raise RequestError(400, 'the body must be a JSON object {"expr": ..., "values": {...}}')
    expr, values = request.get("expr"), request.get("values", {})
    if not isinstance(expr, str):
        raise RequestError(400, '"expr" must be a string')
    if not isinstance(values, dict):
        raise RequestError(400, '"values" must be an object of names and numbers')
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RequestError(400, f'the value of "{name}" must be a number')
        try:
            finite = math.isfinite(float(value))
        except OverflowError:
            finite = False
        if not finite:
            raise RequestError(400, f'the value of "{name}" is too large')
    for field in ("steps_for", "paths_for"):
        if request.get(field) is not None and not isinstance(request[field], str):
            raise RequestError(400, f'"{field}" must be the name of an input')
    asked = {field: request[field] for field in ("steps_for", "paths_for") if request.get(field)}
    down = request.get("down", False)
    if not isinstance(down, bool):
        raise RequestError(400, '"down" must be true or false')
    return expr, {name: float(value) for name, value in values.items()}, asked, down


def functions_reply() -> dict[str, Any]:
    """What ``GET /api/functions`` answers: the operators and the functions expressions may
    use, from the op registry, each function with its maths and its derivative."""
    return {
        "operators": [op.symbol for op in operators().values()],
        "functions": list(functions()),
        "maths": {name: [op.maths, op.derivative] for name, op in functions().items()},
    }


def graph_request(body: bytes) -> tuple[int, dict[str, Any]]:
    """Answer a request body: (200, the graph) or (4xx, {"error": ...})."""
    try:
        return 200, _graph(*_decode(body))
    except RequestError as error:
        return error.status, {"error": str(error)}
    except ExpressionError as error:
        return 422, {"error": str(error)}


def _graph(text: str, given: dict[str, float], asked: dict[str, str], down: bool) -> dict[str, Any]:
    expression = parse(text)
    for name in asked.values():
        if name not in expression.names:
            raise RequestError(422, f"{name!r} is not an input of the expression")
    steps_for, paths_for = asked.get("steps_for"), asked.get("paths_for")
    values = {name: given.get(name, DEFAULT_VALUE) for name in expression.names}
    out, inputs = expression.build(values)
    steps = trace(out)
    if len(steps.edges) > MAX_DRAWN:
        raise RequestError(
            422,
            f"the graph has {len(steps.edges)} edges; the playground draws at most {MAX_DRAWN} "
            "(topograd grad EXPR ... --svg FILE draws any expression the parser accepts)",
        )
    out.backward()
    return {
        "expr": expression.text,
        "output": steps.nodes[-1].label or steps.nodes[-1].name,
        "formula": expression.formula,
        "names": list(expression.names),
        "values": values,
        "value": json_number(out.data),
        **checked({name: v.grad for name, v in inputs.items()}, out, inputs),
        **steps.to_json(),
        "svg": to_svg(out, down),
        "legend": LEGEND,
        "curves": curves(out),
        **({"step_errors": _step_errors(out, inputs[steps_for])} if steps_for else {}),
        **({"paths": _paths(out, inputs[paths_for])} if paths_for else {}),
    }


def value_reply(out: Value) -> dict[str, Any]:
    """What ``/api/graph`` answers, for a Value built in Python (the notebook's stepper): its
    labelled leaves are its inputs, each name once. Its ``.grad`` are not touched: the
    gradients are the traced backward pass's. A widget may be shown in a narrow cell: it holds
    the drawing top to bottom too (``svg_down``)."""
    steps = trace(out)
    if len(steps.edges) > MAX_DRAWN:
        raise ValueError(
            f"the graph has {len(steps.edges)} edges; the stepper shows at most {MAX_DRAWN} "
            "(tg.draw(output) draws any graph)"
        )
    named = ids(walk(out))
    traced = {n.id: n.grad for n in steps.nodes}
    inputs: dict[str, Value] = {}
    for v in named:
        if not v.op and v.label and v.label not in inputs:
            inputs[v.label] = v
    output = steps.nodes[-1].label or steps.nodes[-1].name
    return {
        "expr": output,
        "output": output,
        "formula": "",  # the page writes it from the graph: tanh(n)
        "names": list(inputs),
        "values": {name: json_number(v.data) for name, v in inputs.items()},
        "value": json_number(out.data),
        **checked({name: traced[named[v]] for name, v in inputs.items()}, out, inputs),
        **steps.to_json(),
        "svg": to_svg(out),
        "svg_down": to_svg(out, down=True),
        "legend": LEGEND,
        "curves": curves(out),
    }


def checked(grads: dict[str, float], out: Value, inputs: dict[str, Value]) -> dict[str, Any]:
    """Each input's gradient, its central difference, how far apart they are (relatively
    where they are large: |a - b| / max(1, |a|, |b|)), and what makes the output nan, if
    something does ("" if not)."""
    checks = {name: central_difference(out, v) for name, v in inputs.items()}
    return {
        "grads": {name: json_number(g) for name, g in grads.items()},
        "checks": {name: json_number(c) for name, c in checks.items()},
        "differences": {n: json_number(relative_difference(grads[n], checks[n])) for n in grads},
        "undefined": undefined(out),
    }


def _paths(out: Value, x: Value) -> dict[str, Any]:
    """Every path from ``x`` to the output, its local derivatives and their product, and
    their sum beside backprop's gradient (``viz/paths.py``); non-finite numbers as strings."""
    found = paths(out, ids(walk(out))[x])
    return {
        **{k: json_number(v) for k, v in found.items() if k != "paths"},
        "paths": [
            {
                **p,
                "partials": [json_number(d) for d in p["partials"]],
                "product": json_number(p["product"]),
            }
            for p in found["paths"]
        ],
    }


def _step_errors(out: Value, x: Value) -> list[dict[str, Any]]:
    """The central difference at each step of STEPS (relative: h times max(1, |x|), as the
    check's own), and how far it is from backprop's gradient: too large a step errs by the
    curvature (truncation), too small by rounding."""
    rows = []
    for h in STEPS:
        estimate = central_difference(out, x, step=h * max(1.0, abs(x.data)))
        rows.append(
            {
                "h": h,
                "estimate": json_number(estimate),
                "error": json_number(abs(estimate - x.grad)),
            }
        )
    return rows
