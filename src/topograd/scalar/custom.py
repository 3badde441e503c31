"""Ops that users define, entries of the same registry as the built-in ops, so the same checks
cover them: on Values, a forward on floats and its partial derivatives; on Tensors, a forward on
arrays and its vector-Jacobian product (``vjp=``).

>>> import math
>>> import topograd as tg
>>> cube = tg.custom_op(lambda x: x**3, lambda x, out: (3 * x * x,), name="cube")
>>> x = tg.Value(2.0)
>>> y = cube(x)
>>> y.backward()
>>> y.op, y.data, x.grad
('cube', 8.0, 12.0)
>>> scale = tg.custom_op(lambda x: 3.0 * x, vjp=lambda grad, x, out: (3.0 * grad,), name="scale")
>>> t = tg.Tensor([1.0, 2.0], requires_grad=True)
>>> scale(t).sum().backward()
>>> t.grad.tolist()
[3.0, 3.0]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, cast

from ..autograd.kinds import kind_of
from ..autograd.registry import ANY, VARIADIC, Interval, Op, add
from ..ops.helpers import sums_to
from .value import Value, constant, describe, is_constant, is_real


class CustomOpError(TypeError):
    """A custom op was given, or gave back, something it cannot work with."""

    __module__ = "topograd"  # raised as tg.CustomOpError


def custom_op(
    forward: Callable[..., Any],
    derivative: Callable[..., Any] | None = None,
    *,
    name: str,
    domain: Sequence[Interval] | None = None,
    vjp: Callable[..., Any] | None = None,
) -> Op:
    """A new op: on Values, ``forward(*floats) -> float`` and ``derivative(*inputs, out) ->
    partials``; on Tensors, ``forward(*arrays) -> array`` of floats and ``vjp=(grad, *inputs,
    out) -> gradients``, one per input (None for one that gets nothing), each in its input's
    shape or in one the input broadcasts to (then summed back to the input's shape).

    The op, called on Values or numbers (Tensors, for a ``vjp``), returns a node whose ``.op``
    is ``name`` (on numbers alone, a number); it takes part in backward, ``no_grad``,
    ``gradcheck``, anomaly mode and ``topograd check`` (which draws inputs from ``domain``, by
    default (-3, 3) for each) like a built-in op. Under ``create_graph=True`` the derivative or
    the vjp is called with nodes: written with topograd's operators and functions (``x.cos()``
    or ``tg.cos(x)``, not ``math.cos(x)`` or ``np.cos(x)``) it gives higher derivatives too
    (a vjp gets arrays in an ordinary backward: ``tg.cos`` takes both); where it cannot take
    nodes, the error says so and names the op.
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"custom_op() needs a non-empty str name, got {describe(name)}")
    if (derivative is None) == (vjp is None):
        raise TypeError(
            f"custom_op({name!r}) takes a derivative (an op on Values) or vjp= (on Tensors)"
        )
    rule: Any = _UserVJP(name, vjp) if vjp is not None else None
    if not callable(forward) or not callable(derivative if vjp is None else vjp):
        raise TypeError(f"custom_op({name!r}) takes callables as forward and derivative")
    arity = _arity(name, forward)
    if domain is None:
        domain = (ANY,) * (arity if arity != VARIADIC else 2)
    if arity != VARIADIC and len(domain) != arity:
        raise TypeError(f"custom op {name!r} takes {arity} inputs but its domain has {len(domain)}")
    if rule is None:
        rule = _UserRule(name, forward, cast(Callable[..., Any], derivative))
    op = Op(
        name,
        rule,
        arity,
        f"{name}(...), defined by the user",
        "the user's derivative" if vjp is None else "the user's vector-Jacobian product",
        _Forward(name, forward) if vjp is None else None,
        _ArrayForward(name, forward) if vjp is not None else None,
        domain=tuple(domain),
        custom=True,
    )
    add(op)
    return op


def _arity(name: str, forward: Callable[..., Any]) -> int:
    """How many inputs the forward takes by position, or VARIADIC where that may vary (*args,
    or positional parameters with defaults)."""
    import inspect  # custom ops only: its import costs the start of every program

    try:
        parameters = list(inspect.signature(forward).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature (math.hypot)
        return VARIADIC
    if any(p.kind is p.KEYWORD_ONLY and p.default is p.empty for p in parameters):
        raise TypeError(f"the forward of custom op {name!r} must take its inputs by position")
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind is p.VAR_POSITIONAL for p in parameters) or any(
        p.default is not p.empty for p in positional
    ):
        return VARIADIC
    if not positional:
        raise TypeError(f"the forward of custom op {name!r} must take at least one input")
    return len(positional)


class _Forward:
    """The user's forward as an op's float function, checking what it is given and gives."""

    __slots__ = ("forward", "name")

    def __init__(self, name: str, forward: Callable[..., float]) -> None:
        self.name, self.forward = name, forward

    def __call__(self, *xs: Any) -> float:
        if not xs:
            raise TypeError(f"custom op {self.name!r} takes at least one input")
        for x in xs:
            if not is_real(x):
                raise TypeError(
                    f"custom op {self.name!r} takes Values or real numbers, got {describe(x)}"
                )
        out = self.forward(*xs)
        if not is_real(out):
            raise CustomOpError(
                f"the forward of custom op {self.name!r} returned {describe(out)}, "
                "not a real number"
            )
        return float(out)


class _ArrayForward:
    """The user's forward on arrays, checking that it gives an array of real numbers."""

    __slots__ = ("forward", "name")

    def __init__(self, name: str, forward: Callable[..., Any]) -> None:
        self.name, self.forward = name, forward

    def __call__(self, *arrays: Any) -> Any:
        out = self.forward(*arrays)
        kind = getattr(getattr(out, "dtype", None), "kind", None)
        if kind != "f" and type(out) is not float:  # integers have no gradient to carry
            found = f"an array of {out.dtype}" if kind is not None else describe(out)
            raise CustomOpError(
                f"the forward of custom op {self.name!r} returned {found}, not an array of "
                "real numbers in floating point (float16, float32 or float64)"
            )
        return out


class _UserVJP:
    """The user's vector-Jacobian product as a rule of the registry: it is the rule."""

    __slots__ = ("name", "vjp")

    def __init__(self, name: str, vjp: Callable[..., Any]) -> None:
        self.name, self.vjp = name, vjp

    def __call__(self, grad: Any, *args: Any) -> tuple[Any, ...]:
        count = len(args) - 1
        try:
            grads = self.vjp(grad, *args)
        except (AttributeError, TypeError, RuntimeError) as error:
            if kind_of(grad) is None:  # arrays: the vjp's own mistake, as it raised it
                raise
            # create_graph gives it Tensors. Run it on their arrays: a mistake of its own
            # raises there again, as itself; if it runs, Tensors are what it cannot take.
            self.vjp(*(getattr(a, "data", a) if kind_of(a) else a for a in (grad, *args)))
            raise CustomOpError(
                f"the vjp of custom op {self.name!r} cannot take Tensors, so create_graph=True "
                f"cannot differentiate through it ({error}). Write it with topograd's functions "
                "and operators (tg.cos(x), x * g), which take arrays and Tensors alike"
            ) from error
        if count == 1 and not isinstance(grads, (tuple, list)):
            grads = (grads,)
        if not isinstance(grads, (tuple, list)) or len(grads) != count:
            raise CustomOpError(
                f"the vjp of custom op {self.name!r} must return {count} gradient(s), one per "
                f"input; it returned {describe(grads)}"
            )
        for g, x in zip(grads, args):
            if g is None or not hasattr(g, "shape") or not hasattr(x, "shape"):
                continue  # a number: the same for every element
            shape, wanted = tuple(g.shape), tuple(x.shape)
            if not sums_to(shape, wanted):
                raise CustomOpError(
                    f"the vjp of custom op {self.name!r} gave a gradient of shape {shape} for "
                    f"an input of shape {wanted}: it must have the input's shape, or one the "
                    "input broadcasts to (summed back to the input's)"
                )
        return tuple(grads)  # the engine sums each back to its input's shape (unbroadcast)


class _UserRule:
    """The user's derivative as a rule of the registry: its partials, applied to ``grad``.

    An ordinary backward calls it with floats, or, where it uses Value methods (``x.cos()``),
    with constant Values, taking the numbers back; ``create_graph=True`` calls it with the
    Values of the graph.
    """

    __slots__ = ("derivative", "forward", "name")

    def __init__(self, name: str, forward: Callable[..., float], derivative: Callable[..., Any]):
        self.name, self.forward, self.derivative = name, forward, derivative

    def __call__(self, grad: Any, *args: Any) -> tuple[Any, ...]:
        if isinstance(args[-1], Value):
            partials = self._with_values(args)
            self._refuse_hidden_constants(args[:-1], partials)
            return tuple(grad * (p if isinstance(p, Value) else float(p)) for p in partials)
        numbers = self._with_numbers(args)
        return tuple(grad * (p.data if isinstance(p, Value) else float(p)) for p in numbers)

    def _checked(self, partials: Any, count: int) -> Any:
        if not isinstance(partials, (tuple, list)) or len(partials) != count:
            raise CustomOpError(
                f"the derivative of custom op {self.name!r} must return {count} "
                f"partial(s), one per input; it returned {describe(partials)}"
            )
        for p in partials:
            if not isinstance(p, Value) and not is_real(p):
                raise CustomOpError(
                    f"the derivative of custom op {self.name!r} gave {describe(p)} as a partial"
                )
        return partials

    def _with_numbers(self, args: tuple[Any, ...]) -> Any:
        try:
            partials = self.derivative(*args)
        except AttributeError:  # written with Value methods: give it constant Values
            partials = self.derivative(*[constant(float(cast(float, a))) for a in args])
        return self._checked(partials, len(args) - 1)

    def _with_values(self, args: tuple[Any, ...]) -> Any:
        try:
            return self._checked(self.derivative(*args), len(args) - 1)
        except TypeError as error:
            self._with_numbers(tuple(a.data if isinstance(a, Value) else a for a in args))
            raise CustomOpError(  # it works on numbers, so Values are what it cannot take
                f"the derivative of custom op {self.name!r} cannot take Values, so "
                f"create_graph=True cannot differentiate through it ({error}). Write it with "
                "topograd's operators and methods (x.cos(), x * x, ...), not math or .data"
            ) from error

    def _refuse_hidden_constants(self, inputs: tuple[Any, ...], partials: Any) -> None:
        """Under create_graph, a partial given back as a plain number is a constant to the next
        derivative. That is right only if the partial really is constant: one computed from
        ``.data`` is not, and would give a silently wrong second derivative. Probe it: recompute
        the partials in numbers a little way off on both sides, and refuse if a number-valued
        one moves both ways (a step function near its step moves one way only). A number
        operand is never moved: nothing is differentiated by it."""
        if all(isinstance(p, Value) for p in partials):
            return
        xs = [x.data if isinstance(x, Value) else float(x) for x in inputs]
        for i in range(len(xs)):
            if is_constant(inputs[i]):
                continue
            h = 1e-3 * max(1.0, abs(xs[i]))
            sides = []
            for moved_to in (xs[i] + h, xs[i] - h):
                moved = [*xs[:i], moved_to, *xs[i + 1 :]]
                sides.append(self._with_numbers((*moved, self.forward(*moved))))
            for j, p in enumerate(partials):
                if not isinstance(p, Value) and all(_differs(float(p), float(s[j])) for s in sides):
                    raise CustomOpError(
                        f"the derivative of custom op {self.name!r} gave partial {j} as a "
                        f"plain number under create_graph=True, but it changes with input {i}: "
                        "higher derivatives would be wrong. Compute it from the Values it is "
                        "given, not from .data"
                    )


def _differs(a: float, b: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) != math.isnan(b)
    return abs(a - b) > 1e-12 * max(1.0, abs(a))
