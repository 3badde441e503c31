"""A module's state on disk, in the format its file's name says: ``.safetensors`` (the format
PyTorch's users share weights in: ``safetensors_files.py``), ``.npz`` (NumPy's), else JSON,
readable and exact to the last bit (non-finite numbers as "inf", "-inf", "nan"); never pickle.
Loading checks the whole file before anything changes, and a file for a model against the model
(its names, shapes and size) before any data is read. NumPy is imported only where arrays are
read or written.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO

from ..disk import open_regular, write_atomically
from .state_checks import json_float

FORMAT = "topograd.state/1"
JSON_BYTES_PER_NUMBER = 64  # a number as save writes it takes at most about 30
JSON_SLACK = 64 * 1024  # the format, the description of the model, the names
SAFETENSORS, NPZ, JSON = ".safetensors", ".npz", ".json"
Shapes = Mapping[str, tuple[int, ...]]


def file_format(path: str | os.PathLike[str]) -> str:
    """The format a file's name asks for: ".safetensors" or ".npz" by its suffix (in any case),
    else ".json".

    >>> file_format("m.SafeTensors"), file_format("m.NPZ"), file_format("m.txt")
    ('.safetensors', '.npz', '.json')
    """
    suffix = Path(path).suffix.lower()
    return suffix if suffix in (SAFETENSORS, NPZ) else JSON


def save(path: str | os.PathLike[str], description: str, state: Mapping[str, Any]) -> None:
    """Write a state in the format of its file's name (``file_format``), whole or not at all (a
    failed or killed save leaves the previous file as it was)."""
    write_atomically(path, encoded(path, description, state))


def encoded(path: str | os.PathLike[str], description: str, state: Mapping[str, Any]) -> bytes:
    """The bytes ``save`` writes to ``path``: safetensors or ``.npz`` by its name, else JSON.

    >>> import json
    >>> json.loads(encoded("m.json", "a number", {"w": 0.5}))["state"]
    {'w': 0.5}
    >>> encoded("m.NPZ", "an array", {"w": 0.5})[:2]  # a zip archive
    b'PK'
    """
    kind = file_format(path)
    if kind == SAFETENSORS:
        from . import safetensors_files

        return safetensors_files.encoded(state, str(path))
    if kind == NPZ:
        import io

        import numpy as np

        from .state_checks import numbers_of

        buffer = io.BytesIO()
        np.savez(buffer, **{k: np.asarray(numbers_of(v)) for k, v in state.items()})  # type: ignore[arg-type]
        return buffer.getvalue()
    import json  # saving and loading only: its import costs the start of every program

    document = {
        "format": FORMAT,
        "model": description,
        "state": {k: _encode(v) for k, v in state.items()},
    }
    return (json.dumps(document, indent=1) + "\n").encode("utf-8")


def load(
    path: str | os.PathLike[str], shapes: Shapes | None = None, owner: str = "model"
) -> dict[str, Any]:
    """Read a state written by ``save`` (or, as safetensors, by PyTorch's ``safetensors``); a
    file that is not one is refused with a ValueError naming the file and the cause, whatever
    is wrong with it (missing, a folder, unreadable, cut, hostile). ``shapes`` (each
    parameter's, () for a number) are the model's, ``owner`` its class: a safetensors file or
    an ``.npz`` is checked against them before any data is read, and a JSON file's size."""
    try:
        with open_regular(path) as file:
            kind = file_format(path)
            if kind == SAFETENSORS:
                from . import safetensors_files

                return safetensors_files.arrays_of(file, path, shapes, owner)
            return _npz(path, file, shapes) if kind == NPZ else _json(path, file, shapes)
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from None
    except RecursionError:
        raise ValueError(f"{path} is not a topograd state file: nested too deeply") from None


def _encode(value: Any) -> Any:
    from .state_checks import numbers_of

    value = numbers_of(value)
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return {
            "dtype": str(value.dtype),
            "shape": list(value.shape),
            "data": [_number_text(x) for x in value.ravel().tolist()],
        }
    return _number_text(value)


def _number_text(x: float) -> float | str:
    return x if math.isfinite(x) else repr(x)


def _json(path: str | os.PathLike[str], file: BinaryIO, shapes: Shapes | None) -> dict[str, Any]:
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
        document = json.loads(file.read().decode("utf-8"), parse_float=json_float)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is not a topograd state file: {error}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f'{path} is not a topograd state file (no "format": "{FORMAT}")')
    state = document.get("state")
    if not isinstance(state, dict):
        raise ValueError(f'{path} has no "state" object')
    return state


def _npz(path: str | os.PathLike[str], file: BinaryIO, shapes: Shapes | None) -> dict[str, Any]:
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
