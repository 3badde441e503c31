"""What every command shares: one-line refusals, argument types, writing an output file.

An output file is checked before the work: one that could not be written is refused as bad
input (``UsageError``, exit status 2). A write that fails after the work (a full disk) is a
``WriteError`` (exit status 1), naming the file and its flag, and leaves no file of the run
and no folder the command made for it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NoReturn

from ..disk import writable, writable_file, write_all


class Parser(argparse.ArgumentParser):
    """argparse, with every refusal one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


class UsageError(Exception):
    """Bad input from the user: reported as one line, exit status 2."""


class WriteError(Exception):
    """An output file that could not be written after the work (a full disk): reported as one
    line naming the file and its flag, exit status 1 (as ``echo > /dev/full``)."""


def port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, got {value}")
    return value


def natural(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def between(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high`` (argparse names the flag).

    >>> steps = between(1, 1000)
    >>> steps("30")
    30
    >>> steps("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be from 1 to 1000, got 0
    """

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, got {text}")
        return value

    return whole


def check_outputs(flags: Mapping[str, tuple[str | None, tuple[str, ...]]]) -> None:
    """Refuse, before any work, output files that could not be written: per flag, its path
    (or None) and the suffixes it may end in. Refused: another suffix, a missing folder, a
    folder in the way, a folder that takes no file, a file open(path, "w") would refuse (mode
    0o444), two flags naming one file.

    >>> check_outputs({"--svg": ("g.svg", ()), "--dot": ("./g.svg", ())})
    Traceback (most recent call last):
    ...
    topograd.cli.common.UsageError: --svg and --dot name the same file: ./g.svg
    """
    named: dict[str, str] = {}  # real path -> the flag that named it
    for flag, (path, suffixes) in flags.items():
        if not path:
            continue
        _check_output(path, flag, suffixes)
        real = os.path.realpath(path)
        if real in named:
            raise UsageError(f"{named[real]} and {flag} name the same file: {path}")
        named[real] = flag


def _check_output(path: str, flag: str, suffixes: tuple[str, ...]) -> None:
    target, real = Path(path), Path(os.path.realpath(path))
    if suffixes and target.suffix.lower() not in suffixes:
        raise UsageError(f"{flag} must end in {', '.join(suffixes)}: {path}")
    if target.is_dir():
        raise UsageError(f"cannot write {path} ({flag}): it is a folder")
    if target.exists() and not target.is_file():
        return  # a pipe or a device (/dev/stdout, through links): written as it is
    if not real.parent.is_dir():
        raise UsageError(f"cannot write {path} ({flag}): no folder {target.parent}")
    try:
        writable_file(path)  # as open(path, "w") would: a file of mode 0o444 too
    except OSError as error:
        raise UsageError(f"cannot write {path} ({flag}): {error.strerror}") from None


def check_folder(path: str, flag: str) -> None:
    """Refuse, before any work, a folder for outputs that could not be written into: a file in
    its place or its parent's, or a folder (the nearest that exists) that takes no file.

    >>> try:
    ...     check_folder("/dev/null/out", "--out")
    ... except UsageError as error:
    ...     print(error)
    cannot write into /dev/null/out (--out): /dev/null is not a folder
    """
    nearest = Path(path)
    while not nearest.exists():
        nearest = nearest.parent
    if not nearest.is_dir():
        raise UsageError(f"cannot write into {path} ({flag}): {nearest} is not a folder")
    try:
        writable(nearest)
    except OSError as error:
        raise UsageError(f"cannot write into {path} ({flag}): {error.strerror}") from None


def write_outputs(files: Mapping[str, tuple[str, bytes]]) -> None:
    """Every output of a command (flag -> its path and bytes), all or none; a WriteError naming
    the file and the flag where not.

    >>> try:
    ...     write_outputs({"--svg": ("/no/such/folder/g.svg", b"<svg/>")})
    ... except WriteError as error:
    ...     print(error)
    cannot write /no/such/folder/g.svg (--svg): No such file or directory
    """
    try:
        write_all(dict(files.values()))
    except OSError as error:
        raise _write_error(error, {os.fspath(p): flag for flag, (p, _) in files.items()}) from None


def write_into(folder: str, flag: str, files: Mapping[str, bytes]) -> list[str]:
    """Write ``files`` (name -> bytes) into ``folder``, made where missing, all or none; their
    paths. Where that fails, the folders made for it are removed again and a WriteError names
    the file and the flag.

    >>> import tempfile
    >>> write_into(tempfile.mkdtemp() + "/new", "--out", {"a.svg": b"<svg/>"})[0][-9:]
    'new/a.svg'
    """
    paths = {os.path.join(folder, name): data for name, data in files.items()}
    missing: list[Path] = []
    nearest = Path(folder)
    while not nearest.exists():
        missing.insert(0, nearest)
        nearest = nearest.parent
    made: list[Path] = []  # the folders this call made, the deepest last
    try:
        for path in missing:
            path.mkdir()
            made.append(path)
        write_all(paths)
    except OSError as error:
        for path in reversed(made):
            with contextlib.suppress(OSError):  # (another process may have written into it)
                path.rmdir()
        raise _write_error(error, dict.fromkeys(paths, flag)) from None
    return list(paths)


def _write_error(error: OSError, flags: Mapping[str, str]) -> WriteError:
    """The error of a failed write, naming its file (or, for a folder, the first output)."""
    path = str(error.filename) if error.filename is not None else next(iter(flags))
    flag = flags.get(path) or next(iter(flags.values()))
    return WriteError(f"cannot write {path} ({flag}): {error.strerror}")
