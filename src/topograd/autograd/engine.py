"""The backward engine: reverse topological order, the chain rule's sums, ``grad``.

It knows nothing of floats or arrays: each node's data kind (``kinds.py``) gives the node's
inputs and its contribution to each (the op's rule applied to the upstream gradient). The
engine owns the rest: the order, the ``+=`` over paths, and running each node exactly once,
after every contribution to it has arrived.

The order comes without recursion: a depth-first search with an explicit stack lists each node
after its inputs, and backward walks that list in reverse, so a node runs only after every
node that uses it has passed back its contribution. A chain of a million nodes needs no deep
stack. (Counting each node's users and releasing it at zero, as HIPS autograd does, gives the
same guarantee but costs two more dictionary operations per edge.)

A kind may register a backward of its own for the plain case (no graph recorded, nothing
captured or observed): the scalar kind does (``scalar/backward.py``), the walk below written
out for nodes of one number, in the same order with the same sums, so the same bits.

>>> import topograd as tg
>>> x = tg.Value(3.0)
>>> tg.grad(x * x + x, [x])  # 2x + 1
[7.0]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from .errors import RuntimeValueError
from .kinds import Kind, kind_of, plain_backward_of
from .modes import check_nan, grad_mode, recording
from .versions import WRITES


def _kind(node: object, function: str, what: str) -> Kind:
    kind = kind_of(node)
    if kind is None:
        text = repr(node)
        text = text[:40] + "..." if len(text) > 40 else text
        raise TypeError(
            f"{function}() takes Values or Tensors as {what}, got {type(node).__name__} {text}"
        )
    return kind


def topological_order(
    roots: Sequence[Any], inputs: Callable[[Any], Sequence[Any]] | None = None
) -> list[Any]:
    """Every node the roots depend on through their inputs (the kind's, unless ``inputs``
    says otherwise), each after all of its inputs: the forward order. A depth-first search
    with an explicit stack."""
    if not roots:
        return []
    if inputs is None:
        inputs = _kind(roots[0], "topological_order", "roots").inputs
    order: list[Any] = []
    visited: set[Any] = set()
    for root in roots:
        if root in visited:
            continue
        visited.add(root)
        stack: list[tuple[Any, Iterator[Any]]] = [(root, iter(inputs(root)))]
        while stack:
            node, pending = stack[-1]
            for parent in pending:
                if parent not in visited:
                    visited.add(parent)
                    stack.append((parent, iter(inputs(parent))))
                    break
            else:  # every input is listed
                stack.pop()
                order.append(node)
    return order


# Sees each node as it runs: observer(node, its gradient, its inputs, its contributions to them).
Observer = Callable[[Any, Any, Sequence[Any], Sequence[Any]], None]


def _propagate(
    roots: Sequence[Any],
    seeds: Sequence[Any],
    create_graph: bool,
    capture: dict[Any, Any] | None,
    observer: Observer | None = None,
    batch: tuple[int, ...] = (),
) -> None:
    """Run the backward pass from ``roots`` seeded with ``seeds``.

    Each finished gradient goes to the node's ``.grad`` (by its kind's ``accumulate``) or, when
    ``capture`` is given, only into ``capture``, for the nodes that are its keys. ``observer``
    sees every node as it is processed (the trace, anomaly mode). ``batch``: the seeds are a
    batch of seeds along these leading axes, run at once (into ``capture`` only).
    """
    if grad_mode.check_nan:
        checked = kind_of(roots[0])
        assert checked is not None

        def nan_check(node: Any, grad: Any, parents: Sequence[Any], found: Sequence[Any]) -> None:
            if parents:
                checked.check_saved(node)
            check_nan(checked, node, parents, found)

        observer = nan_check if observer is None else _both(nan_check, observer)
    kind = kind_of(roots[0])
    assert kind is not None
    plain = plain_backward_of(kind)
    if create_graph or capture is not None or observer is not None or batch:
        plain = None  # the kind's plain backward does none of these
    # Rules record a graph exactly when one is asked for, whatever mode the caller is in; the
    # sums over paths give IEEE results (inf - inf = nan) without a warning, as the rules do.
    with recording(create_graph), kind.ieee():
        if plain is not None:
            plain(roots, seeds, kind.check_versions)
        else:
            _walk(kind, roots, seeds, create_graph, capture, observer, batch)


def _walk(
    kind: Kind,
    roots: Sequence[Any],
    seeds: Sequence[Any],
    create_graph: bool,
    capture: dict[Any, Any] | None,
    observer: Observer | None,
    batch: tuple[int, ...],
) -> None:
    inputs, accumulate, vjp = kind.inputs, kind.accumulate, _rules(kind, batch)
    pending: dict[Any, Any] = {}
    for root, seed in zip(roots, seeds):
        pending[root] = pending[root] + seed if root in pending else seed
    get, pop = pending.get, pending.pop  # (bound once: this loop runs once per edge)
    order = topological_order(roots)
    runs = masks = None
    if capture:  # grad(): only the rules on a path to an input asked for run
        order, runs, masks = _leading_to(order, capture, inputs)
    if WRITES.count:  # something was written in place: is any of it needed here?
        kind.check_versions(order if runs is None else [n for n in order if n in runs])
    for node in reversed(order):
        grad = pop(node, None)
        if grad is None:  # every path here got nothing (a condition): nothing to pass on
            continue
        if capture is None:
            accumulate(node, grad)
        elif node in capture:
            capture[node] = grad
        if runs is not None and node not in runs:
            continue
        parents = inputs(node)
        if not parents:
            if observer is not None:
                observer(node, grad, (), ())
            continue
        if masks and node in masks:  # grad(): only for the inputs that lead to a target
            contributions = kind.vjp(node, grad, create_graph, batch, masks[node])
        else:
            contributions = vjp(node, grad, create_graph)
        if observer is not None:
            observer(node, grad, parents, contributions)
        for parent, contribution in zip(parents, contributions):
            if contribution is None:  # the rule says: this input gets nothing (where's cond)
                continue
            total = get(parent)
            # a new sum, never in place: a contribution may be shared with another input
            pending[parent] = contribution if total is None else total + contribution


def _rules(kind: Kind, batch: tuple[int, ...]) -> Callable[[Any, Any, bool], Sequence[Any]]:
    """The kind's vjp, for a batch of gradients at once where ``batch`` says so."""
    if not batch:
        return kind.vjp

    def batched(node: Any, grad: Any, create_graph: bool) -> Sequence[Any]:
        return kind.vjp(node, grad, create_graph, batch)

    return batched


def _leading_to(
    order: list[Any], targets: dict[Any, Any], inputs: Callable[[Any], Sequence[Any]]
) -> tuple[list[Any], set[Any], dict[Any, list[bool]]]:
    """The nodes of ``order`` (inputs first) from which a target is reached; among them those
    whose rule passes something on to a target; and for those of them with an input that
    leads to no target, which inputs do: as PyTorch's engine, ``grad`` runs no rule, nor part
    of one, whose result no input asked for needs."""
    reaching: set[Any] = set()  # the targets, and the nodes a target is reached from
    runs: set[Any] = set()
    masks: dict[Any, list[bool]] = {}
    for node in order:
        leads = [p in reaching for p in inputs(node)]
        if any(leads):
            reaching.add(node)
            runs.add(node)
            if not all(leads):
                masks[node] = leads
        elif node in targets:
            reaching.add(node)
    return [node for node in order if node in reaching], runs, masks


def _both(first: Observer, second: Observer) -> Observer:
    def observe(node: Any, grad: Any, parents: Sequence[Any], found: Sequence[Any]) -> None:
        first(node, grad, parents, found)
        second(node, grad, parents, found)

    return observe


def _same_kind(function: str, what: str, nodes: Sequence[Any]) -> Kind:
    kinds = {id(_kind(n, function, what)) for n in nodes}
    if len(kinds) > 1:
        raise TypeError(f"{function}() takes {what} of one kind: all Values or all Tensors")
    return _kind(nodes[0], function, what)


def gradient(node: Any) -> Any:
    """``node``'s gradient, or None where no backward has reached it since it was made or
    zeroed (a Value's 0.0 before any backward counts as none, as PyTorch's None)."""
    kind = kind_of(node)
    return node.grad if kind is None else kind.gradient(node)


def is_leaf(node: Any) -> bool:
    """Made by no op: an input, a parameter, a constant (anything that is not a node, too)."""
    kind = kind_of(node)
    return kind is None or kind.op(node) is None


def zero_grad(nodes: Iterable[Any]) -> None:
    """Forget the gradients of ``nodes``, as each kind does: 0.0 for a Value, None for a
    Tensor (as PyTorch). Anything else with a ``.grad`` gets None."""
    for node in nodes:
        kind = kind_of(node)
        if kind is None:
            node.grad = None
        else:
            kind.forget(node)


def observe_backward(output: Any, gradient: Any, observer: Observer) -> None:
    """A backward from ``output`` that touches no ``.grad`` and shows ``observer`` every step:
    in reverse topological order, each node, its gradient, its inputs and its contributions to
    them."""
    seed = _kind(output, "observe_backward", "output").seed(output, gradient)
    _propagate([output], [seed], False, {}, observer)


def backward(outputs: Sequence[Any], grads: Sequence[Any], create_graph: bool = False) -> None:
    """Backward from several outputs at once, each seeded with its upstream gradient: adds to
    ``.grad`` of every node they depend on the sum over outputs of (upstream gradient x
    d output / d node), each node's rule run once. With ``create_graph`` (a kind that keeps
    gradients as nodes: Tensors) the gradients have a graph, to differentiate again.

    >>> import topograd as tg
    >>> x = tg.Value(2.0)
    >>> tg.backward([x * x, x * 3], [1.0, 10.0])  # 1 * 2x + 10 * 3
    >>> x.grad
    34.0
    """
    outputs, grads = list(outputs), list(grads)
    if not outputs:
        return
    kind = _same_kind("backward", "outputs", outputs)
    if len(outputs) != len(grads):
        raise ValueError(f"backward() got {len(outputs)} outputs but {len(grads)} gradients")
    seeds = [kind.seed(o, g) for o, g in zip(outputs, grads)]
    if create_graph:  # an upstream gradient that is a node stays one: the result depends on it
        seeds = [g if kind_of(g) is kind else s for s, g in zip(seeds, grads)]
    _propagate(outputs, seeds, create_graph, None)


def grad(
    output: Any,
    inputs: Any,
    grad_outputs: Any = None,
    *,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> list[Any]:
    """d output / d input for each input, touching no ``.grad``. Where the output does not
    depend on an input: on Tensors, as PyTorch's, a RuntimeError, or None with
    ``allow_unused`` (zeros with ``materialize_grads`` too), and an output that requires no
    gradient is refused; on Values, zeros (None with ``allow_unused``). With
    ``materialize_grads``, zeros and no refusal on either kind (what a function transform
    gives: ``torch.func``'s answer for a function of no input). ``grad_outputs`` is the
    upstream gradient (1 by default, for an output of one element). With ``create_graph=True``
    the results are nodes themselves, with a graph that ``grad`` can differentiate again,
    through ``grad_outputs`` too where it is a node (as ``torch.autograd.grad``). ``output``
    may be a list of outputs: the result is the sum over them, each rule run once. As
    PyTorch's, ``grad_outputs`` given as a list or a tuple holds one upstream gradient per
    output (even for one output), anything else is the one output's. Each gradient is in its
    node's dtype, cast where it arrives as PyTorch's engine casts it (differentiably, under
    ``create_graph``). With ``is_grads_batched``, each upstream
    gradient is a batch of them along a new first axis, and so is each result: as many
    backward passes as the batch holds, run at once (rules that take a batch run once for it;
    the rest once per gradient in it), as PyTorch's. ``retain_graph`` is taken for PyTorch's
    sake: topograd keeps a graph until it is dropped.

    >>> import topograd as tg
    >>> x = tg.Value(2.0)
    >>> (dy,) = tg.grad(x**3, [x], create_graph=True)  # 3x^2
    >>> (d2y,) = tg.grad(dy, [x])  # 6x
    >>> dy.data, d2y
    (12.0, 12.0)
    """
    kind, outputs, seeds = _seeded(output, grad_outputs, create_graph, is_grads_batched)
    inputs = [inputs] if kind_of(inputs) is not None else list(inputs)
    if inputs and _same_kind("grad", "inputs", inputs) is not kind:
        raise TypeError("grad() takes an output and inputs of one kind: Values or Tensors")
    strict = kind.strict and not materialize_grads
    if strict and not any(kind.requires_grad(o) for o in outputs):
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    capture: dict[Any, Any] = dict.fromkeys(inputs)
    batch = tuple(seeds[0].shape[:1]) if is_grads_batched else ()
    _propagate(outputs, seeds, create_graph, capture, None, batch)
    unreached = [i for i, node in enumerate(inputs) if capture[node] is None]
    if strict and not allow_unused and unreached:
        raise RuntimeError(
            f"The differentiated Tensor at index {unreached[0]} appears to not have been used "
            "in the graph. Set allow_unused=True if this is the desired behavior."
        )
    unused = None if allow_unused and not materialize_grads else 0
    return [
        None
        if unused is None and capture[node] is None
        else kind.as_grad(node, capture[node], create_graph, batch)
        for node in inputs
    ]


def _seeded(
    output: Any, grad_outputs: Any, create_graph: bool, batched: bool
) -> tuple[Kind, list[Any], list[Any]]:
    """grad()'s outputs (one, or a list), their kind, and the seed of each: its upstream
    gradient as its kind checks it and casts it to the output's dtype (a node stays one under
    ``create_graph``: the result depends on it). As PyTorch's, ``grad_outputs`` given as a list
    or a tuple holds one gradient per output (None: ones), anything else is the one output's."""
    several = isinstance(output, (tuple, list))
    outputs = list(output) if several else [output]
    if grad_outputs is None:
        upstream = [None] * len(outputs)
    elif isinstance(grad_outputs, (tuple, list)):
        upstream = list(grad_outputs)
    else:
        upstream = [grad_outputs]
    if not outputs or len(outputs) != len(upstream):
        raise RuntimeValueError(
            f"grad() got {len(outputs)} outputs but {len(upstream)} grad_outputs"
        )
    kind = _same_kind("grad", "outputs", outputs) if several else _kind(output, "grad", "output")
    seeds = [kind.seed(o, g, batched, create_graph) for o, g in zip(outputs, upstream)]
    if batched and any(tuple(s.shape[:1]) != tuple(seeds[0].shape[:1]) for s in seeds):
        raise RuntimeError("grad(): every batch of upstream gradients must be of one size")
    return kind, outputs, seeds
