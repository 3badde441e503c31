"""The dtype an op computes in, as PyTorch's: its operands promoted together (``dtypes``), and
what the op does with integers and booleans, which its registry entry says (``Op.integers``):

- ``"promote"``: computed in floats, integers and booleans in the default dtype (exp, div);
- ``"keep"``: in the operands' promoted dtype, whatever it is (add, abs, reshape, amax);
- ``"int64"``: integers and booleans summed as int64 (sum, prod, cumsum);
- ``"same"``: the operands must share their dtype, integers allowed (matmul, linear);
- ``"select"``: a condition first, as it is, then ``"keep"``'s operands (where);
- ``"floats"``: its first operand a float (mean, softmax, gelu), PyTorch's refusal otherwise;
  the others (class indices) as they are;
- ``"float pair"``: its operands promoted together, which must give a float (the backward
  kernels of the activations: ``gelu_backward(grad, x)``), PyTorch's refusal otherwise;
- ``"limits"``: ``"keep"``, its operand promoted with the Python numbers of its parameters
  ``low`` and ``high`` (clamp(Tensor, Scalar): ``x.clamp(0.5)`` of integers is float32).

``Op.bools`` says whether booleans are taken at all (not by neg, abs, relu, floor...).

>>> import numpy as np
>>> from topograd.autograd.registry import OPS
>>> [a.dtype for a in kernel_arrays(OPS["add"], [np.arange(3), 2.5])]
[dtype('float32'), dtype('float32')]
>>> [a.dtype for a in kernel_arrays(OPS["exp"], [np.arange(3)])]
[dtype('float32')]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..autograd.errors import NotImplementedValueError, RuntimeValueError
from ..autograd.registry import Op
from . import dtypes

# PyTorch's names of the dtypes, as its refusals write them
SCALAR_TYPES = {
    "bool": "Bool",
    "uint8": "Byte",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "float16": "Half",
    "float32": "Float",
    "float64": "Double",
}


# PyTorch's words where it refuses integers and booleans in its own message, not its kernel's
REFUSALS = {
    "mean": "mean(): could not infer output dtype. Input dtype must be either a floating point "
    "or complex dtype. Got: {name}",
    "std": "std and var only support floating point and complex dtypes",
    "var": "std and var only support floating point and complex dtypes",
    "neg": "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead.",
    "relu": "Boolean inputs not supported for relu",
}


def kernel_arrays(op: Op, arrays: Sequence[Any], params: Any = None) -> list[Any]:
    """The op's operands (arrays, and Python numbers) as arrays of the dtype it computes in
    (``params``: the op's parameters, which clamp's limits promote with)."""
    first = arrays[0]
    if type(first) is np.ndarray and first.dtype.kind == "f":  # the common case: all alike
        kind = first.dtype
        for a in arrays:  # (a loop, not all() of a generator: one call less per op)
            if type(a) is not np.ndarray or a.dtype != kind:
                break
        else:
            return list(arrays)
    found = [a for a in arrays if a is not None]
    if op.integers == "limits" and params:
        found += [params.get(k) for k in ("low", "high") if params.get(k) is not None]
    if op.name == "sub":
        _subtracted(found)
    if not found:
        return list(arrays)
    if op.integers == "same":
        return _same(op, arrays)
    if op.integers == "select":  # (the condition: booleans, as they are)
        return [first, *kernel_arrays(_KEEP, arrays[1:])]
    if op.integers == "floats":
        if np.asarray(first).dtype.kind != "f":
            _whole(op, dtypes.result_type(first))
        return list(arrays)
    target = dtypes.result_type(*found)
    if target.category != dtypes.FLOAT:
        target = _whole(op, target)
        if op.name == "pow" and type(arrays[1]) is int and arrays[1] < 0:  # before it wraps
            raise RuntimeValueError("Integers to negative integer powers are not allowed.")
        if op.name == "pow" and target.category == dtypes.INTEGER:
            return _integer_powers(_cast(arrays[0], target.dtype), _cast(arrays[1], target.dtype))
    return [_cast(a, target.dtype) for a in arrays]


def _integer_powers(x: Any, y: Any) -> list[Any]:
    """An integer base and exponent NumPy can raise as PyTorch does at a negative exponent,
    where NumPy refuses: 1 ** -k = 1, (-1) ** -k = ±1 by k's parity, any other base 0."""
    negative = y < 0
    if not negative.any():
        return [x, y]
    base = np.where(negative & (x != 1) & (x != -1), np.zeros((), x.dtype), x)
    return [base, np.where(negative, -y, y)]


def _subtracted(operands: Sequence[Any]) -> None:
    """PyTorch's refusal of a subtraction with booleans (a boolean number counts too)."""
    bools = sum(1 for a in operands if np.asarray(a).dtype == np.bool_)
    if bools == 2:
        raise RuntimeValueError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if bools:
        raise RuntimeValueError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


_KEEP = Op("keep", lambda *args: args, 0, "", "", integers="keep")  # how select's others go


def _whole(op: Op, target: dtypes.dtype) -> dtypes.dtype:
    """The dtype an op computes in for integer or boolean operands (``target``)."""
    floats = op.integers in ("floats", "float pair")
    if op.name in REFUSALS and (floats or target is dtypes.boolean):
        raise RuntimeValueError(REFUSALS[op.name].format(name=SCALAR_TYPES[target.name]))
    if floats or (target is dtypes.boolean and not op.bools):
        raise NotImplementedValueError(
            f"\"{op.name}\" not implemented for '{SCALAR_TYPES[target.name]}'"
            + (" (it takes floats)" if floats else "")
        )
    if op.integers == "promote":
        return dtypes.get_default_dtype()
    if op.integers == "int64":
        return dtypes.int64
    return target


def _same(op: Op, arrays: Sequence[Any]) -> list[Any]:
    """Operands that must share a dtype (matmul, linear, conv2d), as PyTorch checks them."""
    kinds = {np.asarray(a).dtype for a in arrays if a is not None}
    if len(kinds) > 1:
        names = " and ".join(sorted(str(k) for k in kinds))
        raise RuntimeValueError(
            f"{op.name}(): expected both operands to have the same dtype, but got {names} "
            "(convert one with .to(dtype), as PyTorch asks)"
        )
    (kind,) = kinds
    if kind == np.bool_ and not op.bools:
        raise NotImplementedValueError(f"\"{op.name}\" not implemented for 'Bool'")
    return list(arrays)


def _cast(a: Any, target: np.dtype[Any]) -> Any:
    if a is None:
        return None
    if type(a) is np.ndarray:
        return a if a.dtype == target else a.astype(target)
    return np.asarray(a).astype(target)  # (a Python int out of range wraps, as PyTorch's)
