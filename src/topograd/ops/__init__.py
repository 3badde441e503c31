"""The registry's entries: every built-in op, one family per file.

``arithmetic`` (+ - * / neg abs sign), ``elementary`` (powers, exp, log, trigonometric and
hyperbolic functions, erf), ``activations`` (relu, leaky_relu, sigmoid, softplus), ``selection``
(where), ``rounding`` (floor, ceil, round, clamp), ``reductions`` (sum, mean, max, min,
logsumexp, var, cumsum), ``shapes`` (reshape, transpose, broadcast_to, indexing
and scatter, concatenate, stack), ``linalg`` (dot, affine and neuron on scalars, matmul and
linear on Tensors) and ``softmax`` (softmax, log_softmax, one_hot, cross_entropy). Importing
this package fills ``topograd.autograd.registry.OPS``. Standard library only: NumPy forwards are
named here and looked up by the Tensor kind.

>>> from topograd.autograd.registry import OPS
>>> OPS["tanh"].kinds, OPS["matmul"].kinds, OPS["affine"].kinds
(('scalar', 'tensor'), ('tensor',), ('scalar',))
"""

from . import (
    activations,
    arithmetic,
    elementary,
    linalg,
    reductions,
    rounding,
    selection,
    shapes,
    softmax,
)

# The families in the order the docs present them.
FAMILIES = (
    arithmetic,
    elementary,
    activations,
    rounding,
    selection,
    reductions,
    shapes,
    linalg,
    softmax,
)

__all__ = [
    "FAMILIES",
    "activations",
    "arithmetic",
    "elementary",
    "linalg",
    "reductions",
    "rounding",
    "selection",
    "shapes",
    "softmax",
]
