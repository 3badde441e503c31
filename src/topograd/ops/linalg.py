"""Products: ``dot``, ``affine`` and ``neuron`` fuse a neuron's sums (and its ReLU) on scalar
Values into one node; ``matmul`` and ``linear`` are their Tensor counterparts (np.matmul, and
x W^T + b).

A fused op is one node with n operands instead of a chain of 2n nodes (2n + 1 with the ReLU):
the same numbers, far fewer nodes for the engine to walk.

>>> dot.rule(1.0, 2.0, -1.0, 3.0, 4.0, 2.0)  # d(w1 x1 + w2 x2): x1, x2, w1, w2
(3.0, 4.0, 2.0, -1.0)
"""

from __future__ import annotations

from typing import Any

from ..autograd.registry import ANY, VARIADIC, Case, Code, Difference, Names, register
from . import floats
from .activations import relu_selection
from .floats import INF, NAN
from .helpers import SUM_OF_ZEROS, SUM_OVERFLOW, shape_of, sum_of, tangents_of, written_sum

# Forward rules of the fused neuron ops on Values: one pass over the operands (running each
# rule once per input's tangent would cost n times as much for n operands).


def dot_tangent(*args: Any) -> Any:
    """Σ t_wᵢ xᵢ + wᵢ t_xᵢ, over the operands that have a tangent"""
    tangents, operands, _ = tangents_of(args)
    n = len(operands) // 2
    return sum_of(_products(tangents[:n], operands[n : 2 * n], operands[:n], tangents[n : 2 * n]))


def affine_tangent(*args: Any) -> Any:
    """dot's, and t_b"""
    tangents, operands, _ = tangents_of(args)
    n = (len(operands) - 1) // 2
    terms = _products(tangents[:n], operands[n : 2 * n], operands[:n], tangents[n : 2 * n])
    return sum_of([*terms, *([] if tangents[-1] is None else [tangents[-1]])])


def neuron_tangent(*args: Any) -> Any:
    """affine's where the output is positive; nothing where it is not (relu's selection)"""
    found = affine_tangent(*args)
    return None if found is None else relu_selection(found, args[-1])


def _products(tw: Any, x: Any, w: Any, tx: Any) -> list[Any]:
    terms = []
    for i in range(len(w)):
        if tw[i] is not None:
            terms.append(tw[i] * x[i])
        if tx[i] is not None:
            terms.append(w[i] * tx[i])
    return terms


# As Python source (tg.compile): the products summed left to right, as floats.dot_of does;
# each weight's contribution grad * x, each input's grad * w ({s}: relu's selection)


def _products_written(names: Names) -> str:
    n = len(names) // 2
    return written_sum([f"{w} * {x}" for w, x in zip(names[:n], names[n : 2 * n])])


def _affine_written(names: Names) -> str:
    dot = _products_written(names[:-1])
    return dot and f"{dot} + {names[-1]}"


def _dot_rule_written(names: Names, g: str = "{g}") -> list[str | None]:
    n = len(names) // 2
    return [*[f"{g} * {x}" for x in names[n : 2 * n]], *[f"{g} * {w}" for w in names[:n]]]


@register(
    "dot",
    "w₁x₁ + … + wₙxₙ, operands w₁ … wₙ, x₁ … xₙ",
    scalar=floats.dot,
    arity=VARIADIC,
    forward=dot_tangent,
    torch="torch.dot",
    domain=(ANY, ANY, ANY, ANY),
    code=Code(_products_written, _dot_rule_written),
)
def dot(grad: Any, *args: Any) -> tuple[Any, ...]:
    """xᵢ for each wᵢ, and wᵢ for each xᵢ"""
    n = (len(args) - 1) // 2
    return (*[grad * x for x in args[n : 2 * n]], *[grad * w for w in args[:n]])


@register(
    "affine",
    "w₁x₁ + … + wₙxₙ + b: a neuron before its nonlinearity",
    scalar=floats.affine,
    arity=VARIADIC,
    forward=affine_tangent,
    torch="torch.nn.functional.linear",
    domain=(ANY, ANY, ANY, ANY, ANY),
    code=Code(_affine_written, lambda names: [*_dot_rule_written(names[:-1]), "{g}"]),
)
def affine(grad: Any, *args: Any) -> tuple[Any, ...]:
    """xᵢ for each wᵢ, wᵢ for each xᵢ, and 1 for b"""
    n = (len(args) - 2) // 2
    return (*[grad * x for x in args[n : 2 * n]], *[grad * w for w in args[:n]], grad)


@register(
    "neuron",
    "relu(w₁x₁ + … + wₙxₙ + b): a ReLU neuron of micrograd's MLP",
    scalar=floats.neuron,
    arity=VARIADIC,
    forward=neuron_tangent,
    torch="torch.relu(torch.nn.functional.linear(x, w, b))",
    domain=(ANY, ANY, ANY, ANY, ANY),
    special=[((1.0, -1.0, 1.0, 1.0, 0.0), 0.0, (0.0, 0.0, 0.0, -0.0, 0.0))],  # at relu's kink
    code=Code(
        _affine_written,
        lambda names: [*_dot_rule_written(names[:-1], "{s}"), "{s}"],
        shared="0.0 if {out} <= 0.0 else {g}",
        then="0.0 if {out} < 0.0 else {out}",
    ),
)
def neuron(grad: Any, *args: Any) -> tuple[Any, ...]:
    """affine's, where the output is positive; nothing where it is not (relu's selection)"""
    g = relu_selection(grad, args[-1])
    n = (len(args) - 2) // 2
    return (*[g * x for x in args[n : 2 * n]], *[g * w for w in args[:n]], g)


def _swap(a: Any) -> Any:
    """The last two axes exchanged (the transpose of each matrix in a batch)."""
    return a.swapaxes(-1, -2)


@register(
    "matmul",
    "x @ y, as np.matmul",
    array="matmul",
    symbol="@",
    torch="torch.matmul",
    saves=(0, 1),
    domain=(ANY, ANY),
    takes_needs=True,
    batches=True,
    cases=(
        Case(((2, 3), (3, 4))),
        Case(((3,), (3,))),
        Case(((3,), (5, 3, 2))),
        Case(((5, 2, 3), (3,))),
        Case(((2, 1, 2, 3), (3, 3, 2))),
    ),
    differs=[
        Difference(
            (), "d/d", INF, NAN, SUM_OVERFLOW, 1e308, anywhere=True, any_kind=True, kernel=True
        ),
        Difference((), "", 0.0, -0.0, SUM_OF_ZEROS, anywhere=True, kernel=True),
    ],
    integers="same",
    bools=False,
)
def matmul(grad: Any, x: Any, y: Any, out: Any, *, needs: tuple[bool, ...]) -> tuple[Any, Any]:
    """grad @ yᵀ and xᵀ @ grad; a 1-D operand is a row (left) or a column (right), as np.matmul"""
    xs, ys = shape_of(x), shape_of(y)
    gs = shape_of(grad)
    if len(xs) == 1 and len(ys) == 1:  # a number (each of a batch) times each vector
        column = grad.reshape((*gs, 1))
        return (column * y if needs[0] else None), (column * x if needs[1] else None)
    if len(xs) == 1:  # (k) @ (..., k, m) -> (..., m)
        row = grad.reshape((*gs[:-1], 1, gs[-1]))
        gx = (row @ _swap(y)).reshape((*gs[:-1], xs[0])) if needs[0] else None
        return gx, (x.reshape((xs[0], 1)) * row if needs[1] else None)
    if len(ys) == 1:  # (..., n, k) @ (k) -> (..., n)
        column = grad.reshape((*gs, 1))
        gy = (_swap(x) @ column).reshape((*gs[:-1], ys[0])) if needs[1] else None
        return (column * y if needs[0] else None), gy
    return (grad @ _swap(y) if needs[0] else None), (_swap(x) @ grad if needs[1] else None)


@register(
    "linear",
    "x Wᵀ + b: a layer of neurons",
    array="linear",
    torch="torch.nn.functional.linear",
    saves=(0, 1),
    domain=(ANY, ANY, ANY),
    takes_needs=True,
    batches=True,
    cases=(Case(((5, 3), (4, 3), (4,))), Case(((3,), (4, 3), (4,)))),
    differs=[Difference((), "", NAN, INF, SUM_OVERFLOW, anywhere=True, any_kind=True, kernel=True)],
    integers="same",
    bools=False,
)
def linear(
    grad: Any, x: Any, w: Any, b: Any, out: Any, *, needs: tuple[bool, ...]
) -> tuple[Any, ...]:
    """grad W for x, gradᵀ x for W, grad summed over the batch for b"""
    gx = grad @ w if needs[0] else None
    xs = shape_of(x)
    if not needs[1]:
        gw = None
    elif len(xs) == 1:  # one sample: an outer product
        gw = grad.reshape((*shape_of(grad), 1)) * x.reshape((1, xs[0]))
    else:
        gw = _swap(grad) @ x  # summed over any batch axes in front, like every broadcast
    samples = tuple(range(-len(xs), -1))  # x's axes in front of its features
    # b's: the sum over the samples; for one sample PyTorch sums over a batch of one, so a
    # -0.0 comes out +0.0 (adding +0.0 does that, and nothing else)
    gb = (grad.sum(axis=samples) if samples else grad + 0.0) if needs[2] else None
    return gx, gw, gb
