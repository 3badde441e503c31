"""Forward mode on a recorded graph: the tangent of every node, in forward order, from the
tangents of its inputs, by the same rules as the backward pass. A node whose rule runs forward
as it is (every Value's: the rule fed an input's tangent gives the partial times it; a Tensor
op's applied element by element likewise) gets its tangent from its kind's ``jvp``; any other
(a Tensor op that mixes elements) by the transpose of its rule, which is linear in what it is
fed (``transposed``). A few ops have a forward rule of their own (``Op.forward``): div, to
give PyTorch's IEEE results at y = 0; the fused ops of many operands on Values (dot, affine,
neuron, sum), to run in one pass, not once per operand.

    tangent(node) = Σ_i ∂node/∂input_i · tangent(input_i)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..autograd.engine import grad as engine_grad
from ..autograd.engine import topological_order
from ..autograd.kinds import Kind, kind_of
from ..autograd.modes import anomaly, grad_mode, recording


def tangents(
    outputs: Sequence[Any],
    seeds: dict[Any, Any],
    create_graph: bool,
    batch: tuple[int, ...] = (),
) -> dict[Any, Any]:
    """The tangent of every node the outputs depend on, given those of some nodes (``seeds``:
    node -> tangent; every other leaf has tangent 0). A node none of whose inputs has a tangent
    has none (absent: zero). With ``create_graph`` the tangents are nodes, differentiable;
    with ``batch``, each seed is a batch of tangents along these leading axes, run at once
    (Tensors). In anomaly mode, a tangent that turns NaN raises ``AnomalyError`` naming the
    op."""
    nodes = [o for o in outputs if kind_of(o) is not None]
    if not nodes:
        return {}
    kind = kind_of(nodes[0])
    assert kind is not None
    found: dict[Any, Any] = dict(seeds)
    check = grad_mode.check_nan
    with recording(create_graph), kind.ieee():
        for node in topological_order(nodes):
            if node in found or kind.op(node) is None:
                continue
            given = [found.get(x) for x in kind.inputs(node)]
            if all(t is None for t in given):
                continue
            if kind.pointwise(node):
                tangent = kind.jvp(node, given, create_graph, batch)
            else:
                tangent = transposed(kind, node, given, create_graph, batch)
            if tangent is not None:
                if check:
                    _refuse_nan(kind, node, given, tangent)
                found[node] = tangent
    return found


def transposed(
    kind: Kind, node: Any, tangents: Sequence[Any], create_graph: bool, batch: tuple[int, ...]
) -> Any:
    """Σ_i J_i t_i for a node whose rule mixes elements: the rule g -> J_iᵀ g is linear, and
    its own VJP, fed t_i, is J_i t_i. The rule is recorded on a stand-in cotangent g, then a
    backward through that small graph from each input's contribution, seeded with the input's
    tangent (a batch of them at once), gives it."""
    cotangent = kind.cotangent_leaf(node)
    with recording(True):
        contributions = kind.vjp(node, cotangent, True, (), [t is not None for t in tangents])
    pairs = [
        (c, t)
        for c, t in zip(contributions, tangents, strict=True)
        if t is not None and kind_of(c) is kind and kind.op(c) is not None
    ]
    if not pairs:
        return None  # the rule passes nothing back that depends on g: the tangent is zero
    (found,) = engine_grad(
        [c for c, _ in pairs],
        [cotangent],
        [t for _, t in pairs],
        create_graph=create_graph,
        is_grads_batched=bool(batch),
        materialize_grads=True,
    )
    return found


def _refuse_nan(kind: Kind, node: Any, given: Sequence[Any], tangent: Any) -> None:
    """Anomaly mode: a tangent that is NaN where no input's tangent was names its op."""
    if not kind.has_nan(node, tangent):
        return
    if any(t is not None and kind.has_nan(node, t) for t in given):
        return
    raise anomaly(
        kind,
        node,
        "forward mode: the tangent of {named} is nan where its inputs' tangents are not.",
    )
