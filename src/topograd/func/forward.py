"""Forward mode on a recorded graph: the tangent of every node, in forward order, from the
tangents of its inputs. No op has a second rule: each kind's ``jvp`` runs the op's own rule
forward (see the kinds: a Value's rule fed an input's tangent gives the partial times it; a
Tensor op applied element by element likewise; any other Tensor op by the transpose of its
VJP, which is linear in what it is fed).

    tangent(node) = Σ_i ∂node/∂input_i · tangent(input_i)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..autograd.engine import topological_order
from ..autograd.kinds import Kind, kind_of
from ..autograd.modes import AnomalyError, grad_mode, recording


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
            tangent = kind.jvp(node, given, create_graph, batch)
            if tangent is not None:
                if check:
                    _refuse_nan(kind, node, given, tangent)
                found[node] = tangent
    return found


def _refuse_nan(kind: Kind, node: Any, given: Sequence[Any], tangent: Any) -> None:
    """Anomaly mode: a tangent that is NaN where no input's tangent was names its op."""
    if not kind.has_nan(node, tangent):
        return
    if any(t is not None and kind.has_nan(node, t) for t in given):
        return
    op, label = kind.op(node).name, getattr(node, "label", "")
    named = f"{op!r}" + (f" (label {label!r})" if label else "")
    where = kind.created_at(node)
    raise AnomalyError(
        f"forward mode: the tangent of {named} is nan where its inputs' tangents are not.\n"
        + (
            f"That node was created at {where}"
            if where
            else "That node was created outside detect_anomaly(), so where is not known"
        )
    )
