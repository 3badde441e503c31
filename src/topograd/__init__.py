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
from math import e, inf, nan, pi  # PyTorch's constants: tg.pi, tg.inf
from typing import TYPE_CHECKING, Any

from . import autograd, nn, ops, optim, utils
from .autograd.engine import backward, grad
from .autograd.function import Function
from .autograd.kinds import load_kind_on_sight
from .autograd.modes import (
    AnomalyError,
    detect_anomaly,
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
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
    from .nn.serialization import load, save
    from .notebook import widget
    from .tensors import *  # noqa: F403 - the names of _TENSORS
    from .verify.gradcheck import GradcheckError, gradcheck
    from .verify.tensors import TensorGradcheckError
    from .viz.draw import draw, to_dot, to_svg
    from .viz.trace import Trace, trace

# The Tensor kind's names (topograd.tensors.__all__, which a test holds this to), imported with
# NumPy when one is first asked for: ``import topograd`` and the scalar engine load no NumPy.
_TENSORS = (
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
)
# PyTorch's dtype names that are Python's too (tg.float, tg.int, tg.bool ...): found by name in
# topograd.tensors.dtypes, never bound here, where they would hide Python's builtins.
_DTYPE_ALIASES = ("bool", "double", "float", "half", "int", "long", "short")

# name -> the module that holds it, imported when first asked for: the Tensor kind (NumPy), and
# the checks and drawings, which a model does not need to run.
_ON_FIRST_USE = {
    "func": "topograd.func",  # the transforms: a subpackage
    "distributed": "topograd.distributed",  # refused, but for is_available()
    "compile": "topograd.compiler",
    "GuardError": "topograd.compiler",
    "TraceError": "topograd.compiler",
    **dict.fromkeys(_TENSORS, "topograd.tensors"),
    "TensorGradcheckError": "topograd.verify.tensors",
    "GradcheckError": "topograd.verify.gradcheck",
    "gradcheck": "topograd.verify.gradcheck",
    "grade": "topograd.grading",
    "save": "topograd.nn.serialization",  # tg.save / tg.load: NumPy, and safetensors inside
    "load": "topograd.nn.serialization",
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
    "GradcheckError",
    "GuardError",
    "TensorGradcheckError",
    "Trace",
    "TraceError",
    "Value",
    "affine",
    "autograd",
    "backward",
    "compile",
    "custom_op",
    "datasets",
    "detect_anomaly",
    "dot",
    "draw",
    "e",
    "enable_grad",
    "func",
    "grad",
    "gradcheck",
    "grade",
    "inf",
    "inference_mode",
    "is_grad_enabled",
    "load",
    "nan",
    "nn",
    "no_grad",
    "ops",
    "optim",
    "pi",
    "save",
    "set_grad_enabled",
    "sum",
    "to_dot",
    "to_svg",
    "trace",
    "utils",
    "where",
    "widget",
    *_TENSORS,
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
    """The names of ``_ON_FIRST_USE``, imported when first asked for, PyTorch's dtype aliases
    (``tg.float``, ``tg.long``), and the registry's functions of one variable and pairwise ops
    (``tg.exp``, ``tg.maximum``)."""
    op = OPS.get(name)
    if op is not None and (op.function or name in _PAIRWISE) and not op.custom:
        return op
    if name in _DTYPE_ALIASES:
        from .tensors.dtypes import NAMES

        return NAMES[name]
    if name not in _ON_FIRST_USE:
        from .tensors.dtypes import ABSENT

        if name in ABSENT:  # (a name a program may hold; its use is refused)
            return ABSENT[name]
        if name in AS_FUNCTIONS:  # PyTorch's functions of Tensors: tg.tril, tg.matmul
            from .tensors.functions import MethodAsFunction

            return MethodAsFunction(name)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(_ON_FIRST_USE[name])
    return module if module.__name__ == f"{__name__}.{name}" else getattr(module, name)
