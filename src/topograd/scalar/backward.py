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
from .value import NO_GRADIENT, Value

# On the search's stack: the node under it has had its inputs pushed above it, and is listed
# when it surfaces again.
_LIST_NEXT = object()


def forward_order(roots: Sequence[Value]) -> dict[Value, Any]:
    """Every node the roots depend on, each after all of its inputs, in the engine's
    ``topological_order``: the keys of a dict whose values (None) are the gradients to come.

    A node with inputs not yet listed goes back on the stack below them, marked, and is listed
    when the mark surfaces; one without is listed at once. (An input met unlisted is never one
    on the stack below: that would be a cycle.) A node pushed by two users before it is
    searched leaves a copy behind, which finds it listed."""
    order: dict[Value, Any] = {}
    stack: list[Any] = list(reversed(roots))
    pop = stack.pop
    while stack:
        node = pop()
        if node is _LIST_NEXT:
            order[pop()] = None
            continue
        if node in order:  # a copy left behind
            continue
        arity = node._made_by.arity
        # the inputs pushed last to first, so that the first is searched first (the engine's
        # order); a number operand is no input (ints and floats are how numbers are kept).
        # (``.__class__``, not ``type()``: fewer instructions, on the hottest lines.)
        if arity == 2:
            x, y = node._x, node._y
            node_y = y.__class__ is Value or (y.__class__ is not float and y.__class__ is not int)
            if node_y and y not in order:
                if x.__class__ is float or x.__class__ is int or x in order:
                    stack += (node, _LIST_NEXT, y)
                else:
                    stack += (node, _LIST_NEXT, y, x)
                continue
            if x.__class__ is not float and x.__class__ is not int and x not in order:
                stack += (node, _LIST_NEXT, x)
                continue
        elif arity == 1:
            if node._x not in order:
                stack += (node, _LIST_NEXT, node._x)
                continue
        elif arity:  # n operands, all Values
            unlisted = [x for x in reversed(node._x) if x not in order]
            if unlisted:
                stack += (node, _LIST_NEXT, *unlisted)
                continue
        order[node] = None  # every input listed already (or none): listed now
    return order


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
    # Last node first. Setting a key's value while the dict is walked is allowed (its size
    # never changes), and a node's value is read only when the walk reaches it: after every
    # node that uses it has passed its contribution on.
    for node, grad in reversed(grads.items()):
        if grad is None:  # every path here got nothing (a condition): nothing to pass on
            continue
        old = node.grad  # the kind's accumulate: the first gradient replaces "none yet"
        node.grad = grad if old is NO_GRADIENT or old is None else old + grad
        op = node._made_by
        if op.arity == 2:
            x, y = node._x, node._y
            if x.__class__ is Value and y.__class__ is Value:  # the hot path: two Values
                dx, dy = op.rule(grad, x.data, y.data, node.data)
                if dx is not None:
                    total = grads[x]
                    grads[x] = dx if total is None else total + dx
                if dy is not None:
                    total = grads[y]
                    grads[y] = dy if total is None else total + dy
            else:
                _with_number(grads, node, grad, op)
        elif op.arity == 1:
            x = node._x
            (dx,) = op.rule(grad, x.data, node.data)  # type: ignore[union-attr]
            if dx is not None:
                total = grads[x]  # type: ignore[index]
                grads[x] = dx if total is None else total + dx  # type: ignore[index]
        elif op.arity:
            _of_many(grads, node, grad, op)


def _pass(grads: dict[Value, Any], x: Value, contribution: Any) -> None:
    if contribution is not None:  # None: the rule says this input gets nothing
        total = grads[x]
        # a new sum, never in place: a contribution may be shared with another input
        grads[x] = contribution if total is None else total + contribution


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


def _of_many(grads: dict[Value, Any], node: Value, grad: Any, op: Op) -> None:
    """A node of n operands, all Values (a sum, a dot product, a neuron)."""
    operands: tuple[Value, ...] = node._x  # type: ignore[assignment]
    contributions = op.rule(grad, *[v.data for v in operands], node.data)
    for x, contribution in zip(operands, contributions):  # (_pass, written out: once per edge)
        if contribution is not None:
            total = grads[x]
            grads[x] = contribution if total is None else total + contribution
