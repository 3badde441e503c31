"""The autograd core, data-agnostic: the op registry (``registry``), the data kinds that run
its ops (``kinds``), the backward engine (``engine``) and the grad modes (``modes``), and
``Function``. ``tg.autograd.grad``, ``tg.autograd.Function`` are PyTorch's spellings.
"""

from .engine import backward, grad
from .function import Function, FunctionCtx
from .modes import detect_anomaly, no_grad

__all__ = ["Function", "FunctionCtx", "backward", "detect_anomaly", "grad", "no_grad"]
