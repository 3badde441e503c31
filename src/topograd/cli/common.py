"""What every command shares: one-line refusals, argument types, writing an output file."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NoReturn

from ..disk import writable, write_all


class Parser(argparse.ArgumentParser):
    """argparse, with every refusal one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


class UsageError(Exception):
    """Bad input from the user: reported as one line, exit status 2."""


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
    folder in the way, a folder that takes no file, two flags naming one file.

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
        writable(real.parent)
    except OSError as error:
        raise UsageError(f"cannot write {path} ({flag}): {error.strerror}") from None


def write_outputs(files: dict[str, bytes]) -> None:
    """Every output of a command, all or none; a UsageError saying why not.

    >>> try:
    ...     write_outputs({"/no/such/folder/g.svg": b"<svg/>"})
    ... except UsageError as error:
    ...     print(str(error).split(": ")[-1])
    No such file or directory
    """
    try:
        write_all(files)
    except OSError as error:
        raise UsageError(
            f"cannot write {error.filename or 'the output'}: {error.strerror}"
        ) from None
