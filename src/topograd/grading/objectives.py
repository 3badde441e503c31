"""The lesson's objectives, each judged from the probes' numbers against the hand maths, in
the lesson's words. An objective needs the ones it builds on: where one of those failed, it is
"blocked" and says nothing of its own, so that each mistake gets one diagnosis, on the smallest
graph that shows it.

Statuses: ``pass``, ``fail``, ``warn`` (a weakness that does not fail the engine), ``missing``
(an optional op the class lacks, or has not written yet), ``skip`` (an objective that needs a
missing op), ``blocked``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from .lesson import BY_NAME, CORE, OPS, Draw, LessonOp, named
from .messages import Outcome

Status = Literal["pass", "fail", "warn", "missing", "skip", "blocked"]
WRITTEN = ("__add__", "__mul__", "backward")  # what every other objective builds on


@dataclass(frozen=True)
class Verdict:
    status: Status
    text: str  # the diagnosis; what was verified; or why it was not
    roots: tuple[str, ...] = ()  # blocked: the failed objectives it builds on


class ProbeError(Exception):
    """A probe the objective reads failed: the objective fails with this diagnosis."""


def fmt(v: Any) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def close(got: Any, want: float, tolerance: float = 1e-9) -> bool:
    return isinstance(got, float) and abs(got - want) <= tolerance * max(1.0, abs(want))


class Results:
    """The probes' outcomes, read by the objectives, and the points they were taken at."""

    def __init__(self, outcomes: dict[str, Outcome], at: Draw, require: Iterable[str] = ()) -> None:
        self.outcomes = outcomes
        self.at = at
        self.require = frozenset(require)  # ops whose absence fails the engine
        self.status: dict[str, Status] = {}  # of the objectives judged so far

    def numbers(self, probe: str, graph: str) -> dict[str, Any]:
        """The numbers ``probe`` read, or ProbeError naming what ``graph`` raised and where."""
        outcome = self.outcomes[probe]
        if outcome.numbers is None:
            where = f" (at {outcome.where})" if outcome.where else ""
            raise ProbeError(f"{graph}: {outcome.error}{where}")
        return Measured(graph, outcome.numbers)


class Measured(dict[str, Any]):
    """A probe's numbers, as the child sent them: a number the probe always sends but the
    message lacks is a ProbeError (the message was not the probe's), not the grader's crash."""

    def __init__(self, graph: str, numbers: dict[str, Any]) -> None:
        super().__init__(numbers)
        self.graph = graph

    def __missing__(self, key: str) -> Any:
        raise ProbeError(f"{self.graph}: the child's message lacks {key} (not its probe's)")


@dataclass(frozen=True)
class Objective:
    id: str
    title: str
    needs: tuple[str, ...]
    judge: Callable[[Results], Verdict]
    warning: bool = False  # a failure here is a warning: the engine still passes
    absent: Callable[[Results], Verdict | None] | None = None  # an op's: missing, whatever else


OBJECTIVES: list[Objective] = []


def objective(
    key: str, title: str, needs: Iterable[str] = (), warning: bool = False
) -> Callable[[Callable[[Results], Verdict]], Callable[[Results], Verdict]]:
    def register(judge: Callable[[Results], Verdict]) -> Callable[[Results], Verdict]:
        OBJECTIVES.append(Objective(key, title, tuple(needs), judge, warning))
        return judge

    return register


def ok(text: str) -> Verdict:
    return Verdict("pass", text)


def wrong(text: str) -> Verdict:
    return Verdict("fail", text)


@objective("value", "Value(x) keeps its number in .data, with a .grad")
def value(r: Results) -> Verdict:
    x = fmt(r.at.leaf)
    found = r.numbers("value", f"Value({x})")
    if found.get("wraps"):
        return wrong(
            f"Value({x}) holds topograd's own {found['wraps']}: the grader grades a learner's "
            "own engine, not a wrapper of topograd's"
        )
    if found["data"] != r.at.leaf:
        return wrong(f"Value({x}).data is {fmt(found['data'])}, expected {x}")
    if not found["grad"]:
        return wrong(f"Value({x}) has no .grad attribute")
    return ok(f"Value({x}).data = {x}, with a .grad")


@objective("implemented", "__add__, __mul__ and backward() are written", needs=["value"])
def implemented(r: Results) -> Verdict:
    """A skeleton handed out with the exercise is told what to write first, not that each
    check built on it fails."""
    found = r.numbers("written", "the class's methods")
    lacks = [name for name in WRITTEN if found.get(name) == "missing"]
    pending = [f"{name} ({found[name]})" for name in WRITTEN if name in found]
    pending = [text for text in pending if not text.endswith("(missing)")]
    if lacks == ["backward"] and not pending:
        return wrong(
            "the class has no backward() method: write it (a topological order of the graph, "
            "then each node's _backward in reverse, from a gradient of 1 at the output)"
        )
    if lacks or pending:
        said = [f"the class has no {' or '.join(lacks)}"] if lacks else []
        said += [f"not written yet: {', '.join(pending)}"] if pending else []
        return wrong(
            f"{'; '.join(said)}: every other check builds on __add__, __mul__ and "
            "backward(), so write those first"
        )
    later = [f"{name} ({why})" for name, why in found.items() if name not in WRITTEN]
    return ok(
        "__add__, __mul__ and backward() are written"
        + (f"; not yet, and not graded: {', '.join(later)}" if later else "")
    )


@objective("zero", "gradients start at zero", needs=["implemented"])
def zero(r: Results) -> Verdict:
    found = r.numbers("zero", "Value(3.0) and Value(3.0) * Value(2.0)")
    for what, got in (("a new Value(3.0)", found["leaf"]), ("a new x * Value(2.0)", found["node"])):
        if got == "None":
            return wrong(
                f"gradients start at None, not 0: {what} has .grad = None, so += in _backward "
                "fails (set self.grad = 0 in __init__)"
            )
        if got != 0.0:
            return wrong(
                f"gradients do not start at zero: {what} has .grad = {fmt(got)} before any "
                "backward, and every += adds onto it (set self.grad = 0 in __init__)"
            )
    return ok("a new Value's .grad is 0, and so is a new node's")


@objective("seed", "backward() seeds the output's gradient with 1", needs=["zero"])
def seed(r: Results) -> Verdict:
    found = r.numbers("seed", "y = a * b; y.backward()")
    out, da, db = found["out"], found["da"], found["db"]
    alone = r.outcomes["op.add"].numbers or {}
    add_moved = alone.get("0.d0") not in (None, 0.0) or alone.get("0.d1") not in (None, 0.0)
    if out == 1.0 and da == 0.0 and db == 0.0 and not add_moved:  # (else: mul's rule)
        return wrong(
            "the output's gradient is seeded after the pass: after y.backward() on y = a * b, "
            "y.grad = 1 but no gradient moved (set self.grad = 1 before running the _backward "
            "functions)"
        )
    if out == 1.0:
        return ok("y = a * b: y.grad = 1 after y.backward()")
    if out == 0.0 and da == 0.0 and db == 0.0:
        return wrong(
            "the output's gradient is not seeded with 1: after y.backward() on y = a * b, "
            "y.grad = 0 and no gradient moved (set self.grad = 1 before the pass, and zero "
            "nothing after it)"
        )
    return wrong(f"after y.backward() on y = a * b, y.grad = {fmt(out)}, expected 1 (the seed)")


@objective("binding", "each input of a node gets its own update", needs=["seed"])
def binding(r: Results) -> Verdict:
    for op in OPS[:2]:  # a + b and a * b
        found = r.outcomes[f"op.{op.name}"].numbers or {}
        first, second = found.get("0.d0"), found.get("0.d1")
        point = r.at.ops[op.name][0]
        want = op.partials(*point)
        if first == 0.0 and isinstance(second, float) and second not in (0.0, want[1]):
            return wrong(
                f"every update went to the last input: {op.spelling} at "
                f"{point_text(point)} gives da = 0, db = {fmt(second)}, expected "
                f"{fmt(want[0])} and {fmt(want[1])} (a _backward defined in a loop uses the "
                "loop variable after the loop ended: bind it when the function is made, "
                "def update(node=node): ...)"
            )
    return ok("a + b and a * b: each input got its own update")


def point_text(point: tuple[float, ...]) -> str:
    names = ("a", "b") if len(point) == 2 else ("x",)
    return ", ".join(f"{n} = {fmt(x)}" for n, x in zip(names, point))


def partial_names(point: tuple[float, ...]) -> tuple[str, ...]:
    return ("da", "db") if len(point) == 2 else ("dx",)


def absent_op(op: LessonOp, r: Results) -> Verdict | None:
    """An op the class lacks, or has not written yet: missing (or, where required, failed),
    whatever failed before it; None where it is there to grade."""
    found = r.outcomes[f"op.{op.name}"].numbers or {}
    written = r.outcomes["written"].numbers or {}
    if op.method in WRITTEN:  # __add__ and __mul__: "implemented" names them, lacking or not
        return None
    if found.get("missing"):
        why = f"the class has no {op.method}"
    elif isinstance(written.get(op.method), str):
        why = f"{op.method} is not written yet ({written[op.method]})"
    else:
        return None
    if op.name in r.require:
        return wrong(f"{why}, and {op.spelling} is required")
    return Verdict("missing", f"{why}: {op.spelling} not graded")


def judge_op(op: LessonOp, r: Results) -> Verdict:
    found = r.numbers(f"op.{op.name}", op.spelling)
    verdict = judge_rule(op, found, r.at)
    failed = tuple(p for p in parts_of(op, r) if r.status.get(p) == "fail" or wrong_alone(p, r))
    if verdict.status == "fail" and failed:  # the mistake is in an op it is built of
        return Verdict("blocked", f"{op.spelling} is built of {', '.join(failed)} here", failed)
    return verdict


def parts_of(op: LessonOp, r: Results) -> list[str]:
    """The other ops of the lesson that ``op`` is built of in the learner's engine (read from
    ``_op`` where the class keeps it): ``a / b`` as ``a * b**-1`` is built of mul and pow."""
    found = r.outcomes[f"op.{op.name}"].numbers or {}
    parts = {named(t) for t in str(found.get("0.ops", "")).split("|") if t}
    return sorted(parts & set(BY_NAME) - {op.name})


def wrong_alone(name: str, r: Results) -> bool:
    """The rule of op ``name`` fails on its own graph (judged here if its row comes later)."""
    found = r.outcomes[f"op.{name}"].numbers
    if found is None or absent_op(BY_NAME[name], r) is not None:
        return False
    try:
        return judge_rule(BY_NAME[name], Measured(name, found), r.at).status == "fail"
    except ProbeError:  # numbers a forged message left out
        return True


def judge_rule(op: LessonOp, found: dict[str, Any], draw: Draw) -> Verdict:
    checked = []
    for i, point in enumerate(draw.ops[op.name]):
        at = f"{op.spelling} at {point_text(point)}"
        want = op.value(*point)
        got = found[f"{i}.value"]
        if not close(got, want):
            return wrong(
                f"{op.name}'s forward is wrong: {at} gives {fmt(got)}, expected {fmt(want)}"
            )
        names = partial_names(point)
        measured = tuple(found[f"{i}.d{j}"] for j in range(len(point)))
        for name, g in zip(names, measured):
            if isinstance(g, str):
                return wrong(
                    f"{op.name}'s rule makes a gradient that is not a number: {at} gives "
                    f"{name} = {g} (use the operands' .data in _backward)"
                )
        expected = op.partials(*point)
        if all(close(g, w) for g, w in zip(measured, expected)):
            partials = ", ".join(f"{n} = {fmt(w)}" for n, w in zip(names, expected))
            checked.append(f"at {point_text(point)}: {fmt(want)}; {partials}")
            continue
        gives = ", ".join(f"{n} = {fmt(g)}" for n, g in zip(names, measured))
        wants = ", ".join(fmt(w) for w in expected)
        for rule, mistake in op.mistakes:
            if all(close(g, w) for g, w in zip(measured, rule(*point))):
                return wrong(f"{mistake}: {at} gives {gives}, expected {wants}")
        return wrong(f"{op.name}'s rule is wrong: {at} gives {gives}, expected {wants} ({op.rule})")
    return ok(f"{op.spelling} " + "; ".join(checked))


def grade_op(op: LessonOp, needs: tuple[str, ...]) -> None:
    """Register the objective of ``op``'s value and rule."""
    title = f"{op.spelling}: value and rule ({op.rule})"
    judge, absent = partial(judge_op, op), partial(absent_op, op)
    OBJECTIVES.append(Objective(op.name, title, needs, judge, absent=absent))


for _op in OPS[:CORE]:
    grade_op(_op, ("binding",))


@objective("rules", "each node's _backward, run on its own, adds (+=) its part", needs=["value"])
def rules(r: Results) -> Verdict:
    """Each op that makes one node, its ``_backward`` called by hand: this needs no
    backward(), so an engine without one is still told which rules overwrite."""
    g, held = r.at.chain, r.at.held
    checked, faults = [], []
    for op in OPS:
        found = r.outcomes[f"rule.{op.name}"].numbers
        if absent_op(op, r) or found is None or found.get("alone") is not True:
            continue  # lacking, raised (its own row says so), or not one node
        found, point = Measured(op.spelling, found), r.at.ops[op.name][0]
        for j, name in enumerate(partial_names(point)):
            fresh, kept, v = found[f"fresh.d{j}"], found[f"held.d{j}"], name[1:]
            if not isinstance(fresh, float) or close(kept, fresh + held):
                continue  # (a gradient that is not a number: the op's own row names it)
            said = (
                f"with {v}.grad = {fmt(held)} before, the _backward of {op.spelling} at "
                f"{point_text(point)} under out.grad = {fmt(g)} leaves {v}.grad = {fmt(kept)}, "
                f"expected {fmt(held)} {'-' if fresh < 0 else '+'} {fmt(abs(fresh))} = "
                f"{fmt(held + fresh)}"
            )
            if close(kept, fresh):
                faults.append(f"{op.name}'s _backward assigns (=) where it should add (+=): {said}")
            else:
                faults.append(f"{op.name}'s _backward does not add its part to {v}.grad: {said}")
            break
        else:
            checked.append(op.name)
    if faults:
        return wrong(
            "; ".join(faults) + " (use += in _backward: a node used twice gets both parts)"
        )
    if not checked:
        return Verdict(
            "skip",
            "no node's _backward can be run on its own here (no _backward, or no op makes one "
            "node): += is checked through backward() below",
        )
    return ok(
        f"{', '.join(checked)}: each _backward adds its part (inputs holding {fmt(held)}, "
        f"out.grad = {fmt(g)})"
    )
