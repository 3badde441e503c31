"""Dtypes in PyTorch's words: the names its messages give them (``Double``, ``Long``), the C++
types its range errors print, and which dtypes each index-taking function of PyTorch takes.

>>> import numpy as np
>>> scalar_name(np.float64), c_name(np.int8)
('Double', 'signed char')
"""

from __future__ import annotations

from typing import Any

import numpy as np

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
