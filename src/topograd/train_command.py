"""``topograd train``: the scalar engine on 2-D datasets, the Tensor engine on them or on the
digits, with a progress bar, the final accuracy, a plot and the saved model."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .train import plot, plot_regions, train
from .train_tensor import MissingExtraError, TensorRun, plot_digits, train_2d_tensor, train_digits


class CommandError(Exception):
    """A refusal for the command line: one line, exit status 2."""


def progress(steps: int) -> Callable[[Iterable[int]], Any]:
    """tqdm's bar where tqdm is installed; else a line every tenth of the way."""
    try:
        from tqdm import tqdm
    except ImportError:
        return lambda steps_range: _Every(steps_range, max(1, steps // 10))
    return lambda steps_range: tqdm(
        steps_range, desc="training", unit="step", ncols=90, mininterval=0.25
    )


class _Every:
    def __init__(self, steps: Iterable[int], every: int) -> None:
        self.steps, self.every, self.postfix = list(steps), every, ""

    def __iter__(self) -> Any:
        for k in self.steps:
            yield k
            if (k + 1) % self.every == 0 or k + 1 == len(self.steps):
                print(f"step {k + 1}/{len(self.steps)}  {self.postfix}", file=sys.stderr)

    def set_postfix(self, **values: str) -> None:
        self.postfix = "  ".join(f"{k} {v}" for k, v in values.items())


def _need_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise CommandError(
            "--plot needs matplotlib, which is not installed: "
            "pip install 'topograd[demo]' (or pip install matplotlib)"
        ) from None


PLOT_FORMATS = (".png", ".pdf", ".svg", ".jpg", ".jpeg")


def _writable(path: str | None, what: str, suffixes: tuple[str, ...]) -> None:
    """Refuse a file that cannot be written before the training, not after it."""
    if not path:
        return
    target = Path(path)
    if target.suffix.lower() not in suffixes:
        raise CommandError(f"{what} must end in {', '.join(suffixes)}: {path}")
    if not target.parent.is_dir():
        raise CommandError(f"cannot write {path}: no folder {target.parent}")


def run(args: argparse.Namespace) -> int:
    _writable(args.plot, "--plot", PLOT_FORMATS)
    _writable(args.save, "--save", (".json", ".npz"))
    if args.plot:
        _need_matplotlib()
    try:
        return _run(args)
    except (OSError, ValueError) as error:  # a file that cannot be written, a bad dataset size
        raise CommandError(str(error)) from None


def _run(args: argparse.Namespace) -> int:
    if args.dataset == "digits":
        if args.engine == "scalar":
            raise CommandError("the digits train on the tensor engine: --engine tensor")
        return _digits(args)
    if args.engine == "tensor":
        return _tensor_2d(args)
    return _scalar_2d(args)


def _scalar_2d(args: argparse.Namespace) -> int:
    steps = args.steps or 100
    result = train(args.dataset, steps, args.seed, args.points, progress=progress(steps))
    _report_2d(
        args,
        steps,
        result.classes,
        len(result.y),
        result.losses[-1],
        result.accuracies[-1],
        result.seconds,
    )
    if args.plot:
        plot(result, args.plot, f"{args.dataset}: {result.accuracies[-1]:.0%} after {steps} steps")
        print(f"decision boundary with the training points: {args.plot}")
    if args.save:
        result.model.save(args.save)
        print(f"model saved to {args.save}")
    return 0


def _tensor_2d(args: argparse.Namespace) -> int:
    steps = args.steps or 100
    result = train_2d_tensor(args.dataset, steps, args.seed, args.points, progress=progress(steps))
    classes, labels = result.extra["classes"], result.extra["labels"]
    _report_2d(
        args, steps, classes, len(labels), result.losses[-1], result.accuracies[-1], result.seconds
    )
    scalar = train(args.dataset, steps, args.seed, args.points)  # the same run, for the race
    ms_scalar, ms_tensor = (1e3 * sum(r) / len(r) for r in (scalar.seconds, result.seconds))
    gap = max(abs(a - b) for a, b in zip(scalar.losses, result.losses, strict=True))
    print(
        f"the scalar engine took {ms_scalar:.1f} ms per step on the same run: the tensor engine "
        f"is {ms_scalar / ms_tensor:.0f}x faster (losses agree to {gap:.1g})"
    )
    if args.plot:
        plot_regions(
            result.extra["points"].tolist(),
            labels,
            classes,
            lambda grid: result.predict(_array(grid)),
            args.plot,
            f"{args.dataset} on Tensors: {result.accuracies[-1]:.0%} after {steps} steps",
        )
        print(f"decision boundary with the training points: {args.plot}")
    _save(result, args.save)
    return 0


def _array(points: list[list[float]]) -> Any:
    import numpy as np

    return np.array(points)


def _digits(args: argparse.Namespace) -> int:
    steps = args.steps or 300
    try:
        result = train_digits(steps, args.seed, progress=progress(steps))
    except MissingExtraError as error:
        raise CommandError(str(error)) from None
    tested = len(result.extra["labels"])
    right = round(result.test_accuracy * tested)
    print(
        f"MLP 64-64-10 on scikit-learn's 8x8 digits: Adam, mini-batches of 128, {steps} steps, "
        f"{1e3 * sum(result.seconds):.0f} ms in all"
    )
    print(f"test accuracy {result.test_accuracy:.1%} ({right} of {tested} held-out images)")
    if args.plot:
        plot_digits(result, args.plot, f"digits: {result.test_accuracy:.1%} on held-out images")
        print(f"confusion matrix and misclassified images: {args.plot}")
    _save(result, args.save)
    return 0


def _report_2d(
    args: argparse.Namespace,
    steps: int,
    classes: int,
    n: int,
    loss: float,
    accuracy: float,
    seconds: list[float],
) -> None:
    shape = f"MLP(2, [16, 16, {1 if classes == 2 else classes}])"
    kind = "hinge loss" if classes == 2 else "softmax cross-entropy"
    print(
        f"{shape} on {n} {args.dataset} points, seed {args.seed}, {args.engine} engine: "
        f"{kind} + 1e-4 * L2, {steps} steps of SGD"
    )
    print(
        f"final loss {loss:.4f}, accuracy {accuracy:.0%} ({round(accuracy * n)} of {n} points), "
        f"{1e3 * sum(seconds) / len(seconds):.2f} ms per step"
    )


def _save(result: TensorRun, path: str | None) -> None:
    if path:
        result.model.save(path)
        print(f"model saved to {path}")
