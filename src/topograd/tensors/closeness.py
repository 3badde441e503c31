"""Whether two Tensors hold the same numbers, or near enough, as PyTorch's ``torch.isclose``,
``torch.allclose`` and ``torch.equal``: within ``atol + rtol * |other|``, computed in the
Tensors' dtype as PyTorch computes it (so the same answer at the edge of the tolerance).

>>> import topograd as tg
>>> x = tg.tensor([1.0, 2.0])
>>> tg.allclose(x, x + 1e-7), tg.isclose(x, tg.tensor([1.0, 2.1])).tolist(), tg.equal(x, x)
(True, [True, False], True)
"""

from __future__ import annotations

import numpy as np

from .tensor import Tensor, constant


def _same_dtype(input: Tensor, other: Tensor) -> None:  # noqa: A002 - PyTorch's names
    if input.array.dtype != other.array.dtype:
        names = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long"}
        a, b = (names.get(t.dtype.name, t.dtype.name) for t in (input, other))
        raise RuntimeError(f"{a} did not match {b}")


def isclose(
    input: Tensor,  # noqa: A002 - PyTorch's names
    other: Tensor,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> Tensor:
    """Element by element (broadcast), whether |input - other| <= atol + rtol |other|, or the
    two are equal (infinities of one sign too; nan and nan only with ``equal_nan``). Both of
    one dtype, as PyTorch's; booleans, no gradient.

    >>> import topograd as tg
    >>> isclose(tg.tensor([1.0, float("nan")]), tg.tensor([1.0, float("nan")]), equal_nan=True)
    tensor([True, True])
    """
    _same_dtype(input, other)
    a, b = input.array, other.array
    if a.dtype.kind != "f":  # (integers: PyTorch compares them in the default float dtype)
        a, b = a.astype(np.float32), b.astype(np.float32)
    kind = a.dtype.type
    with np.errstate(all="ignore"):
        allowed = kind(atol) + np.abs(kind(rtol) * b)
        actual = np.abs(a - b)
        close = (a == b) | (np.isfinite(actual) & (actual <= allowed))
    if equal_nan:
        close |= np.isnan(a) & np.isnan(b)
    return constant(close)


def allclose(
    input: Tensor,  # noqa: A002 - PyTorch's names
    other: Tensor,
    rtol: float = 1e-05,
    atol: float = 1e-08,
    equal_nan: bool = False,
) -> bool:
    """Whether ``isclose`` holds everywhere.

    >>> import topograd as tg
    >>> allclose(tg.tensor([1.0]), tg.tensor([1.1]), rtol=0.1)
    True
    """
    return bool(isclose(input, other, rtol, atol, equal_nan).array.all())


def equal(input: Tensor, other: Tensor) -> bool:  # noqa: A002 - PyTorch's names
    """Whether the two have the same shape and the same numbers (nan is unequal to itself).

    >>> import topograd as tg
    >>> equal(tg.tensor([1, 2]), tg.tensor([1, 2])), equal(tg.tensor([1]), tg.tensor([1, 1]))
    (True, False)
    """
    return input.shape == other.shape and bool(np.array_equal(input.array, other.array))
