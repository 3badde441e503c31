"""The plain backward's step for a node of n operands, written out from the registry's ``Code``.

A neuron of ``tg.nn`` is one node of 2n + 1 operands (``neuron``: relu(w · x + b)); a network
of them spends most of its backward on such nodes. Called as its rule, each costs a list of
its operands' numbers, the rule's own lists and tuple, and a loop that adds each contribution
into the backward's dict. Here, for an op whose registry entry has a ``Code`` (the expressions
``tg.compile`` writes; the registry's tests hold them to the rule's bits on floats), the step
for one number of operands is written once as a Python function, as the compiler writes a
backward pass: each operand's number read once, the shared factor (relu's selection) computed
once, each contribution computed and added into the dict on lines of its own, in the order of
the operands, exactly as the loop adds them. So the gradients keep their bits; only the calls
and the lists are gone.

>>> from topograd.autograd.registry import OPS
>>> print(source(OPS["neuron"], 3))
def step(grads, node, grad):
    o0, o1, o2 = node._x
    v0, v1, v2 = o0.data, o1.data, o2.data
    out = node.data
    chosen = 0.0 if out <= 0.0 else grad
    c = chosen * v1
    t = grads[o0]
    grads[o0] = c if t is None else t + c
    c = chosen * v0
    t = grads[o1]
    grads[o1] = c if t is None else t + c
    c = chosen
    t = grads[o2]
    grads[o2] = c if t is None else t + c
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..autograd.registry import Op

Step = Callable[[dict[Any, Any], Any, Any], None]

# Nodes of more operands take the loop: a function per number of operands is a few hundred
# bytes per operand, kept for the life of the program; a sum of thousands is rare and slow
# to compile, and its loop's overhead is small beside its length.
LONGEST = 64


class Steps(dict[tuple[Op, int], "Step | None"]):
    """The written-out step of each (op, number of operands), made when first asked for: None
    where the op has no ``Code`` rule or the node is too long (the caller then calls the rule).
    (A dict, so that the walk's lookup is one subscript; ops are keys by identity.)"""

    def __missing__(self, key: tuple[Op, int]) -> Step | None:
        op, n = key
        text = source(op, n) if n <= LONGEST else None
        step: Step | None = None
        if text is not None:
            # topograd's own code: its reads of ``.data`` are not the user's (tg.compile's
            # tracer asks a reading frame's module name)
            scope: dict[str, Any] = {"__name__": __name__, "inf": math.inf, "nan": math.nan}
            exec(compile(text, f"<topograd backward of {op.name}, {n} operands>", "exec"), scope)
            step = scope["step"]
        self[key] = step
        return step


STEPS = Steps()


def source(op: Op, n: int) -> str | None:
    """The Python text of ``op``'s step on ``n`` operands (None: it has no ``Code`` rule)."""
    code = op.code
    if code is None or not code.rule:
        return None
    names = [f"v{i}" for i in range(n)]
    rule = code.rule if isinstance(code.rule, tuple) else code.rule(names)
    if len(rule) != n:
        return None
    fields = {"g": "grad", "out": "out", "s": "chosen"}
    texts = [None if r is None else r.format(*names, **fields) for r in rule]
    operands = [f"o{i}" for i in range(n)]
    unpacked = ", ".join(operands) + ("," if n == 1 else "")
    lines = [
        "def step(grads, node, grad):",
        f"    {unpacked} = node._x",
        f"    {', '.join(names)} = {', '.join(f'{o}.data' for o in operands)}",
        "    out = node.data",
    ]
    if code.shared:
        lines.append(f"    chosen = {code.shared.format(*names, **fields)}")
    for o, text in zip(operands, texts):
        if text is not None:
            added = f"    grads[{o}] = c if t is None else t + c"
            lines += [f"    c = {text}", f"    t = grads[{o}]", added]
    return "\n".join(lines)
