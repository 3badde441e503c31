"""A state as a safetensors file, the format PyTorch's users share weights in: written by the
``safetensors`` package's NumPy API (``safetensors.numpy.save``), read by it too once
``disk.read_header`` has found the header sound and, for a model, every name and shape checked
against the model's, before any data is read. The dtypes are those a Tensor holds (bool, uint8,
int8 to int64, float16 to float64); a file of another (BF16, F8, complex) is refused, naming
the tensor and why. ``safetensors`` is imported only here, when a file is read or written.

>>> import numpy as np
>>> data = encoded({"w": np.arange(3.0, dtype=np.float32)})
>>> data[8:9], b'"dtype":"F32"' in data
(b'{', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, BinaryIO

import numpy as np

from ..disk import HEADER_LIMIT, Header, read_exactly, read_header
from ..tensors import dtypes
from .state_checks import IncompatibleKeys, as_array, numbers_of, unmatched

# The format's name of each dtype a Tensor holds ("F32" for float32), and its size in bytes.
CODES: dict[np.dtype[Any], str] = {
    d.dtype: "BOOL" if d is dtypes.boolean else f"{d.dtype.kind.upper()}{d.dtype.itemsize * 8}"
    for d in dtypes.DTYPES
}
SIZES = {code: int(numpy.itemsize) for numpy, code in CODES.items()}
# The format's other dtypes, each with why a Tensor does not hold it.
REFUSED = {
    "BF16": dtypes.MISSING["bfloat16"],
    "C64": dtypes.MISSING["complex64"],
    **{f"U{bits}": dtypes.MISSING[f"uint{bits}"] for bits in (16, 32, 64)},
    **dict.fromkeys(
        ("F8_E4M3", "F8_E5M2", "F8_E8M0", "F6_E2M3", "F6_E3M2", "F4"),
        "NumPy has no floats of fewer than 16 bits",
    ),
}
METADATA = {"format": "pt"}  # the layout's (PyTorch's names and shapes), as its loaders expect
HEADER_SLACK = 64 * 1024  # a model's header: the metadata, and room for the names' entries
BYTES_PER_ENTRY = 256
NUMBERS = (bool, int, float)


def encoded(state: Mapping[str, Any], where: str = "") -> bytes:
    """The bytes of a safetensors file of ``state`` (names -> Tensors, arrays, numbers, or
    what ``np.asarray`` takes): each value in its own dtype, which must be one a Tensor holds
    (a number as a float64 of no axes). ``where`` (a file's name) starts every error."""
    import safetensors.numpy

    arrays = {name: _array(name, value, where) for name, value in state.items()}
    return safetensors.numpy.save(arrays, metadata=METADATA)


def _array(name: object, value: Any, where: str) -> Any:
    """``value`` as a C-ordered array (the package writes an array's memory as it lies)."""
    told = f"{where}: " if where else ""
    if not isinstance(name, str):
        raise TypeError(f"{told}a safetensors file names its tensors by strings, not {name!r}")
    found = numbers_of(value)
    array = as_array(found) if isinstance(found, NUMBERS) or hasattr(found, "__array__") else None
    if not isinstance(array, np.ndarray):
        raise TypeError(
            f"{told}{name!r} is a {type(value).__name__}: a safetensors file holds Tensors "
            "(or arrays) by name, nothing else"
        )
    if array.dtype.newbyteorder("=") not in CODES:
        raise ValueError(f"{told}{name!r} holds {array.dtype}, which a Tensor does not hold")
    return np.asarray(array, order="C")


def header_of(
    file: BinaryIO, path: Any, shapes: Mapping[str, tuple[int, ...]] | None, owner: str
) -> Header:
    """The file's header, checked; for a model (``shapes``: each name's shape), its names and
    shapes against the model's too, and its length bounded by what the model's takes."""
    if shapes is None:
        return read_header(file, path, SIZES, REFUSED, HEADER_LIMIT)
    limit = HEADER_SLACK + BYTES_PER_ENTRY * len(shapes)
    header = read_header(file, path, SIZES, REFUSED, limit)
    names = [e.name for e in header.entries]
    keys = IncompatibleKeys(
        [n for n in shapes if n not in names], [n for n in names if n not in shapes]
    )
    problem = unmatched(owner, keys)
    if problem is not None:
        raise ValueError(f"{path}: {problem[0]}")
    for entry in header.entries:
        if entry.shape != tuple(shapes[entry.name]):
            raise ValueError(
                f"{path}: size mismatch for {entry.name}: the file holds shape "
                f"{entry.shape}, the model's is {tuple(shapes[entry.name])}"
            )
    return header


def arrays_of(
    file: BinaryIO,
    path: Any,
    shapes: Mapping[str, tuple[int, ...]] | None = None,
    owner: str = "model",
) -> dict[str, Any]:
    """The arrays of a safetensors file (writable, in the order of their data), the header
    checked first (``header_of``), then exactly the bytes it declares read and handed to the
    ``safetensors`` package.

    >>> import io
    >>> arrays_of(io.BytesIO(encoded({"w": np.ones(2, np.float16)})), "m.safetensors")
    {'w': array([1., 1.], dtype=float16)}
    """
    import safetensors.numpy

    header = header_of(file, path, shapes, owner)
    file.seek(0)
    data = read_exactly(file, header.offset + header.data)
    if data is None:  # (it shrank since it was measured)
        raise ValueError(f"{path} is cut short: it ends within its data")
    if not data.startswith(header.text):
        raise ValueError(f"{path} changed while it was read: its header is not the one checked")
    try:
        found = safetensors.numpy.load(data)
    except Exception as error:  # (the package's own SafetensorError; never expected here)
        raise ValueError(f"{path} is not a readable safetensors file: {error}") from None
    del data
    arrays = (found[e.name] for e in header.entries)  # (each of a buffer of its own)
    return {e.name: a if a.flags.writeable else a.copy() for e, a in zip(header.entries, arrays)}
