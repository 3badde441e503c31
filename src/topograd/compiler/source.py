"""The chain rule as code: a traced graph written out as one Python function on floats.

The function reads the inputs' numbers, runs the forward pass one statement per node, checks
the guards (a branch the trace took through Python must be taken again, else it returns
``RETRACE`` before touching anything), then runs the backward pass exactly as the engine
does: nodes in the engine's order, each op's rule from the registry (its ``Code`` written
inline, or its rule called), one line per contribution, the first to a node with ``=`` and
the rest with ``+=``, in the order the engine adds them. So the floats are the engine's, bit
for bit. Last it adds each input's gradient to its ``.grad``, as ``backward`` does, or
returns them. Where the graph repeats itself (a batch), the repeated part is one loop
(``rolling.py``): the same statements in the same order.

Names are the Values' labels where they make identifiers, else x0, x1 ... for inputs and v0,
v1 ... for the nodes (u0, u1 ... inside a loop, its numbers k0, k1 ...); a gradient is its
node's name after ``d``. Nothing a user typed is run: a label, an op's name or the function's
only names something once checked (``names.py``), and any other text of theirs is escaped in
a comment; every line is made here from the registry's entries.
"""

from __future__ import annotations

import math
from typing import Any

from ..autograd.registry import OPS, Op
from ..scalar.kind import SCALAR
from ..scalar.value import Value, operands_of
from .body import Body
from .names import GENERATED, RESERVED, escape, is_plain
from .rolling import find_runs
from .trace import Trace


class _Retrace:
    def __repr__(self) -> str:
        return "RETRACE"


RETRACE = _Retrace()  # what the code returns where a guard fails: the trace no longer holds


def _assigned(started: set[int], node: Value) -> str:
    """How a contribution to ``node``'s gradient is written: ``=`` for the first (a path's
    gradient starts it), ``+=`` for each after (the paths meet), as the engine adds them."""
    first = id(node) not in started
    started.add(id(node))
    return "=" if first else "+="


def op_of(node: Value) -> Op:
    found = SCALAR.op(node)
    assert found is not None  # a node made by an op
    return found


class Source:
    """The generated source of a trace, and the names its code refers to."""

    def __init__(self, trace: Trace, name: str, grads: bool) -> None:
        self.trace = trace
        self.namespace: dict[str, Any] = {
            "RETRACE": RETRACE,
            "accumulate": SCALAR.accumulate,  # the engine's own: the first replaces, then +
            "inf": math.inf,
            "nan": math.nan,
        }
        self.names: dict[int, str] = {}  # id(node) -> its variable
        self.variables: set[str] = set()
        self.taken: set[str] = {*self.namespace, *OPS, *RESERVED}
        self.lines: list[str] = []
        fixed = {id(n) for n in trace.seen.nodes}
        self.runs = find_runs(trace.backward_order, fixed, trace.is_number)
        self.in_run = {id(n): r for r, run in enumerate(self.runs) for u in run.units for n in u}
        self.hubs: dict[int, list[int]] = {}
        for r, run in enumerate(self.runs):
            if run.hub is not None:
                self.hubs.setdefault(id(run.hub), []).append(r)
            self.namespace[f"rows{r}"] = run.rows
        self.started: set[int] = set()
        self._name_inputs()
        self._forward()
        self._guards()
        self._backward(grads)
        signature = "args" if not trace.captured else "args, held=held"
        self.namespace["held"] = trace.captured
        self.name = name if is_plain(name) else "compiled"
        while self.name in self.namespace or self.name in RESERVED:  # the def would hide it
            self.name += "_"
        self.text = "\n".join([f"def {self.name}({signature}):", *self.lines]) + "\n"

    # Names.

    def _fresh(self, wanted: str, fallback: str) -> str:
        """A label as the variable's name where it is a safe identifier that no name of the
        code's own could be (x1, v7, u0, k3, rows0, S0, carry, ...): else ``fallback``, which
        is one of those, so that no label ever takes it."""
        name = wanted if is_plain(wanted) else fallback
        plain = name[1:] if name.startswith("d") else name
        if name in self.taken or "d" + name in self.taken or GENERATED.fullmatch(plain):
            name = fallback
        self.taken.update((name, "d" + name))
        self.variables.update((name, "d" + name))
        return name

    def _name_inputs(self) -> None:
        for group, where in ((self.trace.arguments, "args"), (self.trace.captured, "held")):
            for i, v in enumerate(group):
                if id(v) in self.names:
                    continue
                name = self._fresh(v.label, f"x{len(self.names)}")
                self.names[id(v)] = name
                self.lines.append(f"    {name} = {where}[{i}].data")

    def _written(self, x: Any) -> str:
        """An operand outside any loop: a node's name, or a constant's number."""
        if isinstance(x, Value):
            found = self.names.get(id(x))
            if found is not None:
                return found
            x = x.data  # a constant, or a leaf the function made: its number
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "(-inf)"
        text = repr(x)
        return f"({text})" if text.startswith("-") else text

    def _operands(self, node: Value, body: Body | None) -> list[str]:
        names = []
        for i, x in enumerate(operands_of(node)):
            if body is None:
                names.append(self._written(x))
            elif body.is_carry(node, i):
                names.append("carry")
            elif isinstance(x, Value) and id(x) in body.local:
                names.append(body.local[id(x)])
            elif (id(node), i) in body.numbers:
                names.append(body.numbers[(id(node), i)])
            else:
                names.append(self._written(x))
        return names

    def _function(self, op: Op, what: str, f: Any) -> str:
        """The name under which the code calls ``f`` (op's function or rule)."""
        base = op.name if is_plain(op.name) else "op"
        if not what and base in RESERVED:  # sum: not to be read as Python's own
            what = "op"
        name = base if what == "" else f"{base}_{what}"
        while (
            self.namespace.get(name, f) is not f
            or name in self.variables
            or name in RESERVED
            or GENERATED.fullmatch(name)
        ):
            name += "_"
        self.namespace[name] = f
        self.taken.add(name)
        return name

    # The forward pass.

    def _forward(self) -> None:
        done: set[int] = set()
        for k, node in enumerate(self.trace.order):
            if id(node) in self.names or not SCALAR.inputs(node):
                continue  # an input, read above, or a constant, written as its number
            r = self.in_run.get(id(node))
            if r is None:
                name = self._fresh(node.label, f"v{k}")
                self.names[id(node)] = name
                self._compute(node, name, self._operands(node, None), "    ")
            elif r not in done:
                done.add(r)
                self._forward_loop(r)

    def _compute(self, node: Value, name: str, names: list[str], indent: str) -> None:
        op = op_of(node)
        code = op.code
        expression = ""
        hub = [self.runs[r] for r in self.hubs.get(id(node), [])]
        if hub:  # its operands from loops: the op's function on a list
            expression = f"{self._function(op, '', op.scalar)}({', '.join(self._splat(node))})"
        elif code is not None and code.forward:
            forward = code.forward
            expression = forward.format(*names) if isinstance(forward, str) else forward(names)
        if not expression:
            expression = f"{self._function(op, '', op.scalar)}({', '.join(names)})"
        self.lines.append(f"{indent}{name} = {expression}")
        if code is not None and code.then and not hub:
            self.lines.append(f"{indent}{name} = {code.then.format(out=name)}")

    def _splat(self, hub: Value) -> list[str]:
        """The hub's operands, those of each loop as one list: ``*R0``."""
        names = self._operands(hub, None)
        for r in sorted(self.hubs[id(hub)], key=lambda r: -self.runs[r].first):
            run = self.runs[r]
            names[run.first : run.first + len(run.units)] = [f"*R{r}"]
        return names

    def _forward_loop(self, r: int) -> None:
        run = self.runs[r]
        body = Body(run.units[0], run.carry, self.trace.is_number)
        n, size = len(run.units), len(body.unit)
        self.lines.append(f"    # {n} times alike: {size} ops on each row of numbers in rows{r}")
        self.lines.append(f"    S{r} = []")
        if run.carry >= 0:
            first = operands_of(run.units[0][-1])[run.carry]
            self.lines.append(f"    carry = {self._written(first)}")
        self.lines.append(f"    for {body.row} in rows{r}:")
        for unit_node in body.unit:
            names = self._operands(unit_node, body)
            self._compute(unit_node, body.local[id(unit_node)], names, "        ")
        self.lines.append(f"        S{r}.append({body.saved})")
        last = body.local[id(body.unit[-1])]
        if run.carry >= 0:
            self.lines.append(f"        carry = {last}")
            name = self._fresh(run.units[-1][-1].label, f"chain{r}")
            self.names[id(run.units[-1][-1])] = name
            self.lines.append(f"    {name} = carry")
        else:
            self.lines.append(f"    R{r} = [saved[-1] for saved in S{r}]")

    def _guards(self) -> None:
        seen = self.trace.seen
        if not seen.guards:
            return
        self.lines.append("    # guards: the branches the trace took through Python")
        nodes = [self._written(n) for n in seen.nodes]
        for expression, outcome in seen.guards:
            test = expression.format(*nodes)
            self.lines.append(f"    if {'not ' if outcome else ''}({test}):")
            self.lines.append("        return RETRACE")

    def guard_text(self) -> str:
        """The guards, one per line, as the code checks them."""
        return "\n".join(line.strip() for line in self.lines if line.startswith("    if "))

    # The backward pass.

    def _backward(self, grads: bool) -> None:
        trace = self.trace
        out = trace.output
        self._effects(0, trace.before, "before its backward()")
        if id(out) not in self.names:  # a number the function made: nothing depends on it
            self.lines.append("    # the output is a constant: no gradient reaches an input")
            self._results(grads)
            return
        self.started.add(id(out))
        self.lines.append("    # backward: the engine's order, each op's rule from the registry")
        self.lines.append(f"    d{self._written(out)} = {trace.seed!r}")
        done: set[int] = set()
        for node in reversed(trace.backward_order):
            if not SCALAR.inputs(node):
                continue
            r = self.in_run.get(id(node))
            if r is not None:
                if r not in done:
                    done.add(r)
                    self._backward_loop(r)
            elif id(node) in self.started:
                self._rule(node, None, "    ")
        self._results(grads)

    def _target(self, x: Value, body: Body | None, node: Value, i: int) -> str | None:
        """Where a contribution to operand ``i`` of ``node`` goes: None where none is kept."""
        if body is not None and body.is_carry(node, i):
            return "dcarry"
        if body is not None and id(x) in body.local:
            return "d" + body.local[id(x)]
        if id(x) not in self.names:
            return None  # a constant, a leaf the function made, or a loop's (its hub's rule)
        if SCALAR.inputs(x) or self.trace.wants_grad(x):
            return "d" + self.names[id(x)]
        return None

    def _rule(
        self, node: Value, body: Body | None, indent: str, local: set[int] | None = None
    ) -> None:
        op = op_of(node)
        name = body.local[id(node)] if body is not None else self.names[id(node)]
        operands = operands_of(node)
        names = self._operands(node, body)
        targets = [
            self._target(x, body, node, i) if isinstance(x, Value) else None
            for i, x in enumerate(operands)
        ]
        said = f"{op.name}: {op.derivative}" if op.derivative else op.name
        comment = f"  # {escape(said)}"
        code = op.code
        fields = {"g": "d" + name, "out": name, "s": "chosen"}
        hub = self.hubs.get(id(node), [])
        if code is not None and code.rule and not hub:
            rule = code.rule if isinstance(code.rule, tuple) else code.rule(names)
            texts = [None if r is None else r.format(*names, **fields) for r in rule]
            if code.shared and any(t is not None and w for w, t in zip(targets, texts)):
                shared = code.shared.format(*names, **fields)
                self.lines.append(f"{indent}chosen = {shared}{comment}")
                comment = ""
        else:  # the rule itself, on floats, as the scalar kind calls it: one result per operand
            texts = self._called_rule(node, name, names, indent, comment)
            comment = ""
        for x, target, text in zip(operands, targets, texts):
            if target is None or text is None:
                continue
            if target == "dcarry":
                sign = "="
            elif local is not None and body is not None and id(x) in body.local:
                sign = _assigned(local, x)
            else:
                sign = _assigned(self.started, x)
            self.lines.append(f"{indent}{target} {sign} {text}{comment}")
            comment = ""

    def _called_rule(
        self, node: Value, name: str, names: list[str], indent: str, comment: str
    ) -> list[str | None]:
        """The line that calls the op's rule, and how each operand's result is read from it
        (None for those a loop's hub hands its loop in G0, G1 ...)."""
        op, hub = op_of(node), self.hubs.get(id(node), [])
        called = self._function(op, "rule", op.rule)
        given = self._splat(node) if hub else names
        arguments = ", ".join([f"d{name}", *given, name])
        self.lines.append(f"{indent}partials = {called}({arguments}){comment}")
        texts: list[str | None] = [f"partials[{i}]" for i in range(len(operands_of(node)))]
        for r in hub:
            run = self.runs[r]
            end = run.first + len(run.units)
            self.lines.append(f"{indent}G{r} = partials[{run.first}:{end}]")
            texts[run.first : end] = [None] * (end - run.first)
        return texts

    def _backward_loop(self, r: int) -> None:
        """The units in the engine's order (the last first): the first written out (it starts
        the gradients of the nodes outside), the rest in a loop."""
        run = self.runs[r]
        body = Body(run.units[-1], run.carry, self.trace.is_number)
        root = body.local[id(body.unit[-1])]
        self.lines.append(f"    # {len(run.units)} times alike, the last first, as the engine")
        if run.carry >= 0:
            self.lines.append(f"    dcarry = d{self.names[id(run.units[-1][-1])]}")
            incoming = "dcarry"
        else:
            incoming = f"G{r}[-1]"
        self.lines.append(f"    {body.saved} = S{r}[-1]")
        if body.numbers:
            self.lines.append(f"    {body.row} = rows{r}[-1]")
        self._unit_backward(body, f"d{root} = {incoming}", "    ")
        source = f"reversed(S{r}[:-1]), reversed(rows{r}[:-1])"
        if run.carry >= 0:
            self.lines.append(f"    for {body.saved}, {body.row} in zip({source}):")
            self._unit_backward(body, f"d{root} = dcarry", "        ")
        else:
            source += f", reversed(G{r}[:-1])"
            self.lines.append(f"    for {body.saved}, {body.row}, d{root} in zip({source}):")
            self._unit_backward(body, "", "        ")
        if run.carry >= 0:
            first = operands_of(run.units[0][-1])[run.carry]
            target = (
                self._target(first, None, run.units[0][-1], -1)
                if isinstance(first, Value)
                else None
            )
            if target is not None:
                self.lines.append(f"    {target} {_assigned(self.started, first)} dcarry")

    def _unit_backward(self, body: Body, start: str, indent: str) -> None:
        if start:
            self.lines.append(f"{indent}{start}")
        local = {id(body.unit[-1])}
        for node in reversed(body.unit):
            if id(node) in local:
                self._rule(node, body, indent, local)

    def _results(self, grads: bool) -> None:
        trace = self.trace
        out = self._written(trace.output)
        inputs = [*trace.arguments, *trace.captured]
        if grads:
            found = [f"d{self.names[id(v)]}" if id(v) in self.started else "0.0" for v in inputs]
            self.lines.append(f"    return {out}, [{', '.join(found)}]")
            return
        self.lines.append("    # each input's gradient added to its .grad, as backward does")
        for group, held in ((trace.arguments, "args"), (trace.captured, "held")):
            for i, v in enumerate(group):
                if id(v) not in self.started:
                    continue
                self.lines.append(f"    accumulate({held}[{i}], d{self.names[id(v)]})")
        self._effects(trace.before, len(trace.seen.effects), "after it")
        self.lines.append(f"    return {out if trace.returns_number else None}")

    def _effects(self, start: int, end: int, when: str) -> None:
        """The calls the function made (an optimizer's) from ``start`` to ``end``, made again."""
        effects = self.trace.seen.effects[start:end]
        if effects:
            self.lines.append(f"    # what the function called {when}, called again")
        for k, (call, name, _) in enumerate(effects, start):
            self.namespace[f"effect{k}"] = call
            self.lines.append(f"    effect{k}()  # {escape(name)}")
