"""Files opened for reading only when they are regular files: a device (``/dev/zero``, endless),
a pipe (which would wait for a writer) or a folder is refused before a byte is read.

>>> import pathlib, tempfile
>>> path = pathlib.Path(tempfile.mkdtemp()) / "m.json"
>>> _ = path.write_bytes(b"{}")
>>> with open_regular(path) as file:
...     file.read()
b'{}'
>>> open_regular("/dev/zero")
Traceback (most recent call last):
...
ValueError: /dev/zero is not a regular file
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading in binary, if it is a regular file (a ValueError naming it
    otherwise); an OSError where it cannot be opened at all (missing, unreadable)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # (a pipe without a writer: no wait)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise ValueError(f"cannot read {os.fspath(path)}: it is a folder")
        if not stat.S_ISREG(mode):
            raise ValueError(f"{os.fspath(path)} is not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_exactly(file: BinaryIO, size: int) -> bytes | None:
    """The next ``size`` bytes of ``file``, or None where it ends sooner (a file cut short, or
    one that shrank since it was measured).

    >>> import io
    >>> read_exactly(io.BytesIO(b"abc"), 2), read_exactly(io.BytesIO(b"abc"), 4)
    (b'ab', None)
    """
    data = file.read(size)
    return data if len(data) == size else None
