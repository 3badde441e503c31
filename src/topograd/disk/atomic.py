"""Write files whole or not at all: a full disk, a file-size limit, a crash or a SIGKILL in
the middle of a save leaves the previous files as they were, byte for byte, and no stray file.

Each file's bytes go first to a file with no name in the target's folder (Linux's
``O_TMPFILE``: if the process dies, the kernel frees it) and are flushed to the disk
(``fsync``); only when every file of the call is staged so, each is linked under a temporary
name and renamed over its target in one step (``os.replace``), and the folders are flushed
too. So several outputs of one command are written all or none. Where the file system has no
unnamed files, a named temporary file takes its place and is removed on any error; one a
SIGKILL could leave between two steps has a fixed name (``.<name>.topograd-tmp``), which the
next save of the same file replaces.

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
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def temporary_name(path: Path) -> Path:
    """The name a save of ``path`` uses before the rename (in the same folder)."""
    return path.with_name(f".{path.name}.topograd-tmp")


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace the file at ``path`` with ``data`` in one step, or raise OSError and leave it
    (and its folder) as they were."""
    write_all({path: data})


def write_all(files: Mapping[Any, bytes]) -> None:
    """Write every file (path -> bytes), or (raising OSError) none: each is staged and
    flushed before any target is replaced."""
    staged: list[tuple[int, Path, bool]] = []  # (fd, target, named already)
    try:
        for path, data in files.items():
            staged.append(_stage(Path(path), data))
        for fd, target, named in staged:
            if not named:
                _name(fd, target)
        for _, target, _ in staged:
            os.replace(temporary_name(target), target)
    except BaseException:
        for _, target, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(temporary_name(target))
        raise
    finally:
        for fd, _, _ in staged:
            os.close(fd)
    for folder in {target.parent for _, target, _ in staged}:
        _sync_folder(folder)


def writable(folder: str | os.PathLike[str]) -> None:
    """Raise OSError unless a file can be created in ``folder`` (tried, and undone)."""
    folder = Path(folder)
    fd = _unnamed_file(folder)
    if fd is None:
        probe = folder / ".topograd-probe"
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.unlink(probe)
    os.close(fd)


def _stage(target: Path, data: bytes) -> tuple[int, Path, bool]:
    """The bytes in a flushed file of ``target``'s folder: unnamed if it can be, else under
    the temporary name. (fd, target, whether it is named already.)"""
    fd = _unnamed_file(target.parent)
    named = fd is None
    if fd is None:
        create = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        fd = os.open(temporary_name(target), create, 0o644)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        if named:
            with contextlib.suppress(OSError):
                os.unlink(temporary_name(target))
        raise
    return fd, target, named


def _unnamed_file(folder: Path) -> int | None:
    """A file with no name in ``folder`` (O_TMPFILE), or None where there is none to be had."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY, 0o644)
    except OSError as error:
        if error.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return None
        raise


def _name(fd: int, target: Path) -> None:
    """Give the unnamed file ``fd`` the temporary name of ``target``: linkat following
    /proc/self/fd/N (os.link passes that path to linkat, which follows it, only when given a
    directory fd)."""
    name = temporary_name(target)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name)  # a leftover of a save that was killed
    folder = os.open(target.parent, os.O_RDONLY)
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
