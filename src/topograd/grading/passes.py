"""The objectives about the backward pass as a whole: ``+=`` where paths meet, the order the
rules run in, the chain rule, the lesson's two examples end to end, plain numbers, a second
backward, deep graphs and micrograd's ``_prev``/``_op``. (The single rules are in
``objectives.py``.)"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .inside.probes import DEFAULT_RECURSION_LIMIT, DEPTHS, NUMBER_EXPRESSIONS
from .lesson import BY_NAME, CORE, OPS
from .objectives import (
    ProbeError,
    Results,
    Verdict,
    close,
    fmt,
    grade_op,
    objective,
    ok,
    partial_names,
    parts_of,
    wrong,
)

OVERWRITTEN = (
    "gradients at a shared node are overwritten, not accumulated: {graph} gives dy/dx = {got}, "
    "expected {want} (use += in _backward)"
)


@objective("accumulate", "gradients add up (+=) where a node is used twice", needs=["add", "mul"])
def accumulate(r: Results) -> Verdict:
    if r.status["rules"] == "fail":  # (rules is judged when the rest of the pass is not)
        return Verdict("blocked", "builds on the rules run on their own, which fail", ("rules",))
    x = r.at.shared
    at = f"at x = {fmt(x)}"
    for probe, graph, want in (
        ("shared.add", "y = x + x", 2.0),
        ("shared.mul", "y = x * x", 2 * x),
    ):
        got = r.numbers(probe, graph)["dx"]
        if not close(got, want):
            if close(got, want / 2):
                graph = f"{graph} {at}"
                return wrong(OVERWRITTEN.format(graph=graph, got=fmt(got), want=fmt(want)))
            return wrong(f"{graph} {at} gives dy/dx = {fmt(got)}, expected {fmt(want)}")
    return ok(f"y = x + x gives 2, y = x * x gives {fmt(2 * x)} {at}")


@objective(
    "numbers", "plain numbers, ints and floats, on either side: x * 2, 2.5 + x", ["add", "mul"]
)
def numbers(r: Results) -> Verdict:
    found = r.numbers("numbers", "x * 2")
    x = r.at.shared
    for text, build in NUMBER_EXPRESSIONS.items():
        if f"{text}.error" in found:
            error = found[f"{text}.error"]
            if not isinstance(error, str):
                raise ProbeError(f"{text}: the child's error is not a text (not its probe's)")
            return wrong(f"{text} raises {error}{number_hint(text, error)}")
        want, grad = build(x), (float(build(1.0) - build(0.0)))
        got, got_grad = found[f"{text}.value"], found[f"{text}.grad"]
        if not close(got, want) or not close(got_grad, grad):
            return wrong(
                f"{text} at x = {fmt(x)} gives {fmt(got)} and dx = {fmt(got_grad)}, expected "
                f"{fmt(want)} and {fmt(grad)}"
            )
    return ok(f"{', '.join(NUMBER_EXPRESSIONS)} at x = {fmt(x)}: values and gradients")


def number_hint(text: str, error: str) -> str:
    """What to mend, from the error a number beside a Value raised."""
    sign = "*" if "*" in text else "+"
    method = "__mul__" if sign == "*" else "__add__"
    if error.startswith("TypeError: unsupported operand"):
        return f" (define {method.replace('__', '__r', 1)})"
    if error.startswith("AttributeError") and "'data'" in error:
        return f" (wrap a number in a Value in {method})"
    if error.startswith("RecursionError"):
        return f" ({method.replace('__', '__r', 1)} calls itself: return self {sign} other)"
    return ""


@objective("order", "backward runs in reverse topological order", needs=["accumulate"])
def order(r: Results) -> Verdict:
    k, m = r.at.diamond
    graph = f"the diamond b = a*{fmt(k)}, c = a*{fmt(m)}, d = b + c"
    got = r.numbers("diamond", graph)["da"]
    if close(got, k + m):
        return ok(f"on {graph}, a gets {fmt(k + m)}")
    why = (
        " (append each node to the order after its inputs, and run _backward over the order "
        "reversed)"
        if got == 0.0
        else ""
    )
    return wrong(
        f"nodes run before all their users (not reverse topological order): on {graph}, "
        f"a gets {fmt(got)}, expected {fmt(k + m)}{why}"
    )


for _op in OPS[CORE:]:  # built of several nodes, perhaps with numbers (-x as x * -1)
    grade_op(_op, ("binding", "order", "numbers"))


@objective("chain", "each rule multiplies by the upstream gradient (chain rule)", needs=["order"])
def chain(r: Results) -> Verdict:
    checked, faults, factor = [], [], r.at.chain
    for op in OPS:
        alone = r.outcomes[f"op.{op.name}"].numbers
        if alone is None or alone.get("missing"):
            continue
        graph = f"({op.spelling}) * {fmt(factor)}"
        found = r.numbers(f"chain.{op.name}", graph)
        for j, name in enumerate(partial_names(r.at.ops[op.name][0])):
            local, got = alone[f"0.d{j}"], found[f"d{j}"]
            if not isinstance(local, float) or close(got, factor * local):
                continue
            want = f"{fmt(factor)} × {fmt(local)} = {fmt(factor * local)}"
            fault = f"{graph} gives {name} = {fmt(got)}, expected {want}"
            if close(got, local):
                fault = (
                    f"{op.name}'s rule ignores the upstream gradient: {fault} (multiply by "
                    "out.grad)"
                )
            faults.append((op.name, fault))
            break
        else:
            checked.append(op.name)
    if faults:  # the first names the mistake; ops built of a faulty one say nothing more
        first = faults[0][0]
        also = [name for name, _ in faults[1:] if first not in parts_of(BY_NAME[name], r)]
        more = f"; so {'does' if len(also) == 1 else 'do'} {', '.join(also)}" if also else ""
        return wrong(faults[0][1] + more)
    return ok(f"under an upstream gradient of {fmt(factor)}: {', '.join(checked)}")


@objective("visited", "each node's rule runs once, after all its users", needs=["chain"])
def visited(r: Results) -> Verdict:
    (k, m), x = r.at.diamond, fmt(r.at.shared)
    graph = f"y = a*{fmt(k)} + a*{fmt(m)} with a = x*3"
    want = 3 * (k + m)
    got = r.numbers("used_twice", graph)["dx"]
    if close(got, want):
        return ok(f"{graph}: a's rule ran once, after both its users; x gets {fmt(want)}")
    if isinstance(got, float) and got > want:
        return wrong(
            f"a node is visited twice in the order (no visited set): on {graph} at x = {x}, "
            f"x gets {fmt(got)}, expected {fmt(want)}: a's rule ran more than once (keep a set "
            "of visited nodes, and run each node's _backward once, from a topological order)"
        )
    return wrong(
        f"a node ran before all its users: on {graph} at x = {x}, x gets {fmt(got)}, expected "
        f"{fmt(want)}: a's rule ran before a*{fmt(k)} and a*{fmt(m)} had both added to a.grad "
        "(append a node to the order after all its inputs, a depth-first post-order, and run "
        "the order reversed)"
    )


@objective(
    "postorder",
    "a node waits for its users on longer paths (depth-first post-order)",
    needs=["visited"],
)
def postorder(r: Results) -> Verdict:
    x = r.at.shared
    want = 2 + 4 * x  # y = 2x + 2x²
    found = r.numbers("uneven", "y = a + (a*a)*0.5 with a = x*2")
    for key, graph in (("dx", "y = a + (a*a)*0.5"), ("dx_swapped", "y = (a*a)*0.5 + a")):
        got = found[key]
        if not close(got, want):
            return wrong(
                f"a node ran before all its users had added their parts (breadth-first order, "
                f"not depth-first post-order): on {graph} with a = x*2 at x = {fmt(x)}, x gets "
                f"{fmt(got)}, expected {fmt(want)} (append a node to the order after all its "
                "inputs, by depth-first search)"
            )
    return ok(
        f"y = a + (a*a)*0.5 and y = (a*a)*0.5 + a with a = x*2 at x = {fmt(x)}: x gets {fmt(want)}"
    )


@objective("identity", "nodes with equal numbers stay distinct nodes", needs=["postorder"])
def identity(r: Results) -> Verdict:
    graph = "b = a + 1, c = a * 2, y = b * c at a = 1 (b and c both 2)"
    got = r.numbers("equal_data", graph)["da"]
    if close(got, 6.0):
        return ok(f"on {graph}, a gets 6")
    return wrong(
        f"two nodes with equal data were taken for one: on {graph}, a gets {fmt(got)}, "
        "expected 6 (tell nodes apart by identity: define no __eq__ or __hash__ on .data)"
    )


def oracle(build: Callable[..., Any], point: tuple[float, ...]) -> tuple[float, ...] | None:
    """PyTorch's gradients (float64) of ``build`` at ``point``, where PyTorch is installed."""
    try:
        import torch
    except ImportError:
        return None
    inputs = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in point]
    build(*inputs).backward()
    return tuple(float(t.grad) for t in inputs)  # type: ignore[arg-type]


def end_to_end(
    r: Results,
    probe: str,
    graph: str,
    build: Callable[..., Any],
    point: tuple[float, ...],
    value: float,
    hand: tuple[float, ...],
    names: tuple[str, ...],
) -> Verdict:
    """A graph's value and gradients against hand maths, against central differences of the
    learner's own forward, and against PyTorch where it is installed."""
    found = r.numbers(probe, graph)
    if not close(found["value"], value):
        return wrong(f"{graph} gives {fmt(found['value'])}, expected {fmt(value)}")
    torch = oracle(build, point)
    for i, name in enumerate(names):
        got, cd = found[f"d{i}"], found[f"cd{i}"]
        if not close(got, hand[i]):
            return wrong(
                f"{graph} gives {name} = {fmt(got)}, expected {fmt(hand[i])} (hand maths; "
                f"central differences of your forward: {fmt(cd)}"
                + (f"; PyTorch: {fmt(torch[i])})" if torch else ")")
            )
        if not close(cd, hand[i], 1e-6) or (torch and not close(torch[i], hand[i])):
            raise ProbeError(f"{graph}: the checks disagree on {name}: {fmt(cd)}, {torch}")
    agree = "hand maths, central differences" + (" and PyTorch agree" if torch else " agree")
    grads = ", ".join(f"{n} = {fmt(h)}" for n, h in zip(names, hand))
    return ok(f"{grads}: {agree}" + ("" if torch else " (PyTorch is not installed)"))


@objective(
    "lesson",
    "the lesson's example e = tanh(a*b + c)",
    needs=["tanh", "chain", "postorder"],
)
def lesson(r: Results) -> Verdict:
    a, b, c = r.at.lesson
    t = math.tanh(a * b + c)
    return end_to_end(
        r,
        "lesson",
        f"e = tanh(a*b + c) at a = {fmt(a)}, b = {fmt(b)}, c = {fmt(c)}",
        lambda a, b, c: (a * b + c).tanh(),
        r.at.lesson,
        t,
        ((1 - t * t) * b, (1 - t * t) * a, 1 - t * t),
        ("de/da", "de/db", "de/dc"),
    )


@objective("shared", "y = x*x + x: dy/dx = 2x + 1", needs=["chain", "postorder"])
def shared(r: Results) -> Verdict:
    x = r.at.shared
    graph = f"y = x*x + x at x = {fmt(x)}"
    return end_to_end(
        r, "shared", graph, lambda x: x * x + x, (x,), x * x + x, (2 * x + 1,), ("dy/dx",)
    )


@objective("twice", "backward() twice on one graph", needs=["postorder", "chain"], warning=True)
def twice(r: Results) -> Verdict:
    found = r.numbers("backward_twice", "y = x*x + x; y.backward(); y.backward()")
    first, second, x = found["first"], found["second"], r.at.shared
    once, graph = 2 * x + 1, f"y = x*x + x at x = {fmt(x)}"
    # stale: x*x kept its gradient 1 and gets 1 more, so x gets 2x + 1, then 1 + 2·2x
    added, afresh, stale = fmt(2 * once), fmt(once), 6 * x + 2
    if close(second, 2 * once):
        return ok(f"{graph}: {afresh}, then {added}: the second pass adds to x.grad, as PyTorch's")
    if close(second, once):
        return ok(f"{graph}: {afresh}, then {afresh}: each pass starts afresh")
    if close(second, stale):
        return Verdict(
            "warn",
            f"backward twice re-propagates stale gradients: a second y.backward() on {graph} "
            f"gives dy/dx = {fmt(second)}, expected {added} (added, as PyTorch) or {afresh} "
            "(afresh): inner nodes kept their gradients from the first pass and passed them on "
            "again (zero every node's grad before the pass). micrograd 0.1.0 behaves so too: "
            "harmless while each step builds a new graph and zeroes the parameters' gradients",
        )
    return Verdict(
        "warn",
        f"{graph} gives dy/dx = {fmt(first)}, then {fmt(second)}: expected {added} or {afresh}",
    )


@objective("deep", "deep graphs: backward without a recursion limit", ["seed"], warning=True)
def deep(r: Results) -> Verdict:
    """A recursion limit shows whatever else is wrong; a wrong gradient on the chain is for
    the chain rule's objective to name."""
    found = own_numbers(r, "deep", f"a chain x + k + k + ... of {DEPTHS[-1]:,} nodes")
    if found is None:
        return Verdict("blocked", "raises as a failure above does", failures(r))
    depth = int(found["depth"])
    if "grad" in found:
        if r.status["chain"] != "pass":
            return Verdict("blocked", "builds on the chain rule, which fails", failures(r))
        return wrong(f"a chain x + k + ... of {depth:,} nodes gives dx = {fmt(found['grad'])}")
    if "error" not in found:
        return ok(f"a chain x + k + k + ... of {depth:,} nodes: dx = 1")
    raised = int(found["module_limit"])
    note = (
        f"; the module raised the limit to {raised:,}" if raised > DEFAULT_RECURSION_LIMIT else ""
    )
    if found["error"] == "RecursionError":
        return Verdict(
            "warn",
            f"RecursionError at depth {depth:,}: build the order without recursion (a loop "
            f"with a stack of your own); a chain x + k + ... of {depth - 1:,} nodes works under "
            f"Python's default limit of {DEFAULT_RECURSION_LIMIT} frames{note}",
        )
    return Verdict("warn", f"{found['error']} at depth {depth:,} (a chain x + k + ...)")


@objective("structure", "micrograd's _prev and _op", needs=["value"], warning=True)
def structure(r: Results) -> Verdict:
    found = own_numbers(r, "structure", "y = a * b; y._prev")
    if found is None:
        return Verdict("blocked", "raises as a failure above does", failures(r))
    if found.get("missing"):
        return Verdict("skip", "no _prev: micrograd's draw_dot needs _prev and _op")
    if not found["prev"] or not found["leaf"]:
        return Verdict(
            "warn",
            "(a * b)._prev is not {a, b}, or a leaf's _prev is not empty: draw_dot "
            "would draw another graph",
        )
    if not found["has_op"]:
        return Verdict("warn", "the class has _prev but no _op: draw_dot reads both")
    if not found["op_is_text"]:
        return Verdict("warn", f"(a * b)._op is {found['op']}, not a string")
    return ok(f"(a * b)._prev = {{a, b}}, _op = {found['op']}")


def own_numbers(r: Results, probe: str, graph: str) -> dict[str, Any] | None:
    """A warning's numbers; None where its probe raised after another objective failed (the
    same mistake, already named)."""
    try:
        return r.numbers(probe, graph)
    except ProbeError:
        if failures(r):
            return None
        raise


def failures(r: Results) -> tuple[str, ...]:
    return tuple(key for key, status in r.status.items() if status == "fail")
