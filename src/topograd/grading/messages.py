"""The child's messages as the grader accepts them: a frame (8 hex digits of length, then that
many bytes of JSON, at most MAX_FRAME), one of three shapes, every field of its type and
bounded. Anything else is ``MalformedError``: the submission's failure, never the grader's.

>>> parsed(b'{"loaded": "Value"}')
{'loaded': 'Value'}
>>> parsed(b'{"done": "seed", "numbers": {"out": [1]}}')
Traceback (most recent call last):
...
topograd.grading.messages.MalformedError: a message of the wrong shape (numbers.out is a list)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

HEADER = 8  # hex digits of a frame's length
MAX_FRAME = 64 * 1024  # bytes of one message
MAX_TEXT = 300  # characters of an error, a place or a number's repr
MAX_NAME = 200  # characters of a class's name
MAX_NUMBERS = 200  # entries of one probe's numbers


@dataclass(frozen=True)
class Outcome:
    """What one probe gave: its numbers, or what went wrong and where in the learner's code."""

    numbers: dict[str, Any] | None = None
    error: str = ""
    where: str = ""


class MalformedError(Exception):
    """A message the grader does not accept, and why."""


def text(message: dict[str, Any], key: str, limit: int = MAX_TEXT) -> str:
    value = message.get(key)
    if not isinstance(value, str):
        raise MalformedError(f"a message of the wrong shape ({key} is not text)")
    return value[:limit]


def numbers(found: Any) -> dict[str, float | str | bool]:
    """A probe's numbers: at most MAX_NUMBERS names, each a float, a bool or a short text."""
    if not isinstance(found, dict) or len(found) > MAX_NUMBERS:
        raise MalformedError("a message of the wrong shape (numbers is not a small object)")
    kept: dict[str, float | str | bool] = {}
    for key, value in found.items():
        if isinstance(value, (bool, float)):
            kept[key[:MAX_NAME]] = value
        elif isinstance(value, int):
            kept[key[:MAX_NAME]] = float(value)
        elif isinstance(value, str):
            kept[key[:MAX_NAME]] = value[:MAX_TEXT]
        else:
            kind = type(value).__name__
            raise MalformedError(f"a message of the wrong shape (numbers.{key[:40]} is a {kind})")
    return kept


SHAPES = {
    frozenset({"loaded"}),
    frozenset({"load_error", "where"}),
    frozenset({"done", "numbers"}),
    frozenset({"done", "error", "where"}),
}


def parsed(payload: bytes) -> dict[str, Any]:
    """The message in a frame's payload, checked: one of SHAPES, each field of its type."""
    try:
        message = json.loads(payload)
    except (ValueError, RecursionError):
        raise MalformedError("a message that is not JSON") from None
    if not isinstance(message, dict) or frozenset(message) not in SHAPES:
        raise MalformedError("a message of the wrong shape")
    if "loaded" in message:
        return {"loaded": text(message, "loaded", MAX_NAME)}
    if "load_error" in message:
        return {"load_error": text(message, "load_error"), "where": text(message, "where")}
    checked: dict[str, Any] = {"done": text(message, "done", MAX_NAME)}
    if "numbers" in message:
        checked["numbers"] = numbers(message["numbers"])
    else:
        checked.update(error=text(message, "error"), where=text(message, "where"))
    return checked


def outcome_of(message: dict[str, Any]) -> Outcome:
    """A checked "done" message as a probe's outcome."""
    if "numbers" in message:
        return Outcome(message["numbers"])
    return Outcome(error=message["error"], where=message["where"])
