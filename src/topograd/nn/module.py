"""``Module``: something with named parameters, of either data kind, and its saved state.

A state maps each parameter's name to its value: a float for a scalar ``Value``, an array for
a ``Tensor``. ``save`` writes it as readable JSON (or as ``.npz`` for arrays, when the file name
says so), exact to the last bit; never pickle. ``load`` checks the whole file before it changes
anything.
"""

from __future__ import annotations

import json
import math
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "topograd.state/1"
_NON_FINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}


class Module:
    """Something with parameters: ``parameters()``, ``zero_grad()``, and its state."""

    def named_parameters(self) -> Iterator[tuple[str, Any]]:
        yield from ()

    def parameters(self) -> list[Any]:
        return [p for _, p in self.named_parameters()]

    def zero_grad(self) -> None:
        """0.0 for a scalar's gradient, None for an array's (as PyTorch)."""
        for p in self.parameters():
            p.grad = 0.0 if isinstance(p.grad, float) else None

    def state_dict(self) -> dict[str, Any]:
        """Every parameter's value by name: a float, or a copy of an array."""
        return {
            name: p.data.copy() if isinstance(p.data, np.ndarray) else p.data
            for name, p in self.named_parameters()
        }

    def load_state_dict(self, state: Mapping[str, object]) -> None:
        """Set every parameter from ``state``; all of it is checked before anything changes."""
        names = dict(self.named_parameters())
        missing = [n for n in names if n not in state]
        unexpected = [n for n in state if n not in names]
        if missing or unexpected:
            raise ValueError(
                f"the state does not fit this {type(self).__name__}: "
                + "; ".join(
                    f"{what} {', '.join(keys[:3])}{' ...' if len(keys) > 3 else ''}"
                    for what, keys in (("missing", missing), ("unexpected", unexpected))
                    if keys
                )
            )
        values = {name: _checked(name, state[name], p.data) for name, p in names.items()}
        for name, p in names.items():
            p.data = values[name]

    def save(self, path: str | Path) -> None:
        """Write the state: JSON (readable, exact to the last bit), or ``.npz`` by its name."""
        state = self.state_dict()
        if str(path).endswith(".npz"):
            np.savez(path, **{k: np.asarray(v) for k, v in state.items()})  # type: ignore[arg-type]
            return
        document = {
            "format": FORMAT,
            "model": repr(self),
            "state": {k: _encode(v) for k, v in state.items()},
        }
        Path(path).write_text(json.dumps(document, indent=1) + "\n")

    def load(self, path: str | Path) -> None:
        """Read a state written by ``save``; a file of the wrong shape or a corrupt one is
        refused with the reason, and the model is left as it was."""
        self.load_state_dict(_npz(path) if str(path).endswith(".npz") else _json(path))


def _encode(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return {
            "dtype": str(value.dtype),
            "shape": list(value.shape),
            "data": [_number_text(x) for x in value.ravel().tolist()],
        }
    return _number_text(value)


def _number_text(x: float) -> float | str:
    return x if math.isfinite(x) else repr(x)


def _json(path: str | Path) -> dict[str, Any]:
    try:
        document = json.loads(Path(path).read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{path} is not a topograd state file: {error}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f'{path} is not a topograd state file (no "format": "{FORMAT}")')
    state = document.get("state")
    if not isinstance(state, dict):
        raise ValueError(f'{path} has no "state" object')
    return state


def _npz(path: str | Path) -> dict[str, Any]:
    try:
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (OSError, ValueError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path} is not a readable .npz state: {error}") from None


def _checked(name: str, value: object, current: Any) -> Any:
    """``value`` as a parameter like ``current`` (a float, or an array of its shape and dtype)."""
    if isinstance(current, np.ndarray):
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
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "fiu":
        return float(value)  # a scalar parameter read back from .npz
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"the value of {name} must be a number, got {value!r}")
    return float(value)
