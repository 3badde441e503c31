"""``gradcheck`` for Tensor inputs: the Jacobian column by column, or PyTorch's fast mode.

>>> import numpy as np
>>> import topograd as tg
>>> x = tg.Tensor(np.array([[0.5, -1.0], [2.0, 0.3]]), requires_grad=True)
>>> tg.gradcheck(lambda t: (t @ t).tanh(), [x])
True
>>> tg.gradcheck(lambda t: (t @ t).tanh().sum(axis=0), [x], fast_mode=True)
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..autograd.engine import grad
from ..tensor import Tensor


class TensorGradcheckError(RuntimeError):
    """Raised by ``gradcheck`` on Tensors; ``input_index`` names the input."""

    def __init__(self, message: str, input_index: int | None = None) -> None:
        super().__init__(message)
        self.input_index = input_index


def gradcheck_tensors(
    fn: Callable[..., Tensor],
    inputs: Sequence[Any],
    *,
    eps: float,
    atol: float,
    rtol: float,
    fast_mode: bool,
    seed: int,
) -> None:
    """Raise ``TensorGradcheckError`` where a gradient of ``fn`` disagrees with central
    differences, under PyTorch's rule |a - n| <= atol + rtol |n|."""
    tensors = [t if isinstance(t, Tensor) else Tensor(t) for t in inputs]
    out = fn(*tensors)
    if not isinstance(out, Tensor):
        raise TypeError(f"gradcheck: fn must return a Tensor, it returned {type(out).__name__}")
    checked = [j for j, t in enumerate(tensors) if t.requires_grad]
    rng = np.random.default_rng(seed)
    for j in checked:
        if fast_mode:
            u, v = rng.normal(size=tensors[j].shape), rng.normal(size=out.shape)
            numeric = np.array([np.sum(v * _directional(fn, tensors, j, u, eps))])
            analytic = np.array([np.sum(_vjp(out, tensors[j], v) * u)])
        else:
            numeric = _numerical_jacobian(fn, tensors, j, eps)
            analytic = _analytical_jacobian(out, tensors[j])
        if not _close(analytic, numeric, atol, rtol):
            what = "vJu (fast mode)" if fast_mode else "Jacobian"
            raise TensorGradcheckError(
                f"{what} mismatch for output 0 with respect to input {j},\n"
                f"numerical:{numeric}\nanalytical:{analytic}\n",
                j,
            )
    for j in checked:  # backward run twice gives the same bits
        v = np.ones(out.shape)
        if _vjp(out, tensors[j], v).tobytes() != _vjp(out, tensors[j], v).tobytes():
            raise TensorGradcheckError(f"Backward is not reentrant for input {j}", j)


def _close(a: np.ndarray, n: np.ndarray, atol: float, rtol: float) -> bool:
    return bool(np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=False))


def _evaluate(
    fn: Callable[..., Tensor], tensors: list[Tensor], j: int, data: np.ndarray
) -> np.ndarray:
    args = [Tensor(data) if k == j else t.detach() for k, t in enumerate(tensors)]
    return np.asarray(fn(*args).data, dtype=np.float64)


def _directional(
    fn: Callable[..., Tensor], tensors: list[Tensor], j: int, u: np.ndarray, eps: float
) -> np.ndarray:
    x = tensors[j].data
    up, down = _evaluate(fn, tensors, j, x + eps * u), _evaluate(fn, tensors, j, x - eps * u)
    return np.asarray((up - down) / (2 * eps))


def _numerical_jacobian(
    fn: Callable[..., Tensor], tensors: list[Tensor], j: int, eps: float
) -> np.ndarray:
    """Column k: the central difference of the flattened output along input element k."""
    x = tensors[j].data
    columns = []
    for k in range(x.size):
        u = np.zeros(x.size)
        u[k] = 1.0
        columns.append(_directional(fn, tensors, j, u.reshape(x.shape), eps).ravel())
    return np.stack(columns, axis=1) if columns else np.zeros((0, 0))


def _vjp(out: Tensor, x: Tensor, v: np.ndarray) -> np.ndarray:
    (g,) = grad((out * v).sum(), [x])
    return np.asarray(g, dtype=np.float64)


def _analytical_jacobian(out: Tensor, x: Tensor) -> np.ndarray:
    """Row m: the gradient of output element m (a backward seeded with a one-hot)."""
    rows = []
    for m in range(out.data.size):
        v = np.zeros(out.data.size)
        v[m] = 1.0
        rows.append(_vjp(out, x, v.reshape(out.shape)).ravel())
    return np.stack(rows) if rows else np.zeros((0, 0))
