"""Write a file whole or not at all: a full disk, a file-size limit, a crash or a SIGKILL in
the middle of a save leaves the previous file as it was, byte for byte, and no stray file.

The bytes go first to a file with no name in the target's folder (Linux's ``O_TMPFILE``: if
the process dies, the kernel frees it), are flushed to the disk (``fsync``), then linked under
a temporary name and renamed over the target in one step (``os.replace``), and the folder is
flushed too. Where the file system has no unnamed files, a named temporary file takes its
place and is removed on any error; the one a SIGKILL could leave between two steps has a fixed
name (``.<name>.topograd-tmp``), which the next save of the same file replaces.

>>> import pathlib, tempfile
>>> target = pathlib.Path(tempfile.mkdtemp()) / "model.json"
>>> write_atomically(target, b"{}\\n")
>>> target.read_bytes()
b'{}\\n'
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path


def temporary_name(path: Path) -> Path:
    """The name a save of ``path`` uses before the rename (in the same folder)."""
    return path.with_name(f".{path.name}.topograd-tmp")


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace the file at ``path`` with ``data`` in one step, or raise OSError and leave it
    (and its folder) as they were."""
    target = Path(path)
    folder = target.parent
    staged = temporary_name(target)
    unnamed = _unnamed_file(folder)
    named = unnamed is None
    create = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    fd = os.open(staged, create, 0o644) if unnamed is None else unnamed
    try:
        _write_all(fd, data)
        os.fsync(fd)
        if not named:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staged)  # a leftover of a save that was killed
            _name(fd, staged)
        os.replace(staged, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(staged)
        raise
    finally:
        os.close(fd)
    _sync_folder(folder)


def _unnamed_file(folder: Path) -> int | None:
    """A file with no name in ``folder`` (O_TMPFILE), or None where there is none to be had."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY, 0o644)
    except OSError as error:
        if error.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
            if error.errno == errno.ENOENT and not folder.is_dir():
                raise
            return None
        raise


def _name(fd: int, name: Path) -> None:
    """Give the unnamed file ``fd`` a name: linkat following /proc/self/fd/N (os.link takes
    that path to linkat, which follows it, only when given a directory fd)."""
    folder = os.open(name.parent, os.O_RDONLY)
    try:
        os.link(f"/proc/self/fd/{fd}", name, src_dir_fd=folder, follow_symlinks=True)
    finally:
        os.close(folder)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _sync_folder(folder: Path) -> None:
    """Flush the folder's entry for the renamed file (where the system allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
