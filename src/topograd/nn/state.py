"""A module's state on disk: every parameter's value by name, as readable JSON exact to the
last bit (non-finite numbers as "inf", "-inf", "nan"), or as NumPy's ``.npz`` for arrays when
the file name says so; never pickle. Loading checks the whole file before anything changes.
NumPy is imported only where arrays are read or written.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from ..autograd.errors import RuntimeValueError
from ..autograd.kinds import kind_of
from ..disk import write_atomically

FORMAT = "topograd.state/1"
JSON_BYTES_PER_NUMBER = 64  # a number as save writes it takes at most about 30
JSON_SLACK = 64 * 1024  # the format, the description of the model, the names
_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


class _Overflowing(str):
    """A number of a JSON file beyond float64's range (1e400): refused, not read as inf."""


def _json_float(text: str) -> float | str:
    number = float(text)
    return number if math.isfinite(number) else _Overflowing(text)


def _is_array(x: object) -> bool:
    return hasattr(x, "dtype") and hasattr(x, "shape")


def numbers(p: Any) -> Any:
    """A node's numbers: a Tensor's array, a Value's float."""
    found = getattr(p, "array", None)
    return p.data if found is None else found


def state_of(named: Mapping[str, Any]) -> dict[str, Any]:
    """Every parameter's value by name: a float, or a copy of an array."""
    found = {name: numbers(p) for name, p in named.items()}
    return {name: x.copy() if _is_array(x) else x for name, x in found.items()}


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
    if strict and (keys.missing_keys or keys.unexpected_keys):
        pairs = (("missing", keys.missing_keys), ("unexpected", keys.unexpected_keys))
        listed = [
            f"{what} {', '.join(k[:3])}{' ...' if len(k) > 3 else ''}" for what, k in pairs if k
        ]
        problems.append(f"the state does not fit this {owner}: {'; '.join(listed)}")
        lines += [
            f"{what.capitalize()} key(s) in state_dict: {', '.join(map(repr_key, k))}. "
            for what, k in pairs
            if k
        ]
    values = {}
    for name in (n for n in named if n in state):
        try:
            values[name] = _checked(name, state[name], numbers(named[name]))
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


def save(path: str | Path, description: str, state: Mapping[str, Any]) -> None:
    """Write a state: JSON (readable, exact to the last bit), or ``.npz`` by its name; whole or
    not at all (a failed or killed save leaves the previous file as it was)."""
    write_atomically(path, encoded(path, description, state))


def encoded(path: str | Path, description: str, state: Mapping[str, Any]) -> bytes:
    """The bytes ``save`` writes to ``path``: ``.npz`` by its name, else JSON.

    >>> import json
    >>> json.loads(encoded("m.json", "a number", {"w": 0.5}))["state"]
    {'w': 0.5}
    >>> encoded("m.NPZ", "an array", {"w": 0.5})[:2]  # a zip archive
    b'PK'
    """
    if is_npz(path):
        import io

        import numpy as np

        buffer = io.BytesIO()
        np.savez(buffer, **{k: np.asarray(v) for k, v in state.items()})  # type: ignore[arg-type]
        return buffer.getvalue()
    import json  # saving and loading only: its import costs the start of every program

    document = {
        "format": FORMAT,
        "model": description,
        "state": {k: _encode(v) for k, v in state.items()},
    }
    return (json.dumps(document, indent=1) + "\n").encode("utf-8")


def load(
    path: str | Path, shapes: Mapping[str, tuple[int, ...] | None] | None = None
) -> dict[str, Any]:
    """Read a state written by ``save``; a file that is not one is refused with a ValueError
    naming the file and the cause, whatever is wrong with it (missing, a folder, unreadable,
    cut, hostile). ``shapes`` (each parameter's, () for a number; None: not checked) lets an
    ``.npz`` be checked member by member against the model before any array data is read."""
    try:
        with _regular(path) as file:
            return _npz(path, file, shapes) if is_npz(path) else _json(path, file, shapes)
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from None
    except RecursionError:
        raise ValueError(f"{path} is not a topograd state file: nested too deeply") from None


def is_npz(path: str | Path) -> bool:
    """Whether ``path`` names an ``.npz`` file (in any case: M.NPZ too).

    >>> is_npz("model.NPZ"), is_npz("model.json")
    (True, False)
    """
    return Path(path).suffix.lower() == ".npz"


def _regular(path: str | Path) -> BinaryIO:
    """``path`` opened for reading, if it is a regular file: a device (/dev/zero, endless) or
    a pipe (which would wait for a writer) is refused without reading."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise ValueError(f"cannot read {path}: it is a folder")
        if not stat.S_ISREG(mode):
            raise ValueError(f"{path} is not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _encode(value: Any) -> Any:
    if _is_array(value):
        return {
            "dtype": str(value.dtype),
            "shape": list(value.shape),
            "data": [_number_text(x) for x in value.ravel().tolist()],
        }
    return _number_text(value)


def _number_text(x: float) -> float | str:
    return x if math.isfinite(x) else repr(x)


def _json(
    path: str | Path, file: BinaryIO, shapes: Mapping[str, tuple[int, ...] | None] | None
) -> dict[str, Any]:
    import json

    if shapes is not None:  # never more than the model needs: each number, and some room
        numbers = sum(math.prod(shape or ()) for shape in shapes.values())
        limit = JSON_BYTES_PER_NUMBER * numbers + JSON_SLACK
        size = os.fstat(file.fileno()).st_size
        if size > limit:
            raise ValueError(
                f"{path} is {size} bytes, more than a state of this model takes ({limit})"
            )
    try:
        document = json.loads(file.read().decode("utf-8"), parse_float=_json_float)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is not a topograd state file: {error}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f'{path} is not a topograd state file (no "format": "{FORMAT}")')
    state = document.get("state")
    if not isinstance(state, dict):
        raise ValueError(f'{path} has no "state" object')
    return state


def _npz(
    path: str | Path, file: BinaryIO, shapes: Mapping[str, tuple[int, ...] | None] | None
) -> dict[str, Any]:
    """The arrays of an ``.npz``, each member's header read and checked (a name the model has,
    its shape, a real dtype, a size that fits the member) before its data; pickles refused."""
    import zipfile

    try:
        archive = zipfile.ZipFile(file)
    except (zipfile.BadZipFile, EOFError, ValueError) as error:
        raise ValueError(f"{path} is not a readable .npz state: {error}") from None
    with archive:
        state = {}
        for info in archive.infolist():
            name = info.filename.removesuffix(".npy")
            if shapes is not None and name not in shapes:
                raise ValueError(f"{path} holds {name!r}, which this model does not have")
            try:
                state[name] = _member(archive, info, shapes.get(name, ()) if shapes else None)
            except (zipfile.BadZipFile, EOFError, ValueError, OSError) as error:
                raise ValueError(f"{path}: member {name!r}: {error}") from None
        return state


def _member(archive: Any, info: Any, shape: tuple[int, ...] | None) -> Any:
    """One ``.npy`` member: its header first, then exactly the bytes it declares."""
    import numpy as np
    from numpy.lib import format as npy

    with archive.open(info) as member:
        version = npy.read_magic(member)
        if version == (1, 0):
            found, fortran, dtype = npy.read_array_header_1_0(member)
        elif version == (2, 0):
            found, fortran, dtype = npy.read_array_header_2_0(member)
        else:
            raise ValueError(f"an .npy format {version} this reader does not know")
        if dtype.hasobject or dtype.kind not in "fiu":
            raise ValueError(f"holds {dtype}, not real numbers (pickles are refused)")
        if shape is not None and found != shape:
            raise ValueError(f"has shape {found}, the model's is {shape}")
        size = math.prod(found) * dtype.itemsize
        if size > info.file_size:
            raise ValueError(f"declares {size} bytes of data in a member of {info.file_size}")
        data = member.read(size)
        if len(data) != size:
            raise ValueError("is cut short")
        array = np.frombuffer(data, dtype=dtype)
        return array.reshape(found, order="F" if fortran else "C").copy()


def _checked(name: str, value: object, current: Any) -> Any:
    """``value`` as a parameter like ``current`` (a float, or an array of its shape and dtype):
    from an array, a Tensor or a Value, anything ``np.asarray`` takes (PyTorch's tensors), or
    JSON's numbers. A number the parameter's dtype cannot hold is refused, not cast: 1e300 for
    float32 (not inf), a complex number, 2.5 or 2**63 for an integer."""
    if kind_of(value) is not None:
        value = numbers(value)  # a Tensor's array, a Value's number
    if not _is_array(current):
        return _number(name, value)
    import numpy as np

    if isinstance(value, dict):  # from JSON
        value = _from_json(name, value, current.dtype)
    elif not isinstance(value, (str, np.ndarray)):
        value = _as_array(value)
    wanted = f"the value of {name} must be an array of shape {current.shape}"
    if not isinstance(value, np.ndarray):
        raise ValueError(wanted)
    if value.shape != current.shape:
        raise ValueError(f"size mismatch for {name}: {wanted}, got shape {value.shape}")
    if value.dtype.kind not in "fiu":
        raise ValueError(f"the value of {name} holds {value.dtype}, not real numbers")
    return _cast(name, value, current.dtype)


def _cast(name: str, value: Any, dtype: Any) -> Any:
    """``value`` in ``dtype``, if every number survives: a finite one stays finite in a float
    dtype (rounded to it), and an integer dtype holds exactly the same number."""
    import numpy as np

    with np.errstate(over="ignore", invalid="ignore"):
        cast = value.astype(dtype)
        if dtype.kind == "f":
            lost = np.isfinite(value) & ~np.isfinite(cast)
        elif value.dtype.kind == "f":  # a fraction, nan, inf or beyond the range: not back
            lost = cast.astype(value.dtype) != value
        else:  # (int64 and uint64 wrap onto each other: there and back again proves nothing)
            limits = np.iinfo(dtype)
            lost = (value < limits.min) | (value > limits.max)
    if lost.any():
        number = value[lost].flat[0].item()
        raise ValueError(f"the value of {name} holds {number!r}, which {dtype} cannot hold")
    return cast


def _from_json(name: str, value: dict[str, Any], dtype: Any) -> Any:
    """An array of ``dtype`` from its JSON form (None where its shape and data do not fit):
    whole numbers kept whole for an integer dtype, a complex dtype refused."""
    import numpy as np

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


def _as_array(value: object) -> Any:
    """``value`` as NumPy takes it (a PyTorch tensor, a list of numbers), or itself."""
    import numpy as np

    try:
        return np.asarray(value)
    except (TypeError, ValueError, RuntimeError):  # (a tensor that requires grad: RuntimeError)
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
    if isinstance(value, _Overflowing):
        raise ValueError(f"the value of {name} holds {value[:40]}, beyond float64's range")
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    if _is_array(value) and value.shape == () and value.dtype.kind in "fiu":  # type: ignore[attr-defined]
        return float(value)  # type: ignore[arg-type]  # a 0-d array, read back from .npz
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"the value of {name} must be a number, got {str(value)[:40]!r}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"the value of {name} is an integer too large for a float") from None
