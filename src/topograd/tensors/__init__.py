"""The Tensor kind: NumPy arrays on the same engine and the same registry of ops."""

from ..autograd.function import Function, FunctionCtx
from .contracting import einsum, outer, tensordot
from .creation import (
    Generator,
    arange,
    eye,
    float16,
    float32,
    float64,
    full,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    randn,
    tensor,
    zeros,
    zeros_like,
)
from .functions import (
    concatenate,
    cross_entropy,
    from_numpy,
    log_softmax,
    mse_loss,
    softmax,
    stack,
    where,
)
from .kind import TENSOR as TENSOR  # the kind registers itself with the engine
from .memory import keep_freed_memory
from .tensor import Tensor

cat = concat = concatenate  # PyTorch's names

keep_freed_memory()  # glibc keeps a training step's memory for the next step (memory.py)

__all__ = [
    "Function",
    "FunctionCtx",
    "Generator",
    "Tensor",
    "arange",
    "cat",
    "concat",
    "concatenate",
    "cross_entropy",
    "einsum",
    "eye",
    "float16",
    "float32",
    "float64",
    "from_numpy",
    "full",
    "linspace",
    "log_softmax",
    "manual_seed",
    "mse_loss",
    "ones",
    "ones_like",
    "outer",
    "rand",
    "randn",
    "softmax",
    "stack",
    "tensor",
    "tensordot",
    "where",
    "zeros",
    "zeros_like",
]
