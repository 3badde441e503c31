"""The plain backward of Values: the engine's walk, written out for nodes of one number.

A backward of Values that records no graph (no ``create_graph``), captures nothing (not
``grad()``) and shows no one its steps (no anomaly mode, no observer) is most of what a
training loop of Values does. The engine hands it here (``register_kind``'s ``plain``): through
the kind's protocol every node cost a call of ``inputs`` twice, of ``vjp`` and of
``accumulate``, each as dear as the node's own arithmetic. Here they are read in place, from
the node's slots.

Nothing else differs from the engine's walk (``autograd/engine.py``), and nothing may: the
rules are the registry's, each node running ``op.rule`` on its operands' numbers as the kind's
``vjp`` does; the order is the engine's (a depth-first search with an explicit stack, inputs
first to last, no recursion); each node's gradient is the sum of its contributions in the
order they arrive, then added to ``.grad`` as the kind's ``accumulate`` adds it. So the
gradients are the engine's to the last bit (tests compare the two on random graphs).

>>> import topograd as tg
>>> x = tg.Value(3.0)
>>> y = x * x + x
>>> plain_backward([y], [1.0])  # dy/dx = 2x + 1
>>> x.grad
7.0
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..autograd.registry import Op
from ..autograd.versions import WRITES
from ..ops.arithmetic import add
from .unrolled import STEPS
from .value import NO_GRADIENT, Value, operands_of

# On the search's stack: the node under it has had its inputs pushed above it, and is listed
# when it surfaces again.
_LIST_NEXT = object()


def passes_gradient_on(op: Op) -> bool:
    """Whether ``op``'s registry entry writes its contribution to every operand as the upstream
    gradient itself (its ``Code``, which the registry's tests hold to the rule's bits on
    floats): ``add``'s. The walk passes the gradient on to such a node's operands without
    calling the rule, half the calls of a network of Values."""
    return op.code is not None and op.code.rule == ("{g}",) * op.arity


_PASSED_ON = add if passes_gradient_on(add) else None


def forward_order(roots: Sequence[Value]) -> dict[Value, Any]:
    """Every node the roots depend on, each after all of its inputs, in the engine's
    ``topological_order``: the keys of a dict whose values (None) are the gradients to come.

    A node with inputs not yet listed goes back on the stack below them, marked, and is listed
    when the mark surfaces; one without is listed at once. (An input met unlisted is never one
    on the stack below: that would be a cycle.) A node pushed by two users before it is
    searched leaves a copy behind, which finds it listed."""
    order: dict[Value, Any] = {}
    stack: list[Any] = list(reversed(roots))
    pop, value, mark = stack.pop, Value, _LIST_NEXT  # (locals: the loop runs once per edge)
    listed = order.__contains__
    while stack:
        node = pop()
        if node is mark:
            order[pop()] = None
            continue
        if node in order:  # a copy left behind
            continue
        while True:  # down the first unlisted input, the node and its other inputs stacked
            x = node._x
            y = node._y
            if y is None:  # one operand, n operands (a neuron), or a leaf
                if type(x) is value:
                    if x in order:
                        order[node] = None
                        break
                    stack += (node, mark)
                    node = x
                    continue
            # Two operands. Listed first: only Values are keys (a number never is), so most
            # nodes, of two listed Values, are listed at two lookups.
            elif x in order:
                if y in order or type(y) is float or type(y) is int:
                    order[node] = None  # every input listed already: listed now
                    break
                if type(y) is value:
                    stack += (node, mark)
                    node = y
                    continue
            elif type(x) is value and type(y) is value:
                stack += (node, mark) if y in order else (node, mark, y)
                node = x
                continue
            # n operands, all Values; a number among two; a subclass of Value; a leaf
            given = x if type(x) is tuple else inputs(node)
            if all(map(listed, given)):  # (no Python frame per operand: most are listed)
                order[node] = None
            else:
                stack += (node, mark, *[v for v in reversed(given) if v not in order])
            break
    return order


def inputs(node: Value) -> list[Value]:
    """The Values among ``node``'s operands (a number operand is none), in order: the kind's
    ``inputs``, for the cases the hot loop leaves out."""
    return [o for o in operands_of(node) if isinstance(o, Value)]


def plain_backward(
    roots: Sequence[Value],
    seeds: Sequence[Any],
    check_versions: Callable[[Sequence[Value]], None] | None = None,
) -> None:
    """Add to ``.grad`` of every node the roots depend on the sum over roots of seed x
    d root / d node (the engine's ``backward`` without a graph, on Values). Where something
    was written in place since (``WRITES``), ``check_versions`` looks at the nodes first."""
    grads = forward_order(roots)
    for root, seed in zip(roots, seeds):
        total = grads[root]
        grads[root] = seed if total is None else total + seed
    if WRITES.count and check_versions is not None:
        check_versions(list(grads))
    value, none_yet, passed_on, steps = Value, NO_GRADIENT, _PASSED_ON, STEPS
    # Last node first. Setting a key's value while the dict is walked is allowed (its size
    # never changes), and a node's value is read only when the walk reaches it: after every
    # node that uses it has passed its contribution on.
    for node, grad in reversed(grads.items()):
        if grad is None:  # every path here got nothing (a condition): nothing to pass on
            continue
        old = node.grad  # the kind's accumulate: the first gradient replaces "none yet"
        node.grad = grad if old is none_yet or old is None else old + grad
        x = node._x
        y = node._y
        if type(y) is value and type(x) is value:  # the hot path: two Values
            op = node._made_by
            if op is passed_on:
                dx = dy = grad
            else:
                rule = op.rule  # (an attribute, then a call: fewer instructions than a method's)
                dx, dy = rule(grad, x.data, y.data, node.data)
            # (_pass, written out: once per edge) a new sum, never in place: a contribution
            # may be shared with another input
            if dx is not None:
                total = grads[x]
                grads[x] = dx if total is None else total + dx
            if dy is not None:
                total = grads[y]
                grads[y] = dy if total is None else total + dy
        elif y is None and type(x) is value:  # one operand
            rule = node._made_by.rule
            (dx,) = rule(grad, x.data, node.data)
            if dx is not None:
                total = grads[x]
                grads[x] = dx if total is None else total + dx
        elif type(x) is tuple:  # n operands, all Values: the step written out, or the rule
            op = node._made_by
            step = steps[op, len(x)]
            if step is None:
                many_by_rule(grads, node, grad, op)
            else:
                step(grads, node, grad)
        elif x is not None:  # a number among two operands, a subclass (a leaf has none)
            _by_arity(grads, node, grad, node._made_by)


def _pass(grads: dict[Value, Any], x: Value, contribution: Any) -> None:
    if contribution is not None:  # None: the rule says this input gets nothing
        total = grads[x]
        # a new sum, never in place: a contribution may be shared with another input
        grads[x] = contribution if total is None else total + contribution


def _by_arity(grads: dict[Value, Any], node: Value, grad: Any, op: Op) -> None:
    if op.arity == 2:
        _with_number(grads, node, grad, op)
    elif op.arity == 1:
        x: Value = node._x  # type: ignore[assignment]
        (dx,) = op.rule(grad, x.data, node.data)
        _pass(grads, x, dx)
    else:
        many_by_rule(grads, node, grad, op)


def _with_number(grads: dict[Value, Any], node: Value, grad: Any, op: Op) -> None:
    """A binary node with a number operand (``x * 2.0``), or with a subclass of Value: the
    rule gets the numbers, the contribution to a number goes nowhere."""
    x, y = node._x, node._y
    x_number = type(x) is float or type(x) is int
    y_number = type(y) is float or type(y) is int
    dx, dy = op.rule(
        grad,
        x if x_number else x.data,  # type: ignore[union-attr]
        y if y_number else y.data,  # type: ignore[union-attr]
        node.data,
    )
    if not x_number:
        _pass(grads, x, dx)  # type: ignore[arg-type]
    if not y_number:
        _pass(grads, y, dy)  # type: ignore[arg-type]


def many_by_rule(grads: dict[Value, Any], node: Value, grad: Any, op: Op) -> None:
    """A node of n operands, all Values (a sum, a dot product, a neuron), by calling its rule
    (the walk runs the step ``unrolled.py`` writes out from the op's ``Code`` where it has one)."""
    operands: tuple[Value, ...] = node._x  # type: ignore[assignment]
    contributions = op.rule(grad, *[v.data for v in operands], node.data)
    for x, contribution in zip(operands, contributions):  # (_pass, written out: once per edge)
        if contribution is not None:
            total = grads[x]
            grads[x] = contribution if total is None else total + contribution
