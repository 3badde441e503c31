"""``tg.save`` and ``tg.load``, PyTorch's spellings: a state dict in the format its file's suffix
names (safetensors, .npz, JSON), every dtype a Tensor holds there and back to the bit, torch's
pickles refused both ways with a pointer to safetensors, anything but a state dict refused, and
``import topograd`` loading neither safetensors nor NumPy."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import topograd as tg

safetensors_numpy = pytest.importorskip("safetensors.numpy")

# Every dtype a Tensor holds, with numbers at its edges (and a shape of no axes, and none).
EDGES: dict[str, np.ndarray] = {
    "f64": np.array([0.1, -0.0, np.inf, np.nan, 5e-324, 1.7976931348623157e308]),
    "f32": np.array([[1.5, -np.inf], [np.float32(1e-45), 3.4028235e38]], np.float32),
    "f16": np.array([6e-8, 65504.0, -0.0], np.float16),
    "i64": np.array([-(2**63), 2**63 - 1, 2**53 + 1], np.int64),
    "i32": np.array([-(2**31), 2**31 - 1], np.int32),
    "i16": np.array([-(2**15)], np.int16),
    "i8": np.array([-128, 127], np.int8),
    "u8": np.array([0, 255], np.uint8),
    "bool": np.array([True, False]),
    "count": np.array(3, np.int64),
    "empty": np.zeros((0, 3), np.float32),
}


def test_every_dtype_goes_there_and_back_to_the_bit(tmp_path: Path) -> None:
    path = tmp_path / "m.safetensors"
    tg.save({k: tg.from_numpy(v) for k, v in EDGES.items()}, path)
    theirs = safetensors_numpy.load_file(path)  # the package reads what topograd wrote
    ours = tg.load(path)
    assert set(ours) == set(theirs) == set(EDGES)
    for key, given in EDGES.items():
        for found in (theirs[key], ours[key].numpy()):
            assert found.dtype == given.dtype and found.shape == given.shape, key
            assert found.tobytes() == given.tobytes(), key


def test_what_tg_load_gives_is_tensors_of_their_own(tmp_path: Path) -> None:
    path = tmp_path / "m.safetensors"
    tg.save({"w": tg.ones(2, 3)}, path)
    w = tg.load(path)["w"]
    assert type(w) is tg.Tensor and not w.requires_grad and w.dtype == tg.float32
    w.add_(1.0)  # writable: the package's own arrays are read-only
    assert w.tolist() == [[2.0] * 3] * 2


def test_a_view_a_parameter_and_a_big_endian_array_are_saved_as_their_numbers(
    tmp_path: Path,
) -> None:
    """The package writes an array's memory as it lies: a transposed view must be laid out
    first, a parameter that requires grad taken as its numbers, big-endian numbers swapped."""
    base = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    given = {
        "view": tg.from_numpy(base).t(),
        "parameter": tg.nn.Parameter(tg.from_numpy(base)),
        "big": base.astype(">f8"),
        "slice": base[:, ::2],
    }
    path = tmp_path / "m.safetensors"
    tg.save(given, path)
    found = safetensors_numpy.load_file(path)
    assert found["view"].tolist() == base.T.tolist()
    assert found["parameter"].tolist() == found["big"].tolist() == base.tolist()
    assert found["big"].dtype == np.float64 and found["slice"].tolist() == base[:, ::2].tolist()


def test_the_file_says_its_layout_is_pytorch_s(tmp_path: Path) -> None:
    """{"format": "pt"}, as PyTorch's own loaders (transformers') ask of a file."""
    path = tmp_path / "m.safetensors"
    tg.save(tg.nn.Linear(2, 1).state_dict(), path)
    with safetensors_numpy.safe_open(path, "np") as file:
        assert file.metadata() == {"format": "pt"}


@pytest.mark.parametrize("suffix", [".safetensors", ".npz", ".json"])
def test_each_format_goes_there_and_back_and_module_load_reads_it(
    tmp_path: Path, suffix: str
) -> None:
    norm = tg.nn.BatchNorm1d(3)
    norm(tg.randn(4, 3))
    path = tmp_path / f"m{suffix}"
    tg.save(norm.state_dict(), path)
    state = tg.load(path)
    assert list(state) == list(norm.state_dict()) or suffix == ".safetensors"
    for key, value in norm.state_dict().items():
        assert state[key].dtype == value.dtype, key
        assert state[key].numpy().tobytes() == value.numpy().tobytes(), key
    again = tg.nn.BatchNorm1d(3)
    again.load(path)
    assert again.state_dict()["num_batches_tracked"].item() == 1


@pytest.mark.parametrize("suffix", [".safetensors", ".npz", ".json"])
def test_a_module_of_values_goes_there_and_back(tmp_path: Path, suffix: str) -> None:
    mlp = tg.nn.MLP(2, [3, 1], seed=0)
    path = tmp_path / f"m{suffix}"
    tg.save(mlp.state_dict(), path)
    other = tg.nn.MLP(2, [3, 1], seed=1)
    other.load_state_dict(tg.load(path))
    assert other.state_dict() == mlp.state_dict()


def test_a_tied_weight_is_saved_under_both_names(tmp_path: Path) -> None:
    first = tg.nn.Linear(2, 2)
    second = tg.nn.Linear(2, 2)
    second.weight = first.weight
    model = tg.nn.Sequential(first, second)
    path = tmp_path / "m.safetensors"
    tg.save(model.state_dict(), path)
    assert set(tg.load(path)) == {"0.weight", "0.bias", "1.weight", "1.bias"}
    model.load(path)


# Torch's pickles, refused by name both ways (nothing written, nothing read).
PICKLES = [".pt", ".pth", ".bin", ".ckpt", ".pkl", ".PT"]


@pytest.mark.parametrize("suffix", PICKLES)
def test_a_pickle_is_neither_written_nor_read(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"m{suffix}"
    with pytest.raises(ValueError, match=r"writes no pickles.*Save as \.safetensors") as caught:
        tg.save(tg.nn.Linear(2, 1).state_dict(), path)
    assert str(path) in str(caught.value) and not path.exists()
    torch = pytest.importorskip("torch")
    torch.save(torch.nn.Linear(2, 1).state_dict(), path)
    with pytest.raises(ValueError, match=r"loads no pickles.*safetensors\.torch\.save_file"):
        tg.load(path)


def test_a_pickle_of_any_name_is_never_unpickled(tmp_path: Path) -> None:
    """A pickle whose loading would write a file, named .npz, .json and .safetensors."""
    import pickle

    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self) -> tuple[Any, ...]:
            return (open, (str(marker), "w"))

    for suffix in (".npz", ".json", ".safetensors"):
        path = tmp_path / f"m{suffix}"
        path.write_bytes(pickle.dumps(Payload()))
        with pytest.raises(ValueError, match=re.escape(str(path))):
            tg.load(path)
        with pytest.raises(ValueError, match=re.escape(str(path))):
            tg.nn.Linear(2, 1).load(path)
    assert not marker.exists()


@pytest.mark.parametrize("name", ["m.txt", "m", "m.safetensors.tmp"])
def test_another_suffix_is_refused_naming_the_formats(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    pattern = "knows a file by its suffix: .safetensors, .npz, .json"
    with pytest.raises(ValueError, match=pattern):
        tg.save({"w": tg.ones(1)}, path)
    with pytest.raises(ValueError, match=pattern):
        tg.load(path)
    assert not path.exists()


def _checkpoint() -> dict[str, Any]:
    return {"model": tg.nn.Linear(2, 1).state_dict(), "epoch": 3}


# What is not a state dict: each row the object, and the start of the TypeError.
NOT_STATES: list[tuple[str, Any, str]] = [
    ("a module", tg.nn.Linear(2, 1), "give model.state_dict()"),
    ("a checkpoint of several things", _checkpoint(), "'model' is a dict"),
    ("a list", [tg.ones(1)], "not a list"),
    ("a name that is not a string", {1: tg.ones(1)}, "names are strings, not 1"),
    ("a string value", {"w": "0.5"}, "'w' is a str"),
]


@pytest.mark.parametrize(("what", "obj", "cause"), NOT_STATES, ids=[r[0] for r in NOT_STATES])
@pytest.mark.parametrize("suffix", [".safetensors", ".json"])
def test_what_is_not_a_state_dict_is_refused_and_nothing_written(
    tmp_path: Path, what: str, obj: Any, cause: str, suffix: str
) -> None:
    path = tmp_path / f"m{suffix}"
    with pytest.raises(TypeError, match=cause):
        tg.save(obj, path)
    assert list(tmp_path.iterdir()) == []


def test_numbers_a_tensor_cannot_hold_are_refused_and_nothing_written(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="'z' holds complex128, which a Tensor does not hold"):
        tg.save({"w": tg.ones(1), "z": np.ones(2, np.complex128)}, tmp_path / "m.safetensors")
    assert list(tmp_path.iterdir()) == []


def test_a_file_object_is_refused_its_name_chooses_the_format() -> None:
    import io

    with pytest.raises(TypeError, match="takes a file's path"):
        tg.save({"w": tg.ones(1)}, io.BytesIO())  # type: ignore[arg-type]


def test_pytorch_s_arguments_of_load(tmp_path: Path) -> None:
    path = tmp_path / "m.safetensors"
    tg.save({"w": tg.ones(1)}, path)
    assert tg.load(path, map_location="cpu", weights_only=True)["w"].tolist() == [1.0]
    assert tg.load(path, tg.device("cpu"))["w"].tolist() == [1.0]
    with pytest.raises(ValueError, match="topograd runs on the CPU only, not on 'cuda:0'"):
        tg.load(path, map_location="cuda:0")
    with pytest.raises(TypeError, match="map_location"):
        tg.load(path, map_location={"cuda:0": "cpu"})
    with pytest.raises(ValueError, match="weights only"):
        tg.load(path, weights_only=False)


def test_json_as_tg_load_reads_it_keeps_the_declared_dtype_and_refuses_others(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.json"
    tg.save({"w": tg.tensor([0.1], dtype=tg.float16), "n": tg.tensor(2**60 + 1)}, path)
    state = tg.load(path)
    assert state["w"].dtype == tg.float16 and state["w"].numpy().tobytes() == (
        np.float16(0.1).tobytes()
    )
    assert state["n"].item() == 2**60 + 1
    document = json.loads(path.read_text())
    document["state"]["w"]["dtype"] = "complex64"
    path.write_text(json.dumps(document))
    with pytest.raises(ValueError, match=f"{path}: the value of w is of dtype 'complex64'"):
        tg.load(path)


IMPORTS = """
import sys
import topograd as tg
print("numpy" in sys.modules, "safetensors" in sys.modules)
tg.save, tg.load
print("safetensors" in sys.modules)
"""


def test_import_topograd_loads_neither_safetensors_nor_numpy() -> None:
    ran = subprocess.run([sys.executable, "-c", IMPORTS], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["False", "False", "False"]
