"""The registry of ops: one record per op, shared by both data kinds.

A record says everything topograd knows of an op: its public name, how many inputs it takes,
its forward on floats (``scalar``) and on NumPy arrays (``array``, the name of its kernel),
its derivative rule, the interval where tests draw each input, its special points (PyTorch
2.13, float64), and a line of maths for the docs. The ``Value`` and ``Tensor`` methods, the
expression parser, ``topograd check``, the tests and the docs' op table all read this table.

A rule is written once, in the form of PyTorch's derivatives.yaml: it takes the upstream
gradient ``grad``, the op's inputs and its output ``out`` (and the op's parameters, such as
``axis``), and returns one contribution per input: the local derivative applied to ``grad``.
``None`` says an input gets nothing (a mask, class indices). The engine does the rest: the
order, the sums over paths, broadcasting undone. A rule uses operators and ops of the registry
(``cos(x)``, ``div(grad, x)``), which work on floats, arrays, Values and Tensors alike, so the
same rule serves an ordinary backward and ``create_graph=True``.

>>> import topograd as tg
>>> tanh = OPS["tanh"]
>>> tanh.rule(1.0, 0.5, tanh(0.5)) == (1 - tanh(0.5) ** 2,)
True
>>> tanh.maths, tanh.derivative
('tanh(x)', '1 - tanh²(x), from the output')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar, overload

from .kinds import dispatch

VARIADIC = -1  # the arity of an op that takes any number of inputs
OUT = -1  # in ``saves``: the op's output

Rule = Callable[..., tuple[Any, ...]]
Interval = tuple[float, float]
# A point where the rule follows a convention: (inputs, value, contributions for grad = 1).
SpecialPoint = tuple[tuple[Any, ...], Any, tuple[Any, ...]]

ANY: Interval = (-3.0, 3.0)
POSITIVE: Interval = (0.05, 4.0)
AWAY_FROM_ZERO: Interval = (0.25, 3.0)  # drawn with either sign

T = TypeVar("T")


class Given(NamedTuple):
    """An input of a check case given as it is, not drawn: a mask, class indices."""

    value: Any


class Difference(NamedTuple):
    """Where topograd deliberately answers otherwise than PyTorch 2.13 (float64), and why: at
    ``point`` (``()`` for a Tensor op's cases), with upstream gradient ``upstream`` (None:
    any), the result ``what`` ("value", "d/d1" for the first input's gradient, "d2" for second
    derivatives, "" for all) is ``ours`` where PyTorch's is ``theirs``; ``form`` says which
    operands are nodes (x) and which numbers (c), "" for any. ``anywhere``: not only at this
    point, but wherever the reason holds, with answers of the example's kinds (nan, ±inf, ±0
    or finite: ``-0.0`` where PyTorch has ``0.0``), or of any two different kinds where
    ``any_kind`` (an overflow somewhere inside); ``region``: wherever the first input lies in
    this interval, where the op is otherwise by design (answers of another kind, or within
    1e-8 of PyTorch's). ``kernel``: real only on the CPUs whose vectorised kernels (PyTorch's,
    NumPy's, BLAS's) answer so: a sum's order, a function's last bits; elsewhere both agree.
    ``through``: it shows where the op's input is made by this other op of the registry,
    op(through(x)): a second derivative in which the op's rule passes back a zero (or
    nothing) that meets the other op's rule; the conformance suite tries that composition."""

    point: tuple[float, ...]
    what: str
    ours: float
    theirs: float
    why: str
    upstream: float | None = None
    form: str = ""
    anywhere: bool = False
    any_kind: bool = False
    region: tuple[float, float] | None = None
    kernel: bool = False
    through: str = ""


Names = Sequence[str]


class Code(NamedTuple):
    """An op written as Python on floats, for the source ``tg.compile`` generates. ``forward``
    is an expression of the operands' names ({0}, {1}); ``rule`` one expression per operand
    (None: nothing) of the upstream gradient {g}, the operands, the output {out} and {s}, the
    value of ``shared`` where the contributions share a factor (relu's selection), computed
    once. For an op of any number of operands, ``forward`` and ``rule`` are functions of the
    operands' names instead. On floats, each gives the bits ``scalar`` and the rule give (a
    test holds every entry to it); an op without one is called as its function and its rule.
    """

    forward: str | Callable[[Names], str] = ""
    rule: tuple[str | None, ...] | Callable[[Names], Sequence[str | None]] = ()
    shared: str = ""
    then: str = ""  # an expression of {out} that replaces it after ``forward`` (relu's cut)


class Case(NamedTuple):
    """How ``topograd check`` calls an op on Tensors: input shapes (drawn from the op's
    domain) or ``Given`` inputs, and the op's parameters."""

    inputs: tuple[Any, ...]
    params: Mapping[str, Any] = {}  # read only: never changed in place


class Op:
    """One entry of the registry. Calling it applies the op to numbers, arrays, Values or
    Tensors, in their kind: ``OPS["cos"](0.0) == 1.0``.

    (A plain class, not a dataclass: importing dataclasses would cost every program that
    imports topograd more than the whole registry does.)"""

    __slots__ = (
        "arity",
        "array",
        "batches",
        "bools",
        "cases",
        "code",
        "custom",
        "derivative",
        "differs",
        "domain",
        "forward",
        "integers",
        "keeps",
        "maths",
        "name",
        "rule",
        "saves",
        "scalar",
        "special",
        "symbol",
        "takes_needs",
        "torch",
        "views",
    )

    def __init__(
        self,
        name: str,
        rule: Rule,
        arity: int,
        maths: str,
        derivative: str,
        scalar: Callable[..., Any] | None = None,
        array: str | Callable[..., Any] | None = None,
        *,
        domain: tuple[Interval, ...] = (),
        special: tuple[SpecialPoint, ...] = (),
        symbol: str = "",
        torch: str = "",
        cases: tuple[Case, ...] = (),
        takes_needs: bool = False,
        custom: bool = False,
        differs: tuple[Difference, ...] = (),
        saves: tuple[int, ...] | None = None,
        batches: bool = False,
        forward: Callable[..., Any] | None = None,
        code: Code | None = None,
        integers: str = "promote",
        bools: bool = True,
        views: bool = False,
        keeps: bool = False,
    ) -> None:
        self.name = name  # the ``.op`` of its results, the method's and the parser's name
        self.rule = rule
        self.arity = arity  # inputs, or VARIADIC
        self.maths = maths  # its value, one line: "tanh(x)"
        self.derivative = derivative  # its derivative, one line (the rule's docstring)
        self.scalar = scalar  # the forward on floats, IEEE results
        # the forward on arrays: the name of a function of tensors/kernels.py or of numpy (a
        # custom op's: the user's function itself)
        self.array = array
        self.domain = domain  # per input: where tests draw points
        self.special = special  # (inputs, value, contributions for grad = 1), PyTorch's
        self.symbol = symbol  # how formulas write it ("+"); "" for a function, by its name
        self.torch = torch  # PyTorch's spelling, for the docs and the tests
        self.cases = cases  # Tensor ops with parameters: how to check them
        self.takes_needs = takes_needs  # the rule takes ``needs=``: which inputs want one
        self.custom = custom  # made by tg.custom_op
        self.differs = differs  # where it deliberately differs from PyTorch, and why
        # which data the rule reads at backward (input indices, OUT), as PyTorch saves them:
        # a write in place to anything else is harmless; None: all inputs and the output
        self.saves = saves
        # the rule takes leading batch axes on ``grad`` (a batch of cotangents at once) and
        # gives them back in front of each contribution; an op applied element by element
        # does so by its nature (see ``batched``)
        self.batches = batches
        # forward mode runs the rule forward (Σ partial x tangent); an op whose forward mode
        # PyTorch computes in another form, with other IEEE results, or a fused op of many
        # operands on Values (one pass, not a rule per operand) has its own: it takes the
        # tangent of each operand (None: none), the operands and the output (on Tensors, for
        # an op applied element by element only)
        self.forward = forward
        self.code = code  # the op as Python source on floats, for tg.compile (None: calls)
        # what the op does with integer and boolean Tensors, as PyTorch's (tensors/casting.py):
        # "promote" (to the default float dtype), "keep", "int64", "same" or "floats"
        self.integers = integers
        self.bools = bools  # whether it takes booleans at all
        # on Tensors, its result may share its input's numbers (a view: reshape, getitem)
        self.views = views
        # on arrays, its forward gives (out, kept): an array it made on the way (cross-entropy's
        # softmax) that an ordinary backward hands its rule as ``kept=`` rather than have it
        # computed again, as PyTorch saves such results; under create_graph the rule gets None
        self.keeps = keeps

    @overload
    def __call__(self, x: T, /) -> T: ...

    @overload
    def __call__(self, *args: Any, **params: Any) -> Any: ...

    def __call__(self, *args: Any, **params: Any) -> Any:
        kind = dispatch(args)
        if kind is not None:
            return kind.apply(self, args, params)
        if self.scalar is None:
            raise TypeError(f"{self.name} works on Tensors, not on numbers")
        return self.scalar(*args, **params)

    def __repr__(self) -> str:
        return f"Op({self.name!r})"

    @property
    def kinds(self) -> tuple[str, ...]:
        """The data kinds it has a forward for: "scalar", "tensor"."""
        return tuple(k for k, f in (("scalar", self.scalar), ("tensor", self.array)) if f)

    @property
    def elementwise(self) -> bool:
        """Applied element by element (with broadcasting) on Tensors, as on floats."""
        return self.array is not None and self.scalar is not None and not self.cases

    @property
    def batched(self) -> bool:
        """Its rule runs a batch of cotangents at once (leading axes on ``grad``)."""
        return self.batches or self.elementwise

    @property
    def function(self) -> bool:
        """A function of one number, as the parser and the methods offer it: tanh(x)."""
        return self.arity == 1 and self.scalar is not None and not self.symbol

    def saved(self, position: int) -> bool:
        """Whether the rule reads input ``position`` (OUT: the output) at backward."""
        return self.saves is None or position in self.saves

    @property
    def grad_fn(self) -> str:
        """The name PyTorch gives the backward of such an op: "MulBackward0"."""
        return "".join(part.capitalize() for part in self.name.split("_")) + "Backward0"

    @property
    def written(self) -> str:
        """How formulas and drawings write it: its symbol, or its name."""
        return self.symbol or self.name


OPS: dict[str, Op] = {}


def register(
    name: str,
    maths: str,
    *,
    scalar: Callable[..., Any] | None = None,
    array: str | None = None,
    domain: Sequence[Interval] = (),
    special: Sequence[SpecialPoint] = (),
    symbol: str = "",
    torch: str = "",
    cases: Sequence[Case] = (),
    arity: int | None = None,
    takes_needs: bool = False,
    differs: Sequence[Difference] = (),
    saves: tuple[int, ...] | None = None,
    batches: bool = False,
    forward: Callable[..., Any] | None = None,
    code: Code | None = None,
    integers: str = "promote",
    bools: bool = True,
    views: bool = False,
    keeps: bool = False,
) -> Callable[[Rule], Op]:
    """Decorate a rule to make it an entry of the registry; the name then holds the ``Op``,
    so later rules can call it: ``cos(x)``. The rule's docstring is the derivative's maths."""

    def entry(rule: Rule) -> Op:
        op = Op(
            name,
            rule,
            len(domain) if arity is None else arity,
            maths,
            " ".join((rule.__doc__ or "").split()),
            scalar,
            array,
            domain=tuple(domain),
            special=tuple(special),
            symbol=symbol,
            torch=torch,
            cases=tuple(cases),
            takes_needs=takes_needs,
            differs=tuple(differs),
            saves=saves,
            batches=batches,
            forward=forward,
            code=code,
            integers=integers,
            bools=bools,
            views=views,
            keeps=keeps,
        )
        add(op)
        return op

    return entry


def add(op: Op) -> None:
    """Put ``op`` in the registry. A built-in op keeps its name; a custom op may be replaced
    by a new definition of the same name (a notebook cell run twice)."""
    if not op.name or not isinstance(op.name, str):
        raise TypeError(f"an op needs a non-empty str name, got {op.name!r}")
    old = OPS.get(op.name)
    if old is not None and not (old.custom and op.custom):
        raise ValueError(f"an op named {op.name!r} exists already")
    OPS[op.name] = op
