"""max_pool2d's rule from the picks its forward kept (``Op.keeps``, tensors/picks.py) is the
rule that pools and folds again, to the bit: windows apart or overlapping, padded, dilated,
with ceil_mode; signed zeros, infinities, NaNs (their bits) in the input and in the upstream
gradient; float16, float32, float64 and integers; and a batch of gradients."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from topograd.autograd.registry import OPS
from topograd.tensors.arrays import kernel

SPECIAL = [0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, -np.nan, 1e30, -1e30, 2.0]
POOLS = [
    {"kernel_size": 2},
    {"kernel_size": 2, "stride": 3},
    {"kernel_size": 3, "stride": 3, "padding": 1},
    {"kernel_size": 2, "ceil_mode": True},
    {"kernel_size": (2, 3), "stride": (2, 4), "padding": (1, 1), "ceil_mode": True},
    {"kernel_size": 3, "stride": 1},  # overlapping: the rule folds
    {"kernel_size": 2, "stride": 2, "dilation": 2},  # spaced: the rule folds
]


def cases(dtype: Any, rng: np.random.Generator) -> list[np.ndarray]:
    """Images (N, C, H, W), (C, H, W) and one laid out with the images last, as the kernels
    make them; some with special values, some with ties (integers in a small range)."""
    found = []
    for shape in [(3, 2, 6, 7), (2, 5, 5), (1, 1, 4, 4), (16, 3, 8, 8)]:
        for trial in range(3):
            x = rng.normal(size=shape) if trial != 1 else rng.integers(-2, 2, size=shape)
            if trial == 2:
                x = x.copy()
                x.flat[rng.integers(0, x.size, max(2, x.size // 5))] = rng.choice(
                    SPECIAL, max(2, x.size // 5)
                )
            found.append(np.asarray(x, dtype))
    last = np.moveaxis(rng.normal(size=(3, 6, 6, 4)), -1, 0).astype(dtype)  # (4, 3, 6, 6)
    return [*found, last]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int64])
def test_the_rule_from_the_kept_picks_is_the_refolded_one(dtype: Any) -> None:
    op, forward = OPS["max_pool2d"], kernel(OPS["max_pool2d"])
    rng = np.random.default_rng(2)
    with np.errstate(all="ignore"):
        for x in cases(dtype, rng):
            for pool in POOLS:
                out, kept = forward(x, **pool)
                assert kept is not None
                grads = [rng.normal(size=out.shape), np.full(out.shape, -0.0)]
                special = rng.choice(SPECIAL, out.shape)
                grads.append(special)
                for g in grads:
                    grad = np.asarray(g, out.dtype if dtype != np.int64 else np.float64)
                    again = op.rule(grad, x, out, **pool)[0]
                    found = op.rule(grad, x, out, **pool, kept=kept)[0]
                    assert found.dtype == again.dtype and found.shape == again.shape
                    assert found.tobytes() == again.tobytes(), (x.shape, pool, dtype)


def test_a_batch_of_gradients_folds_as_before() -> None:
    op, forward = OPS["max_pool2d"], kernel(OPS["max_pool2d"])
    x = np.random.default_rng(3).normal(size=(2, 3, 4, 4))
    out, kept = forward(x, kernel_size=2)
    assert kept is not None
    grads = np.random.default_rng(4).normal(size=(5, *out.shape))  # five at once
    assert kept.gradient(grads) is None  # not its shape: the rule folds
    found = op.rule(grads, x, out, kernel_size=2, kept=kept)[0]
    each = [op.rule(g, x, out, kernel_size=2)[0] for g in grads]
    assert found.tobytes() == np.stack(each).tobytes()


def test_the_kept_picks_are_used_where_windows_lie_apart() -> None:
    """Not only equal: the fast path runs (a gradient), and folds where windows overlap."""
    forward = kernel(OPS["max_pool2d"])
    x = np.random.default_rng(5).normal(size=(2, 3, 6, 6)).astype(np.float32)
    out, kept = forward(x, kernel_size=2)
    assert kept is not None and kept.gradient(np.ones_like(out)) is not None
    out, kept = forward(x, kernel_size=3, stride=1)
    assert kept is not None and kept.gradient(np.ones_like(out)) is None
