"""PyTorch's dtypes: the kinds of number a Tensor holds, their names, the default float dtype,
and how a result's dtype follows from its operands' (PyTorch's type promotion).

A dtype is one of nine objects, each named as PyTorch names it (``tg.float32``, alias
``tg.float``; ``tg.int64``, alias ``tg.long``; ``tg.bool`` ...) and each standing for a NumPy
dtype: NumPy takes it wherever it takes a dtype (``np.zeros(2, tg.float32)``), and it equals
that dtype (``tg.float32 == np.float32``).

>>> import topograd as tg
>>> tg.float32, tg.long, tg.float is tg.float32, tg.int64.is_signed, tg.bool.itemsize
(topograd.float32, topograd.int64, True, True, 1)
>>> import numpy as np
>>> np.zeros(2, tg.float16).dtype, tg.float64 == np.float64
(dtype('float16'), True)

Promotion follows PyTorch's three tiers: Tensors with axes decide within their category (bool,
integer, float), a Tensor of no axes and then a Python number count only where their category
is higher, and a Python float counts as the default dtype (float32):

>>> result_type(np.zeros(3, np.int64), 2.5), result_type(np.zeros(3, np.float16), 2.5)
(topograd.float32, topograd.float16)
>>> result_type(np.zeros(3, np.int32), np.zeros((), np.int64), 7)
topograd.int32

PyTorch's words for them, in its messages (``Double``, ``Long``) and range errors:

>>> scalar_name(np.float64), c_name(np.int8)
('Double', 'signed char')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd.kinds import kind_of

BOOL, INTEGER, FLOAT = 0, 1, 2  # the categories, in the order promotion climbs them


class dtype:  # noqa: N801 - PyTorch's name: torch.dtype
    """A kind of number a Tensor holds: ``is_floating_point``, ``is_signed``, ``itemsize``,
    and ``dtype``, the NumPy dtype it stands for (which NumPy reads)."""

    __slots__ = ("category", "dtype", "name")
    is_complex = False

    def __init__(self, name: str, numpy: np.dtype[Any], category: int) -> None:
        self.name = name
        self.dtype = numpy
        self.category = category

    @property
    def is_floating_point(self) -> bool:
        return self.category == FLOAT

    @property
    def is_signed(self) -> bool:
        return self.dtype.kind in "if"

    @property
    def itemsize(self) -> int:
        return int(self.dtype.itemsize)

    def to_real(self) -> dtype:
        return self

    def __repr__(self) -> str:
        return f"topograd.{self.name}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, dtype):
            return other is self
        if other is None or isinstance(other, str):
            return False  # (NumPy reads None as float64 and "float" as float64)
        try:
            return bool(self.dtype == np.dtype(other))  # type: ignore[call-overload]
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self.dtype)

    def __reduce__(self) -> tuple[Any, ...]:
        return (named, (self.name,))  # a copy or an unpickled one is the same object


def _made(name: str, numpy: type, category: int) -> dtype:
    return dtype(name, np.dtype(numpy), category)


float16 = _made("float16", np.float16, FLOAT)
float32 = _made("float32", np.float32, FLOAT)
float64 = _made("float64", np.float64, FLOAT)
int8 = _made("int8", np.int8, INTEGER)
int16 = _made("int16", np.int16, INTEGER)
int32 = _made("int32", np.int32, INTEGER)
int64 = _made("int64", np.int64, INTEGER)
uint8 = _made("uint8", np.uint8, INTEGER)
boolean = _made("bool", np.bool_, BOOL)

DTYPES = (float16, float32, float64, int8, int16, int32, int64, uint8, boolean)
# every name PyTorch gives them (``tg.float``, ``tg.long``): read through topograd's
# __getattr__, so that no builtin (float, int, bool) is shadowed at module level
NAMES: dict[str, dtype] = {d.name: d for d in DTYPES} | {
    "half": float16,
    "float": float32,
    "double": float64,
    "short": int16,
    "int": int32,
    "long": int64,
}
# PyTorch's dtypes topograd does not have, each with why
MISSING = {
    "bfloat16": "NumPy has no bfloat16",
    "complex32": "topograd has no complex numbers",
    "complex64": "topograd has no complex numbers",
    "complex128": "topograd has no complex numbers",
    "cfloat": "topograd has no complex numbers",
    "cdouble": "topograd has no complex numbers",
    "chalf": "topograd has no complex numbers",
    "uint16": "topograd's unsigned integers are uint8 only",
    "uint32": "topograd's unsigned integers are uint8 only",
    "uint64": "topograd's unsigned integers are uint8 only",
}


class absent_dtype:  # noqa: N801 - beside PyTorch's torch.dtype
    """A dtype of PyTorch's that topograd does not have (``tg.complex64``, ``tg.bfloat16``):
    its name exists, so that a program may name it, and every use is refused, with why."""

    __slots__ = ("name", "why")

    def __init__(self, name: str, why: str) -> None:
        self.name, self.why = name, why

    @property
    def is_complex(self) -> bool:
        return self.name.startswith("c")

    @property
    def dtype(self) -> np.dtype[Any]:
        """Refused (NumPy asks for it where it reads a dtype)."""
        raise TypeError(self.refusal())

    def refusal(self) -> str:
        return f"topograd has no {self.name}: {self.why}"

    def __repr__(self) -> str:
        return f"topograd.{self.name}"


ABSENT = {name: absent_dtype(name, why) for name, why in MISSING.items()}
_BY_NUMPY: dict[np.dtype[Any], dtype] = {d.dtype: d for d in DTYPES}
_PYTHON: dict[type, dtype] = {float: float64, int: int64, bool: boolean}


def named(name: str) -> dtype:
    """The dtype of this name (PyTorch's names and aliases).

    >>> named("long")
    topograd.int64
    """
    return NAMES[name]


def of_numpy(numpy: Any) -> dtype:
    """The dtype a NumPy dtype stands for; a TypeError for one a Tensor cannot hold.

    >>> of_numpy(np.dtype("float32"))
    topograd.float32
    """
    found = _BY_NUMPY.get(numpy)
    if found is None:
        found = _BY_NUMPY.get(np.dtype(numpy).newbyteorder("="))
        if found is None:
            raise TypeError(f"a Tensor cannot hold numbers of NumPy's dtype {numpy}: {_why(numpy)}")
    return found


def _why(numpy: Any) -> str:
    kind = np.dtype(numpy).kind
    if kind == "c":
        return "topograd has no complex numbers"
    if kind == "u":
        return "topograd's unsigned integers are uint8 only"
    return "it holds bool, uint8, int8 to int64 and float16 to float64"


def as_dtype(given: Any) -> dtype:
    """A dtype from anything that names one: a dtype, a NumPy dtype or type (``np.float32``),
    a Python type (``float`` is float64, as in PyTorch) or a NumPy name ("float32").

    >>> as_dtype(float), as_dtype(np.int32), as_dtype("float16")
    (topograd.float64, topograd.int32, topograd.float16)
    """
    if isinstance(given, dtype):
        return given
    if isinstance(given, type) and given in _PYTHON:
        return _PYTHON[given]
    if given is None:
        raise TypeError("a dtype is needed, not None")
    if isinstance(given, str) and given in MISSING:
        raise TypeError(f"topograd has no {given}: {MISSING[given]}")
    if isinstance(given, absent_dtype):
        raise TypeError(given.refusal())
    try:
        numpy = np.dtype(given)
    except TypeError:
        raise TypeError(f"{given!r} is not a dtype (give tg.float32, tg.int64, ...)") from None
    return of_numpy(numpy)


_DEFAULT = [float32]  # the default float dtype: process-wide, as PyTorch's


def get_default_dtype() -> dtype:
    """The dtype of a float made without one (``tg.tensor([1.5])``, ``tg.zeros(2)``, a
    layer's weights): float32, as PyTorch's, unless ``set_default_dtype`` changed it.

    >>> get_default_dtype()
    topograd.float32
    """
    return _DEFAULT[0]


def set_default_dtype(d: Any) -> None:
    """Make ``d`` (float16, float32 or float64) the default float dtype, as PyTorch's.

    >>> set_default_dtype(float64); get_default_dtype()
    topograd.float64
    >>> set_default_dtype(float32)
    """
    found = as_dtype(d)
    if not found.is_floating_point:
        raise TypeError(
            f"only floating-point types are supported as the default type, not {found!r}"
        )
    _DEFAULT[0] = found


def promote_types(a: dtype, b: dtype) -> dtype:
    """The dtype that holds both, as PyTorch's ``promote_types``: within a category the wider
    (uint8 and int8 meet at int16), across categories the higher one's (an integer and
    float16 give float16, where NumPy would give float64).

    >>> promote_types(int64, float16), promote_types(uint8, int8), promote_types(boolean, int32)
    (topograd.float16, topograd.int16, topograd.int32)
    """
    if a is b:
        return a
    if a.category != b.category:
        return a if a.category > b.category else b
    return of_numpy(np.promote_types(a.dtype, b.dtype))


def _combined(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """PyTorch's combine_categories: a lower tier counts only where its category is higher."""
    if higher is None:
        return lower
    if lower is None or higher.category == FLOAT:
        return higher
    if higher.category == BOOL or lower.category == FLOAT:
        return promote_types(higher, lower)
    return higher


def _tiers(operands: tuple[Any, ...]) -> tuple[dtype | None, dtype | None, dtype | None]:
    """The operands' dtypes by tier: arrays with axes, arrays of none, Python numbers."""
    tiers: list[dtype | None] = [None, None, None]
    for x in operands:
        if isinstance(x, (bool, np.bool_)):
            tier, found = 2, boolean
        elif isinstance(x, (int, np.integer)):
            tier, found = 2, int64
        elif isinstance(x, (float, np.floating)):
            tier, found = 2, _DEFAULT[0]
        else:  # an array (a Tensor's)
            tier, found = (0 if x.ndim else 1), of_numpy(x.dtype)
        old = tiers[tier]
        tiers[tier] = found if old is None else promote_types(old, found)
    return tiers[0], tiers[1], tiers[2]


def result_type(*operands: Any) -> dtype:
    """The dtype of an op's result from its operands (NumPy arrays, as a Tensor's numbers, and
    Python or NumPy numbers), by PyTorch's rules (see the module's doc)."""
    dims, zero_dims, numbers = _tiers(operands)
    found = _combined(dims, _combined(zero_dims, numbers))
    if found is None:
        raise TypeError("result_type() needs at least one operand")
    return found


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
    array = np.asarray(given.array if node else given)
    if (array.dtype.name in takes) if node else array.dtype.kind in "iu":
        return array
    kind, message = refusal
    raise kind(message(array.dtype))
