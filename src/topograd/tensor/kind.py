"""The Tensor kind as the engine sees it: a Tensor node's inputs, its contributions (the op's
rule run on arrays, with broadcasting undone by ``broadcast.unbroadcast``), ``.grad`` kept on
leaves and retained intermediates, and the seed of a backward.

>>> import topograd as tg
>>> from topograd.autograd.kinds import kind_of
>>> kind_of(tg.Tensor([1.0])).name
'tensor'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..autograd.engine import grad as engine_grad
from ..autograd.kinds import register_kind
from ..autograd.modes import recording
from ..autograd.registry import OUT, Op
from ..autograd.versions import WRITES, changed, first_changed, refuse_if_stale, restamp
from ..ops.shapes import broadcast_to
from .broadcast import unbroadcast
from .tensor import NUMBERS, Array, Tensor, apply, checksums, constant


def _named(x: Tensor) -> str:
    return f"Tensor {x.label}" if x.label else f"a Tensor of shape {x.shape}"


class TensorKind:
    """The Tensor kind as the engine sees it: inputs that require a gradient, contributions
    summed back to each input's shape, ``.grad`` kept on leaves (and retained intermediates)."""

    name = "tensor"
    rank = 3

    def apply(self, op: Op, args: tuple[Any, ...], params: dict[str, Any]) -> Tensor:
        return apply(op, args, params)

    def op(self, node: Tensor) -> Op | None:
        return node._op

    def operands(self, node: Tensor) -> tuple[Any, ...]:
        return node._inputs

    def params(self, node: Tensor) -> dict[str, Any]:
        return dict(node._params or {})

    def inputs(self, node: Tensor) -> Sequence[Tensor]:
        return node._needed

    def vjp(self, node: Tensor, grad: Any, create_graph: bool) -> list[Any]:
        grads = _rule(node, grad, create_graph)
        contributions: list[Any] = []
        for x, g, need in zip(node._inputs, grads, node._needs, strict=True):
            if need:
                shape, dtype = x.data.shape, x.data.dtype  # type: ignore[union-attr]
                if g is None:  # an input that gets nothing (a mask made to want a gradient)
                    g = np.zeros(shape, dtype)
                elif type(g) in NUMBERS:  # a choice made at once: the same for every element
                    g = np.full(shape, g, dtype)
                g = unbroadcast(g, shape)
                if any(g is c for c in contributions):  # never one array for two inputs
                    g = g.copy() if isinstance(g, np.ndarray) else g * 1.0
                contributions.append(g)
        return contributions

    def jvp(self, node: Tensor, tangents: Sequence[Any], create_graph: bool) -> Any:
        """Forward mode: ``node``'s tangent from its inputs' (None: none). An op applied element
        by element runs its rule forward, fed each input's tangent in the output's shape (the
        rule is the partial times what it is fed); any other op's tangent is the transpose of
        its VJP, which is linear in the cotangent: J t = d<VJP(g), t>/dg."""
        op = node._op
        assert op is not None
        with np.errstate(all="ignore"):
            if op.forward is not None:
                return _forward(node, tangents, create_graph)
            if op.elementwise:
                return _pushed(node, tangents, create_graph)
            return _transposed(self, node, tangents, create_graph)

    def accumulate(self, node: Tensor, grad: Any) -> None:
        if node._inputs and not node._retain:
            return  # an intermediate keeps no gradient unless asked to
        if not node.requires_grad and not node._retain:
            return
        grad = np.asarray(grad, dtype=node.data.dtype)
        if node.grad is None:
            # a leaf may own the gradient the engine made for it; an intermediate's is passed on
            node.grad = grad if not node._inputs else grad.copy()
        else:
            node.grad = np.asarray(node.grad + grad)  # a 0-d sum would be a NumPy scalar

    def forget(self, node: Tensor) -> None:
        node.grad = None

    def gradient(self, node: Tensor) -> Any:
        return node.grad

    def seed(self, node: Tensor, gradient: Any) -> Array:
        if gradient is None and node.data.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        given = np.ones(node.shape) if gradient is None else gradient
        given = given.data if isinstance(given, Tensor) else given
        if np.iscomplexobj(given) or np.asarray(given).dtype.kind not in "biuf":
            raise TypeError(
                f"backward() takes real numbers as the gradient, got {np.asarray(given).dtype}"
            )
        seed = np.array(given, dtype=node.dtype)
        if seed.shape != node.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[0] has a shape of {seed.shape} and output[0] "
                f"has a shape of {node.shape}."
            )
        return seed

    def as_grad(self, node: Tensor, grad: Any, create_graph: bool) -> Any:
        grad = np.zeros(node.shape, node.data.dtype) if grad is None else grad
        if create_graph:
            return grad if isinstance(grad, Tensor) else constant(grad)
        return np.asarray(grad.data if isinstance(grad, Tensor) else grad)  # 0-d: an array too

    def has_nan(self, node: Tensor, grad: Any) -> bool:
        return bool(np.isnan(grad.data if isinstance(grad, Tensor) else grad).any())

    def created_at(self, node: Tensor) -> str | None:
        found = getattr(node, "_where", None)
        return found[0] if found else None

    def written(self, node: Tensor, count: int) -> None:
        node._stamp = restamp(node._stamp, count, bool(node._inputs))

    def check_versions(self, order: Sequence[Tensor]) -> None:
        """Refuse a node whose data, or an input's, was written in place after it was made."""
        count = WRITES.count
        for node in [n for n in order if n._stamp != count]:
            if node._op is not None:
                inputs = [
                    (i, x, x._stamp) for i, x in enumerate(node._inputs) if isinstance(x, Tensor)
                ]
                refuse_if_stale(node._op, node, node._stamp, inputs, _named)

    def check_saved(self, node: Tensor) -> None:
        """Anomaly mode: refuse a node whose saved arrays changed behind topograd's back."""
        found = getattr(node, "_where", None)
        if found is None or node._op is None:
            return
        where, saved = found
        position = first_changed(node._op, checksums(node), saved)
        if position is not None:
            shown = node if position == OUT else node._inputs[position]
            raise changed(node._op.name, position, _named(shown), where)  # type: ignore[arg-type]

    def ieee(self) -> np.errstate:
        return np.errstate(all="ignore")  # inf - inf is nan, 1e308 * 10 is inf: no warning


def _rule(node: Tensor, grad: Any, create_graph: bool) -> Sequence[Any]:
    """The op's rule run on ``grad``: one contribution per operand, in the output's shape."""
    op = node._op
    assert op is not None
    params = node._params
    if op.takes_needs:
        params = {**(params or {}), "needs": node._needs}
    if create_graph:
        xs: list[Any] = list(node._inputs)
        out: Any = node
        grad = grad if isinstance(grad, Tensor) else constant(grad)
    else:
        xs = [t if type(t) in NUMBERS else t.data for t in node._inputs]  # type: ignore[union-attr]
        out = node.data
    with np.errstate(all="ignore"):  # IEEE results (inf, nan) in backward too, never a warning
        return op.rule(grad, *xs, out, **params) if params else op.rule(grad, *xs, out)


def _forward(node: Tensor, tangents: Sequence[Any], create_graph: bool) -> Any:
    """The op's forward rule of its own, fed each operand's tangent (None: none)."""
    op = node._op
    assert op is not None and op.forward is not None
    given = iter(tangents)
    per_operand = [next(given) if need else None for need in node._needs]
    if create_graph:
        found = op.forward(*per_operand, *node._inputs, node)
    else:
        datas = [t if type(t) in NUMBERS else t.data for t in node._inputs]  # type: ignore[union-attr]
        found = op.forward(*per_operand, *datas, node.data)
    return found if found.shape == node.shape else broadcast_to(found, shape=node.shape)


def _pushed(node: Tensor, tangents: Sequence[Any], create_graph: bool) -> Any:
    """Σ_i rule(tangent_i)[i] for an op applied element by element."""
    operands = [k for k, need in enumerate(node._needs) if need]
    total = None
    for k, tangent in zip(operands, tangents, strict=True):
        if tangent is None:
            continue
        fed = tangent if tangent.shape == node.shape else broadcast_to(tangent, shape=node.shape)
        share = _rule(node, fed, create_graph)[k]
        if share is None:
            continue
        if type(share) in NUMBERS:  # a choice made at once: the same for every element
            share = np.full(node.shape, share, node.dtype)
        elif share.shape != node.shape:
            share = broadcast_to(share, shape=node.shape)
        total = share if total is None else total + share
    return total


def _transposed(kind: TensorKind, node: Tensor, tangents: Sequence[Any], create_graph: bool) -> Any:
    """Σ_i J_i t_i as the gradient, by g, of Σ_i <VJP(g)_i, t_i>: a backward through the graph
    of the op's own rule, recorded on a cotangent leaf g."""
    if all(t is None for t in tangents):
        return None
    cotangent = Tensor(np.zeros(node.shape, node.dtype), requires_grad=True)
    with recording(True):
        contributions = kind.vjp(node, cotangent, True)
        total: Any = 0.0
        for c, t in zip(contributions, tangents, strict=True):
            if t is not None:
                total = total + (c * t).sum()
    if not isinstance(total, Tensor) or not total.requires_grad:
        return None  # the op passes nothing back: its tangent is zero
    (found,) = engine_grad(total, [cotangent], create_graph=create_graph)
    return found


TENSOR = TensorKind()
register_kind(TENSOR, Tensor)
