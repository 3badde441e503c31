"""Optimizers step for step with torch.optim; saving exactly and refusing bad files;
the datasets; training to micrograd's accuracy; ``topograd train``."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import topograd as tg
from topograd.train.recipe import train

START = [0.5, -1.5, 2.0, 0.0]


def topograd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "topograd", *args], capture_output=True, text=True, timeout=300
    )


def gradients(step: int) -> list[float]:
    """The same made-up gradients for both libraries, different at every step."""
    return [math.sin(step + i) * (i + 1) for i in range(len(START))]


def run_both(make_ours, make_theirs, steps: int = 25) -> tuple[list[float], list[float]]:  # type: ignore[no-untyped-def]
    ours = [tg.Value(x) for x in START]
    theirs = torch.tensor(START, dtype=torch.float64, requires_grad=True)
    opt_ours, opt_theirs = make_ours(ours), make_theirs([theirs])
    for k in range(steps):
        for p, g in zip(ours, gradients(k)):
            p.grad = g
        theirs.grad = torch.tensor(gradients(k), dtype=torch.float64)
        opt_ours.step()
        opt_theirs.step()
    return [p.data for p in ours], theirs.tolist()


@pytest.mark.parametrize(
    ("momentum", "weight_decay"), [(0.0, 0.0), (0.9, 0.0), (0.0, 0.01), (0.9, 0.01), (0.5, 0.1)]
)
def test_sgd_matches_torch_step_for_step(momentum: float, weight_decay: float) -> None:
    ours, theirs = run_both(
        lambda ps: tg.optim.SGD(ps, lr=0.1, momentum=momentum, weight_decay=weight_decay),
        lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=momentum, weight_decay=weight_decay),
    )
    assert ours == pytest.approx(theirs, rel=1e-14, abs=1e-15)


@pytest.mark.parametrize(
    ("lr", "betas", "eps", "weight_decay"),
    [
        (1e-3, (0.9, 0.999), 1e-8, 0.0),
        (0.1, (0.8, 0.99), 1e-6, 0.01),
        (0.05, (0.5, 0.9), 1e-8, 0.1),
    ],
)
def test_adam_matches_torch_step_for_step(lr, betas, eps, weight_decay) -> None:  # type: ignore[no-untyped-def]
    ours, theirs = run_both(
        lambda ps: tg.optim.Adam(ps, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay),
        lambda ps: torch.optim.Adam(ps, lr=lr, betas=betas, eps=eps, weight_decay=weight_decay),
    )
    assert ours == pytest.approx(theirs, rel=1e-13, abs=1e-15)


def test_zero_grad_and_refusals() -> None:
    p = tg.Value(1.0)
    p.grad = 3.0
    opt = tg.optim.SGD([p], lr=0.1)
    opt.zero_grad()
    assert p.grad == 0.0
    with pytest.raises(ValueError, match="at least one parameter"):
        tg.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="learning rate"):
        tg.optim.Adam([p], lr=-1.0)


def test_linear_decay_is_micrograds_schedule() -> None:
    opt = tg.optim.SGD([tg.Value(0.0)], lr=123.0)
    schedule = tg.optim.LinearDecay(opt, start=1.0, end=0.1, steps=100)
    seen = []
    for _ in range(100):
        seen.append(opt.lr)
        schedule.step()
    assert seen == pytest.approx([1.0 - 0.9 * k / 100 for k in range(100)], rel=1e-15)
    assert opt.lr == pytest.approx(0.1)


def test_save_and_load_round_trip_to_the_last_bit(tmp_path: Path) -> None:
    model = tg.nn.MLP(2, [3, 2], seed=1)
    special = [-0.0, 5e-324, 1e308, math.pi, math.inf, -math.inf, math.nan, 0.1 + 0.2]
    for p, x in zip(model.parameters(), special):
        p.data = x
    path = tmp_path / "model.json"
    model.save(path)
    document = json.loads(path.read_text())
    assert document["format"] == "topograd.state/1"
    copy = tg.nn.MLP(2, [3, 2], seed=2)
    copy.load(path)
    assert [p.data.hex() for p in copy.parameters()] == [p.data.hex() for p in model.parameters()]


BAD_FILES = [
    ("{not json", "not a topograd state file"),
    ('{"format": "something else", "state": {}}', "not a topograd state file"),
    ("[1, 2, 3]", "not a topograd state file"),
    ('{"format": "topograd.state/1"}', 'no "state"'),
    ('{"format": "topograd.state/1", "state": {"layers.0.neurons.0.w.0": 1.0}}', "missing"),
]


@pytest.mark.parametrize(("text", "message"), BAD_FILES)
def test_a_bad_file_is_refused_and_the_model_left_as_it_was(
    tmp_path: Path, text: str, message: str
) -> None:
    model = tg.nn.MLP(2, [3, 2], seed=1)
    before = model.state_dict()
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        model.load(path)
    assert model.state_dict() == before


def test_a_state_of_another_shape_or_with_bad_values_is_refused(tmp_path: Path) -> None:
    model = tg.nn.MLP(2, [3, 2], seed=1)
    before = model.state_dict()
    other = tmp_path / "other.json"
    tg.nn.MLP(2, [4, 2], seed=1).save(other)
    with pytest.raises(ValueError, match=r"does not fit this MLP: (missing|unexpected)"):
        model.load(other)
    state = dict(before)
    state["layers.1.neurons.1.b"] = "oops"
    with pytest.raises(ValueError, match="must be a number"):
        model.load_state_dict(state)
    state["layers.1.neurons.1.b"] = True
    with pytest.raises(ValueError, match="must be a number"):
        model.load_state_dict(state)
    assert model.state_dict() == before
    truncated = tmp_path / "truncated.json"
    model.save(truncated)
    truncated.write_text(truncated.read_text()[:-40])
    with pytest.raises(ValueError, match="not a topograd state file"):
        model.load(truncated)
    assert model.state_dict() == before


@pytest.mark.parametrize("name", sorted(tg.datasets.DATASETS))
def test_datasets_are_reproducible_and_balanced(name: str) -> None:
    make = tg.datasets.DATASETS[name]
    points, labels = make(n=90, seed=3)
    again, same_labels = make(n=90, seed=3)
    other, _ = make(n=90, seed=4)
    assert (points, labels) == (again, same_labels)
    assert points != other
    assert len(points) == len(labels) == 90
    assert all(len(p) == 2 and all(math.isfinite(c) for c in p) for p in points)
    counts = [labels.count(k) for k in sorted(set(labels))]
    assert len(counts) >= 2 and max(counts) - min(counts) <= 1


def test_moons_without_noise_lie_on_their_half_circles() -> None:
    points, labels = tg.datasets.make_moons(50, noise=0.0, seed=0)
    for (x, y), label in zip(points, labels):
        centre = (0.0, 0.0) if label == 0 else (1.0, 0.5)
        assert math.dist((x, y), centre) == pytest.approx(1.0)
        assert (y >= -1e-12) if label == 0 else (y <= 0.5 + 1e-12)


def test_dataset_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="n must be"):
        tg.datasets.make_moons(1)
    with pytest.raises(ValueError, match="noise"):
        tg.datasets.make_circles(10, noise=-1)
    with pytest.raises(ValueError, match=r"n must be at least classes \(3\), got 2"):
        tg.datasets.make_spiral(2)
    with pytest.raises(ValueError, match="centers must be from 2 to 8"):
        tg.datasets.make_blobs(100, centers=9)  # no room for more: it would search for ever
    with pytest.raises(ValueError, match=r"n must be at least centers \(8\)"):
        tg.datasets.make_blobs(7, centers=8)
    assert len(set(tg.datasets.make_blobs(8, centers=8)[1])) == 8


def test_training_reaches_micrograds_accuracy_on_moons() -> None:
    run = train("moons", steps=100, seed=0)
    assert run.accuracies[-1] >= 0.97
    assert run.losses[-1] < run.losses[0] / 10
    assert len(run.losses) == 100


def test_train_command_plots_and_saves(tmp_path: Path) -> None:
    plot, saved = tmp_path / "moons.png", tmp_path / "moons.json"
    result = topograd("train", "--steps", "30", "--plot", str(plot), "--save", str(saved))
    assert result.returncode == 0, result.stderr
    assert "accuracy" in result.stdout and str(plot) in result.stdout
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    model = tg.nn.MLP(2, [16, 16, 1], seed=99)
    model.load(saved)
    assert model.state_dict() != tg.nn.MLP(2, [16, 16, 1], seed=0).state_dict()  # trained


def topograd_without(modules: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    """The command in a Python where importing ``modules`` fails, as where they are missing."""
    blocked = "; ".join(f"sys.modules[{m!r}] = None" for m in modules)
    code = f"import sys; {blocked}; from topograd.cli import main; sys.exit(main({list(args)!r}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_train_without_matplotlib_says_how_to_install_it(tmp_path: Path) -> None:
    result = topograd_without(
        ["matplotlib"], "train", "--steps", "1", "--plot", str(tmp_path / "p.png")
    )
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: --plot needs matplotlib, which is not installed: "
        "pip install 'topograd[demo]' (or pip install matplotlib)"
    )


def test_the_tensor_engine_runs_the_scalar_training_exactly() -> None:
    for dataset in ["moons", "blobs"]:
        scalar, tensor = (
            train(dataset, steps=30, seed=1),
            train(dataset, steps=30, seed=1, engine="tensor"),
        )
        assert tensor.losses == pytest.approx(scalar.losses, rel=1e-12)
        assert tensor.accuracies == scalar.accuracies


def test_digits_are_tested_on_every_held_out_image() -> None:
    """(The 95 % the full run reaches: test_train_command_on_the_tensor_engine, below.)"""
    from topograd.train.digits import train_digits

    run = train_digits(steps=20, seed=0)
    assert len(run.labels) == len(run.predicted) == len(run.images) == 360
    assert set(run.labels.tolist()) == set(range(10)) >= set(run.predicted.tolist())


def test_train_command_on_the_tensor_engine(tmp_path: Path) -> None:
    plot, saved = tmp_path / "digits.png", tmp_path / "digits.npz"
    result = topograd("train", "--dataset", "digits", "--plot", str(plot), "--save", str(saved))
    assert result.returncode == 0, result.stderr
    accuracy = float(result.stdout.split("test accuracy ")[1].split("%")[0])
    assert accuracy >= 95
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    model = tg.nn.Sequential(tg.nn.Linear(64, 64), tg.nn.ReLU(), tg.nn.Linear(64, 10))
    model.load(saved)


def test_train_command_trains_the_cnn_beside_an_mlp(tmp_path: Path) -> None:
    """A short run: both models' lines, the plot with their loss curves, a model that loads."""
    from topograd.train.digits import DigitsCNN

    plot, saved = tmp_path / "cnn.svg", tmp_path / "cnn.json"
    result = topograd(
        "train", "--dataset", "digits", "--model", "cnn", "--steps", "12",
        "--plot", str(plot), "--save", str(saved),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("CNN (conv 16, pool, conv 32, pool, linear) on scikit-learn's")
    assert "12 steps" in lines[0] and lines[1].startswith("test accuracy ")
    assert lines[2].startswith("the MLP 64-64-10 on the same mini-batches: test accuracy ")
    progress = result.stderr.splitlines()
    cnn = [line.split("  ")[0] for line in progress if line.startswith("cnn: ")]
    assert cnn == [f"cnn: step {k}/12" for k in range(1, 13)]
    # the MLP beside it: one line, not its own run's lines again (`make demo` runs that first)
    mlp = [line for line in progress if "mlp" in line]
    assert len(mlp) == 1 and mlp[0].startswith("mlp, for the plot beside the cnn: step 12/12")
    drawing = plot.read_text()
    assert "cnn: " in drawing and "mlp: " in drawing and "held out" in drawing  # the legend
    model = DigitsCNN()
    model.load(saved)
    assert model.conv2.weight.shape == (32, 16, 3, 3)
    alone = topograd("train", "--dataset", "digits", "--model", "cnn", "--steps", "3")
    assert alone.returncode == 0 and "mlp" not in alone.stderr  # no plot: no MLP


def test_train_runs_the_engine_it_names_and_compares_only_when_asked() -> None:
    alone = topograd("train", "--dataset", "moons", "--engine", "tensor", "--steps", "20")
    assert alone.returncode == 0, alone.stderr
    assert "tensor engine" in alone.stdout and "scalar" not in alone.stdout
    assert alone.stderr.count("step 20/20") == 1  # one training (progress to a pipe: lines)
    for engine in ("tensor", "scalar"):
        both = topograd("train", "--engine", engine, "--steps", "20", "--compare")
        assert both.returncode == 0, both.stderr
        assert both.stderr.count("step 20/20") == 2
        race = both.stdout.splitlines()[-1]
        assert race.startswith("the same run on both engines: scalar ")
        assert float(race.split("agree to ")[1]) < 1e-12
        assert f"{engine} engine" in both.stdout.splitlines()[0]


def test_digits_without_scikit_learn_say_how_to_install_it() -> None:
    result = topograd_without(["sklearn", "sklearn.datasets"], "train", "--dataset", "digits")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "error: the digits dataset ships with scikit-learn, which is not installed: "
        "pip install 'topograd[digits]' (or pip install scikit-learn)"
    )
