"""Files on disk, written whole or not at all: the lowest layer, standard library only."""

from .atomic import writable, writable_file, write_all, write_atomically

__all__ = ["writable", "writable_file", "write_all", "write_atomically"]
