"""PyTorch's random numbers, to the bit: its CPU generator (``Generator``, ``manual_seed``,
``get_rng_state`` ...) and the draws of its CPU kernels, each distribution, dtype and size
taken the kernel's own way. The array functions (``uniform_``, ``normal_``, ``random_``,
``bernoulli_``, ``exponential_``, ``geometric_``, ``cauchy_``, ``log_normal_``) fill a NumPy
array in place (``tensors/drawing.py`` writes them into Tensors); the factories make Tensors."""

from ..inplace import DRAWS
from .choices import multinomial as multinomial_array
from .choices import randperm as randperm_array
from .continuous import bernoulli_, exponential_, uniform_
from .factories import (
    bernoulli,
    multinomial,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
)
from .generator import Generator
from .integers import random_
from .normals import normal_, normal_broadcast
from .seeding import (
    default_generator,
    fork_rng,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from .transformed import cauchy_, geometric_, log_normal_

# Tensor.normal_, Tensor.uniform_ ... (tensors/drawing.py)
DRAWS.update(
    normal_=normal_,
    uniform_=uniform_,
    random_=random_,
    bernoulli_=bernoulli_,
    exponential_=exponential_,
    geometric_=geometric_,
    cauchy_=cauchy_,
    log_normal_=log_normal_,
)

__all__ = [
    "Generator",
    "bernoulli",
    "bernoulli_",
    "cauchy_",
    "default_generator",
    "exponential_",
    "fork_rng",
    "geometric_",
    "get_rng_state",
    "initial_seed",
    "log_normal_",
    "manual_seed",
    "multinomial",
    "multinomial_array",
    "normal",
    "normal_",
    "normal_broadcast",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "random_",
    "randperm",
    "randperm_array",
    "seed",
    "set_rng_state",
    "uniform_",
]
