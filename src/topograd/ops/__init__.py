"""The registry's entries: every built-in op, one family per file.

``arithmetic`` (+ - * / neg abs sign), ``elementary`` (powers, exp, log, erf),
``trigonometric`` (the trigonometric and hyperbolic functions and their inverses),
``activations`` (relu, leaky_relu, sigmoid, softplus, gelu, silu, elu), ``selection`` (where,
maximum, minimum), ``rounding`` (floor, ceil, round, clamp), ``reductions`` (sum, mean, max, min,
logsumexp, var, cumsum), ``shapes`` (reshape, transpose, broadcast_to, indexing
and scatter, concatenate, stack), ``linalg`` (dot, affine and neuron on scalars, matmul and
linear on Tensors), ``einsum`` and ``softmax`` (softmax, log_softmax, one_hot, cross_entropy)
and ``convolution`` (unfold, fold, conv2d, max_pool2d, avg_pool2d). Importing
this package fills ``topograd.autograd.registry.OPS``. Standard library only: NumPy forwards are
named here and looked up by the Tensor kind.

>>> from topograd.autograd.registry import OPS
>>> OPS["tanh"].kinds, OPS["matmul"].kinds, OPS["affine"].kinds
(('scalar', 'tensor'), ('tensor',), ('scalar',))
"""

from . import (
    activations,
    arithmetic,
    convolution,
    einsum,
    elementary,
    linalg,
    reductions,
    rounding,
    selection,
    shapes,
    softmax,
    trigonometric,
)

# The families in the order the docs present them.
FAMILIES = (
    arithmetic,
    elementary,
    trigonometric,
    activations,
    rounding,
    selection,
    reductions,
    shapes,
    linalg,
    einsum,
    softmax,
    convolution,
)

__all__ = [
    "FAMILIES",
    "activations",
    "arithmetic",
    "convolution",
    "einsum",
    "elementary",
    "linalg",
    "reductions",
    "rounding",
    "selection",
    "shapes",
    "softmax",
    "trigonometric",
]
