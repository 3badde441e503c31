"""Files on disk: written whole or not at all, read only when they are regular files, and a
safetensors header checked before its data: the lowest layer, standard library only."""

from .atomic import writable, writable_file, write_all, write_atomically
from .reading import open_regular, read_exactly
from .safetensors_header import HEADER_LIMIT, Entry, Header, read_header

__all__ = [
    "HEADER_LIMIT",
    "Entry",
    "Header",
    "open_regular",
    "read_exactly",
    "read_header",
    "writable",
    "writable_file",
    "write_all",
    "write_atomically",
]
