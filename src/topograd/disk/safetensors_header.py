"""The header of a safetensors file, read and checked before a byte of its data is.

A safetensors file is the length N of its header (8 bytes, little-endian), N bytes of JSON (an
object: each tensor's name -> ``{"dtype", "shape", "data_offsets": [begin, end]}``, the offsets
counted from the end of the header, and an optional ``"__metadata__"`` of strings), then the
tensors' bytes, back to back. A hostile file may declare a header of 2**60 bytes, a tensor of
a terabyte in a file of a kilobyte, two tensors on the same bytes, a gap or a tail that no
tensor holds (where another format's file may hide), a name twice, or a dtype the reader cannot
hold. Each is refused here, with a ValueError naming the file and the cause, from the length
and the header alone: the header's length is bounded, and every offset checked against the
file's size, so nothing is read that the file does not hold nor more than the caller allows.

Standard library only: the ``safetensors`` package reads the data once the header is sound.

>>> import io, json, struct
>>> header = json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode()
>>> file = io.BytesIO(struct.pack("<Q", len(header)) + header + bytes(8))
>>> read_header(file, "m.safetensors", {"F32": 4}).entries
(Entry(name='w', dtype='F32', shape=(2,), begin=0, end=8),)
>>> read_header(io.BytesIO(b"\\xff" * 8), "m.safetensors", {"F32": 4})
Traceback (most recent call last):
...
ValueError: m.safetensors declares a header of 18446744073709551615 bytes, more than the \
100000000 a header may have
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from .reading import read_exactly

HEADER_LIMIT = 100_000_000  # the safetensors package's own bound on a header
LENGTH = struct.Struct("<Q")
METADATA = "__metadata__"
FIELDS = {"dtype", "shape", "data_offsets"}
# what other formats' files begin with, for a message that says what the file is instead
_OTHERS = {
    b"PK\x03\x04": "a zip archive (what torch.save writes: a pickle inside), not safetensors",
    b"\x93NUMPY": "a NumPy .npy array, not safetensors",
}
_PICKLE = b"\x80"  # a pickle's first byte (protocol 2 and later: torch.save's legacy format)


@dataclass(frozen=True)
class Entry:
    """One tensor as the header declares it: its dtype's name in the format ("F32"), its
    shape, and where its bytes lie, counted from the start of the data."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    begin: int
    end: int


@dataclass(frozen=True)
class Header:
    """A sound header: the entries in the order of their data, the metadata, where the data
    starts in the file (``offset``) and how many bytes it takes (``data``), and the file's
    bytes up to its data as they were checked (``text``)."""

    entries: tuple[Entry, ...]
    metadata: dict[str, str]
    offset: int
    data: int
    text: bytes = field(repr=False)


def read_header(
    file: BinaryIO,
    path: Any,
    sizes: Mapping[str, int],
    refused: Mapping[str, str] | None = None,
    limit: int = HEADER_LIMIT,
) -> Header:
    """The header of the safetensors ``file``, every entry checked: a dtype of
    ``sizes`` (the format's names the caller holds, with their sizes in bytes; ``refused``
    says why another is not held), a shape of sizes, offsets that tile the data exactly, to
    the end of the file. The file is left at the start of its data. ``path`` names the file
    in every error; ``limit`` bounds the header's length."""
    total = file.seek(0, os.SEEK_END)  # (a regular file's size: open_regular checked it)
    file.seek(0)
    length = _length(file, path, total, limit)
    text = read_exactly(file, length)
    if text is None:
        raise ValueError(f"{path} is cut short: it ends within its header")
    entries, metadata = _entries(path, _document(path, text), sizes, refused or {})
    data = _tiled(path, entries, total - LENGTH.size - length)
    return Header(tuple(entries), metadata, LENGTH.size + length, data, LENGTH.pack(length) + text)


def _length(file: BinaryIO, path: Any, total: int, limit: int) -> int:
    """The header's length, from the first 8 bytes, within ``limit`` and the file."""
    start = read_exactly(file, LENGTH.size)
    if start is None:
        raise ValueError(f"{path} is cut short: {total} bytes, less than a safetensors header")
    for magic, what in _OTHERS.items():
        if start.startswith(magic):
            raise ValueError(f"{path} is {what}")
    if start[:1] == _PICKLE and 2 <= start[1] <= 5:
        raise ValueError(f"{path} is a pickle (torch.save's format), not safetensors")
    (length,) = LENGTH.unpack(start)
    if length > limit:
        raise ValueError(
            f"{path} declares a header of {length} bytes, more than the {limit} a header may have"
        )
    if length > total - LENGTH.size:
        raise ValueError(
            f"{path} is cut short: it declares a header of {length} bytes, and "
            f"{total - LENGTH.size} follow"
        )
    return int(length)


def _document(path: Any, text: bytes) -> dict[str, Any]:
    """The header's JSON object: UTF-8, starting with "{", each name in it once."""
    if not text.startswith(b"{"):
        raise ValueError(f"{path} is not a safetensors file: its header is not a JSON object")
    try:
        document = json.loads(text.decode("utf-8"), object_pairs_hook=_once)
    except (UnicodeDecodeError, ValueError) as error:  # (JSONDecodeError is a ValueError)
        raise ValueError(f"{path} is not a safetensors file: its header: {error}") from None
    except RecursionError:
        raise ValueError(f"{path} is not a safetensors file: its header nests too deeply") from None
    if not isinstance(document, dict):
        raise ValueError(f"{path} is not a safetensors file: its header is not a JSON object")
    return document


def _once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose names are all different (``json`` would keep the last of two)."""
    found: dict[str, Any] = {}
    for name, value in pairs:
        if name in found:
            raise ValueError(f"the name {name[:80]!r} is given twice")
        found[name] = value
    return found


def _entries(
    path: Any, document: dict[str, Any], sizes: Mapping[str, int], refused: Mapping[str, str]
) -> tuple[list[Entry], dict[str, str]]:
    """The tensors the header declares, in the order of their data, and its metadata."""
    metadata = document.pop(METADATA, {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise ValueError(f"{path}: its header's {METADATA} is not an object of strings")
    entries = [_entry(path, name, info, sizes, refused) for name, info in document.items()]
    return sorted(entries, key=lambda e: (e.begin, e.end)), metadata


def _entry(
    path: Any, name: str, info: Any, sizes: Mapping[str, int], refused: Mapping[str, str]
) -> Entry:
    """One entry of the header, its dtype, shape and offsets checked against each other."""
    named = f"{path}: tensor {name[:80]!r}"
    if not isinstance(info, dict) or set(info) != FIELDS:
        raise ValueError(f"{named} is not declared by {', '.join(sorted(FIELDS))} alone")
    dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    if not isinstance(dtype, str) or dtype not in sizes:
        why = refused.get(dtype) if isinstance(dtype, str) else None
        told = f"which topograd does not hold: {why}" if why else "not a dtype topograd reads"
        raise ValueError(f"{named} is of dtype {str(dtype)[:40]!r}, {told}")
    if not isinstance(shape, list) or not all(_whole(n) for n in shape):
        raise ValueError(f"{named} has shape {str(shape)[:80]}, not a list of sizes")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(map(_whole, offsets))):
        raise ValueError(f"{named} has data_offsets {str(offsets)[:80]}, not [begin, end]")
    begin, end = offsets
    size = math.prod(shape) * sizes[dtype]
    if end - begin != size:
        raise ValueError(
            f"{named} declares {dtype} of shape {tuple(shape)}, {size} bytes, but its "
            f"data_offsets {offsets} span {end - begin}"
        )
    return Entry(name, dtype, tuple(shape), begin, end)


def _whole(n: object) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and n >= 0


def _tiled(path: Any, entries: list[Entry], available: int) -> int:
    """The length of the data: the entries (in the order of their data) must cover it from
    its first byte to the file's last, without overlap or gap."""
    end, last = 0, None
    for entry in entries:
        if entry.begin < end:
            raise ValueError(f"{path}: tensor {entry.name!r} overlaps {last!r} in the data")
        if entry.begin > end:
            raise ValueError(
                f"{path}: bytes {end} to {entry.begin} of the data, before tensor "
                f"{entry.name!r}, belong to no tensor"
            )
        end, last = entry.end, entry.name
    if end > available:
        raise ValueError(
            f"{path} is cut short: its header declares {end} bytes of data, and {available} follow"
        )
    if end < available:
        raise ValueError(
            f"{path} has {available - end} bytes after its data that belong to no tensor"
        )
    return end
