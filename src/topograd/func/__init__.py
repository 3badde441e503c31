"""Function transforms, mirroring ``torch.func``: ``jvp`` (forward mode, from the same rules
as the backward pass), ``vjp``, ``grad``, ``grad_and_value``, ``jacrev``, ``jacfwd``,
``hessian``, ``hvp``; on numbers, Values, arrays and Tensors (``docs/modes.md``).

>>> import topograd as tg
>>> import math
>>> f = lambda a, b, c: (a * b + c).tanh()
>>> out, tangent = tg.func.jvp(f, (2.0, -3.0, 10.0), (1.0, 0.0, 0.0))  # de/da
>>> math.isclose(tangent, tg.func.grad(f)(2.0, -3.0, 10.0), rel_tol=1e-15)
True
>>> tg.func.grad(tg.func.grad(lambda x: x**3))(2.0)  # 6x
12.0
"""

from __future__ import annotations

from .transforms import grad, grad_and_value, hessian, hvp, jacfwd, jacrev, jvp, vjp

__all__ = ["grad", "grad_and_value", "hessian", "hvp", "jacfwd", "jacrev", "jvp", "vjp"]
