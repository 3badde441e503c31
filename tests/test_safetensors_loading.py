"""Hostile safetensors files: each row a real file (or path) and the start of the ValueError that
must answer it, naming the file; after each, the model is as it was. The header is checked
before any data is read: its length bounded (by the model's size when loading into one), every
offset in range, the data tiled without overlap, gap or tail, the dtypes those a Tensor holds,
the names and shapes the model's."""

from __future__ import annotations

import io
import json
import os
import pickle
import re
import struct
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import topograd as tg

Layout = list[tuple[str, str, list[int], int]]  # (name, dtype, shape, size of one element)
LINEAR: Layout = [("weight", "F32", [2, 3], 4), ("bias", "F32", [2], 4)]


def linear() -> tg.nn.Linear:
    return tg.nn.Linear(3, 2, seed=0)


def snapshot(model: tg.nn.Module) -> dict[str, np.ndarray]:
    """Copies of the model's state (its state_dict's Tensors share the model's numbers)."""
    return {k: np.array(v) for k, v in model.state_dict().items()}


def header(layout: Layout) -> dict[str, Any]:
    """A header laying the tensors out back to back, as a writer would."""
    found, at = {}, 0
    for name, dtype, shape, size in layout:
        end = at + size * int(np.prod(shape))
        found[name] = {"dtype": dtype, "shape": shape, "data_offsets": [at, end]}
        at = end
    return found


def data_size(document: dict[str, Any]) -> int:
    ends = [v["data_offsets"][1] for k, v in document.items() if k != "__metadata__"]
    return max(ends, default=0)


def written(folder: Path, document: dict[str, Any] | bytes, tail: bytes = b"") -> Path:
    """A file of this header (a dict, or its text as given) and zeros for the data it declares
    (as much as the offsets say, where they are plain numbers, up to 64 MiB), then ``tail``."""
    text = document if isinstance(document, bytes) else json.dumps(document).encode()
    try:
        size = int(data_size(document)) if isinstance(document, dict) else 0
    except (TypeError, KeyError, IndexError, ValueError):
        size = 0
    data = bytes(size if size <= 64 << 20 else 1 << 20)  # (a terabyte declared: a megabyte)
    path = folder / "m.safetensors"
    path.write_bytes(struct.pack("<Q", len(text)) + text + data + tail)
    return path


def edited(
    edit: Callable[[dict[str, Any]], object], layout: Layout = LINEAR
) -> Callable[..., Path]:
    def make(folder: Path) -> Path:
        document = header(layout)
        edit(document)
        return written(folder, document)

    return make


def _good(folder: Path) -> Path:
    path = folder / "m.safetensors"
    tg.save(linear().state_dict(), path)
    return path


def _cut(keep: Callable[[int], int]) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = _good(folder)
        data = path.read_bytes()
        path.write_bytes(data[: keep(len(data))])
        return path

    return make


def _raw(data: bytes) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        (folder / "m.safetensors").write_bytes(data)
        return folder / "m.safetensors"

    return make


def _torch_zip(folder: Path) -> Path:
    torch = pytest.importorskip("torch")
    torch.save({"weight": torch.zeros(2, 3), "bias": torch.zeros(2)}, folder / "m.safetensors")
    return folder / "m.safetensors"


def _zero_device(folder: Path) -> Path:
    os.symlink("/dev/zero", folder / "m.safetensors")
    return folder / "m.safetensors"


def _big_metadata(folder: Path) -> Path:
    """A sound file whose header is 2 MB of metadata: more than a header of two tensors takes."""
    document = {"__metadata__": {"note": " " * 2_000_000}, **header(LINEAR)}
    return written(folder, document)


def _set(name: str, field: str, value: object) -> Callable[[dict[str, Any]], object]:
    return lambda d: d[name].__setitem__(field, value)


def _deep(folder: Path) -> Path:
    return written(folder, b'{"a":' + b"[" * 30_000 + b"]" * 30_000 + b"}")


def _twice(folder: Path) -> Path:
    entry = json.dumps(header(LINEAR)["weight"])
    bias = json.dumps(header(LINEAR)["bias"])
    text = f'{{"weight":{entry},"bias":{bias},"weight":{entry}}}'.encode()
    return written(folder, text, bytes(32))


def _unfit_number(folder: Path) -> Path:
    path = folder / "m.safetensors"
    tg.save({"weight": np.full((2, 3), 1e300), "bias": np.zeros(2)}, path)
    return path


HUGE = [("weight", "F32", [10**6, 10**6], 4), ("bias", "F32", [2], 4)]
GAP = {"bias": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
GAP["weight"] = {"dtype": "F32", "shape": [2, 3], "data_offsets": [16, 40]}


def _unexpected(folder: Path) -> Path:
    """A sound file of the model's tensors and a 32 MiB one it does not have."""
    return written(folder, header([*LINEAR, ("extra", "F64", [4 * 1024 * 1024], 8)]))


# Each row: what, the file, the start of the cause, and whether the cause is the model's (a
# name or shape it lacks: tg.load alone takes such a file).
ROWS: list[tuple[str, Callable[[Path], Path], str, bool]] = [
    ("a missing file", lambda f: f / "missing.safetensors", "cannot read", False),
    ("an empty file", _raw(b""), "is cut short: 0 bytes", False),
    ("cut within the length", _cut(lambda n: 5), "is cut short: 5 bytes", False),
    ("cut within the header", _cut(lambda n: 20), "is cut short: it declares a header", False),
    ("cut within the data", _cut(lambda n: n - 3), "is cut short: its header declares", False),
    ("/dev/zero", _zero_device, "is not a regular file", False),
    ("a header of 2**60 bytes", _raw(struct.pack("<Q", 2**60) + b"{}"), "declares a header", False),
    ("2 MB of metadata for two tensors", _big_metadata, "declares a header of 2000", True),
    ("a header that is not JSON", _raw(struct.pack("<Q", 5) + b"{nope"), "its header:", False),
    ("a JSON array", _raw(struct.pack("<Q", 2) + b"[]"), "not a JSON object", False),
    ("invalid UTF-8", _raw(struct.pack("<Q", 7) + b'{"\xff":1}'), "its header:", False),
    ("a header nested 30,000 deep", _deep, "nests too deeply", False),
    ("a name given twice", _twice, "'weight' is given twice", False),
    ("a pickle", _raw(pickle.dumps({"weight": [0.0]}, protocol=4)), "is a pickle", False),
    ("torch.save's zip", _torch_zip, "is a zip archive", False),
    ("a NumPy .npy", _raw(b"\x93NUMPY\x01\x00" + bytes(8)), "is a NumPy .npy", False),
    (
        "a terabyte declared",
        edited(lambda d: None, HUGE),
        "is cut short: its header declares",
        False,
    ),
    ("a tail of 4 bytes", lambda f: written(f, header(LINEAR), b"junk"), "4 bytes after", False),
    ("a gap in the data", lambda f: written(f, GAP), "bytes 8 to 16 of the data", False),
    (
        "two tensors on the same bytes",
        edited(_set("bias", "data_offsets", [0, 8])),
        "overlaps",
        False,
    ),
    (
        "a shape its offsets do not span",
        edited(_set("weight", "shape", [3, 3])),
        "declares F32 of shape (3, 3), 36 bytes, but its data_offsets [0, 24] span 24",
        False,
    ),
    ("a negative offset", edited(_set("bias", "data_offsets", [-8, 0])), "not [begin, end]", False),
    ("a float offset", edited(_set("bias", "data_offsets", [24, 32.0])), "not [begin, end]", False),
    (
        "three offsets",
        edited(_set("bias", "data_offsets", [24, 32, 40])),
        "not [begin, end]",
        False,
    ),
    ("a shape of booleans", edited(_set("bias", "shape", [True, 2])), "not a list of sizes", False),
    ("a negative size", edited(_set("bias", "shape", [-2])), "not a list of sizes", False),
    ("a field more", edited(_set("bias", "note", "x")), "is not declared by", False),
    ("no dtype", edited(lambda d: d["bias"].pop("dtype")), "is not declared by", False),
    ("an entry that is a list", edited(lambda d: d.update(bias=[1])), "is not declared by", False),
    (
        "metadata of numbers",
        edited(lambda d: d.update(__metadata__={"epoch": 3})),
        "__metadata__ is not an object of strings",
        False,
    ),
    (
        "an unknown dtype",
        edited(_set("bias", "dtype", "F128")),
        "not a dtype topograd reads",
        False,
    ),
    ("an unexpected 32 MiB tensor", _unexpected, "unexpected extra", True),
    ("a missing tensor", edited(lambda d: None, LINEAR[:1]), "missing bias", True),
    (
        "a shape of another model",
        edited(lambda d: None, [("weight", "F32", [3, 2], 4), ("bias", "F32", [2], 4)]),
        "size mismatch for weight: the file holds shape (3, 2), the model's is (2, 3)",
        True,
    ),
    ("1e300 for float32", _unfit_number, "the value of weight holds 1e+300", True),
]
# The format's dtypes a Tensor does not hold, each refused naming the tensor and why.
for code, size, why in [
    ("BF16", 2, "NumPy has no bfloat16"),
    ("F8_E4M3", 1, "NumPy has no floats of fewer than 16 bits"),
    ("F8_E5M2", 1, "NumPy has no floats of fewer than 16 bits"),
    ("C64", 8, "topograd has no complex numbers"),
    ("U16", 2, "topograd's unsigned integers are uint8 only"),
    ("U64", 8, "topograd's unsigned integers are uint8 only"),
]:
    layout: Layout = [("weight", code, [2, 3], size), ("bias", "F32", [2], 4)]
    cause = f"tensor 'weight' is of dtype '{code}', which topograd does not hold: {why}"
    ROWS.append((f"dtype {code}", edited(lambda d: None, layout), cause, False))


@pytest.mark.parametrize(("what", "make", "cause", "_"), ROWS, ids=[r[0] for r in ROWS])
def test_a_bad_file_is_a_value_error_naming_it_and_the_model_is_unchanged(
    tmp_path: Path, what: str, make: Callable[[Path], Path], cause: str, _: bool
) -> None:
    path = make(tmp_path)
    model = tg.nn.Linear(3, 2, seed=5)
    before = snapshot(model)
    with pytest.raises(ValueError, match=re.escape(cause)) as caught:
        model.load(path)
    assert str(path) in str(caught.value)
    after = snapshot(model)
    assert all(np.array_equal(before[k], after[k]) for k in before)


FILE_ROWS = [row for row in ROWS if not row[3]]


@pytest.mark.parametrize(("what", "make", "cause", "_"), FILE_ROWS, ids=[r[0] for r in FILE_ROWS])
def test_tg_load_refuses_the_same_files_for_the_same_causes(
    tmp_path: Path, what: str, make: Callable[[Path], Path], cause: str, _: bool
) -> None:
    path = make(tmp_path)
    with pytest.raises(ValueError, match=re.escape(cause)) as caught:
        tg.load(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize("make", [_big_metadata, _unexpected])
def test_what_only_the_model_refuses_tg_load_reads(
    tmp_path: Path, make: Callable[..., Path]
) -> None:
    """A sound file beyond what the model takes: tg.load reads it, load_state_dict names why."""
    state = tg.load(make(tmp_path))
    assert {k: v.shape for k, v in state.items()}["weight"] == (2, 3)
    model = linear()
    if "extra" in state:
        with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "extra"'):
            model.load_state_dict(state)
    assert model.load_state_dict(state, strict=False).missing_keys == []


def test_a_refused_file_is_refused_before_its_data_is_read(tmp_path: Path) -> None:
    """The 32 MiB tensor the model lacks is never read: no allocation of its size."""
    (tmp_path / "warm").mkdir()
    model = linear()
    model.load(_good(tmp_path / "warm"))  # (every module a load needs, imported before)
    path = _unexpected(tmp_path)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="unexpected extra"):
            model.load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert os.path.getsize(path) > 32 * 1024 * 1024
    assert peak < 1024 * 1024


def test_a_file_that_changes_after_its_header_was_checked_is_refused() -> None:
    """The data is read once, the length checked: a file that shrinks is cut short, not read
    past its end (a BytesIO stands in for a file whose size was measured before it shrank)."""
    from topograd.nn.safetensors_files import arrays_of, encoded

    data = encoded({"w": np.ones(4)})

    class Shrinking(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            found = super().read(size)
            return found[:-1] if self.tell() > 100 else found

    with pytest.raises(ValueError, match=r"m\.safetensors is cut short: it ends within its data"):
        arrays_of(Shrinking(data), "m.safetensors")


def test_a_file_whose_header_changes_after_it_was_checked_is_refused() -> None:
    """What the package reads is the header that was checked: a file written between the check
    and the read (a BytesIO stands in, its header rewritten as the data is read) is refused."""
    from topograd.nn.safetensors_files import arrays_of, encoded

    data = encoded({"w": np.ones(4)})

    class Rewritten(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            found = super().read(size)
            return found.replace(b'"w"', b'"v"') if len(found) == len(data) else found

    with pytest.raises(ValueError, match=r"m\.safetensors changed while it was read"):
        arrays_of(Rewritten(data), "m.safetensors")
