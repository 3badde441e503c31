"""``topograd modes``: why reverse mode, measured. The full Jacobian of f: Rⁿ → Rᵐ,
f(x) = tanh(A tanh(x)) with A an m × n matrix, by forward mode (``jacfwd``: a forward pass per
input) and by reverse mode (``jacrev``: a backward pass per output), for n and then m from 1 to
1000 with the other fixed at 10: the passes run one at a time (the count the lesson is about)
and all at once as a batch (what the transforms do by default: the count is still there, in
the size of the arrays, but fixed costs hide it until the batch is large); a table, and the
curves plotted into modes.png.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from ..func import jacfwd, jacrev
from .common import UsageError, check_folder, write_into

SIZES = (1, 3, 10, 30, 100, 300, 1000)
FIXED = 10  # the other side's size while one side grows


def add(commands: Any) -> None:
    modes = commands.add_parser(
        "modes",
        help="time the Jacobian of f: R^n -> R^m by forward and by reverse mode; plot it",
        description="Time the full Jacobian of f(x) = tanh(A tanh(x)), A an m x n matrix, by "
        "forward mode (jacfwd, a pass per input) and reverse mode (jacrev, a pass per output), "
        "for n from 1 to 1000 with m = 10, then m from 1 to 1000 with n = 10, and plot both "
        "into OUT/modes.png (matplotlib: pip install 'topograd[demo]').",
    )
    modes.add_argument("--out", default="out", help="folder for modes.png (default: out)")
    modes.add_argument(
        "--sizes",
        type=_sizes,
        default=SIZES,
        help="the sizes n and m take, comma-separated (default: 1,3,10,30,100,300,1000)",
    )
    modes.set_defaults(run=run)


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"sizes are whole numbers, got {text!r}") from None
    if not sizes or min(sizes) < 1 or max(sizes) > 5000:
        raise argparse.ArgumentTypeError(f"sizes are from 1 to 5000, got {text!r}")
    return sizes


def problem(n: int, m: int) -> tuple[Callable[[Any], Any], Any]:
    """f: Rⁿ → Rᵐ and a point x."""
    import numpy as np

    rng = np.random.default_rng(n * 7919 + m)
    a = rng.standard_normal((m, n)) / np.sqrt(n)
    return (lambda x: (x.tanh() @ a.T).tanh()), rng.standard_normal(n)


def seconds(transform: Callable[..., Any], f: Callable[[Any], Any], x: Any) -> tuple[float, Any]:
    """The best of three timings of the full Jacobian, and the Jacobian."""
    jacobian = transform(f)(x)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        transform(f)(x)
        best = min(best, time.perf_counter() - start)
    return best, jacobian


# How each mode is run: a pass at a time (the lesson's count), or all passes as one batch.
WAYS: dict[str, Callable[..., Any]] = {
    "jacfwd, a pass at a time": partial(jacfwd, chunk_size=1),
    "jacrev, a pass at a time": partial(jacrev, chunk_size=1),
    "jacfwd, batched": jacfwd,
    "jacrev, batched": jacrev,
}

Row = tuple[str, int, int, list[float]]  # what grows, n, m, the seconds of each way


def measure(sizes: Sequence[int]) -> list[Row]:
    """Every way at each size, n growing then m growing; all must give one Jacobian."""
    import numpy as np

    rows: list[Row] = []
    for grows in ("n", "m"):
        for size in sizes:
            n, m = (size, FIXED) if grows == "n" else (FIXED, size)
            f, x = problem(n, m)
            timed = [seconds(way, f, x) for way in WAYS.values()]
            first = timed[0][1]
            for _, jacobian in timed[1:]:
                if not np.allclose(jacobian, first, rtol=1e-12, atol=1e-14):
                    raise AssertionError(f"the modes disagree at n={n}, m={m}")
            rows.append((grows, n, m, [t for t, _ in timed]))
    return rows


def table(rows: Sequence[Row]) -> str:
    heads = ["fwd, 1 by 1", "rev, 1 by 1", "fwd, batch", "rev, batch"]
    lines = [
        "The full Jacobian of f: R^n -> R^m, f(x) = tanh(A tanh(x)): forward mode needs a pass",
        "per input (n), reverse mode a pass per output (m); run one at a time, or all at once as",
        "a batch. Best of 3, milliseconds:",
        "",
        f"{'n':>6} {'m':>6} " + " ".join(f"{h:>12}" for h in heads),
    ]
    for _, n, m, times in rows:
        lines.append(f"{n:>6} {m:>6} " + " ".join(f"{t * 1e3:>12.2f}" for t in times))
    return "\n".join(lines)


def plot(rows: Sequence[Row], path: Path) -> bytes:
    """Two panels, log-log: n growing (m fixed), m growing (n fixed); every way in each."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..train.plots import figure_bytes

    figure, panels = plt.subplots(1, 2, figsize=(11, 4.6), dpi=120, sharey=True)
    styles = [("o-", "C0"), ("s-", "C1"), ("o--", "C0"), ("s--", "C1")]
    for panel, grows in zip(panels, ("n", "m")):
        chosen = [r for r in rows if r[0] == grows]
        sizes = [r[1] if grows == "n" else r[2] for r in chosen]
        for k, (label, (style, colour)) in enumerate(zip(WAYS, styles)):
            times = [r[3][k] * 1e3 for r in chosen]
            panel.loglog(sizes, times, style, color=colour, label=label, alpha=1 if k < 2 else 0.6)
        other = "m" if grows == "n" else "n"
        what = "inputs" if grows == "n" else "outputs"
        panel.set_xlabel(f"{grows}, the number of {what} ({other} = {FIXED})")
        panel.grid(True, which="both", alpha=0.3)
        panel.legend(fontsize=8)
    panels[0].set_ylabel("milliseconds for the full Jacobian")
    figure.suptitle(
        "f: Rⁿ → Rᵐ: forward mode takes a pass per input, reverse mode a pass per output"
    )
    figure.tight_layout()
    data = figure_bytes(figure, path)
    plt.close(figure)
    return data


def run(args: argparse.Namespace) -> int:
    try:  # before the timings, which take a while
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("the plot needs matplotlib: pip install 'topograd[demo]'") from None
    check_folder(args.out, "--out")
    rows = measure(args.sizes)
    print(table(rows))
    (path,) = write_into(args.out, "--out", {"modes.png": plot(rows, Path("modes.png"))})
    print(f"\nPlotted into {path}")
    return 0
