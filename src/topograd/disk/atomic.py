"""Write files whole or not at all: a full disk, a file-size limit, a crash or a SIGKILL in
the middle of a save leaves the previous files as they were, byte for byte.

Each file's bytes go first to a file with no name in the target's folder (Linux's
``O_TMPFILE``: if the process dies, the kernel frees it), with the old file's permissions, and
are flushed to the disk (``fsync``); only when every file of the call is staged so, each is
linked under a temporary name of its own (``.topograd-PID-RANDOM.tmp``) and renamed over its
target (``os.replace``), and the folders are flushed too. So several outputs of one command are
written all or none, unless the machine stops between two of the renames. A SIGKILL in the
instant between a link and its rename leaves one temporary file, which the next save into that
folder removes (its process is gone). Where the file system has no unnamed files, a named
temporary file takes their place from the start. A symbolic link is written through, as
``open`` would; a target that is not a regular file (a pipe, ``/dev/stdout``) is written
directly, after the others are staged.

A save fails where ``open(path, "w")`` would, with its error: a file its user may not write
(mode 0o444, or a read-only mount of the file alone) is refused, not replaced, although the
rename in its folder would succeed. Every error names the file it was writing, as the path
was given (a full disk's too, which the kernel reports without one).

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
import re
import secrets
import stat
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LEFTOVER = re.compile(r"\.topograd-(\d+)-[0-9a-f]+\.tmp")


@dataclass(frozen=True)
class _Staged:
    fd: int
    target: Path
    temporary: Path
    named: bool  # linked under ``temporary`` already
    given: Any  # the path as the caller wrote it, for errors


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace the file at ``path`` with ``data`` in one step, or raise OSError and leave it
    (and its folder) as they were."""
    write_all({path: data})


def write_all(files: Mapping[Any, bytes]) -> None:
    """Write every file (path -> bytes), or (raising OSError) none: each is staged and
    flushed before any target is replaced.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_all({folder / "a.svg": b"<svg/>", folder / "b.dot": b"digraph {}"})
    >>> sorted(p.name for p in folder.iterdir())
    ['a.svg', 'b.dot']
    """
    regular, special = {}, {}
    for path, data in files.items():
        old = _status(Path(path))  # (through links: /dev/stdout is the pipe it stands for)
        if old and not stat.S_ISREG(old.st_mode):
            special[path] = data
        else:
            regular[Path(os.path.realpath(path))] = (path, data)
    for folder in {target.parent for target in regular}:
        _remove_leftovers(folder)
    staged: list[_Staged] = []
    try:
        for target, (path, data) in regular.items():
            with _naming(path):
                staged.append(_stage(target, data, path))
        for path, data in special.items():
            with _naming(path), open(path, "wb") as stream:
                stream.write(data)
        for file in staged:
            if not file.named:
                with _naming(file.given):
                    _link(file)
        for file in staged:
            with _naming(file.given):
                os.replace(file.temporary, file.target)
    except BaseException:
        for file in staged:
            with contextlib.suppress(OSError):
                os.unlink(file.temporary)
        raise
    finally:
        for file in staged:
            os.close(file.fd)
    for folder in {file.target.parent for file in staged}:
        _sync_folder(folder)


def writable(folder: str | os.PathLike[str]) -> None:
    """Raise OSError unless a file can be created in ``folder`` (tried, and undone).

    >>> import tempfile
    >>> writable(tempfile.mkdtemp())
    """
    folder = Path(folder)
    fd = _unnamed_file(folder, 0o600)
    if fd is None:
        probe = _temporary(folder)
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.unlink(probe)
    os.close(fd)


def writable_file(path: str | os.PathLike[str]) -> None:
    """Raise the OSError ``open(path, "w")`` would raise, changing nothing: an existing file is
    opened for appending (nothing written) and closed; for a new one, its folder is tried.

    >>> import pathlib, tempfile
    >>> writable_file(pathlib.Path(tempfile.mkdtemp()) / "new.json")
    """
    old = _status(Path(path))
    if old is None:
        writable(os.path.dirname(os.path.realpath(path)))
    elif stat.S_ISREG(old.st_mode):  # (a pipe is opened when written: it may wait for a reader)
        os.close(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC))


@contextlib.contextmanager
def _naming(path: Any) -> Iterator[None]:
    """An OSError raised inside named for ``path`` as given: a full disk's error names no file,
    a failed staging names the folder, a failed rename the temporary file."""
    try:
        yield
    except OSError as error:
        if error.errno is None or error.filename == os.fspath(path):
            raise
        raise OSError(error.errno, error.strerror, os.fspath(path)) from error


def _temporary(folder: Path) -> Path:
    """A name of this process's own in ``folder``, short whatever the target's name."""
    return folder / f".topograd-{os.getpid()}-{secrets.token_hex(4)}.tmp"


def _remove_leftovers(folder: Path) -> None:
    """Remove the temporary files of saves whose process is gone (killed mid-rename)."""
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            match = LEFTOVER.fullmatch(entry.name)
            if match and not _alive(int(match.group(1))):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, and is someone else's
        return True
    return True


def _stage(target: Path, data: bytes, given: Any) -> _Staged:
    """The bytes in a flushed file of ``target``'s folder, with the old file's permissions
    (and owner, when root): unnamed if it can be, else under a temporary name. An old file
    that ``open(given, "w")`` would refuse is refused so, before anything is written."""
    old = _status(target)
    if old:
        writable_file(given)
    mode = stat.S_IMODE(old.st_mode) if old else 0o666  # a new file: as umask allows
    temporary = _temporary(target.parent)
    fd = _unnamed_file(target.parent, mode)
    named = fd is None
    if fd is None:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        if old:
            os.fchmod(fd, mode)  # whatever the umask
            if os.geteuid() == 0:
                os.fchown(fd, old.st_uid, old.st_gid)
        _write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        if named:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        raise
    return _Staged(fd, target, temporary, named, given)


def _status(target: Path) -> os.stat_result | None:
    try:
        return os.stat(target)
    except FileNotFoundError:
        return None


def _unnamed_file(folder: Path, mode: int) -> int | None:
    """A file with no name in ``folder`` (O_TMPFILE), or None where there is none to be had."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY, mode)
    except OSError as error:
        if error.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return None
        raise


def _link(file: _Staged) -> None:
    """Give the unnamed file its temporary name: linkat following /proc/self/fd/N (os.link
    passes that path to linkat, which follows it, only when given a directory fd)."""
    folder = os.open(file.target.parent, os.O_RDONLY)
    try:
        os.link(f"/proc/self/fd/{file.fd}", file.temporary, src_dir_fd=folder, follow_symlinks=True)
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
