"""``Parameter``: a Tensor that a module learns, as ``torch.nn.Parameter``.

>>> import topograd as tg
>>> w = tg.nn.Parameter(tg.ones(2))
>>> w.requires_grad, isinstance(w, tg.Tensor), type(w * 2.0).__name__
(True, True, 'Tensor')
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensors import Tensor


class Parameter(Tensor):
    """A leaf Tensor that a ``Module`` finds and registers, wanting a gradient unless
    ``requires_grad=False`` (a frozen parameter, still listed by ``parameters()`` and saved by
    ``state_dict()``, as PyTorch's).

    It is a subclass of ``Tensor``, as PyTorch's: every op, method and ``isinstance(p,
    tg.Tensor)`` takes it as it is, and what an op makes of it is a plain Tensor. Unlike
    PyTorch's, it holds a copy of the numbers it is given (a write to the Tensor it was made
    from does not change it): topograd counts writes in place per Tensor, and two Tensors
    sharing their numbers would let one change behind the other's back.
    """

    __slots__ = ()
    is_parameter = True  # what Module looks for (its module stays free of NumPy)

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            data = np.empty(0)
        elif isinstance(data, Tensor):
            data = data.data
        super().__init__(data, requires_grad=requires_grad)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()
