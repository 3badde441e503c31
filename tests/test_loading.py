"""Loading hostile files: each row a real file (or path) and the start of the ValueError that
must answer it, naming the file; after each, the model is as it was. Pickles stay refused."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import topograd as tg


def linear() -> tg.nn.Linear:
    return tg.nn.Linear(3, 2, seed=0)


def snapshot(model: tg.nn.Module) -> dict[str, np.ndarray]:
    """Copies of the model's state (its state_dict's Tensors share the model's numbers)."""
    return {k: np.array(v) for k, v in model.state_dict().items()}


def _good(path: Path) -> Path:
    linear().save(path)
    return path


def _json_with(edit: Callable[[dict], None]) -> Callable[[Path], Path]:  # type: ignore[type-arg]
    def make(folder: Path) -> Path:
        path = _good(folder / "m.json")
        document = json.loads(path.read_text())
        edit(document)
        path.write_text(json.dumps(document))
        return path

    return make


def _npy_member(name: str, header: dict, payload: bytes = b"") -> bytes:  # type: ignore[type-arg]
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue() + payload


def _zip(folder: Path, members: dict[str, bytes]) -> Path:
    path = folder / "m.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _deep(folder: Path) -> Path:
    path = folder / "m.json"
    path.write_text("[" * 30_000 + "]" * 30_000)  # (within the size this model's file may have)
    return path


def _loop(folder: Path) -> Path:
    os.symlink(folder / "b.json", folder / "a.json")
    os.symlink(folder / "a.json", folder / "b.json")
    return folder / "a.json"


def _weight(document: dict, value: object) -> None:  # type: ignore[type-arg]
    document["state"]["weight"]["data"][0] = value


def _npy_as_npz(folder: Path) -> Path:
    np.save(folder / "m.npy", np.zeros(3))
    return (folder / "m.npy").rename(folder / "m.npz")


def _huge_header(folder: Path) -> Path:
    header = {"descr": "<f8", "fortran_order": False, "shape": (10**6, 10**6)}
    good = dict(np.load(_good(folder / "good.npz")))
    members = {
        f"{k}.npy": _npy_member(k, header) if k == "weight" else _array(v) for k, v in good.items()
    }
    return _zip(folder, members)


def _short_member(folder: Path) -> Path:
    """weight's header declares the model's shape (2, 3), 48 bytes, but 8 follow."""
    good = dict(np.load(_good(folder / "good.npz")))
    header = {"descr": "<f8", "fortran_order": False, "shape": (2, 3)}
    members = {
        f"{k}.npy": _npy_member(k, header, bytes(8)) if k == "weight" else _array(v)
        for k, v in good.items()
    }
    return _zip(folder, members)


def _device(name: str) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        os.symlink("/dev/zero", folder / name)
        return folder / name

    return make


def _fifo(folder: Path) -> Path:
    os.mkfifo(folder / "m.json")  # no writer: reading would wait forever
    return folder / "m.json"


def _oversized(folder: Path) -> Path:
    """A JSON file of 8 MB for a model of 8 numbers (padding inside the document)."""
    path = _good(folder / "m.json")
    document = json.loads(path.read_text())
    document["model"] = " " * 8_000_000
    path.write_text(json.dumps(document))
    return path


def _array(value: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, value)
    return buffer.getvalue()


def _unexpected_member(folder: Path) -> Path:
    good = dict(np.load(_good(folder / "good.npz")))
    members = {f"{k}.npy": _array(v) for k, v in good.items()}
    header = {"descr": "<f8", "fortran_order": False, "shape": (4 * 1024 * 1024,)}
    members["extra.npy"] = _npy_member("extra", header, bytes(32 * 1024 * 1024))
    return _zip(folder, members)


def _folder(folder: Path) -> Path:
    (folder / "d.json").mkdir()
    return folder / "d.json"


def _empty_npz(folder: Path) -> Path:
    (folder / "m.npz").write_bytes(b"")
    return folder / "m.npz"


def _dev_null(folder: Path) -> Path:
    os.symlink("/dev/null", folder / "m.npz")
    return folder / "m.npz"


def _pickled(folder: Path) -> Path:
    good = dict(np.load(_good(folder / "good.npz")))
    good["weight"] = np.array([{"a": 1}], dtype=object)
    path = folder / "m.npz"
    np.savez(path, **good)
    return path


ROWS: list[tuple[str, Callable[[Path], Path], str]] = [
    ("a missing file", lambda f: f / "missing.json", "cannot read"),
    ("a folder", _folder, "is a folder"),
    ("a symlink loop", _loop, "cannot read"),
    ("a JSON array 30,000 deep", _deep, "nested too deeply"),
    ("a 400-digit integer", _json_with(lambda d: _weight(d, 10**400)), "the value of weight"),
    (
        "a shape of booleans",
        _json_with(lambda d: d["state"]["weight"].update(shape=[True, 3])),
        "weight",
    ),
    ("an empty .npz", _empty_npz, "not a readable .npz"),
    ("/dev/null as .npz", _dev_null, "is not a regular file"),
    ("a .npy named .npz", _npy_as_npz, "not a readable .npz"),
    ("a header of 10^12 float64", _huge_header, "has shape"),
    ("an unexpected 32 MiB member", _unexpected_member, "'extra', which this model does not have"),
    ("a pickle", _pickled, "pickles are refused"),
    ("a member shorter than its header says", _short_member, "is cut short"),
    ("/dev/zero as .json", _device("m.json"), "is not a regular file"),
    ("/dev/zero as .npz", _device("m.npz"), "is not a regular file"),
    ("a pipe without a writer", _fifo, "is not a regular file"),
    ("8 MB of JSON for 8 numbers", _oversized, "more than a state of this model takes"),
]


@pytest.mark.parametrize(("what", "make", "cause"), ROWS, ids=[r[0] for r in ROWS])
def test_a_bad_file_is_a_value_error_naming_it_and_the_model_is_unchanged(
    tmp_path: Path, what: str, make: Callable[[Path], Path], cause: str
) -> None:
    path = make(tmp_path)
    model = tg.nn.Linear(3, 2, seed=5)
    before = snapshot(model)
    with pytest.raises(ValueError, match=cause) as caught:
        model.load(path)
    assert str(path) in str(caught.value)
    after = model.state_dict()
    assert all(np.array_equal(before[k], after[k]) for k in before)


AS_NOBODY = """
import os, sys
import numpy as np
import topograd as tg
model = tg.nn.Linear(3, 2, seed=5)
tg.nn.Linear(3, 2).load(sys.argv[2])  # loads every module loading needs while root may
os.setgid(65534)  # root reads any file: drop to nobody
os.setuid(65534)
before = {k: np.array(v) for k, v in model.state_dict().items()}
try:
    model.load(sys.argv[1])
except ValueError as error:
    print(f"ValueError: {error}")
after = model.state_dict()
print("unchanged" if all(np.array_equal(before[k], after[k]) for k in before) else "changed")
"""


def test_an_unreadable_file_is_a_value_error(tmp_path: Path) -> None:
    """A file without read permission, for real: as an ordinary user, chmod 0; as root (who
    reads anything), in a child that gives up root for nobody before loading."""
    if os.geteuid() != 0:
        path = _good(tmp_path / "m.json")
        path.chmod(0)
        with pytest.raises(ValueError, match="cannot read"):
            linear().load(path)
        return
    folder = Path(tempfile.mkdtemp())  # nobody may pass through it, not list or read it
    try:
        folder.chmod(0o711)
        path, readable = _good(folder / "m.json"), _good(tmp_path / "good.json")
        path.chmod(0o600)
        result = subprocess.run(
            [sys.executable, "-c", AS_NOBODY, str(path), str(readable)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        error, state = result.stdout.splitlines()
        assert error.startswith("ValueError:") and str(path) in error and "cannot read" in error
        assert "Permission denied" in error
        assert state == "unchanged"
    finally:
        shutil.rmtree(folder)


@pytest.mark.parametrize("suffix", [".json", ".npz", ".NPZ", ".safetensors", ".SafeTensors"])
def test_a_good_file_still_loads(tmp_path: Path, suffix: str) -> None:
    path = _good(tmp_path / f"m{suffix}")
    assert zipfile.is_zipfile(path) == (suffix.lower() == ".npz")  # M.NPZ is an .npz too
    assert (path.read_bytes()[8:9] == b"{") == (suffix.lower() == ".safetensors")
    model = tg.nn.Linear(3, 2, seed=5)
    model.load(path)
    assert all(
        np.array_equal(a, b)
        for a, b in zip(model.state_dict().values(), linear().state_dict().values())
    )


# Numbers a parameter's dtype cannot hold, refused naming the key, never cast (PyTorch's
# load_state_dict casts them: inf, the imaginary part dropped, 2.5 as 2). Each row: what, the
# module, its key, and the value given, by load_state_dict and in an .npz.
def _float32() -> tg.nn.Module:
    return tg.nn.Linear(3, 2, seed=0, dtype=tg.float32)


UNFIT: list[tuple[str, Callable[[], tg.nn.Module], str, object]] = [
    ("1e300 for float32", _float32, "weight", np.full((2, 3), 1e300)),
    ("-1e39 for float32", _float32, "bias", np.array([0.0, -1e39])),
    ("1e5 for float16", lambda: tg.nn.Linear(3, 2).to(tg.float16), "bias", np.array([1.0, 1e5])),
    ("complex128", lambda: tg.nn.Linear(3, 2), "weight", np.ones((2, 3), dtype=np.complex128)),
    ("complex64 for float32", _float32, "bias", np.array([1, 2j], dtype=np.complex64)),
    ("2.5 for int64", lambda: tg.nn.BatchNorm1d(2), "num_batches_tracked", np.array(2.5)),
    ("nan for int64", lambda: tg.nn.BatchNorm1d(2), "num_batches_tracked", np.array(np.nan)),
    ("2**63 for int64", lambda: tg.nn.BatchNorm1d(2), "num_batches_tracked", np.array(2**63)),
    ("2.0**63 for int64", lambda: tg.nn.BatchNorm1d(2), "num_batches_tracked", np.array(2.0**63)),
]


ROUTES = ["load_state_dict", "a PyTorch tensor", ".npz", ".safetensors"]
UNFIT_ROUTES = [
    (*row, route)
    for row in UNFIT
    for route in ROUTES
    if not (route == "a PyTorch tensor" and row[3].dtype == np.uint64)  # (no such tensor)
    and not (route == ".safetensors" and row[3].dtype == np.complex128)  # (nor such a file)
]


@pytest.mark.parametrize(
    ("what", "make", "key", "value", "route"),
    UNFIT_ROUTES,
    ids=[f"{r[0]}, {r[-1]}" for r in UNFIT_ROUTES],
)
def test_a_number_the_dtype_cannot_hold_is_refused_naming_the_key(
    tmp_path: Path, what: str, make: Callable[[], tg.nn.Module], key: str, value: Any, route: str
) -> None:
    model = make()
    before = snapshot(model)
    state = {**model.state_dict(), key: value}
    load = partial(model.load_state_dict, state)
    if route == "a PyTorch tensor":
        torch = pytest.importorskip("torch")
        state[key] = torch.from_numpy(value)
    elif route == ".npz":
        np.savez(tmp_path / "m.npz", **state)
        load = partial(model.load, tmp_path / "m.npz")
    elif route == ".safetensors":  # (written by the package itself: tg.save refuses complex)
        safetensors = pytest.importorskip("safetensors.numpy")
        arrays = {k: np.asarray(v) for k, v in state.items()}
        safetensors.save_file(arrays, tmp_path / "m.safetensors")
        load = partial(model.load, tmp_path / "m.safetensors")
    named = rf"(the value of {key}|member '{key}':|tensor '{key}') (holds|is of dtype)"
    with pytest.raises(ValueError, match=named) as caught:
        load()
    assert "inf" not in str(caught.value)  # the number given, not what a cast made of it
    after = model.state_dict()
    assert all(np.array_equal(before[k], after[k], equal_nan=True) for k in before)


# The same in JSON, as the file holds it: each row an edit of a saved state and the module.
JSON_UNFIT: list[tuple[str, Callable[[], tg.nn.Module], str, object]] = [
    ("1e300 for float32", _float32, "weight", 1e300),
    ("1e400, beyond float64", lambda: tg.nn.Linear(3, 2), "weight", "1e400"),
    ("2.5 for int64", lambda: tg.nn.BatchNorm1d(2), "num_batches_tracked", 2.5),
    ("2**63 for int64", lambda: tg.nn.BatchNorm1d(2), "num_batches_tracked", 2**63),
    ("dtype complex128", lambda: tg.nn.Linear(3, 2), "weight", "complex128"),
]


@pytest.mark.parametrize(
    ("what", "make", "key", "edit"), JSON_UNFIT, ids=[r[0] for r in JSON_UNFIT]
)
def test_a_json_number_the_dtype_cannot_hold_is_refused_naming_the_key(
    tmp_path: Path, what: str, make: Callable[[], tg.nn.Module], key: str, edit: object
) -> None:
    model = make()
    path = tmp_path / "m.json"
    model.save(path)
    text = path.read_text()
    document = json.loads(text)
    entry = document["state"][key]
    if what.startswith("dtype"):
        entry["dtype"] = edit
    elif what.startswith("1e400"):  # (json.dumps writes no such number: put it in the text)
        entry["data"][0] = "TOO LARGE"
    else:
        entry["data"][0] = edit
    path.write_text(json.dumps(document).replace('"TOO LARGE"', "1e400"))
    before = snapshot(model)
    with pytest.raises(ValueError, match=rf"{path}: the value of {key} (holds|is of dtype)"):
        model.load(path)
    after = model.state_dict()
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_what_the_dtype_holds_still_loads_rounded_to_it(tmp_path: Path) -> None:
    """float64 into float32 rounds, as PyTorch's copy does (to the bit); an int64 count beyond
    2**53 from JSON stays whole (not read through a float)."""
    torch = pytest.importorskip("torch")
    numbers = np.array([[0.1, 1e-40, 3.4e38], [-2.0 / 3, 1e-300, -3.4e38]])
    model = _float32()
    model.load_state_dict({"weight": numbers, "bias": np.zeros(2)})
    theirs = torch.from_numpy(numbers).to(torch.float32).numpy()
    assert model.weight.detach().numpy().tobytes() == theirs.tobytes()
    norm = tg.nn.BatchNorm1d(2)
    norm.load_state_dict({**norm.state_dict(), "num_batches_tracked": np.array(2**60 + 1)})
    norm.save(tmp_path / "n.json")
    loaded = tg.nn.BatchNorm1d(2)
    loaded.load(tmp_path / "n.json")
    assert int(loaded.num_batches_tracked.data) == 2**60 + 1
