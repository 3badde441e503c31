"""The Tensor kind: NumPy arrays on the same engine and the same registry of ops, with
PyTorch's dtypes, makers, random numbers and devices. Every name of ``__all__`` is also a name
of the package (``tg.zeros``), imported with the first Tensor."""

from . import random
from .closeness import allclose, equal, isclose
from .contracting import einsum, outer, tensordot
from .creation import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from .devices import Backends, cuda, device, get_default_device, set_default_device
from .dtypes import (
    dtype,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
)
from .functions import (
    concatenate,
    is_tensor,
    log_softmax,
    numel,
    result_type,
    softmax,
    stack,
)
from .grids import meshgrid
from .histograms import histogram
from .kind import TENSOR as TENSOR  # the kind registers itself with the engine
from .memory import keep_freed_memory
from .printing import set_printoptions
from .random import (
    Generator,
    bernoulli,
    default_generator,
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
from .refusals import sparse, sparse_coo_tensor, sparse_csr_tensor, view_as_complex, view_as_real
from .sizes import Size
from .tensor import Tensor

cat = concat = concatenate  # PyTorch's names
backends = Backends()

keep_freed_memory()  # glibc keeps a training step's memory for the next step (memory.py)

__all__ = [
    "Generator",
    "Size",
    "Tensor",
    "allclose",
    "arange",
    "as_tensor",
    "backends",
    "bernoulli",
    "cat",
    "concat",
    "concatenate",
    "cuda",
    "default_generator",
    "device",
    "dtype",
    "einsum",
    "empty",
    "empty_like",
    "equal",
    "eye",
    "float16",
    "float32",
    "float64",
    "from_numpy",
    "full",
    "full_like",
    "get_default_device",
    "get_default_dtype",
    "get_rng_state",
    "histogram",
    "initial_seed",
    "int8",
    "int16",
    "int32",
    "int64",
    "is_tensor",
    "isclose",
    "linspace",
    "log_softmax",
    "manual_seed",
    "meshgrid",
    "multinomial",
    "normal",
    "numel",
    "ones",
    "ones_like",
    "outer",
    "promote_types",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "random",
    "randperm",
    "result_type",
    "seed",
    "set_default_device",
    "set_default_dtype",
    "set_printoptions",
    "set_rng_state",
    "softmax",
    "sparse",
    "sparse_coo_tensor",
    "sparse_csr_tensor",
    "stack",
    "tensor",
    "tensordot",
    "uint8",
    "view_as_complex",
    "view_as_real",
    "zeros",
    "zeros_like",
]
