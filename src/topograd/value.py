"""The scalar ``Value``: a float that records the op and the parents that produced it.

Forward of every op is here; each op's derivative is in ``rules.py``; the backward pass is in
``engine.py``. Standard library only.

>>> import topograd as tg
>>> a, b, c = tg.Value(2.0, label="a"), tg.Value(-3.0, label="b"), tg.Value(10.0, label="c")
>>> e = (a * b + c).tanh()
>>> e.backward()
>>> a.grad, b.grad, c.grad
(-0.0040228520490775965, 0.002681901366051731, 0.0013409506830258655)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from typing import cast

from . import engine
from .modes import grad_mode, remember
from .rules import OPS, VARIADIC, Num, Op

Real = float | int  # and NumPy real scalars, checked at run time


def _no_rule(*args: Num) -> tuple[Num, ...]:
    raise RuntimeError("a leaf has no derivative rule")


LEAF = Op("", 0, float, _no_rule, ())
CONSTANT = Op("", 0, float, _no_rule, ())  # a number lifted into an operation: wants no gradient
_ADD, _SUB, _MUL, _DIV, _POW = OPS["+"], OPS["-"], OPS["*"], OPS["/"], OPS["**"]
_NEG, _ABS, _RELU, _EXP, _LOG = OPS["neg"], OPS["abs"], OPS["relu"], OPS["exp"], OPS["log"]
_SQRT, _TANH, _SIGMOID = OPS["sqrt"], OPS["tanh"], OPS["sigmoid"]
_SIN, _COS, _SOFTPLUS = OPS["sin"], OPS["cos"], OPS["softplus"]
_SUM, _DOT, _AFFINE = OPS["sum"], OPS["dot"], OPS["affine"]


def is_real(x: object) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def describe(x: object) -> str:
    text = repr(x)
    return f"{type(x).__name__} {text[:40] + '...' if len(text) > 40 else text}"


class Value:
    """A scalar in a computation graph: its ``data``, its ``grad`` and how it was made.

    ``op`` names the op that produced it ("" for a leaf) and ``parents`` are its operands in
    order, duplicates kept. ``grad`` holds d output / d self after a ``backward``.
    """

    # Two operand slots instead of a parents tuple: a tuple per node would cost 56 more bytes and
    # one more object for the cyclic garbage collector to track. A variadic op keeps its operands
    # as a tuple in _x.
    __slots__ = ("_op", "_where", "_x", "_y", "data", "grad", "label")  # _where: anomaly mode
    __array_ufunc__ = None  # Value + ndarray is a TypeError, not an array of objects

    data: float
    grad: float
    label: str
    _op: Op
    _x: Value | tuple[Value, ...] | None
    _y: Value | None

    def __init__(self, data: Real, label: str = "") -> None:
        if type(data) is not float and not is_real(data):
            raise TypeError(
                f"Value() takes a real number (int, float, NumPy real), got {describe(data)}"
            )
        if not isinstance(label, str):
            raise TypeError(f"Value() takes a str label, got {describe(label)}")
        self.data = float(data)
        self.grad = 0.0
        self.label = label
        self._op = LEAF
        self._x = self._y = None

    @property
    def parents(self) -> tuple[Value, ...]:
        """The operands of the op that produced this Value, in order; ``()`` for a leaf."""
        arity = self._op.arity
        if arity == 2:
            return (self._x, self._y)  # type: ignore[return-value]  # (no cast: a hot path)
        if arity == 1:
            return (self._x,)  # type: ignore[return-value]
        if arity == VARIADIC:
            return self._x  # type: ignore[return-value]
        return ()

    @property
    def op(self) -> str:
        """The name of the op that produced this Value: ``""`` for a leaf, else e.g. "*"."""
        return self._op.name

    def __repr__(self) -> str:
        extra = f", label={self.label!r}" if self.label else ""
        extra += f", op={self.op!r}" if self.op else ""
        return f"Value(data={self.data!r}, grad={self.grad!r}{extra})"

    # Arithmetic. The hottest ops are spelt out; the rest go through _binary and _apply.

    def __add__(self, other: Value | Real) -> Value:
        o = other if type(other) is Value else lift(other)
        if o is None:
            return NotImplemented
        return new_node(self.data + o.data, _ADD, self, o)

    def __mul__(self, other: Value | Real) -> Value:
        o = other if type(other) is Value else lift(other)
        if o is None:
            return NotImplemented
        return new_node(self.data * o.data, _MUL, self, o)

    def __radd__(self, other: Real) -> Value:
        o = lift(other)
        return NotImplemented if o is None else new_node(o.data + self.data, _ADD, o, self)

    def __rmul__(self, other: Real) -> Value:
        o = lift(other)
        return NotImplemented if o is None else new_node(o.data * self.data, _MUL, o, self)

    def __sub__(self, other: Value | Real) -> Value:
        return _binary(_SUB, self, other)

    def __rsub__(self, other: Real) -> Value:
        return _binary(_SUB, other, self)

    def __truediv__(self, other: Value | Real) -> Value:
        return _binary(_DIV, self, other)

    def __rtruediv__(self, other: Real) -> Value:
        return _binary(_DIV, other, self)

    def __pow__(self, other: Value | Real) -> Value:
        return _binary(_POW, self, other)

    def __rpow__(self, other: Real) -> Value:
        return _binary(_POW, other, self)

    def __neg__(self) -> Value:
        return new_node(-self.data, _NEG, self)

    def __abs__(self) -> Value:
        return new_node(abs(self.data), _ABS, self)

    def relu(self) -> Value:
        return new_node(0.0 if self.data < 0.0 else self.data, _RELU, self)

    def tanh(self) -> Value:
        return _apply(_TANH, self)

    def exp(self) -> Value:
        return _apply(_EXP, self)

    def log(self) -> Value:
        return _apply(_LOG, self)

    def sigmoid(self) -> Value:
        return _apply(_SIGMOID, self)

    def sqrt(self) -> Value:
        return _apply(_SQRT, self)

    def sin(self) -> Value:
        return _apply(_SIN, self)

    def cos(self) -> Value:
        return _apply(_COS, self)

    def softplus(self) -> Value:
        """log(1 + e^x), computed without overflow."""
        return _apply(_SOFTPLUS, self)

    # Backward.

    def backward(self, grad: Real = 1.0) -> None:
        """Add d self / d node, times ``grad``, to ``.grad`` of every node this one depends on.

        Intermediates included; calling it twice adds twice, exactly.
        """
        if type(grad) is not float and not is_real(grad):
            raise TypeError(f"backward() takes a real number as grad, got {describe(grad)}")
        engine.backward([self], [float(grad)])

    def _vjp(self, grad: Num, create_graph: bool) -> tuple[Num, ...]:
        rule = self._op.rule
        if create_graph:
            partials = rule(*self.parents, self)
        elif self._op.arity == 2:  # the hot path, spelt out
            dx, dy = rule(self._x.data, self._y.data, self.data)  # type: ignore[union-attr]
            return dx * grad, dy * grad
        else:
            partials = rule(*[p.data for p in self.parents], self.data)
        return tuple([d * grad for d in partials])

    def _accumulate_grad(self, grad: float) -> None:
        self.grad = self.grad + grad if self.grad else grad  # a first -0.0 keeps its sign

    def _seed(self) -> float:
        return 1.0

    def _as_grad(self, grad: Num | None, create_graph: bool) -> Num:
        if grad is None:
            grad = 0.0
        if create_graph and not isinstance(grad, Value):
            return constant(grad)
        return grad

    def _has_nan(self, grad: Num) -> bool:
        """Whether a NaN arrives here that matters: a constant (a number lifted into an op, such
        as the 2 of x ** 2) wants no gradient, so a NaN for it is no anomaly."""
        if self._op is CONSTANT:
            return False
        return math.isnan(grad.data if isinstance(grad, Value) else grad)


def new_node(
    data: float, op: Op, x: Value | tuple[Value, ...] | None = None, y: Value | None = None
) -> Value:
    """A new node made by ``op`` from ``x`` (and ``y``); a leaf under ``no_grad``."""
    out = _new(Value)
    out.data = data
    out.grad = 0.0
    out.label = ""
    record = grad_mode.record
    if record:
        out._op = op
        out._x = x
        out._y = y
        if record is not True:  # anomaly mode: remember where the user made it
            remember(out)
    else:
        out._op = LEAF
        out._x = out._y = None
    return out


_new = object.__new__


def constant(x: float) -> Value:
    out = _new(Value)
    out.data, out.grad, out.label = x, 0.0, ""
    out._op, out._x, out._y = CONSTANT, None, None
    return out


def lift(x: object) -> Value | None:
    """A Value for an operand: itself, a constant leaf for a real number, None for anything else."""
    if isinstance(x, Value):
        return x
    if type(x) is float or is_real(x):
        return constant(float(x))  # type: ignore[arg-type]
    return None


def _binary(op: Op, x: Value | Real, y: Value | Real) -> Value:
    a, b = lift(x), lift(y)
    if a is None or b is None:
        return NotImplemented  # type: ignore[no-any-return]
    return new_node(op.forward(a.data, b.data), op, a, b)


def _apply(op: Op, x: Value) -> Value:
    return new_node(op.forward(x.data), op, x)


def as_values(values: Iterable[Value | Real], function: str = "as_values") -> tuple[Value, ...]:
    """The values as Values: each number a constant leaf; anything else a TypeError."""
    given = tuple(values)
    if set(map(type, given)) <= {Value}:  # the common case, checked at C speed
        return cast(tuple[Value, ...], given)
    operands = []
    for v in given:
        operand = lift(v)
        if operand is None:
            raise TypeError(f"{function}() takes Values or real numbers, got {describe(v)}")
        operands.append(operand)
    return tuple(operands)


def sum_of(values: Iterable[Value | Real]) -> Value:
    """x1 + ... + xn as one node with n operands (the built-in ``sum`` makes a chain of n).

    >>> import topograd as tg
    >>> xs = [tg.Value(1.0), tg.Value(2.0), 3]
    >>> s = tg.sum(xs)
    >>> s.backward()
    >>> s.op, s.data, len(s.parents), xs[0].grad
    ('sum', 6.0, 3, 1.0)
    """
    operands = as_values(values, "sum")
    if not operands:
        return constant(0.0)
    return new_node(_SUM.forward(*[v.data for v in operands]), _SUM, operands)


def dot(ws: Sequence[Value | Real], xs: Sequence[Value | Real]) -> Value:
    """w1 x1 + ... + wn xn as one node whose operands are w1 ... wn, x1 ... xn.

    >>> import topograd as tg
    >>> w = [tg.Value(2.0), tg.Value(-1.0)]
    >>> y = tg.dot(w, [3.0, 4.0])
    >>> y.backward()
    >>> y.op, y.data, [v.grad for v in w]
    ('dot', 2.0, [3.0, 4.0])
    """
    if len(ws) != len(xs):
        raise ValueError(f"dot() takes two sequences of one length, got {len(ws)} and {len(xs)}")
    operands = as_values([*ws, *xs], "dot")
    if not operands:
        return constant(0.0)
    return new_node(_DOT.forward(*[v.data for v in operands]), _DOT, operands)


def affine(ws: Sequence[Value | Real], xs: Sequence[Value | Real], b: Value | Real) -> Value:
    """w1 x1 + ... + wn xn + b as one node whose operands are w1 ... wn, x1 ... xn, b: a
    neuron before its nonlinearity.

    >>> import topograd as tg
    >>> w, b = [tg.Value(2.0), tg.Value(-1.0)], tg.Value(0.5)
    >>> y = tg.affine(w, [3.0, 4.0], b)
    >>> y.backward()
    >>> y.op, y.data, [v.grad for v in w], b.grad
    ('affine', 2.5, [3.0, 4.0], 1.0)
    """
    if len(ws) != len(xs):
        raise ValueError(f"affine() takes two sequences of one length, got {len(ws)} and {len(xs)}")
    operands = as_values([*ws, *xs, b], "affine")
    return new_node(_AFFINE.forward(*[v.data for v in operands]), _AFFINE, operands)


def _check_values(function: str, what: str, values: Sequence[object]) -> None:
    for v in values:
        if not isinstance(v, Value):
            raise TypeError(f"{function}() takes Values as {what}, got {describe(v)}")


def backward(outputs: Sequence[Value], grads: Sequence[Real]) -> None:
    """Backward from several outputs at once, each seeded with its upstream gradient.

    >>> import topograd as tg
    >>> x = tg.Value(2.0)
    >>> tg.backward([x * x, x * 3], [1.0, 10.0])  # 1 * 2x + 10 * 3
    >>> x.grad
    34.0
    """
    outputs, grads = list(outputs), list(grads)
    _check_values("backward", "outputs", outputs)
    for g in grads:
        if type(g) is not float and not is_real(g):
            raise TypeError(f"backward() takes real numbers as grads, got {describe(g)}")
    engine.backward(outputs, [float(g) for g in grads])


def grad(output: Value, inputs: Sequence[Value], *, create_graph: bool = False) -> list[Num]:
    """d output / d input for each input (0.0 where it does not depend on it), touching no
    ``.grad``. With ``create_graph=True`` the results are Values that can be differentiated again.

    >>> import topograd as tg
    >>> x = tg.Value(2.0)
    >>> (dy,) = tg.grad(x**3, [x], create_graph=True)  # 3x^2
    >>> (d2y,) = tg.grad(dy, [x])  # 6x
    >>> dy.data, d2y
    (12.0, 12.0)
    """
    inputs = [inputs] if isinstance(inputs, Value) else list(inputs)
    _check_values("grad", "output", [output])
    _check_values("grad", "inputs", inputs)
    return engine.grad(output, inputs, create_graph=create_graph)
