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
from itertools import repeat
from operator import attrgetter, is_
from types import SimpleNamespace
from typing import Any

import numpy as np

from ..autograd.function import Function
from ..autograd.kinds import register_kind
from ..autograd.registry import OUT, Op
from ..autograd.versions import WRITES, changed, first_changed, modified, refuse_if_stale
from ..ops.rounding import astype
from ..ops.shapes import broadcast_to, reshape, stack
from .broadcast import unbroadcast
from .function import apply_function
from .quiet import IEEE
from .storage import stamp, write
from .tensor import NUMBERS, Array, Tensor, apply, checksums, constant


def _named(x: Tensor) -> str:
    return f"Tensor {x.label}" if x.label else f"a Tensor of shape {tuple(x.shape)}"


class TensorKind:
    """The Tensor kind as the engine sees it: inputs that require a gradient, contributions
    summed back to each input's shape, ``.grad`` kept on leaves (and retained intermediates)."""

    name = "tensor"
    rank = 3
    apply = staticmethod(apply)  # an op's one entry on Tensors: tensor.apply, called directly

    def apply_function(self, cls: type[Function], args: tuple[Any, ...]) -> Any:
        """A ``tg.autograd.Function`` applied to Tensors."""
        return apply_function(cls, args)

    def op(self, node: Tensor) -> Op | None:
        return node._op

    def operands(self, node: Tensor) -> tuple[Any, ...]:
        return node._inputs

    def params(self, node: Tensor) -> dict[str, Any]:
        return dict(node._params or {})

    # a node's inputs that require a gradient: read in C (the order and the walk ask twice a
    # node), an attrgetter, which a class does not bind as a method
    inputs = attrgetter("_needed")

    def vjp(
        self,
        node: Tensor,
        grad: Any,
        create_graph: bool,
        batch: tuple[int, ...] = (),
        wanted: Sequence[bool] | None = None,
    ) -> list[Any]:
        """One contribution per input that requires a gradient (None for one not ``wanted``).
        With ``batch`` (the leading axes of a batch of gradients), each in a batch too: at once
        where the op's rule takes the batch (``Op.batched``), else one after the other."""
        op = node._op
        assert op is not None
        needs = node._needs
        if wanted is not None:  # (a rule that takes needs= skips the unwanted work)
            asked = iter(wanted)
            needs = tuple(need and next(asked) for need in needs)
        if batch and not op.batched:
            return _one_by_one(self, node, grad, create_graph, batch, needs)
        grads = _rule(node, grad, create_graph, needs)
        contributions: list[Any] = []
        for x, g, need, asked_for in zip(node._inputs, grads, node._needs, needs, strict=True):
            if need and not asked_for:
                contributions.append(None)
            elif need:
                shape, dtype = x.array.shape, x.array.dtype  # type: ignore[union-attr]
                if g is None:  # an input that gets nothing (a mask made to want a gradient)
                    g = np.zeros((*batch, *shape), dtype)
                elif type(g) in NUMBERS:  # a choice made at once: the same for every element
                    g = np.full((*batch, *shape), g, dtype)
                if batch or g.shape != shape:  # (most arrive in their input's shape)
                    g = unbroadcast(g, shape, batch)
                if g.dtype != dtype:  # PyTorch's validate_outputs: grad.to(input's dtype)
                    g = astype(g, dtype=dtype)  # (differentiably, under create_graph)
                if any(map(is_, contributions, repeat(g))):  # never one array for two inputs
                    g = g.copy() if isinstance(g, np.ndarray) else g * 1.0
                contributions.append(g)
        return contributions

    def jvp(
        self, node: Tensor, tangents: Sequence[Any], create_graph: bool, batch: tuple[int, ...] = ()
    ) -> Any:
        """Forward mode, for an op applied element by element: ``node``'s tangent from its
        inputs' (None: none), each with the leading axes ``batch`` where a batch of tangents
        runs at once. The rule (or the op's forward rule) is fed each input's tangent in the
        output's shape: it gives the partial times what it is fed."""
        return _pushed(node, tangents, create_graph, batch)  # (inside forward mode's ieee())

    def pointwise(self, node: Tensor) -> bool:
        op = node._op
        return op is not None and op.elementwise

    def cotangent_leaf(self, node: Tensor) -> Tensor:
        return Tensor(np.zeros(node.shape, node.dtype), requires_grad=True)

    def accumulate(self, node: Tensor, grad: Any) -> None:
        if node._inputs and not node._retain:
            return  # an intermediate keeps no gradient unless asked to
        if not node.requires_grad and not node._retain:
            return
        if isinstance(grad, Tensor):  # backward(create_graph=True): a gradient with a graph
            if grad.array.dtype != node.array.dtype:
                grad = grad.to(node.array.dtype)
            node._grad = grad if node._grad is None else node._grad + grad
            return
        grad = np.asarray(grad, dtype=node.array.dtype)
        held = node._grad
        if held is None:
            # a leaf may own the gradient the engine made for it; an intermediate's is passed on
            node._grad = constant(grad if not node._inputs else grad.copy())
        elif held.requires_grad or not held.array.flags.writeable:
            node._grad = constant(held.array + grad)
        else:  # in place, as PyTorch accumulates: p.grad.zero_() resets the buffer it adds to
            with np.errstate(all="ignore"):
                held.array += grad

    def forget(self, node: Tensor) -> None:
        node._grad = None

    def gradient(self, node: Tensor) -> Any:
        held = node._grad
        return None if held is None else held.array

    def moved(self, node: Tensor) -> SimpleNamespace:
        """Its array as ``.data`` (``data -= step`` writes into it) and as ``.array``: where an
        update rebinds ``.data`` instead, the optimizer writes the new numbers into ``.array``
        (a namespace made in C: no call of Python's per parameter)."""
        return SimpleNamespace(data=node.array, array=node.array)

    strict = True  # grad() refuses as PyTorch's: no graph, an unused input

    def requires_grad(self, node: Tensor) -> bool:
        return node.requires_grad

    def seed(self, node: Tensor, gradient: Any, batched: bool = False, keep: bool = False) -> Any:
        """The upstream gradient of ``node``, checked (real numbers, the node's shape) and in
        its dtype, as PyTorch's engine casts it; with ``keep`` (create_graph) a Tensor given
        stays a node, cast by the ``astype`` op so that the result depends on it."""
        seed = self.seed_batch(node, gradient) if batched else self._seed(node, gradient)
        if keep and isinstance(gradient, Tensor):
            return gradient if gradient.dtype == node.dtype else astype(gradient, dtype=node.dtype)
        return seed

    def _seed(self, node: Tensor, gradient: Any) -> Array:
        if gradient is None and node.array.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if gradient is None:  # (loss.backward(): a one, nothing to check nor to round)
            return np.ones(node.array.shape, node.array.dtype)
        given = np.ones(node.shape) if gradient is None else gradient
        given = given.array if isinstance(given, Tensor) else given
        if np.iscomplexobj(given) or np.asarray(given).dtype.kind not in "biuf":
            raise TypeError(
                f"backward() takes real numbers as the gradient, got {np.asarray(given).dtype}"
            )
        with np.errstate(over="ignore"):  # a gradient too large for float16: inf, as IEEE's
            seed = np.array(given, dtype=node.dtype)
        if seed.shape != node.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[0] has a shape of {seed.shape} and output[0] "
                f"has a shape of {node.shape}."
            )
        return seed

    def seed_batch(self, node: Tensor, gradients: Any) -> Array:
        """A batch of upstream gradients along a new leading axis, each of the node's shape."""
        given = gradients.array if isinstance(gradients, Tensor) else np.asarray(gradients)
        if given.dtype.kind not in "biuf":
            raise TypeError(f"backward() takes real numbers as the gradient, got {given.dtype}")
        if given.ndim == 0 or given.shape[1:] != node.shape:
            raise RuntimeError(
                f"a batch of gradients has the output's shape {tuple(node.shape)} after its first "
                f"axis, got a shape of {tuple(given.shape)}"
            )
        return np.array(given, dtype=node.dtype)

    def as_grad(
        self, node: Tensor, grad: Any, create_graph: bool, batch: tuple[int, ...] = ()
    ) -> Any:
        grad = np.zeros((*batch, *node.shape), node.array.dtype) if grad is None else grad
        if isinstance(grad, Tensor):
            return grad if create_graph else constant(grad.array)
        return constant(np.asarray(grad, node.array.dtype))  # a Tensor, as PyTorch's grad gives

    def has_nan(self, node: Tensor, grad: Any) -> bool:
        return bool(np.isnan(grad.array if isinstance(grad, Tensor) else grad).any())

    def created_at(self, node: Tensor) -> str | None:
        found = getattr(node, "_where", None)
        return found[0] if found else None

    written = staticmethod(write)  # (node, count): its numbers, and its views', written then

    def check_versions(self, order: Sequence[Tensor]) -> None:
        """Refuse a node whose data, or an input's, was written in place after it was made,
        or that has an input made a new node by an in-place op since (its gradient would go
        to the op's node, not to the Tensor this node was made from)."""
        count = WRITES.count
        for node in [n for n in order if n._stamp != count]:
            if node._op is not None:
                inputs = [
                    (i, x, stamp(x)) for i, x in enumerate(node._inputs) if isinstance(x, Tensor)
                ]
                for i, x, x_stamp in inputs:
                    if x._op is not None and x._stamp > node._stamp:  # (inplace.py's _recorded)
                        raise modified(node._op.name, i, _named(x), x_stamp)
                refuse_if_stale(node._op, node, stamp(node), inputs, _named)

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

    def ieee(self) -> IEEE:
        return IEEE()  # inf - inf is nan, 1e308 * 10 is inf: no warning (entered once)


def _rule(
    node: Tensor, grad: Any, create_graph: bool, needs: tuple[bool, ...] | None = None
) -> Sequence[Any]:
    """The op's rule run on ``grad``: one contribution per operand, in the output's shape."""
    op = node._op
    assert op is not None
    params = node._params
    if op.takes_needs:
        params = {**(params or {}), "needs": node._needs if needs is None else needs}
    if op.keeps:  # what its forward kept, for the rule on arrays (under create_graph: None)
        params = {**(params or {}), "kept": None if create_graph else getattr(node, "_kept", None)}
    if create_graph:
        xs: list[Any] = list(node._inputs)
        out: Any = node
        grad = grad if isinstance(grad, Tensor) else constant(grad)
    else:
        xs = []  # (a loop: a comprehension is a call of its own before Python 3.12)
        for t in node._inputs:
            xs.append(t if type(t) in NUMBERS else t.array)  # type: ignore[union-attr]
        out = node.array
    # (no np.errstate here: the engine's walk and forward mode run every rule inside the
    # kind's ieee(), IEEE results without warnings, entered once per pass)
    return op.rule(grad, *xs, out, **params) if params else op.rule(grad, *xs, out)


def _forward(node: Tensor, per_operand: Sequence[Any], create_graph: bool) -> Any:
    """The op's forward rule of its own, fed each operand's tangent (None: none)."""
    op = node._op
    assert op is not None and op.forward is not None
    if create_graph:
        return op.forward(*per_operand, *node._inputs, node)
    datas = [t if type(t) in NUMBERS else t.array for t in node._inputs]  # type: ignore[union-attr]
    return op.forward(*per_operand, *datas, node.array)


def _one_by_one(
    kind: TensorKind,
    node: Tensor,
    grads: Any,
    create_graph: bool,
    batch: tuple[int, ...],
    needs: tuple[bool, ...],
) -> list[Any]:
    """A batch of contributions for a rule that takes one gradient at a time: stacked."""
    (size,) = batch
    wanted = [asked for need, asked in zip(node._needs, needs) if need]
    each = [kind.vjp(node, grads[b], create_graph, (), wanted) for b in range(size)]
    return [
        None if column[0] is None else stack(*column, axis=0) for column in zip(*each, strict=True)
    ]


def _pushed(
    node: Tensor, tangents: Sequence[Any], create_graph: bool, batch: tuple[int, ...]
) -> Any:
    """For an op applied element by element, each input's tangent in the output's shape (and
    the batch's), fed to its forward rule (``Op.forward``), or Σ_i rule(tangent_i)[i]."""
    full = (*batch, *node.shape)
    operands = [k for k, need in enumerate(node._needs) if need]
    fed: list[Any] = [None] * len(node._inputs)
    for k, tangent in zip(operands, tangents, strict=True):
        if tangent is not None:
            fed[k] = (
                tangent
                if tangent.shape == full
                else broadcast_to(_aligned(tangent, node, batch), shape=full)
            )
    op = node._op
    assert op is not None
    if op.forward is not None:
        found = _forward(node, fed, create_graph)
        return found if found.shape == full else broadcast_to(found, shape=full)
    total = None
    for k in operands:
        if fed[k] is None:
            continue
        share = _rule(node, fed[k], create_graph)[k]
        if share is None:
            continue
        if type(share) in NUMBERS:  # a choice made at once: the same for every element
            share = np.full(full, share, node.dtype)
        elif share.shape != full:
            share = broadcast_to(share, shape=full)
        total = share if total is None else total + share
    return total


def _aligned(tangent: Any, node: Tensor, batch: tuple[int, ...]) -> Any:
    """A batch of an input's tangents with unit axes after the batch, so that the input's own
    axes line up with the output's (as broadcasting lines them up from the end)."""
    if not batch:
        return tangent
    own = tangent.shape[len(batch) :]
    return reshape(tangent, shape=(*batch, *(1,) * (node.ndim - len(own)), *own))


TENSOR = TensorKind()
register_kind(TENSOR, Tensor)
