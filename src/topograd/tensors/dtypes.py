"""Dtypes in PyTorch's words: the names its messages give them (``Double``, ``Long``), the C++
types its range errors print, and which dtypes each index-taking function of PyTorch takes.

>>> import numpy as np
>>> scalar_name(np.float64), c_name(np.int8)
('Double', 'signed char')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd.kinds import kind_of

# numpy dtype name -> (PyTorch's ScalarType name, the C++ type it prints in range errors)
_NAMES = {
    "float16": ("Half", "c10::Half"),
    "float32": ("Float", "float"),
    "float64": ("Double", "double"),
    "int64": ("Long", "long int"),
    "int32": ("Int", "int"),
    "int16": ("Short", "short int"),
    "int8": ("Char", "signed char"),
    "uint8": ("Byte", "unsigned char"),
    "bool": ("Bool", "bool"),
}


def scalar_name(dtype: Any) -> str:
    """PyTorch's name of a dtype (Float, Long, ...), as in "not implemented for 'Long'"."""
    name = np.dtype(dtype).name
    return _NAMES[name][0] if name in _NAMES else name


def c_name(dtype: Any) -> str:
    """The C++ type PyTorch names in its range errors ("from is out of bounds for int")."""
    name = np.dtype(dtype).name
    return _NAMES[name][1] if name in _NAMES else name


def tensor_name(dtype: Any) -> str:
    """PyTorch's legacy name of a CPU tensor type, as its argument checks print it
    ("torch.DoubleTensor"; booleans "CPUBoolType")."""
    name = scalar_name(dtype)
    return "CPUBoolType" if name == "Bool" else f"torch.{name}Tensor"


# PyTorch says in full what a Tensor used as an index holds; topograd adds why a Tensor of
# whole numbers may hold floats here, and what gives integers
FLOATS_HINT = (
    " (topograd's Tensors made of numbers hold floats: .long() gives int64, as does "
    "tg.tensor(..., dtype=tg.int64))"
)


def index_numbers(
    given: Any, takes: tuple[str, ...], refusal: tuple[type[Exception], Callable[[Any], str]]
) -> np.ndarray[Any, Any]:
    """The array of indices an index-taking function reads from ``given``: a Tensor's, where
    its dtype is one PyTorch's function takes (``takes``, NumPy's names); an array or a list
    of integers of any width (PyTorch has no twin); anything else (floats first) refused as
    PyTorch's function refuses it: ``refusal`` is its class and its message for the dtype.

    >>> index_numbers(np.array([0, 2]), ("int64",), (IndexError, str))
    array([0, 2])
    """
    node = kind_of(given) is not None
    array = np.asarray(given.data if node else given)
    if (array.dtype.name in takes) if node else array.dtype.kind in "iu":
        return array
    kind, message = refusal
    hint = FLOATS_HINT if array.dtype.kind == "f" else ""
    raise kind(message(array.dtype) + hint)
