"""``tg.save`` and ``tg.load``, PyTorch's spellings, for a state dict (names -> Tensors): in
the format the file's suffix names, the formats ``Module.save`` writes.

- ``.safetensors``: the format PyTorch's users share weights in. PyTorch reads such a file
  with ``safetensors.torch.load_file(path)``, and a file PyTorch wrote with
  ``safetensors.torch.save_file(model.state_dict(), path)`` loads here.
- ``.npz``: NumPy's arrays by name; ``.json``: topograd's readable JSON, exact to the bit.
- ``.pt``, ``.pth``, ``.bin``, ``.ckpt``, ``.pkl``, ``.pickle``, ``.tar``: torch.save's pickles,
  refused both ways: a pickle runs whatever code it holds when it is loaded, and a file of
  another format under such a name would be one that ``torch.load`` cannot read.
- Any other suffix is refused, naming these: the name decides the format, never a guess.

A save is written whole or not at all (``disk.write_atomically``); a load checks the whole file
(for safetensors, its header before any data) and refuses what is wrong with a ValueError
naming the file and the cause.

>>> import pathlib, tempfile
>>> import topograd as tg
>>> path = pathlib.Path(tempfile.mkdtemp()) / "m.safetensors"
>>> save(tg.nn.Linear(2, 1).state_dict(), path)
>>> sorted((k, tuple(v.shape), v.dtype) for k, v in load(path).items())
[('bias', (1,), topograd.float32), ('weight', (1, 2), topograd.float32)]
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..tensors import dtypes
from ..tensors.creation import from_numpy
from ..tensors.devices import device_index
from . import state as saved
from .module import Module
from .state_checks import cast, checked, from_json, numbers_of

PICKLES = (".pt", ".pth", ".bin", ".ckpt", ".pkl", ".pickle", ".tar")
FORMATS = (saved.SAFETENSORS, saved.NPZ, saved.JSON)


def save(obj: Mapping[str, Any], f: str | os.PathLike[str]) -> None:
    """Write a state dict (``model.state_dict()``: names -> Tensors, arrays or numbers) to
    ``f``, in the format of its suffix: ``.safetensors``, ``.npz`` or ``.json`` (see the
    module's doc; torch.save's ``.pt`` is refused: topograd writes no pickle).

    >>> save({"w": 1.0}, "m.pt")
    Traceback (most recent call last):
    ...
    ValueError: m.pt: topograd writes no pickles (torch.save's .pt): a pickle runs any code \
it holds when loaded. Save as .safetensors, which PyTorch loads with \
safetensors.torch.load_file(path)
    """
    path = _path(f, "save")
    saved.save(path, "a state dict (tg.save)", _state(obj, path))


def load(f: str | os.PathLike[str], map_location: Any = None, *, weights_only: Any = None) -> Any:
    """The state dict of the file ``f`` (names -> Tensors, in the order the file holds them; a
    number, as a Value's, from JSON as a float), in the format of its suffix, every byte
    checked first (see the module's doc).
    ``map_location`` may be the CPU (or None), the one device topograd runs on; topograd loads
    weights only, whatever ``weights_only`` says (False is refused: it never unpickles).

    >>> load("m.pth")
    Traceback (most recent call last):
    ...
    ValueError: m.pth: topograd loads no pickles (torch.save's .pth): a pickle runs any code it \
holds when loaded. In PyTorch, save the state with \
safetensors.torch.save_file(model.state_dict(), "m.safetensors") and load that file
    """
    path = _path(f, "load")
    if map_location is not None:
        if callable(map_location) or isinstance(map_location, Mapping):
            raise TypeError("map_location: topograd's Tensors are on the CPU; give 'cpu' or None")
        device_index(map_location)
    if weights_only is False:
        raise ValueError(f"{path}: topograd loads weights only (weights_only=False unpickles)")
    return {name: _loaded(path, name, value) for name, value in saved.load(path).items()}


def _path(f: Any, verb: str) -> Path:
    """``f`` as a path whose suffix names a format this ``verb`` knows."""
    if not isinstance(f, (str, os.PathLike)):
        raise TypeError(
            f"tg.{verb} takes a file's path (its suffix names the format), not a {type(f).__name__}"
        )
    path = Path(f)
    suffix = path.suffix.lower()
    if suffix in FORMATS:
        return path
    if suffix in PICKLES:
        raise ValueError(f"{path}: {_no_pickles(verb, suffix, path)}")
    raise ValueError(
        f"{path}: tg.{verb} knows a file by its suffix: {', '.join(FORMATS)}, and this one has "
        f"{suffix or 'none'}"
    )


def _no_pickles(verb: str, suffix: str, path: Path) -> str:
    why = "a pickle runs any code it holds when loaded"
    if verb == "save":
        return (
            f"topograd writes no pickles (torch.save's {suffix}): {why}. Save as .safetensors, "
            "which PyTorch loads with safetensors.torch.load_file(path)"
        )
    return (
        f"topograd loads no pickles (torch.save's {suffix}): {why}. In PyTorch, save the state "
        f'with safetensors.torch.save_file(model.state_dict(), "{path.stem}.safetensors") and '
        "load that file"
    )


def _state(obj: Any, path: Path) -> Mapping[str, Any]:
    """``obj`` if it is a state dict: names -> Tensors, arrays (of a dtype a Tensor holds) or
    numbers; a module, a checkpoint of several things, anything else refused."""
    if isinstance(obj, Module):
        raise TypeError(
            f"{path}: tg.save writes a state dict: give model.state_dict() (torch.save would "
            "pickle the module itself, which topograd never does)"
        )
    if not isinstance(obj, Mapping):
        raise TypeError(
            f"{path}: tg.save writes a state dict (names -> Tensors), not a {type(obj).__name__}"
        )
    for name, value in obj.items():
        if not isinstance(name, str):
            raise TypeError(f"{path}: a state dict's names are strings, not {name!r}")
        found = numbers_of(value)
        if not (isinstance(found, (int, float)) or hasattr(found, "__array__")):
            raise TypeError(
                f"{path}: {name!r} is a {type(value).__name__}; a state dict holds Tensors "
                "(arrays, numbers) by name, so tg.save writes no nested checkpoint"
            )
    return obj


def _loaded(path: Path, name: str, value: Any) -> Any:
    """A value as the file held it, as ``tg.load`` gives it: an array as a Tensor sharing it,
    a JSON array in its declared dtype, a JSON number as a float."""
    if isinstance(value, dict):  # JSON's form of an array
        value = _from_json(path, name, value)
    elif not hasattr(value, "dtype"):
        try:
            return checked(name, value, 0.0)
        except ValueError as error:
            raise ValueError(f"{path}: {error}") from None
    return from_numpy(value)


def _from_json(path: Path, name: str, value: dict[str, Any]) -> Any:
    declared = value.get("dtype", "float64")
    try:
        dtype = dtypes.as_dtype(declared).dtype if isinstance(declared, str) else None
    except TypeError:
        dtype = None
    if dtype is None:
        raise ValueError(f"{path}: the value of {name} is of dtype {str(declared)[:40]!r}")
    try:
        array = from_json(name, value, dtype)
        if array is None:
            raise ValueError(f"the value of {name} has a shape its data does not fill")
        return cast(name, array, dtype)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
