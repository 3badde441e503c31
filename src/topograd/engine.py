"""The backward engine: reverse topological order, the chain rule's sums, ``grad``.

It knows nothing of floats or arrays. A node is anything with ``parents`` and ``_vjp(grad,
create_graph)`` returning one contribution per parent (its local partials applied to the
upstream ``grad``), plus the few hooks of ``Node`` below. The engine owns
the rest: the order, the ``+=`` over paths, and running each node exactly once, after every
contribution to it has arrived.

The order comes without recursion: a depth-first search with an explicit stack lists each node
after its parents, and backward walks that list in reverse, so a node runs only after every
node that uses it has passed back its contribution. A chain of a million nodes needs no deep
stack. (Counting each node's users and releasing it at zero, as HIPS autograd does, gives the
same guarantee but costs two more dictionary operations per edge.)

>>> import topograd as tg
>>> x = tg.Value(3.0)
>>> tg.grad(x * x + x, [x])  # 2x + 1
[7.0]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, TypeVar, cast

from .modes import check_nan, grad_mode, recording


class Node(Protocol):
    """What the engine needs of a node of either data kind."""

    @property
    def parents(self) -> Sequence[Node]: ...

    def _vjp(self, grad: Any, create_graph: bool) -> Sequence[Any]: ...

    def _accumulate_grad(self, grad: Any) -> None: ...

    def _seed(self) -> Any: ...  # d self / d self: the gradient that starts a backward

    def _as_grad(self, grad: Any, create_graph: bool) -> Any: ...  # a result of grad(); None: 0

    def _has_nan(self, grad: Any) -> bool: ...


N = TypeVar("N", bound=Node)


def topological_order(roots: Sequence[N]) -> list[N]:
    """Every node the roots depend on, each after all of its parents (the forward order).

    A depth-first search with an explicit stack: a node is listed once all its parents are.
    """
    order: list[Node] = []
    visited: set[Node] = set()
    for root in roots:
        if root in visited:
            continue
        visited.add(root)
        stack: list[tuple[Node, Iterator[Node]]] = [(root, iter(root.parents))]
        while stack:
            node, parents = stack[-1]
            for parent in parents:
                if parent not in visited:
                    visited.add(parent)
                    stack.append((parent, iter(parent.parents)))
                    break
            else:  # every parent is listed
                stack.pop()
                order.append(node)
    return cast(list[N], order)  # the parents of an N are Ns


Observer = Callable[[Any, Any, Sequence[Any]], None]


def _propagate(
    roots: Sequence[Node],
    seeds: Sequence[Any],
    create_graph: bool,
    capture: dict[Node, Any] | None,
    observer: Observer | None = None,
) -> None:
    """Run the backward pass from ``roots`` seeded with ``seeds``.

    Each finished gradient goes to the node's ``_accumulate_grad`` or, when ``capture`` is given,
    only into ``capture``, for the nodes that are its keys. ``observer(node, grad,
    contributions)`` sees every node as it is processed (the trace, anomaly mode).
    """
    if grad_mode.check_nan:
        observer = check_nan if observer is None else _both(check_nan, observer)
    # Rules record a graph exactly when one is asked for, whatever mode the caller is in.
    with recording(create_graph):
        _walk(roots, seeds, create_graph, capture, observer)


def _walk(
    roots: Sequence[Node],
    seeds: Sequence[Any],
    create_graph: bool,
    capture: dict[Node, Any] | None,
    observer: Observer | None,
) -> None:
    pending: dict[Node, Any] = {}
    for root, seed in zip(roots, seeds):
        pending[root] = pending[root] + seed if root in pending else seed
    for node in reversed(topological_order(roots)):
        grad = pending.pop(node)
        if capture is None:
            node._accumulate_grad(grad)
        elif node in capture:
            capture[node] = grad
        parents = node.parents
        contributions = node._vjp(grad, create_graph) if parents else ()
        if observer is not None:
            observer(node, grad, contributions)
        for parent, contribution in zip(parents, contributions):
            total = pending.get(parent)
            # a new sum, never in place: a contribution may be shared with another input
            pending[parent] = contribution if total is None else total + contribution


def _both(first: Observer, second: Observer) -> Observer:
    def observe(node: Any, grad: Any, contributions: Sequence[Any]) -> None:
        first(node, grad, contributions)
        second(node, grad, contributions)

    return observe


def observe_backward(output: Node, seed: Any, observer: Observer) -> None:
    """A backward from ``output`` that touches no ``.grad`` and shows ``observer`` every step:
    in reverse topological order, each node, its gradient and its contributions to its parents."""
    _propagate([output], [seed], False, {}, observer)


def backward(outputs: Sequence[Node], grads: Sequence[Any]) -> None:
    """Add to ``.grad`` of every node the outputs depend on: the sum over outputs of
    (upstream gradient x d output / d node), each node's rule run once."""
    if len(outputs) != len(grads):
        raise ValueError(f"backward got {len(outputs)} outputs but {len(grads)} gradients")
    _propagate(outputs, grads, False, None)


def grad(output: Node, inputs: Sequence[Node], *, create_graph: bool = False) -> list[Any]:
    """The gradient of ``output`` with respect to each input, touching no ``.grad``.

    An input the output does not depend on gets a zero. With ``create_graph=True`` the results
    are nodes themselves, with a graph that ``grad`` can differentiate again.
    """
    capture: dict[Node, Any] = dict.fromkeys(inputs)
    _propagate([output], [output._seed()], create_graph, capture)
    return [node._as_grad(capture[node], create_graph) for node in inputs]
