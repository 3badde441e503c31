"""What every command shares: one-line refusals, argument types, writing an output file."""

from __future__ import annotations

import argparse
from collections.abc import Callable
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
    """An argparse type: a whole number from ``low`` to ``high`` (argparse names the flag)."""

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}, got {text}")
        return value

    whole.__name__ = f"whole number from {low} to {high}"
    return whole


def check_output(path: str | None, flag: str, suffixes: tuple[str, ...] = ()) -> None:
    """Refuse, before any work, an output file that could not be written: a name without one
    of ``suffixes``, a missing folder, a folder in the way, a folder that takes no file."""
    if not path:
        return
    target = Path(path)
    if suffixes and target.suffix.lower() not in suffixes:
        raise UsageError(f"{flag} must end in {', '.join(suffixes)}: {path}")
    if not target.parent.is_dir():
        raise UsageError(f"cannot write {path} ({flag}): no folder {target.parent}")
    if target.is_dir():
        raise UsageError(f"cannot write {path} ({flag}): it is a folder")
    try:
        writable(target.parent)
    except OSError as error:
        raise UsageError(f"cannot write {path} ({flag}): {error.strerror}") from None


def write_outputs(files: dict[str, bytes]) -> None:
    """Every output of a command, all or none; a UsageError saying why not."""
    try:
        write_all(files)
    except OSError as error:
        raise UsageError(
            f"cannot write {error.filename or 'the output'}: {error.strerror}"
        ) from None
