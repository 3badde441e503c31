"""Files on disk, written whole or not at all: the lowest layer, standard library only."""

from .atomic import write_atomically

__all__ = ["write_atomically"]
