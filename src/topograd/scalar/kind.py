"""The scalar kind as the engine sees it: a Value node's inputs (its operands that are
Values), its contributions (the op's rule on floats, or on Values under ``create_graph``),
``.grad`` and the seed of a backward.

>>> import topograd as tg
>>> from topograd.autograd.kinds import kind_of
>>> kind_of(tg.Value(1.0)).name
'scalar'
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Sequence
from typing import Any, cast

from ..autograd.kinds import register_kind
from ..autograd.registry import Op
from ..autograd.versions import WRITES, changed, first_changed, refuse_if_stale, restamp
from .backward import plain_backward
from .value import (
    NO_GRADIENT,
    Value,
    as_values,
    binary,
    constant,
    describe,
    fused,
    is_constant,
    is_real,
    new_node,
    operands_of,
    saved_data,
)


def _named(x: Value) -> str:
    return f"Value {x.label}" if x.label else f"Value(data={x.data!r})"


class ScalarKind:
    """The scalar kind as the engine sees it: inputs, contributions, ``.grad``."""

    name = "scalar"
    rank = 1

    def apply(self, op: Op, args: tuple[Any, ...], params: dict[str, Any]) -> Value:
        if params:
            raise TypeError(f"{op.name}() takes no parameters on Values, got {sorted(params)}")
        if op.scalar is None:
            raise TypeError(f"{op.name}() works on Tensors, not on Values")
        if op.arity >= 0 and len(args) != op.arity:
            raise TypeError(f"{op.name}() takes {op.arity} inputs, got {len(args)}")
        if op.arity == 1:
            (x,) = args
            return new_node(op.scalar(x.data), op, x)
        if op.arity == 2:
            result = binary(op, *args)
            if result is NotImplemented:
                raise TypeError(f"{op.name}() takes Values or real numbers")
            return result
        # a condition (where's) is a number to a Value: 1.0 holds, 0.0 does not
        args = tuple(float(a) if type(a) is bool else a for a in args)
        return fused(op, as_values(args, op.name))

    def op(self, node: Value) -> Op | None:
        return node._made_by if node._made_by.arity else None

    def operands(self, node: Value) -> tuple[Any, ...]:
        return operands_of(node)

    def params(self, node: Value) -> dict[str, Any]:
        return {}

    def inputs(self, node: Value) -> Sequence[Value]:
        arity = node._made_by.arity
        if arity == 2:
            x, y = node._x, node._y
            if type(x) is Value and type(y) is Value:  # the common case first: a hot path
                return (x, y)
            if type(x) is float or type(x) is int:
                return (y,)  # type: ignore[return-value]  # (no cast: a hot path)
            if type(y) is float or type(y) is int:
                return (x,)  # type: ignore[return-value]
            return (x, y)  # type: ignore[return-value]
        if arity == 1:
            return (node._x,)  # type: ignore[return-value]
        return node._x if arity else ()  # type: ignore[return-value]  # n operands, or a leaf

    def vjp(
        self,
        node: Value,
        grad: Any,
        create_graph: bool,
        batch: tuple[int, ...] = (),
        wanted: Sequence[bool] | None = None,
    ) -> Sequence[Any]:
        # (no batch ever reaches here: seed refuses one; a rule on numbers is cheap enough to
        # give every contribution, wanted or not)
        op = node._made_by
        arity = op.arity
        if arity == 2:
            x, y = node._x, node._y
            if type(x) is Value and type(y) is Value and not create_graph:  # the hot path
                return op.rule(grad, x.data, y.data, node.data)
            x_number = type(x) is float or type(x) is int
            y_number = type(y) is float or type(y) is int
            if create_graph:
                dx, dy = op.rule(grad, x, y, node)
            else:
                dx, dy = op.rule(
                    grad,
                    x if x_number else x.data,  # type: ignore[union-attr]
                    y if y_number else y.data,  # type: ignore[union-attr]
                    node.data,
                )
            return (dy,) if x_number else (dx,) if y_number else (dx, dy)
        if arity == 1:
            if create_graph:
                return op.rule(grad, node._x, node)
            return op.rule(grad, node._x.data, node.data)  # type: ignore[union-attr]
        operands = cast(tuple[Value, ...], node._x)
        if create_graph:
            return op.rule(grad, *operands, node)
        return op.rule(grad, *[v.data for v in operands], node.data)

    def jvp(
        self, node: Value, tangents: Sequence[Any], create_graph: bool, batch: tuple[int, ...] = ()
    ) -> Any:
        """Forward mode: ``node``'s tangent from its inputs' (None: none). Every node is one
        number, so the rule fed an input's tangent gives that input's share: the partial times
        the tangent (a selection included: relu's rule gives 0 whatever it is fed where the
        input is cut off). An op with a forward rule of its own (``Op.forward``) runs it."""
        op = node._made_by
        if op.forward is not None:
            given = iter(tangents)
            operands = self.operands(node)
            per_operand = [next(given) if type(o) is Value else None for o in operands]
            if create_graph:
                return op.forward(*per_operand, *operands, node)
            datas = [o.data if type(o) is Value else o for o in operands]
            return op.forward(*per_operand, *datas, node.data)
        total = None
        for i, tangent in enumerate(tangents):
            if tangent is None:
                continue
            share = self.vjp(node, tangent, create_graph)[i]
            if share is not None:
                total = share if total is None else total + share
        return total

    def pointwise(self, node: Value) -> bool:
        return True  # a node of one number: every rule runs forward as it is

    def cotangent_leaf(self, node: Value) -> Value:
        return Value(0.0)

    def accumulate(self, node: Value, grad: Any) -> None:
        # the first gradient replaces NO_GRADIENT (a first -0.0 keeps its sign); later ones add
        # (a .grad set to None by hand counts as none too)
        old = node.grad
        node.grad = grad if old is NO_GRADIENT or old is None else old + grad

    def gradient(self, node: Value) -> Any:
        return None if node.grad is NO_GRADIENT else node.grad

    def moved(self, node: Value) -> Value:
        return node

    strict = False  # grad() of what a Value does not depend on: 0.0

    def requires_grad(self, node: Value) -> bool:
        return True

    def forget(self, node: Value) -> None:
        node.grad = NO_GRADIENT

    def seed(self, node: Value, gradient: Any, batched: bool = False, keep: bool = False) -> Any:
        if batched:
            raise TypeError("a batch of gradients at once takes Tensors; a Value's is one number")
        if gradient is None:
            return 1.0
        if isinstance(gradient, Value):
            if keep:  # create_graph: the result depends on it
                return gradient
            gradient = gradient.data
        if type(gradient) is not float and not is_real(gradient):
            raise TypeError(f"backward() takes a real number as grad, got {describe(gradient)}")
        seed = float(gradient)
        return 0.0 if seed is NO_GRADIENT else seed  # a seed is a gradient, never "none yet"

    def as_grad(
        self, node: Value, grad: Any, create_graph: bool, batch: tuple[int, ...] = ()
    ) -> Any:
        if grad is None:
            grad = 0.0
        if create_graph and not isinstance(grad, Value):
            return constant(grad)
        return grad

    def has_nan(self, node: Value, grad: Any) -> bool:
        """Whether a NaN arrives here that matters: a constant wants no gradient."""
        if is_constant(node):
            return False
        return math.isnan(grad.data if isinstance(grad, Value) else grad)

    def created_at(self, node: Value) -> str | None:
        found = getattr(node, "_where", None)
        return found[0] if found else None

    def written(self, node: Value, count: int) -> None:
        node._stamp = restamp(node._stamp, count, bool(node._made_by.arity))

    def check_versions(self, order: Sequence[Value]) -> None:
        """Refuse a node whose data, or an input's, was written in place after it was made."""
        count = WRITES.count
        for node in [n for n in order if n._stamp != count]:  # (in a training loop: none)
            if node._made_by.arity:
                inputs = [
                    (i, x, x._stamp)
                    for i, x in enumerate(operands_of(node))
                    if isinstance(x, Value)
                ]
                refuse_if_stale(node._made_by, node, node._stamp, inputs, _named)

    def check_saved(self, node: Value) -> None:
        """Anomaly mode: refuse a node whose saved numbers changed behind topograd's back."""
        found = getattr(node, "_where", None)
        if found is None:
            return
        where, saved = found
        numbers = saved_data(node)
        position = first_changed(node._made_by, numbers, saved)
        if position is not None:
            what = f"{saved[position]!r} when saved, {numbers[position]!r} now"
            raise changed(node._made_by.name, position, what, where)

    def ieee(self) -> contextlib.nullcontext[None]:
        return contextlib.nullcontext()  # float arithmetic never warns (the ops' guard raises)


SCALAR = ScalarKind()
register_kind(SCALAR, Value, plain_backward)
