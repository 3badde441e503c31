"""Files on disk, written whole or not at all: the lowest layer, standard library only."""

from .atomic import writable, write_all, write_atomically

__all__ = ["writable", "write_all", "write_atomically"]
