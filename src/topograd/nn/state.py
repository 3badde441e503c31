"""A module's state on disk: every parameter's value by name, as readable JSON exact to the
last bit (non-finite numbers as "inf", "-inf", "nan"), or as NumPy's ``.npz`` for arrays when
the file name says so; never pickle. Loading checks the whole file before anything changes.
NumPy is imported only where arrays are read or written.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..disk import write_atomically

if TYPE_CHECKING:
    from pathlib import Path

FORMAT = "topograd.state/1"
_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


def _is_array(x: object) -> bool:
    return hasattr(x, "dtype") and hasattr(x, "shape")


def state_of(named: Mapping[str, Any]) -> dict[str, Any]:
    """Every parameter's value by name: a float, or a copy of an array."""
    return {name: p.data.copy() if _is_array(p.data) else p.data for name, p in named.items()}


def checked_state(
    owner: str, named: Mapping[str, Any], state: Mapping[str, object]
) -> dict[str, Any]:
    """The values of ``state`` for the parameters ``named``, every one checked against the
    parameter it is for; a ValueError naming what does not fit."""
    missing = [n for n in named if n not in state]
    unexpected = [n for n in state if n not in named]
    if missing or unexpected:
        raise ValueError(
            f"the state does not fit this {owner}: "
            + "; ".join(
                f"{what} {', '.join(keys[:3])}{' ...' if len(keys) > 3 else ''}"
                for what, keys in (("missing", missing), ("unexpected", unexpected))
                if keys
            )
        )
    return {name: _checked(name, state[name], p.data) for name, p in named.items()}


def save(path: str | Path, description: str, state: Mapping[str, Any]) -> None:
    """Write a state: JSON (readable, exact to the last bit), or ``.npz`` by its name; whole or
    not at all (a failed or killed save leaves the previous file as it was)."""
    write_atomically(path, encoded(path, description, state))


def encoded(path: str | Path, description: str, state: Mapping[str, Any]) -> bytes:
    """The bytes ``save`` writes to ``path``: ``.npz`` by its name, else JSON."""
    if str(path).endswith(".npz"):
        import io

        import numpy as np

        buffer = io.BytesIO()
        np.savez(buffer, **{k: np.asarray(v) for k, v in state.items()})  # type: ignore[arg-type]
        return buffer.getvalue()
    import json  # saving and loading only: its import costs the start of every program

    document = {
        "format": FORMAT,
        "model": description,
        "state": {k: _encode(v) for k, v in state.items()},
    }
    return (json.dumps(document, indent=1) + "\n").encode("utf-8")


def load(path: str | Path) -> dict[str, Any]:
    """Read a state written by ``save``; a file that is not one is refused with the reason."""
    return _npz(path) if str(path).endswith(".npz") else _json(path)


def _encode(value: Any) -> Any:
    if _is_array(value):
        return {
            "dtype": str(value.dtype),
            "shape": list(value.shape),
            "data": [_number_text(x) for x in value.ravel().tolist()],
        }
    return _number_text(value)


def _number_text(x: float) -> float | str:
    return x if math.isfinite(x) else repr(x)


def _json(path: str | Path) -> dict[str, Any]:
    import json

    try:
        with open(path, encoding="utf-8") as file:
            document = json.loads(file.read())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is not a topograd state file: {error}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f'{path} is not a topograd state file (no "format": "{FORMAT}")')
    state = document.get("state")
    if not isinstance(state, dict):
        raise ValueError(f'{path} has no "state" object')
    return state


def _npz(path: str | Path) -> dict[str, Any]:
    import zipfile

    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path} is not a readable .npz state: {error}") from None


def _checked(name: str, value: object, current: Any) -> Any:
    """``value`` as a parameter like ``current`` (a float, or an array of its shape and dtype)."""
    if _is_array(current):
        import numpy as np

        if isinstance(value, dict):  # from JSON
            shape, data = value.get("shape"), value.get("data")
            if not isinstance(shape, list) or not isinstance(data, list):
                raise ValueError(f"the value of {name} must hold a shape and data")
            value = (
                np.array([_number(name, x) for x in data], dtype=np.float64).reshape(shape)
                if _fits(shape, data)
                else None
            )
        if (
            not isinstance(value, np.ndarray)
            or value.shape != current.shape
            or value.dtype.kind not in "fiu"
        ):
            raise ValueError(f"the value of {name} must be an array of shape {current.shape}")
        return value.astype(current.dtype)
    return _number(name, value)


def _fits(shape: list[Any], data: list[Any]) -> bool:
    return all(isinstance(n, int) and n >= 0 for n in shape) and math.prod(shape) == len(data)


def _number(name: str, value: object) -> float:
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    if _is_array(value) and value.shape == () and value.dtype.kind in "fiu":  # type: ignore[attr-defined]
        return float(value)  # type: ignore[arg-type]  # a 0-d array, read back from .npz
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"the value of {name} must be a number, got {value!r}")
    return float(value)
