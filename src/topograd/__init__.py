"""topograd: reverse-mode automatic differentiation you can read, check and trust.

>>> import topograd as tg
>>> x = tg.Value(3.0, label="x")
>>> y = x * x + x
>>> y.backward()
>>> x.grad  # dy/dx = 2x + 1
7.0
"""

from . import datasets, nn, ops, optim
from .autograd.engine import backward, grad
from .autograd.modes import AnomalyError, detect_anomaly, is_grad_enabled, no_grad
from .scalar.custom import CustomOpError, custom_op
from .scalar.functions import affine, dot
from .scalar.functions import sum_of as sum  # noqa: A004 - tg.sum, as torch.sum and np.sum
from .scalar.value import Value
from .tensor import Tensor, concatenate, stack, where
from .verify.gradcheck import GradcheckError, gradcheck
from .verify.tensors import TensorGradcheckError
from .viz.draw import to_dot, to_svg
from .viz.trace import Trace, trace

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
    "grad",
    "gradcheck",
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
]
__version__ = "0.1.0"
