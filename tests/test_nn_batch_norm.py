"""``tg.nn.BatchNorm2d`` against PyTorch 2.13's: (N, C, H, W) images normalised per channel over
N, H and W; the values and the gradients of the input, the weight and the bias (in float64
within a few hundred units in the last place of the largest number compared, as the other norms
of ``test_nn_layers``; in float32 within its rounding); the running statistics after some
training steps (the variance unbiased; ``momentum=None`` a cumulative mean), evaluation by them,
the state's round trip into PyTorch's module, the repr and the refusal of another rank."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import topograd as tg

RTOL64 = 1e-12
RTOL32 = 1e-5  # a few dozen float32 roundings (2**-24 each) of numbers of order one


def close(ours: Any, theirs: Any, what: str, rtol: float = RTOL64) -> None:
    a = np.asarray(ours.data if isinstance(ours, tg.Tensor) else ours, dtype=np.float64)
    b = theirs.detach().numpy().astype(np.float64)
    assert a.shape == b.shape, (what, a.shape, b.shape)
    scale = max(1.0, float(np.abs(b).max())) if b.size else 1.0
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * scale, err_msg=what)


def pair(channels: int, dtype: Any, seed: int, **options: Any) -> tuple[Any, Any]:
    """Our BatchNorm2d and PyTorch's of ``options``, with the same random weight and bias."""
    ours = tg.nn.BatchNorm2d(channels, dtype=dtype, **options)
    theirs = torch.nn.BatchNorm2d(channels, dtype=getattr(torch, dtype.__name__), **options)
    if ours.weight is not None and ours.bias is not None:
        rng = np.random.default_rng(seed)
        weight, bias = rng.normal(1.0, 0.5, channels), rng.normal(0.0, 0.5, channels)
        ours.load_state_dict({"weight": weight.astype(dtype), "bias": bias.astype(dtype)}, False)
        theirs.load_state_dict({"weight": torch.tensor(weight), "bias": torch.tensor(bias)}, False)
    return ours, theirs


def image(seed: int, shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(0.5, 2.0, shape).astype(dtype)


def forward_and_backward(ours: Any, theirs: Any, x: np.ndarray, rtol: float) -> None:
    """The outputs, then the gradients of the input, weight and bias for one upstream gradient."""
    xs, ts = tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, their_out = ours(xs), theirs(ts)
    close(out, their_out, "value", rtol)
    upstream = np.random.default_rng(x.size).uniform(-2, 2, x.shape).astype(x.dtype)
    (out * tg.tensor(upstream)).sum().backward()
    (their_out * torch.tensor(upstream)).sum().backward()
    assert xs.grad is not None and ts.grad is not None
    close(xs.grad, ts.grad, "d/dinput", rtol)
    for name in ("weight", "bias"):
        mine, their = getattr(ours, name), getattr(theirs, name)
        if their is not None:
            close(mine.grad, their.grad, f"d/d{name}", rtol)


SHAPES = st.sampled_from([(2, 3, 4, 5), (1, 2, 3, 3), (4, 1, 2, 1), (3, 2, 1, 1), (2, 4, 3, 2)])


@settings(max_examples=30)
@given(shape=SHAPES, affine=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_training_values_and_gradients_are_pytorchs_in_float64(
    shape: tuple[int, ...], affine: bool, seed: int
) -> None:
    ours, theirs = pair(shape[1], np.float64, seed, affine=affine, eps=1e-3)
    forward_and_backward(ours, theirs, image(seed, shape, np.float64), RTOL64)


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (8, 4, 6, 6)])
def test_training_values_and_gradients_are_pytorchs_in_float32(shape: tuple[int, ...]) -> None:
    ours, theirs = pair(shape[1], np.float32, 1)
    forward_and_backward(ours, theirs, image(2, shape, np.float32), RTOL32)


@pytest.mark.parametrize("momentum", [0.1, 0.3, None])
def test_running_statistics_and_evaluation_are_pytorchs(momentum: float | None) -> None:
    ours, theirs = pair(3, np.float64, 5, momentum=momentum)
    for step, shape in enumerate([(4, 3, 2, 2), (2, 3, 5, 1), (6, 3, 3, 4)]):
        x = image(step, shape, np.float64)
        close(ours(tg.tensor(x)), theirs(torch.tensor(x)), f"training, step {step}")
        for name, buffer in theirs.named_buffers():
            close(getattr(ours, name), buffer, f"{name} after step {step}")
    assert ours.num_batches_tracked.dtype == np.int64  # type: ignore[union-attr]
    assert int(ours.num_batches_tracked.item()) == 3  # type: ignore[union-attr]
    ours.eval(), theirs.eval()
    forward_and_backward(ours, theirs, image(9, (5, 3, 2, 3), np.float64), RTOL64)


def test_without_running_statistics_the_batchs_are_used_even_in_evaluation() -> None:
    ours, theirs = pair(2, np.float64, 3, track_running_stats=False)
    assert ours.running_mean is None and dict(ours.named_buffers()) == {}
    ours.eval(), theirs.eval()
    forward_and_backward(ours, theirs, image(4, (3, 2, 2, 2), np.float64), RTOL64)


def test_the_state_after_training_runs_pytorchs_module_alike() -> None:
    ours = tg.nn.BatchNorm2d(4, momentum=0.2)
    with tg.no_grad():
        ours.weight.copy_(tg.tensor([0.5, 1.5, -1.0, 2.0]))  # type: ignore[union-attr]
    for step in range(3):
        ours(tg.tensor(image(step, (5, 4, 3, 3), np.float32)))
    state = ours.state_dict()
    assert list(state) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    theirs = torch.nn.BatchNorm2d(4, momentum=0.2)
    theirs.load_state_dict({k: torch.tensor(v.numpy()) for k, v in state.items()})
    assert int(theirs.num_batches_tracked) == 3
    ours.eval(), theirs.eval()
    x = image(7, (2, 4, 3, 2), np.float32)
    close(ours(tg.tensor(x)), theirs(torch.tensor(x)), "evaluation", RTOL32)
    back = tg.nn.BatchNorm2d(4, momentum=0.2)
    back.load_state_dict(theirs.state_dict())
    assert back.eval()(tg.tensor(x)).tolist() == ours(tg.tensor(x)).tolist()


def test_repr_and_refusals_are_pytorchs() -> None:
    for options in ({}, {"momentum": None, "affine": False, "track_running_stats": False}):
        ours, theirs = tg.nn.BatchNorm2d(3, **options), torch.nn.BatchNorm2d(3, **options)
        assert repr(ours) == repr(theirs)
    for rank in (2, 3, 5):
        x = np.zeros((2, 3, 2, 2, 2)[:rank], np.float32)
        message = rf"^expected 4D input \(got {rank}D input\)$"
        for lib in (torch, tg):
            with pytest.raises(ValueError, match=message):
                lib.nn.BatchNorm2d(3)(lib.tensor(x))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        tg.nn.BatchNorm2d(3)(tg.zeros(1, 3, 1, 1))
    assert tg.nn.BatchNorm2d(2, momentum=None)(tg.zeros(2, 2, 1, 1)).shape == (2, 2, 1, 1)
