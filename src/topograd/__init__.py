"""topograd: reverse-mode automatic differentiation you can read, check and trust.

The scalar engine needs only the standard library: ``import topograd`` loads NumPy only when a
Tensor is first asked for (``tg.Tensor``, ``tg.where``, ...).

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

from . import func, nn, ops, optim
from .autograd.engine import backward, grad
from .autograd.modes import AnomalyError, detect_anomaly, is_grad_enabled, no_grad
from .scalar.custom import CustomOpError, custom_op
from .scalar.functions import affine, dot
from .scalar.functions import sum_of as sum  # noqa: A004 - tg.sum, as torch.sum and np.sum
from .scalar.value import Value
from .train import datasets

if TYPE_CHECKING:
    from .grading import grade
    from .notebook import widget
    from .tensor import Tensor, concatenate, stack, where
    from .verify.gradcheck import GradcheckError, gradcheck
    from .verify.tensors import TensorGradcheckError
    from .viz.draw import draw, to_dot, to_svg
    from .viz.trace import Trace, trace

# name -> the module that holds it, imported when first asked for: the Tensor kind (NumPy), and
# the checks and drawings, which a model does not need to run.
_ON_FIRST_USE = {
    "Tensor": "topograd.tensor",
    "concatenate": "topograd.tensor",
    "stack": "topograd.tensor",
    "where": "topograd.tensor",
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
    "GradcheckError",
    "Tensor",
    "TensorGradcheckError",
    "Trace",
    "Value",
    "affine",
    "backward",
    "concatenate",
    "custom_op",
    "datasets",
    "detect_anomaly",
    "dot",
    "draw",
    "func",
    "grad",
    "gradcheck",
    "grade",
    "is_grad_enabled",
    "nn",
    "no_grad",
    "ops",
    "optim",
    "stack",
    "sum",
    "to_dot",
    "to_svg",
    "trace",
    "where",
    "widget",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """The names of ``_ON_FIRST_USE``, imported when first asked for."""
    if name not in _ON_FIRST_USE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_ON_FIRST_USE[name]), name)
