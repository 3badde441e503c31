"""A module's state in hand: what ``state_dict`` gives (each parameter's and buffer's value by
name: a Tensor's detached, sharing its numbers as PyTorch's; a Value's number) and what
``load_state_dict`` takes, every value checked against the parameter it is for before anything
changes. A number the parameter's dtype cannot hold is refused, naming the key, never cast.
NumPy is imported only where arrays are checked.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..autograd.errors import RuntimeValueError
from ..autograd.kinds import kind_of

_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


class Overflowing(str):
    """A number of a JSON file beyond float64's range (1e400): refused, not read as inf."""


def json_float(text: str) -> float | str:
    """A JSON number as a float, or as ``Overflowing`` text where float64 cannot hold it.

    >>> json_float("0.5"), type(json_float("1e400")).__name__
    (0.5, 'Overflowing')
    """
    number = float(text)
    return number if math.isfinite(number) else Overflowing(text)


def state_of(named: Mapping[str, Any], keep_vars: bool = False) -> dict[str, Any]:
    """Every parameter's value by name, as PyTorch's ``state_dict``: a Tensor detached (its
    numbers shared: a write to one is a write to the other), a Value's number; with
    ``keep_vars``, the parameters themselves.

    >>> import topograd as tg
    >>> state_of({"w": tg.Value(0.5), "b": tg.ones(2, requires_grad=True)})
    {'w': 0.5, 'b': tensor([1., 1.])}
    """
    return dict(named) if keep_vars else {name: p.data for name, p in named.items()}


def numbers_of(x: Any) -> Any:
    """What a parameter or a value holds, unwrapped: a Tensor's array, a Value's number, or
    ``x`` itself (an array, a number, a PyTorch tensor)."""
    kind = kind_of(x)
    if kind is None:
        return x
    return x.array if kind.name == "tensor" else x.data


def assign(parameter: Any, value: Any) -> None:
    """Write a checked ``value`` (of the parameter's shape and dtype) into ``parameter``: a
    Tensor's into its very numbers, as PyTorch's ``copy_`` (every Tensor sharing them sees
    it), unless they cannot be written (a read-only array: then new numbers); a Value's as its
    number."""
    kind = kind_of(parameter)
    if kind is not None and kind.name == "tensor" and parameter.array.flags.writeable:
        parameter.array[...] = value
    else:
        parameter.data = value


class IncompatibleKeys(NamedTuple):
    """What ``load_state_dict`` returns, as PyTorch's: the names the module has that the state
    lacks, and the names of the state that the module lacks."""

    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (
            f"IncompatibleKeys(missing_keys={self.missing_keys!r}, "
            f"unexpected_keys={self.unexpected_keys!r})"
        )


class StateError(RuntimeValueError):
    """A state that does not fit its module: PyTorch's "Error(s) in loading state_dict for
    ..." and its lines; ``summary`` says it in one line (for a file's message)."""

    def __init__(self, message: str, summary: str) -> None:
        super().__init__(message)
        self.summary = summary


def unmatched(owner: str, keys: IncompatibleKeys) -> tuple[str, list[str]] | None:
    """What is wrong with the names, in one line and in PyTorch's lines; None if nothing.

    >>> unmatched("Linear", IncompatibleKeys(["bias"], []))[0]
    'the state does not fit this Linear: missing bias'
    """
    pairs = (("missing", keys.missing_keys), ("unexpected", keys.unexpected_keys))
    if not any(k for _, k in pairs):
        return None
    listed = [f"{what} {', '.join(k[:3])}{' ...' if len(k) > 3 else ''}" for what, k in pairs if k]
    lines = [
        f"{what.capitalize()} key(s) in state_dict: {', '.join(map(repr_key, k))}. "
        for what, k in pairs
        if k
    ]
    return f"the state does not fit this {owner}: {'; '.join(listed)}", lines


def checked_state(
    owner: str, named: Mapping[str, Any], state: Mapping[str, object], strict: bool = True
) -> tuple[dict[str, Any], IncompatibleKeys]:
    """The values of ``state`` for the parameters ``named``, every one checked against the
    parameter it is for, and the names that do not match; a ``StateError`` naming all that
    does not fit (a missing or unexpected name only where ``strict``)."""
    keys = IncompatibleKeys(
        [n for n in named if n not in state], [n for n in state if n not in named]
    )
    lines, problems = [], []
    names = unmatched(owner, keys) if strict else None
    if names is not None:
        problems.append(names[0])
        lines += names[1]
    values = {}
    for name in (n for n in named if n in state):
        try:
            values[name] = checked(name, state[name], numbers_of(named[name]))
        except ValueError as error:
            problems.append(str(error))
            lines.append(str(error))
    if problems:
        message = "\n\t".join([f"Error(s) in loading state_dict for {owner}:", *lines])
        raise StateError(message, "; ".join(problems))
    return values, keys


def repr_key(name: str) -> str:
    """A name as PyTorch's messages quote it: "weight"."""
    return f'"{name}"'


def _is_array(x: object) -> bool:
    return hasattr(x, "dtype") and hasattr(x, "shape")


def checked(name: str, value: object, current: Any) -> Any:
    """``value`` as a parameter like ``current`` (a float, or an array of its shape and dtype):
    from an array, a Tensor or a Value, anything ``np.asarray`` takes (PyTorch's tensors), or
    JSON's numbers. A number the parameter's dtype cannot hold is refused, not cast: 1e300 for
    float32 (not inf), a complex number, 2.5 or 2**63 for an integer.

    >>> import numpy as np
    >>> checked("w", [0.5, 2.0], np.zeros(2, np.float32))
    array([0.5, 2. ], dtype=float32)
    """
    value = numbers_of(value)
    if not _is_array(current):
        return _number(name, value)
    import numpy as np

    if isinstance(value, dict):  # from JSON
        value = from_json(name, value, current.dtype)
    elif not isinstance(value, (str, np.ndarray)):
        value = as_array(value)
    wanted = f"the value of {name} must be an array of shape {tuple(current.shape)}"
    if not isinstance(value, np.ndarray):
        raise ValueError(wanted)
    if value.shape != current.shape:
        raise ValueError(f"size mismatch for {name}: {wanted}, got shape {tuple(value.shape)}")
    if value.dtype.kind not in "fiu" and not (value.dtype.kind == current.dtype.kind == "b"):
        raise ValueError(f"the value of {name} holds {value.dtype}, not real numbers")
    return cast(name, value, current.dtype)


def cast(name: str, value: Any, dtype: Any) -> Any:
    """``value`` in ``dtype``, if every number survives: a finite one stays finite in a float
    dtype (rounded to it), and an integer dtype holds exactly the same number.

    >>> import numpy as np
    >>> cast("count", np.array(2.5), np.dtype(np.int64))
    Traceback (most recent call last):
    ...
    ValueError: the value of count holds 2.5, which int64 cannot hold
    """
    import numpy as np

    with np.errstate(over="ignore", invalid="ignore"):
        out = value.astype(dtype)
        if dtype.kind == "f":
            lost = np.isfinite(value) & ~np.isfinite(out)
        elif dtype.kind == "b":  # (from booleans only: checked refuses any other)
            lost = np.zeros(value.shape, bool)
        elif value.dtype.kind == "f":  # a fraction, nan, inf or beyond the range: not back
            lost = out.astype(value.dtype) != value
        else:  # (int64 and uint64 wrap onto each other: there and back again proves nothing)
            limits = np.iinfo(dtype)
            lost = (value < limits.min) | (value > limits.max)
    if lost.any():
        number = value[lost].flat[0].item()
        raise ValueError(f"the value of {name} holds {number!r}, which {dtype} cannot hold")
    return out


def from_json(name: str, value: dict[str, Any], dtype: Any) -> Any:
    """An array of ``dtype`` from its JSON form (None where its shape and data do not fit):
    whole numbers kept whole for an integer dtype, a complex dtype refused.

    >>> import numpy as np
    >>> from_json("w", {"dtype": "float32", "shape": [2], "data": [1.0, "inf"]}, np.float64)
    array([ 1., inf])
    """
    import numpy as np

    dtype = np.dtype(dtype)
    declared, shape, data = value.get("dtype"), value.get("shape"), value.get("data")
    if declared is not None and _kind(declared) not in ("f", "i", "u"):
        raise ValueError(f"the value of {name} is of dtype {str(declared)[:40]!r}, not a real one")
    if not isinstance(shape, list) or not isinstance(data, list):
        raise ValueError(f"the value of {name} must hold a shape and data")
    if not _fits(shape, data):
        return None
    if dtype.kind == "f":
        return np.array([_number(name, x) for x in data], dtype=np.float64).reshape(shape)
    whole = [_whole(name, x) for x in data]
    try:
        return np.array(whole, dtype=dtype).reshape(shape)
    except OverflowError:
        raise ValueError(f"the value of {name} holds a number {dtype} cannot hold") from None


def as_array(value: object) -> Any:
    """``value`` as NumPy takes it (a PyTorch tensor, detached first if it requires grad; a
    list of numbers), or itself."""
    import numpy as np

    try:
        return np.asarray(value)
    except (TypeError, ValueError, RuntimeError):  # (a tensor that requires grad: RuntimeError)
        pass
    detach = getattr(value, "detach", None)
    if callable(detach):
        try:
            return np.asarray(detach())
        except (TypeError, ValueError, RuntimeError):
            pass
    return value


def _fits(shape: list[Any], data: list[Any]) -> bool:
    whole = all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape)
    return whole and math.prod(shape) == len(data)


def _kind(dtype: object) -> str:
    """NumPy's kind of a dtype's name ("f" for "float32"), or "" for what names none."""
    import numpy as np

    try:
        return np.dtype(dtype).kind if isinstance(dtype, str) else ""
    except (TypeError, ValueError):  # not a dtype, or one too large
        return ""


def _whole(name: str, value: object) -> int:
    """A JSON entry of an integer parameter, exactly (not through a float)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    number = _number(name, value)
    if not number.is_integer():
        raise ValueError(f"the value of {name} holds {number!r}, not a whole number")
    return int(number)


def _number(name: str, value: object) -> float:
    if isinstance(value, Overflowing):
        raise ValueError(f"the value of {name} holds {value[:40]}, beyond float64's range")
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    if _is_array(value) and value.shape == () and value.dtype.kind in "fiu":  # type: ignore[attr-defined]
        return float(value)  # type: ignore[arg-type]  # a 0-d array, read back from a file
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"the value of {name} must be a number, got {str(value)[:40]!r}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"the value of {name} is an integer too large for a float") from None
