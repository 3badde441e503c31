"""The way out and back, with real PyTorch: a model trained here and saved with
``tg.save(model.state_dict(), "m.safetensors")`` loads into the same architecture in PyTorch
with ``model.load_state_dict(safetensors.torch.load_file(path))``, every number to the bit, and
gives the same outputs; a model trained in PyTorch and saved with
``safetensors.torch.save_file(model.state_dict(), path)`` loads here with
``model.load_state_dict(tg.load(path))`` (or ``model.load(path)``) and gives PyTorch's outputs.

The outputs agree to float32 rounding, not to the bit: PyTorch's and NumPy's BLAS kernels sum
a dot product in orders that differ by CPU. The bound is counted in ulps of the largest output
(``ulps_apart``), so that a row near zero is not held to more digits than its sums carry."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import topograd as tg

torch = pytest.importorskip("torch")
safetensors_torch = pytest.importorskip("safetensors.torch")

ULPS = 16  # a few roundings of each of a few layers' sums, in another order


def mlp(nn: Any) -> Any:
    return nn.Sequential(
        nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 3)
    )


def cnn(nn: Any) -> Any:
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 8, 3),
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(8 * 2 * 2, 16),
        nn.BatchNorm1d(16),
        nn.ReLU(),
        nn.Linear(16, 3),
    )


def embedder(nn: Any) -> Any:
    return nn.Sequential(nn.Embedding(10, 8), nn.LayerNorm(8), nn.Flatten(), nn.Linear(24, 3))


# Each row: the architecture (of either library's nn), and its inputs as NumPy makes them.
ARCHITECTURES: dict[str, tuple[Callable[[Any], Any], Callable[[np.random.Generator], Any]]] = {
    "an MLP": (mlp, lambda r: r.standard_normal((32, 4)).astype(np.float32)),
    "a small CNN": (cnn, lambda r: r.standard_normal((32, 1, 8, 8)).astype(np.float32)),
    "Embedding and LayerNorm": (embedder, lambda r: r.integers(0, 10, (32, 3))),
}


def ulps_apart(ours: Any, theirs: Any) -> float:
    """The largest difference, in ulps (float32) of the largest of PyTorch's outputs."""
    theirs = np.asarray(theirs, dtype=np.float32)
    scale = np.spacing(np.abs(theirs).max())
    return float(np.abs(np.asarray(ours, np.float64) - theirs).max() / scale)


def trained_here(name: str, steps: int = 5) -> Any:
    make, inputs = ARCHITECTURES[name]
    tg.manual_seed(0)
    model = make(tg.nn)
    r = np.random.default_rng(1)
    optimizer = tg.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for _ in range(steps):
        x, y = tg.tensor(inputs(r)), tg.tensor(r.standard_normal((32, 3)).astype(np.float32))
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.eval()


def trained_in_pytorch(name: str, steps: int = 5) -> Any:
    make, inputs = ARCHITECTURES[name]
    torch.manual_seed(0)
    model = make(torch.nn)
    r = np.random.default_rng(1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for _ in range(steps):
        x = torch.from_numpy(inputs(r))
        y = torch.from_numpy(r.standard_normal((32, 3)).astype(np.float32))
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.eval()


def outputs(name: str, ours: Any, theirs: Any) -> tuple[Any, Any]:
    x = ARCHITECTURES[name][1](np.random.default_rng(2))
    with torch.no_grad():
        expected = theirs(torch.from_numpy(x)).numpy()
    return ours(tg.tensor(x)).detach().numpy(), expected


@pytest.mark.parametrize("name", list(ARCHITECTURES))
def test_a_model_trained_here_runs_in_pytorch(tmp_path: Path, name: str) -> None:
    ours = trained_here(name)
    path = tmp_path / "m.safetensors"
    tg.save(ours.state_dict(), path)
    theirs = ARCHITECTURES[name][0](torch.nn).eval()
    assert repr(theirs.load_state_dict(safetensors_torch.load_file(path))) == (
        "<All keys matched successfully>"
    )
    for key, value in theirs.state_dict().items():
        here = ours.state_dict()[key]
        assert str(value.dtype) == f"torch.{here.dtype.name}", key
        assert value.numpy().tobytes() == here.numpy().tobytes(), key  # every bit
    found, expected = outputs(name, ours, theirs)
    assert found.dtype == expected.dtype == np.float32
    assert ulps_apart(found, expected) <= ULPS


@pytest.mark.parametrize("route", ["load_state_dict(tg.load(path))", "model.load(path)"])
@pytest.mark.parametrize("name", list(ARCHITECTURES))
def test_a_model_trained_in_pytorch_runs_here(tmp_path: Path, name: str, route: str) -> None:
    theirs = trained_in_pytorch(name)
    path = tmp_path / "m.safetensors"
    safetensors_torch.save_file(theirs.state_dict(), path)
    ours = ARCHITECTURES[name][0](tg.nn).eval()
    if route == "model.load(path)":
        ours.load(path)
    else:
        assert repr(ours.load_state_dict(tg.load(path))) == "<All keys matched successfully>"
    for key, value in theirs.state_dict().items():
        assert ours.state_dict()[key].numpy().tobytes() == value.numpy().tobytes(), key
    found, expected = outputs(name, ours, theirs)
    assert ulps_apart(found, expected) <= ULPS


def test_the_bound_is_not_loose() -> None:
    """One weight an ulp off moves the outputs past the bound: the comparison can fail."""
    theirs = trained_in_pytorch("an MLP")
    ours = mlp(tg.nn).eval()
    state = {k: v.numpy().copy() for k, v in theirs.state_dict().items()}
    state["4.bias"] = state["4.bias"] + 2e-5
    ours.load_state_dict(state)
    found, expected = outputs("an MLP", ours, theirs)
    assert ulps_apart(found, expected) > ULPS
