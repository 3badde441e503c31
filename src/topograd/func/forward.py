"""Forward mode on a recorded graph: the tangent of every node, in forward order, from the
tangents of its inputs. No op has a second rule: an op's rule gives the upstream gradient times
the partial into each input (reverse mode), and for a node of one number the same rule, fed an
input's tangent, gives that input's share of the node's tangent:

    tangent(node) = Σ_i rule(tangent(input_i), ...)[i]  =  Σ_i ∂node/∂input_i · tangent(input_i)

(the rule is linear in what it is fed, selections included: relu's where(out <= 0, 0, g) gives
0 for any tangent where the input is cut off). This holds for Values, whose every node is one
number; a Tensor op maps an output's cotangent to its inputs', the transpose of what forward
mode needs, and is not supported here yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..autograd.engine import topological_order
from ..autograd.kinds import kind_of


def tangents(outputs: Sequence[Any], seeds: dict[Any, Any], create_graph: bool) -> dict[Any, Any]:
    """The tangent of every node the outputs depend on, given those of some nodes (``seeds``:
    node -> tangent; every other leaf has tangent 0). A node none of whose inputs has a tangent
    has none (absent: zero). With ``create_graph`` the tangents are nodes, differentiable."""
    nodes = [o for o in outputs if kind_of(o) is not None]
    if not nodes:
        return {}
    kind = kind_of(nodes[0])
    assert kind is not None
    if kind.name != "scalar":
        raise TypeError("forward mode (jvp, jacfwd) takes Values; Tensors are not supported yet")
    found: dict[Any, Any] = dict(seeds)
    for node in topological_order(nodes):
        if node in found or kind.op(node) is None:
            continue
        total = None
        for i, operand in enumerate(kind.inputs(node)):
            tangent = found.get(operand)
            if tangent is None:
                continue
            share = kind.vjp(node, tangent, create_graph)[i]
            if share is not None:
                total = share if total is None else total + share
        if total is not None:
            found[node] = total
    return found
