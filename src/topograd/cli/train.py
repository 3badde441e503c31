"""``topograd train``: micrograd's demo recipe on a 2-D dataset on either engine, or the digits
on Tensors, with a progress bar, the final accuracy, a plot and the saved model."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..train.datasets import DATASETS
from .common import UsageError, between, check_outputs, natural, write_outputs

if TYPE_CHECKING:
    from ..nn.module import Module
    from ..train.recipe import Run

PLOT_FORMATS = (".png", ".pdf", ".svg", ".jpg", ".jpeg")


# the digits' models: train.digits.MODELS, named here so that the command line loads no NumPy
MODELS = ("mlp", "cnn")
MAX_STEPS = 1_000_000  # a million steps of the demo take hours already
MIN_POINTS, MAX_POINTS = 8, 10_000  # enough for every class; a scalar step in seconds


def add(commands: Any) -> None:
    train = commands.add_parser(
        "train",
        help="train an MLP: micrograd's demo on a 2-D dataset, or the digits on Tensors",
        description="Train MLP(2, [16, 16, 1]) (more outputs for more classes) on a small 2-D "
        "dataset with micrograd's demo recipe: full batch, hinge (or cross-entropy) loss plus "
        "1e-4 * L2, SGD with the learning rate falling linearly, on scalar Values or, with "
        "--engine tensor, on Tensors (--compare runs it on both and times them). --dataset digits "
        "trains on scikit-learn's 8x8 digits on Tensors: an MLP 64-64-10, or with --model cnn a "
        "small CNN. A progress bar, the final accuracy, and optionally a plot and the saved "
        "model.",
    )
    train.add_argument("--dataset", choices=[*sorted(DATASETS), "digits"], default="moons")
    train.add_argument(
        "--model",
        choices=MODELS,
        default="mlp",
        help="the digits' model: mlp, an MLP 64-64-10 (the default); or cnn, two 3x3 "
        "convolutions (16 and 32 channels, padding 1), each with ReLU and a 2x2 max pool, then "
        "Linear(128, 10). Both train with Adam (lr 0.01) on the same mini-batches of 128; the "
        "plot of a cnn run draws its loss curve beside an MLP's trained on those batches",
    )
    train.add_argument(
        "--engine",
        choices=["scalar", "tensor"],
        default=None,
        help="scalar Values or NumPy Tensors (default: scalar; the digits: tensor)",
    )
    train.add_argument(
        "--compare",
        action="store_true",
        help="run the same training on the other engine too: time per step of each, and how "
        "far their losses differ",
    )
    train.add_argument(
        "--steps",
        type=between(1, MAX_STEPS),
        default=None,
        help=f"steps, 1 to {MAX_STEPS:,} (default 100; digits 300)",
    )
    train.add_argument("--seed", type=natural, default=0, help="seed of the data and the weights")
    train.add_argument(
        "--points",
        type=between(MIN_POINTS, MAX_POINTS),
        default=100,
        help=f"dataset size, {MIN_POINTS} to {MAX_POINTS:,} (default 100)",
    )
    train.add_argument("--plot", metavar="FILE.png", help="draw the decision boundary into FILE")
    train.add_argument("--save", metavar="FILE", help="save the model (FILE.json, or FILE.npz)")
    train.set_defaults(run=run)


def progress(
    steps: int, label: str = "training", lines: int = 10
) -> Callable[[Iterable[int]], Any]:
    """tqdm's bar on a terminal where tqdm is installed; else (a log, a pipe) ``lines`` lines,
    evenly along the way (the last at the last step)."""
    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None
    if tqdm is None or not sys.stderr.isatty():
        return lambda steps_range: _Every(steps_range, max(1, steps // lines), label)
    return lambda steps_range: tqdm(
        steps_range, desc=label, unit="step", ncols=90, mininterval=0.25
    )


class _Every:
    def __init__(self, steps: Iterable[int], every: int, label: str) -> None:
        self.steps, self.every, self.label, self.postfix = list(steps), every, label, ""

    def __iter__(self) -> Any:
        for k in self.steps:
            yield k
            if (k + 1) % self.every == 0 or k + 1 == len(self.steps):
                step = f"step {k + 1}/{len(self.steps)}"
                print(f"{self.label}: {step}  {self.postfix}", file=sys.stderr)

    def set_postfix(self, **values: str) -> None:
        self.postfix = "  ".join(f"{k} {v}" for k, v in values.items())


def _need_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(
            "--plot needs matplotlib, which is not installed: "
            "pip install 'topograd[demo]' (or pip install matplotlib)"
        ) from None


def run(args: argparse.Namespace) -> int:
    args.engine = args.engine or ("tensor" if args.dataset == "digits" else "scalar")
    check_outputs(  # before the training, not after it
        {"--plot": (args.plot, PLOT_FORMATS), "--save": (args.save, (".json", ".npz"))}
    )
    if args.plot:
        _need_matplotlib()
    if args.dataset == "digits" and args.engine == "scalar":
        raise UsageError("the digits train on the tensor engine: --engine tensor")
    if args.dataset == "digits" and args.compare:
        raise UsageError("--compare races the engines on a 2-D dataset; the digits train on one")
    if args.dataset != "digits" and args.model != "mlp":
        raise UsageError(f"--model {args.model} trains on the digits' images: --dataset digits")
    try:
        return _digits(args) if args.dataset == "digits" else _two_d(args)
    except ValueError as error:  # a bad dataset size (a file that fails: a WriteError)
        raise UsageError(str(error)) from None


def _two_d(args: argparse.Namespace) -> int:
    from ..train.plots import plot_run
    from ..train.recipe import train

    steps = args.steps or 100
    label = f"{args.engine} engine"
    run = train(args.dataset, steps, args.seed, args.points, args.engine, progress(steps, label))
    n, accuracy = len(run.labels), run.accuracies[-1]
    shape = f"MLP(2, [16, 16, {1 if run.classes == 2 else run.classes}])"
    kind = "hinge loss" if run.classes == 2 else "softmax cross-entropy"
    print(
        f"{shape} on {n} {args.dataset} points, seed {args.seed}, {args.engine} engine: "
        f"{kind} + 1e-4 * L2, {steps} steps of SGD"
    )
    print(
        f"final loss {run.losses[-1]:.4f}, accuracy {accuracy:.0%} ({round(accuracy * n)} of "
        f"{n} points), {_ms(run.seconds):.2f} ms per step"
    )
    if args.compare:
        other = "scalar" if args.engine == "tensor" else "tensor"
        twin = train(
            args.dataset, steps, args.seed, args.points, other, progress(steps, f"{other} engine")
        )
        _race({args.engine: run, other: twin})
    outputs = {}
    if args.plot:
        engine = " on Tensors" if args.engine == "tensor" else ""
        title = f"{args.dataset}{engine}: {accuracy:.0%} after {steps} steps"
        outputs["--plot"] = (args.plot, plot_run(run, args.plot, title))
    _write(outputs, run.model, args)
    if args.plot:
        print(f"decision boundary with the training points: {args.plot}")
    return 0


def _write(outputs: dict[str, tuple[str, bytes]], model: Module, args: argparse.Namespace) -> None:
    """The run's files, all or none: the plot and the model."""
    from ..nn import state

    if args.save:
        outputs["--save"] = (args.save, state.encoded(args.save, repr(model), model.state_dict()))
    write_outputs(outputs)
    if args.save:
        print(f"model saved to {args.save}")


def _race(runs: dict[str, Run]) -> None:
    """The same training on both engines: time per step of each, and how far the losses differ."""
    scalar, tensor = runs["scalar"], runs["tensor"]
    gap = max(abs(a - b) for a, b in zip(scalar.losses, tensor.losses, strict=True))
    print(
        f"the same run on both engines: scalar {_ms(scalar.seconds):.2f} ms per step, tensor "
        f"{_ms(tensor.seconds):.2f} ms per step, the tensor engine "
        f"{_ms(scalar.seconds) / _ms(tensor.seconds):.1f}x as fast; the losses agree to {gap:.1g}"
    )


def _ms(seconds: list[float]) -> float:
    return 1e3 * sum(seconds) / len(seconds)


def _digits(args: argparse.Namespace) -> int:
    from ..train.digits import MissingExtraError, train_digits
    from ..train.plots import plot_digits

    steps = args.steps or 300
    try:
        run = train_digits(steps, args.seed, progress(steps, args.model), args.model)
        mlp = None
        if args.model != "mlp" and args.plot:  # its curve beside an MLP's on the same batches
            # (one line in a log: the MLP's own run, `--model mlp`, shows the same steps)
            label = f"mlp, for the plot beside the {args.model}"
            mlp = train_digits(steps, args.seed, progress(steps, label, lines=1), "mlp")
    except MissingExtraError as error:
        raise UsageError(str(error)) from None
    tested = len(run.labels)
    right = round(run.test_accuracy * tested)
    print(
        f"{_NAMES[args.model]} on scikit-learn's 8x8 digits: Adam, mini-batches of 128, {steps} "
        f"steps, {1e3 * sum(run.history.seconds):.0f} ms in all"
    )
    print(f"test accuracy {run.test_accuracy:.1%} ({right} of {tested} held-out images)")
    if mlp is not None:
        print(f"the MLP 64-64-10 on the same mini-batches: test accuracy {mlp.test_accuracy:.1%}")
    outputs = {}
    if args.plot:
        title = f"digits, {args.model}: {run.test_accuracy:.1%} on held-out images"
        curves = None if mlp is None else {args.model: run, "mlp": mlp}
        outputs["--plot"] = (args.plot, plot_digits(run, args.plot, title, curves))
    _write(outputs, run.model, args)
    if args.plot:
        drawn = "confusion matrix, loss curves" if mlp else "confusion matrix"
        print(f"{drawn} and misclassified images: {args.plot}")
    return 0


_NAMES = {"mlp": "MLP 64-64-10", "cnn": "CNN (conv 16, pool, conv 32, pool, linear)"}
