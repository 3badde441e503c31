"""The scalar ``Value``: a float that records the op and the operands that produced it.

Each op's forward and derivative are entries of the registry (``topograd.ops``); the backward
pass is the engine's (``topograd.autograd.engine``). This module holds the node and its kind:
how a Value stores its operands and hands the engine its inputs and contributions. Standard
library only.

A number operand is stored as a number, not boxed in a Value (as PyTorch's Scalar overloads):
``x * 2.0`` keeps ``2.0`` in the node, gradients flow to ``x`` alone, and ``.parents`` shows
the 2.0 as a constant leaf.

>>> import topograd as tg
>>> a, b, c = tg.Value(2.0, label="a"), tg.Value(-3.0, label="b"), tg.Value(10.0, label="c")
>>> e = (a * b + c).tanh()
>>> e.backward()
>>> a.grad, b.grad, c.grad
(-0.0040228520490775965, 0.002681901366051731, 0.0013409506830258655)
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any, cast

from ..autograd import engine
from ..autograd.modes import ALTERED, grad_mode, place
from ..autograd.registry import Op
from ..autograd.versions import WRITES
from ..ops.activations import relu
from ..ops.arithmetic import add, div, mul, neg, sub
from ..ops.elementary import power
from ..ops.methods import Methods

Real = float | int  # and NumPy real scalars, checked at run time
Number = float | int  # how a number operand is stored in a node


def is_real(x: object) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def describe(x: object) -> str:
    text = repr(x)
    return f"{type(x).__name__} {text[:40] + '...' if len(text) > 40 else text}"


# A Value's gradient before any backward: 0.0, this very float. Backward replaces it, as PyTorch
# replaces a gradient of None, and adds to any other: after backward(0.0) then backward(-0.0)
# the gradient is 0.0 + -0.0 = 0.0, as PyTorch's, where replacing every zero would leave -0.0.
NO_GRADIENT = float("0")


def _no_rule(grad: Any, *args: Any) -> tuple[Any, ...]:
    raise RuntimeError("a leaf has no derivative rule")


# micrograd's ``_op`` where it is not how topograd's drawings write the op (``Op.written``)
MICROGRAD_SPELLINGS = {"relu": "ReLU"}

LEAF = Op("", _no_rule, 0, "an input", "")
CONSTANT = Op("", _no_rule, 0, "a number made a Value", "")  # wants no gradient


class Value(Methods):
    """A scalar in a computation graph: its ``data``, its ``grad`` and how it was made.

    ``op`` names the op that produced it ("" for a leaf) and ``parents`` are its operands in
    order, duplicates kept. ``grad`` holds d output / d self after a ``backward``.
    """

    # Two operand slots instead of a parents tuple: a tuple per node would cost 56 more bytes and
    # one more object for the cyclic garbage collector to track. A variadic op keeps its operands
    # as a tuple in _x (so does an op of three or more). _where is filled by anomaly mode only:
    # where the user made the node, and the numbers it saved for backward. _stamp is the count
    # of writes in place when it was made or last written (autograd/versions.py).
    __slots__ = ("_made_by", "_stamp", "_where", "_x", "_y", "data", "grad", "label")
    __array_ufunc__ = None  # Value + ndarray is a TypeError, not an array of objects

    data: float
    grad: float
    label: str
    _made_by: Op
    _x: Value | Number | tuple[Value, ...] | None
    _y: Value | Number | None
    _where: tuple[str, tuple[float, ...]]
    _stamp: int | tuple[int, int]

    def __init__(self, data: Real, label: str = "") -> None:
        if type(data) is not float and not is_real(data):
            raise TypeError(
                f"Value() takes a real number (int, float, NumPy real), got {describe(data)}"
            )
        if not isinstance(label, str):
            raise TypeError(f"Value() takes a str label, got {describe(label)}")
        self.data = float(data)
        self.grad = NO_GRADIENT
        self.label = label
        self._made_by = LEAF
        self._x = self._y = None
        self._stamp = WRITES.count

    @property
    def parents(self) -> tuple[Value, ...]:
        """The operands of the op that produced this Value, in order, a number given as a number
        shown as a constant leaf; ``()`` for a leaf."""
        return tuple(o if isinstance(o, Value) else constant(o) for o in operands_of(self))

    @property
    def op(self) -> str:
        """The name of the op that produced this Value: ``""`` for a leaf, else e.g. "mul"."""
        return self._made_by.name

    # micrograd's names, so that code written for micrograd (its draw_dot, reading _prev and
    # _op) runs as it is.

    @property
    def _prev(self) -> set[Value]:
        """micrograd's name for the operands: ``set(parents)``, a number operand as a constant."""
        return set(self.parents)

    @property
    def _op(self) -> str:
        """micrograd's name for ``op``, in micrograd's spelling, so that its ``draw_dot`` shows
        what the lecture shows: "+", "*", "**2" (``f"**{exponent}"``), "ReLU", "tanh", "exp";
        an op it builds of others as topograd's drawings write it ("-", "/", "log",
        "neuron"); "" for a leaf. ``op`` keeps the registry's name ("add")."""
        op = self._made_by
        if op is power and not isinstance(self._y, Value):
            return f"**{self._y}"  # micrograd's: the exponent as the user wrote it
        return MICROGRAD_SPELLINGS.get(op.name, op.written)

    def item(self) -> float:
        """The number, as a Python float (as ``Tensor.item()``)."""
        return self.data

    def __float__(self) -> float:
        return self.data

    # Comparisons compare the numbers, as micrograd users expect of `if x.data > 0` written
    # `if x > 0`; == stays identity (a Value is a node, keyed by identity in every graph).

    def __lt__(self, other: Value | Real) -> bool:
        return self.data < (other.data if isinstance(other, Value) else other)

    def __le__(self, other: Value | Real) -> bool:
        return self.data <= (other.data if isinstance(other, Value) else other)

    def __gt__(self, other: Value | Real) -> bool:
        return self.data > (other.data if isinstance(other, Value) else other)

    def __ge__(self, other: Value | Real) -> bool:
        return self.data >= (other.data if isinstance(other, Value) else other)

    def __repr__(self) -> str:
        extra = f", label={self.label!r}" if self.label else ""
        extra += f", op={self.op!r}" if self.op else ""
        return f"Value(data={self.data!r}, grad={self.grad!r}{extra})"

    # Arithmetic with Values or numbers on either side. + and * are the hottest: spelt out.

    def __add__(self, other: Value | Real) -> Value:
        if type(other) is not Value and not isinstance(other, Value):
            c = number(other)
            return NotImplemented if c is None else new_node(self.data + c, add, self, c)
        if ALTERED.threads:  # a mode other than the default, somewhere: new_node reads it
            return new_node(self.data + other.data, add, self, other)
        out = _new(Value)  # new_node, written out for the two hottest ops (a call less)
        out.data = self.data + other.data
        out.grad = NO_GRADIENT
        out.label = ""
        out._stamp = WRITES.count
        out._made_by = add
        out._x = self
        out._y = other
        return out

    def __radd__(self, other: Real) -> Value:
        c = number(other)
        return NotImplemented if c is None else new_node(c + self.data, add, c, self)

    def __mul__(self, other: Value | Real) -> Value:
        if type(other) is not Value and not isinstance(other, Value):
            c = number(other)
            return NotImplemented if c is None else new_node(self.data * c, mul, self, c)
        if ALTERED.threads:
            return new_node(self.data * other.data, mul, self, other)
        out = _new(Value)
        out.data = self.data * other.data
        out.grad = NO_GRADIENT
        out.label = ""
        out._stamp = WRITES.count
        out._made_by = mul
        out._x = self
        out._y = other
        return out

    def __rmul__(self, other: Real) -> Value:
        c = number(other)
        return NotImplemented if c is None else new_node(c * self.data, mul, c, self)

    def __sub__(self, other: Value | Real) -> Value:
        return binary(sub, self, other)

    def __rsub__(self, other: Real) -> Value:
        return binary(sub, other, self)

    def __truediv__(self, other: Value | Real) -> Value:
        return binary(div, self, other)

    def __rtruediv__(self, other: Real) -> Value:
        return binary(div, other, self)

    def __pow__(self, other: Value | Real) -> Value:
        return binary(power, self, other)

    def __rpow__(self, other: Real) -> Value:
        return binary(power, other, self)

    def __neg__(self) -> Value:
        return new_node(-self.data, neg, self)

    def __abs__(self) -> Value:
        return self.abs()

    def relu(self) -> Value:
        """max(x, 0): spelt out, the hottest function of a network (floats.relu's formula, as
        nn's fused neuron writes it too)."""
        return new_node(0.0 if self.data < 0.0 else self.data, relu, self)

    # Backward.

    def backward(self, grad: Real = 1.0) -> None:
        """Add d self / d node, times ``grad``, to ``.grad`` of every node this one depends on.

        Intermediates included; calling it twice adds twice, exactly.
        """
        if grad is None:  # no default seed here: the signature's default is 1.0
            raise TypeError(f"backward() takes a real number as grad, got {describe(grad)}")
        engine.backward([self], [grad])


def number(x: object) -> Number | None:
    """A number operand as stored: itself if an exact float, or an int a float holds exactly
    (no new object: small ints are shared); else a float (an OverflowError for an int beyond
    floats); None for what is not a real number."""
    t = type(x)
    if t is float or (t is int and -(2**53) <= x <= 2**53):  # type: ignore[operator]
        return cast(Number, x)
    return float(x) if is_real(x) else None  # type: ignore[arg-type]


def binary(op: Op, x: Value | Real, y: Value | Real) -> Value:
    """``op`` of two operands, each a Value or a number; NotImplemented for anything else."""
    a = x if isinstance(x, Value) else number(x)
    b = y if isinstance(y, Value) else number(y)
    if a is None or b is None:
        return NotImplemented  # type: ignore[no-any-return]
    scalar = cast(Any, op.scalar)
    return new_node(scalar(_data(a), _data(b)), op, a, b)


def _data(x: Value | Number) -> float:
    return x.data if isinstance(x, Value) else x


_new = object.__new__


def new_node(
    data: float,
    op: Op,
    x: Value | Number | tuple[Value, ...] | None = None,
    y: Value | Number | None = None,
) -> Value:
    """A new node made by ``op`` from ``x`` (and ``y``); a leaf under ``no_grad``."""
    out = _new(Value)
    out.data = data
    out.grad = NO_GRADIENT
    out.label = ""
    out._stamp = WRITES.count
    record = grad_mode.record if ALTERED.threads else True
    if record:
        out._made_by = op
        out._x = x
        out._y = y
        if record is not True:  # anomaly mode: remember where the user made it, and its data
            out._where = (place(), saved_data(out))
    else:
        out._made_by = LEAF
        out._x = out._y = None
    return out


def fused(op: Op, operands: tuple[Value, ...]) -> Value:
    """One node of ``op`` over all its operands (a sum, a dot product): their numbers through
    the op's float function."""
    return new_node(op.scalar(*[v.data for v in operands]), op, operands)  # type: ignore[misc]


def constant(x: float) -> Value:
    """A Value for a number that takes part in an op: a leaf that wants no gradient."""
    out = _new(Value)
    out.data, out.grad, out.label = float(x), NO_GRADIENT, ""
    out._made_by, out._x, out._y, out._stamp = CONSTANT, None, None, WRITES.count
    return out


def is_built(node: Value) -> bool:
    """Whether ``node`` is whole: False while ``new_node`` still writes its slots."""
    try:
        node._made_by  # noqa: B018 - the last slot new_node writes but one
    except AttributeError:
        return False
    return True


def is_constant(x: Any) -> bool:
    """Whether ``x`` is a number, or a Value made for one: nothing to differentiate by."""
    return not isinstance(x, Value) or x._made_by is CONSTANT


def as_values(values: Iterable[Value | Real], function: str = "as_values") -> tuple[Value, ...]:
    """The values as Values: each number a constant leaf; anything else a TypeError."""
    given = tuple(values)
    if set(map(type, given)) <= {Value}:  # the common case, checked at C speed
        return cast(tuple[Value, ...], given)
    operands = []
    for v in given:
        if isinstance(v, Value):
            operands.append(v)
        elif is_real(v):
            operands.append(constant(float(v)))
        else:
            raise TypeError(f"{function}() takes Values or real numbers, got {describe(v)}")
    return tuple(operands)


def operands_of(node: Value) -> tuple[Any, ...]:
    """The operands of the op that made ``node``, as recorded (numbers as numbers)."""
    arity = node._made_by.arity
    if arity == 2:
        return (node._x, node._y)
    if arity == 1:
        return (node._x,)
    return cast(tuple[Value, ...], node._x) if arity else ()


def saved_data(node: Value) -> tuple[float, ...]:
    """The numbers ``node``'s rule will read: its operands' and its own (anomaly mode keeps
    them, to notice a write into ``.data`` between the forward and the backward)."""
    return (*[getattr(o, "data", o) for o in operands_of(node)], node.data)
