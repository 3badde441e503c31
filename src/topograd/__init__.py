"""topograd: reverse-mode automatic differentiation you can read, check and trust.

The scalar engine needs only the standard library: ``import topograd`` loads NumPy only when a
Tensor is first asked for (``tg.Tensor``, ``tg.zeros``, ...).

>>> import topograd as tg
>>> x = tg.Value(3.0, label="x")
>>> y = x * x + x
>>> y.backward()
>>> x.grad  # dy/dx = 2x + 1
7.0
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import nn, ops, optim
from .autograd.engine import backward, grad
from .autograd.function import Function
from .autograd.kinds import load_kind_on_sight
from .autograd.modes import AnomalyError, detect_anomaly, is_grad_enabled, no_grad
from .autograd.registry import OPS
from .ops.selection import select as where  # the registry's entry: Values and Tensors alike
from .ops.spellings import AS_FUNCTIONS
from .scalar.custom import CustomOpError, custom_op
from .scalar.functions import affine, dot
from .scalar.functions import sum_of as sum  # noqa: A004 - tg.sum, as torch.sum and np.sum
from .scalar.value import Value
from .train import datasets

if TYPE_CHECKING:
    from . import func
    from .compiler import GuardError, TraceError, compile  # noqa: A004 - tg.compile
    from .grading import grade
    from .notebook import widget
    from .tensors import (
        Generator,
        Tensor,
        arange,
        bernoulli,
        cat,
        concat,
        concatenate,
        default_generator,
        einsum,
        eye,
        float16,
        float32,
        float64,
        from_numpy,
        full,
        get_rng_state,
        initial_seed,
        int32,
        int64,
        linspace,
        long,
        manual_seed,
        multinomial,
        normal,
        ones,
        ones_like,
        outer,
        rand,
        rand_like,
        randint,
        randint_like,
        randn,
        randn_like,
        random,
        randperm,
        seed,
        set_rng_state,
        stack,
        tensor,
        tensordot,
        zeros,
        zeros_like,
    )
    from .verify.gradcheck import GradcheckError, gradcheck
    from .verify.tensors import TensorGradcheckError
    from .viz.draw import draw, to_dot, to_svg
    from .viz.trace import Trace, trace

# name -> the module that holds it, imported when first asked for: the Tensor kind (NumPy), and
# the checks and drawings, which a model does not need to run.
_ON_FIRST_USE = {
    "func": "topograd.func",  # the transforms: a subpackage
    "compile": "topograd.compiler",
    "GuardError": "topograd.compiler",
    "TraceError": "topograd.compiler",
    "Tensor": "topograd.tensors",
    "Generator": "topograd.tensors",
    "arange": "topograd.tensors",
    "eye": "topograd.tensors",
    "float16": "topograd.tensors",
    "float32": "topograd.tensors",
    "float64": "topograd.tensors",
    "int32": "topograd.tensors",
    "int64": "topograd.tensors",
    "long": "topograd.tensors",
    "full": "topograd.tensors",
    "linspace": "topograd.tensors",
    "manual_seed": "topograd.tensors",
    "ones": "topograd.tensors",
    "ones_like": "topograd.tensors",
    "rand": "topograd.tensors",
    "randn": "topograd.tensors",
    "bernoulli": "topograd.tensors",
    "default_generator": "topograd.tensors",
    "get_rng_state": "topograd.tensors",
    "initial_seed": "topograd.tensors",
    "multinomial": "topograd.tensors",
    "normal": "topograd.tensors",
    "rand_like": "topograd.tensors",
    "randint": "topograd.tensors",
    "randint_like": "topograd.tensors",
    "randn_like": "topograd.tensors",
    "randperm": "topograd.tensors",
    "random": "topograd.tensors",  # the subpackage, as torch.random (fork_rng, ...)
    "seed": "topograd.tensors",
    "set_rng_state": "topograd.tensors",
    "zeros": "topograd.tensors",
    "zeros_like": "topograd.tensors",
    "concatenate": "topograd.tensors",
    "cat": "topograd.tensors",
    "concat": "topograd.tensors",
    "from_numpy": "topograd.tensors",
    "einsum": "topograd.tensors",
    "outer": "topograd.tensors",
    "tensor": "topograd.tensors",
    "tensordot": "topograd.tensors",
    "stack": "topograd.tensors",
    "TensorGradcheckError": "topograd.verify.tensors",
    "GradcheckError": "topograd.verify.gradcheck",
    "gradcheck": "topograd.verify.gradcheck",
    "grade": "topograd.grading",
    "widget": "topograd.notebook",
    "draw": "topograd.viz.draw",
    "to_dot": "topograd.viz.draw",
    "to_svg": "topograd.viz.draw",
    "Trace": "topograd.viz.trace",
    "trace": "topograd.viz.trace",
}

__all__ = [
    "AnomalyError",
    "CustomOpError",
    "Function",
    "Generator",
    "GradcheckError",
    "GuardError",
    "Tensor",
    "TensorGradcheckError",
    "Trace",
    "TraceError",
    "Value",
    "affine",
    "arange",
    "backward",
    "bernoulli",
    "cat",
    "compile",
    "concat",
    "concatenate",
    "custom_op",
    "datasets",
    "default_generator",
    "detect_anomaly",
    "dot",
    "draw",
    "einsum",
    "eye",
    "float16",
    "float32",
    "float64",
    "from_numpy",
    "full",
    "func",
    "get_rng_state",
    "grad",
    "gradcheck",
    "grade",
    "initial_seed",
    "int32",
    "int64",
    "is_grad_enabled",
    "linspace",
    "long",
    "manual_seed",
    "multinomial",
    "nn",
    "no_grad",
    "normal",
    "ones",
    "ones_like",
    "ops",
    "optim",
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
    "stack",
    "sum",
    "tensor",
    "tensordot",
    "to_dot",
    "to_svg",
    "trace",
    "where",
    "widget",
    "zeros",
    "zeros_like",
]
__version__ = "0.1.0"


# The registry's ops that PyTorch offers as functions (torch.exp, torch.maximum): tg.exp(x) on
# numbers, Values and Tensors alike, each the entry itself.
_PAIRWISE = ("maximum", "minimum")


load_kind_on_sight("numpy", "topograd.tensors")  # tg.exp(ndarray) before any Tensor


def _registry_functions() -> list[str]:
    return [n for n, op in OPS.items() if (op.function or n in _PAIRWISE) and not op.custom]


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__, *_registry_functions()})


def __getattr__(name: str) -> Any:
    """The names of ``_ON_FIRST_USE``, imported when first asked for, and the registry's
    functions of one variable and pairwise ops (``tg.exp``, ``tg.maximum``)."""
    op = OPS.get(name)
    if op is not None and (op.function or name in _PAIRWISE) and not op.custom:
        return op
    if name not in _ON_FIRST_USE:
        if name in AS_FUNCTIONS:  # PyTorch's functions of Tensors: tg.tril, tg.matmul
            from .tensors.functions import MethodAsFunction

            return MethodAsFunction(name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(_ON_FIRST_USE[name])
    return module if module.__name__ == f"{__name__}.{name}" else getattr(module, name)
