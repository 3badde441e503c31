"""The Tensor kind: NumPy arrays on the same engine and the same registry of ops."""

from ..autograd.function import Function, FunctionCtx
from . import random
from .contracting import einsum, outer, tensordot
from .creation import (
    arange,
    eye,
    float16,
    float32,
    float64,
    full,
    linspace,
    ones,
    ones_like,
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
)
from .kind import TENSOR as TENSOR  # the kind registers itself with the engine
from .memory import keep_freed_memory
from .random import (
    Generator,
    bernoulli,
    default_generator,
    fork_rng,
    get_rng_state,
    initial_seed,
    manual_seed,
    multinomial,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
)
from .tensor import Tensor

cat = concat = concatenate  # PyTorch's names

keep_freed_memory()  # glibc keeps a training step's memory for the next step (memory.py)

__all__ = [
    "Function",
    "FunctionCtx",
    "Generator",
    "Tensor",
    "arange",
    "bernoulli",
    "cat",
    "concat",
    "concatenate",
    "cross_entropy",
    "default_generator",
    "einsum",
    "eye",
    "float16",
    "float32",
    "float64",
    "fork_rng",
    "from_numpy",
    "full",
    "get_rng_state",
    "initial_seed",
    "linspace",
    "log_softmax",
    "manual_seed",
    "mse_loss",
    "multinomial",
    "normal",
    "ones",
    "ones_like",
    "outer",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "random",
    "randperm",
    "seed",
    "set_rng_state",
    "softmax",
    "stack",
    "tensor",
    "tensordot",
    "zeros",
    "zeros_like",
]
