"""What every command shares: one-line refusals, argument types, writing an output file."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import NoReturn

from ..disk import write_atomically


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


def write(path: str, text: str) -> None:
    """``text`` into the file ``path``, whole or not at all; a UsageError saying why not."""
    try:
        write_atomically(Path(path), text.encode("utf-8"))
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None
