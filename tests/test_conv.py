"""Convolution and pooling against PyTorch 2.13 float64: conv2d, max_pool2d, avg_pool2d, unfold
and fold over shapes, strides, paddings, dilations and groups drawn by hypothesis (values and
the gradients of every input, second order too), ties and nan in max pools, empty batches, the
refusals, the layers (initialisation, padding modes, repr) and a saved model with Conv2d.

Where topograd's formula is PyTorch's (a copy, a max, a window's sum added in PyTorch's order)
the results are equal to the bit. A convolution's sums are BLAS's in NumPy and in PyTorch,
each in an order of its own: there the bound is that of any order of summation, (n + 1) eps
times the sum of the terms' sizes, n terms, each size from the same computation on |x|, |w|,
|b| and |grad| (PyTorch's).
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as torch_f
from hypothesis import given, settings
from hypothesis import strategies as st

import topograd as tg
from topograd.train.digits import DigitsCNN

F = tg.nn.functional
EPS = float(np.finfo(np.float64).eps)


def ours_and_theirs(*arrays: np.ndarray) -> tuple[list[tg.Tensor], list[torch.Tensor]]:
    return (
        [tg.Tensor(a, requires_grad=True) for a in arrays],
        [torch.tensor(a, requires_grad=True) for a in arrays],
    )


def within_sums(ours: Any, theirs: Any, sizes: Any, terms: int) -> None:
    """Equal but for the order of n additions: within (n + 1) eps x the sum of the sizes."""
    ours, theirs = np.asarray(ours), np.asarray(theirs, dtype=np.float64)
    assert ours.shape == theirs.shape
    bound = (terms + 1) * EPS * np.asarray(sizes, dtype=np.float64)
    assert (np.abs(ours - theirs) <= bound).all(), np.abs(ours - theirs).max()


def bitwise(ours: Any, theirs: Any) -> None:
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)
    assert (np.signbit(ours) == np.signbit(theirs)).all()  # the sign of every zero too


@st.composite
def convolutions(draw: Any) -> tuple[dict[str, Any], list[np.ndarray]]:
    """A convolution that PyTorch accepts, with its input, weight, bias and upstream gradient."""
    groups = draw(st.sampled_from([1, 1, 2, 3]))
    per_group, per_out = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    kernel = draw(st.tuples(st.integers(1, 3), st.integers(1, 3)))
    stride = draw(st.tuples(st.integers(1, 3), st.integers(1, 3)))
    dilation = draw(st.tuples(st.integers(1, 2), st.integers(1, 2)))
    padding = draw(st.tuples(st.integers(0, 2), st.integers(0, 2)))
    reach = [d * (k - 1) + 1 - 2 * p for d, k, p in zip(dilation, kernel, padding)]
    size = [draw(st.integers(max(1, r), max(1, r) + 5)) for r in reach]
    images = draw(st.sampled_from([(), (1,), (2,), (3,)]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = rng.uniform(-2, 2, (*images, groups * per_group, *size))
    w = rng.uniform(-2, 2, (groups * per_out, per_group, *kernel))
    b = rng.uniform(-2, 2, groups * per_out)
    params = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    out = torch_f.conv2d(torch.tensor(x), torch.tensor(w), torch.tensor(b), **params)
    g = rng.uniform(-2, 2, tuple(out.shape))
    return params, [x, w, b, g]


@given(convolutions(), st.booleans())
def test_conv2d_values_and_gradients_are_pytorchs(case: Any, bias: bool) -> None:
    params, (x, w, b, g) = case
    arrays = [x, w, b] if bias else [x, w]
    ours, theirs = ours_and_theirs(*arrays)
    out, expected = F.conv2d(*ours, **params), torch_f.conv2d(*theirs, **params)
    out.backward(g)
    expected.backward(torch.tensor(g))
    # the sizes of the terms: the same sums of |x|, |w|, |b| and |grad|, by PyTorch
    sizes = [torch.tensor(np.abs(a), requires_grad=True) for a in arrays]
    size = torch_f.conv2d(*sizes, **params)
    size.backward(torch.tensor(np.abs(g)))
    _, per_group, kh, kw = w.shape
    terms = max(per_group * kh * kw + 1, int(np.prod(g.shape)) // max(1, w.shape[0]) + 1)
    terms = max(terms, w.shape[0] * kh * kw)
    within_sums(out.data, expected.detach(), size.detach(), terms)
    for mine, theirs_, bound in zip(ours, theirs, sizes, strict=True):
        within_sums(mine.grad, theirs_.grad, bound.grad, terms)


@given(convolutions())
@settings(max_examples=25)
def test_conv2d_second_derivatives_are_pytorchs(case: Any) -> None:
    """d/d(x, w, b) of Σ v · ∂(Σ (conv · g)²)/∂(x, w), by create_graph, as torch.autograd.grad."""
    params, (x, w, b, g) = case
    rng = np.random.default_rng(0)
    vx, vw = rng.uniform(-1, 1, x.shape), rng.uniform(-1, 1, w.shape)

    def second(lib: Any, leaves: list[Any], conv: Any, grad: Any) -> list[Any]:
        loss = ((conv(*leaves, **params) * lib(g)) ** 2).sum()
        gx, gw = grad(loss, leaves[:2], create_graph=True)
        mixed = (gx * lib(vx)).sum() + (gw * lib(vw)).sum()
        return list(grad(mixed, leaves))

    ours, theirs = ours_and_theirs(x, w, b)
    mine = second(tg.Tensor, ours, F.conv2d, tg.grad)
    expected = second(torch.tensor, theirs, torch_f.conv2d, torch.autograd.grad)
    for a, e in zip(mine, expected, strict=True):
        e = e.detach().numpy()
        scale = max(1.0, float(np.abs(e).max()))
        np.testing.assert_allclose(np.asarray(a.data), e, rtol=1e-10, atol=1e-10 * scale)


@st.composite
def pools(draw: Any, dilated: bool) -> tuple[dict[str, Any], np.ndarray]:
    """A pool PyTorch accepts, and its input: small whole numbers (ties everywhere), with
    nan, ±inf and -0.0 among them where ``draw`` says."""
    kernel = draw(st.tuples(st.integers(1, 3), st.integers(1, 3)))
    stride = draw(st.one_of(st.none(), st.tuples(st.integers(1, 3), st.integers(1, 3))))
    dilation = draw(st.tuples(st.integers(1, 2), st.integers(1, 2))) if dilated else (1, 1)
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    size = [draw(st.integers(d * (k - 1) + 1, d * (k - 1) + 6)) for d, k in zip(dilation, kernel)]
    images = draw(st.sampled_from([(2,), (1,), ()]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = rng.integers(-3, 4, (*images, 2, *size)).astype(np.float64)
    specials = draw(st.lists(st.sampled_from([np.nan, np.inf, -np.inf, -0.0, 0.0]), max_size=4))
    flat = x.reshape(-1)
    flat[rng.integers(0, flat.size, len(specials))] = specials
    params = {"kernel_size": kernel, "stride": stride, "padding": padding}
    params["ceil_mode"] = draw(st.booleans())
    if dilated:
        params["dilation"] = dilation
    return params, x


@given(pools(dilated=True))
def test_max_pool2d_picks_as_pytorch_ties_nan_and_all(case: Any) -> None:
    """The values to the bit, the indices, and the gradient to the element PyTorch picks: the
    first of equal maxima, the last nan, the first pixel inside where all are -inf."""
    params, x = case
    (ours,), (theirs,) = ours_and_theirs(x)
    out, indices = F.max_pool2d(ours, **params, return_indices=True)
    expected, their_indices = torch_f.max_pool2d(theirs, **params, return_indices=True)
    bitwise(out.data, expected.detach().numpy())
    np.testing.assert_array_equal(indices.data, their_indices.numpy())
    g = np.random.default_rng(1).uniform(-2, 2, out.shape)
    out.backward(g)
    expected.backward(torch.tensor(g))
    # a pixel picked by overlapping windows adds their gradients, in another order: within
    # the bound of any order of those few additions (sizes: PyTorch's sums of |grad|)
    sizes = torch.tensor(x, requires_grad=True)
    torch_f.max_pool2d(sizes, **params).backward(torch.tensor(np.abs(g)))
    within_sums(ours.grad, theirs.grad, sizes.grad, int(np.prod(params["kernel_size"])))


@given(pools(dilated=False), st.booleans(), st.sampled_from([None, 1, 3]))
def test_avg_pool2d_equals_pytorch_to_the_bit(case: Any, include: bool, divisor: Any) -> None:
    """A window's sum added row by row, as PyTorch's kernel adds it, over the same divisor: the
    same number; the gradient added window after window in PyTorch's order: the same too."""
    params, x = case
    x = np.nan_to_num(x, nan=0.5, posinf=2.5, neginf=-1.5)  # sums of inf: nan alike, tested apart
    x = x + np.random.default_rng(2).uniform(-0.5, 0.5, x.shape)  # rounding in every sum
    (ours,), (theirs,) = ours_and_theirs(x)
    extra = {"count_include_pad": include, "divisor_override": divisor}
    out, expected = (
        F.avg_pool2d(ours, **params, **extra),
        torch_f.avg_pool2d(theirs, **params, **extra),
    )
    bitwise(out.data, expected.detach().numpy())
    g = np.random.default_rng(3).uniform(-2, 2, out.shape)
    out.backward(g)
    expected.backward(torch.tensor(g))
    bitwise(ours.grad, theirs.grad.numpy())


@pytest.mark.parametrize("pool", ["max", "avg"])
def test_pools_second_order_is_pytorchs(pool: str) -> None:
    rng = np.random.default_rng(4)
    x, v = rng.uniform(-2, 2, (2, 3, 5, 6)), rng.uniform(-1, 1, (2, 3, 5, 6))
    params = {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}

    def second(lib: Any, fn: Any, grad: Any, leaf: Any) -> Any:
        (first,) = grad((fn(leaf, **params) ** 3).sum(), [leaf], create_graph=True)
        return grad((first * lib(v)).sum(), [leaf])[0]

    (ours,), (theirs,) = ours_and_theirs(x)
    fns = {"max": (F.max_pool2d, torch_f.max_pool2d), "avg": (F.avg_pool2d, torch_f.avg_pool2d)}
    mine = second(tg.Tensor, fns[pool][0], tg.grad, ours)
    expected = second(torch.tensor, fns[pool][1], torch.autograd.grad, theirs)
    np.testing.assert_allclose(mine, expected.numpy(), rtol=1e-13, atol=1e-13)


@given(
    st.tuples(st.integers(1, 3), st.integers(1, 3)),
    st.tuples(st.integers(1, 2), st.integers(1, 2)),
    st.tuples(st.integers(0, 2), st.integers(0, 2)),
    st.tuples(st.integers(1, 3), st.integers(1, 3)),
    st.sampled_from([(2, 3), (3,)]),
    st.integers(0, 2**16),
)
def test_unfold_and_fold_equal_pytorch_to_the_bit(
    kernel: Any, dilation: Any, padding: Any, stride: Any, front: Any, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    size = [d * (k - 1) + 1 + rng.integers(0, 5) for d, k in zip(dilation, kernel)]
    window = {"kernel_size": kernel, "dilation": dilation, "padding": padding, "stride": stride}
    x = rng.uniform(-2, 2, (*front, *size))
    (ours,), (theirs,) = ours_and_theirs(x)
    columns, expected = F.unfold(ours, **window), torch_f.unfold(theirs, **window)
    bitwise(columns.data, expected.detach().numpy())
    back, their_back = F.fold(columns, size, **window), torch_f.fold(expected, size, **window)
    bitwise(back.data, their_back.detach().numpy())  # overlapping windows add in one order
    g = rng.uniform(-2, 2, back.shape)
    back.backward(g)
    their_back.backward(torch.tensor(g))
    bitwise(ours.grad, theirs.grad.numpy())


def test_an_empty_batch_gives_empty_results_and_zero_weight_gradients() -> None:
    x = np.zeros((0, 2, 5, 5))
    w = np.random.default_rng(5).uniform(-1, 1, (3, 2, 3, 3))
    ours, theirs = ours_and_theirs(x, w, np.ones(3))
    out = F.avg_pool2d(F.max_pool2d(F.conv2d(*ours, padding=1), 2), 2, ceil_mode=True)
    expected = torch_f.avg_pool2d(
        torch_f.max_pool2d(torch_f.conv2d(*theirs, padding=1), 2), 2, ceil_mode=True
    )
    assert out.shape == tuple(expected.shape) == (0, 3, 1, 1)
    out.sum().backward()
    expected.sum().backward()
    for mine, their in zip(ours, theirs, strict=True):
        bitwise(mine.grad, their.grad.numpy())


def test_float32_stays_float32() -> None:
    conv = tg.nn.Conv2d(2, 4, 3, padding=1, seed=0)
    x = tg.Tensor(np.ones((2, 2, 6, 6), dtype=np.float32), requires_grad=True)
    out = F.avg_pool2d(F.max_pool2d(conv(x).relu(), 2), 3, padding=1)
    out.sum().backward()
    assert out.dtype == x.grad.dtype == conv.weight.grad.dtype == conv.bias.grad.dtype == np.float32


REFUSALS = [
    (
        lambda: F.conv2d(np.ones((1, 2, 5, 5)), np.ones((3, 3, 2, 2))),
        "expected input\\[1, 2, 5, 5\\] to have 3 channels",
    ),
    (lambda: F.conv2d(np.ones((1, 2, 5, 5)), np.ones((3, 2, 6, 6))), "smaller than the kernel"),
    (
        lambda: F.conv2d(np.ones((1, 2, 5, 5)), np.ones((3, 2, 2, 2)), stride=0),
        "stride should be greater than zero",
    ),
    (
        lambda: F.conv2d(np.ones((1, 2, 5, 5)), np.ones((3, 2, 2, 2)), padding=-1),
        "padding should be non-negative",
    ),
    (
        lambda: F.conv2d(np.ones((1, 2, 5, 5)), np.ones((3, 2, 2, 2)), dilation=0),
        "dilation should be greater than zero",
    ),
    (
        lambda: F.conv2d(np.ones((1, 2, 5, 5)), np.ones((3, 2, 2, 2)), groups=0),
        "non-positive groups",
    ),
    (
        lambda: F.conv2d(np.ones((1, 2, 5, 5)), np.ones((3, 1, 2, 2)), groups=2),
        "divisible by 2 at dimension 0",
    ),
    (
        lambda: F.conv2d(np.ones((1, 2, 5, 5)), np.ones((4, 2, 2, 2)), np.ones(3)),
        "bias to be 1-dimensional with 4 elements",
    ),
    (
        lambda: F.conv2d(np.ones((5, 5)), np.ones((4, 2, 2, 2))),
        "Expected 3D \\(unbatched\\) or 4D \\(batched\\) input",
    ),
    (
        lambda: F.conv2d(np.ones((1, 2, 5, 5)), np.ones((4, 2, 2))),
        "weight must be \\(out, in / groups, kH, kW\\)",
    ),
    (
        lambda: F.conv2d(np.ones((1, 2, 5, 5)), np.ones((3, 2, 3, 3)), padding="same", stride=2),
        "not supported for strided",
    ),
    (
        lambda: F.conv2d(np.ones((1, 2, 5, 5)), np.ones((3, 2, 3, 3)), padding="full"),
        "Invalid padding string",
    ),
    (
        lambda: F.conv2d(np.ones((1, 2, 5, 5)), np.ones((3, 2, 3, 3)), padding=(1, 2, 3)),
        "padding must be an int or a pair",
    ),
    (
        lambda: F.max_pool2d(np.ones((1, 2, 5, 5)), 2, padding=2),
        "pad should be at most half of effective kernel size",
    ),
    (lambda: F.max_pool2d(np.ones((1, 2, 5, 5)), 6), "Output size is too small"),
    (lambda: F.max_pool2d(np.ones((1, 2, 9, 9)), 3, padding=2, dilation=2), "half of kernel size"),
    (lambda: F.max_pool2d(np.ones((1, 2, 5, 5)), 2, stride=0), "stride should not be zero"),
    (lambda: F.max_pool2d(np.ones((1, 2, 5, 5)), 0), "kernel_size should be greater than zero"),
    (lambda: F.max_pool2d(np.ones((2, 0, 5, 5)), 2), "C, H, W > 0, got \\[2, 0, 5, 5\\]"),
    (lambda: F.max_pool2d(np.ones((5, 5)), 2), "expected \\(N, C, H, W\\) or \\(C, H, W\\)"),
    (
        lambda: F.avg_pool2d(np.ones((1, 2, 5, 5)), 2, divisor_override=0),
        "divisor must be not zero",
    ),
    (lambda: F.avg_pool2d(np.ones((1, 2, 5, 5)), 2, padding=-1), "padding should be non-negative"),
    (
        lambda: F.unfold(np.ones((1, 2, 5, 5)), 7),
        "sliding blocks \\(-1, -1\\), but the array of sliding blocks must not",
    ),
    (lambda: F.fold(np.ones((1, 7, 16)), (5, 5), 2), "divisible by the product of kernel_size"),
    (
        lambda: F.fold(np.ones((1, 8, 15)), (5, 5), 2),
        "4 \\* 4 = 16 sliding blocks, but input.size\\(2\\)=15",
    ),
    (lambda: tg.nn.Conv2d(2, 3, 2, groups=2), "out_channels must be divisible by groups"),
    (lambda: tg.nn.Conv2d(3, 4, 2, groups=2), "in_channels must be divisible by groups"),
    (lambda: tg.nn.Conv2d(2, 3, 2, padding_mode="mirror"), "padding_mode must be one of"),
    (lambda: tg.nn.Conv2d(2, 3, 3, padding="same", stride=2), "not supported for strided"),
    (
        lambda: tg.nn.Conv2d(2, 3, 4, padding=3, padding_mode="reflect")(
            np.ones((1, 2, 3, 3), np.float32)
        ),
        "too large for reflect padding",
    ),
    (
        lambda: tg.nn.Conv2d(2, 3, 2, padding=4, padding_mode="circular")(
            np.ones((1, 2, 3, 3), np.float32)
        ),
        "too large for circular padding",
    ),
]


@pytest.mark.parametrize(("call", "message"), REFUSALS)
def test_bad_arguments_are_refused_naming_the_problem(call: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_mixed_dtypes_are_refused_as_pytorch_refuses_them() -> None:
    x, w = np.ones((1, 2, 5, 5)), np.ones((3, 2, 2, 2), dtype=np.float32)
    with pytest.raises(RuntimeError) as theirs:
        torch_f.conv2d(torch.tensor(x), torch.tensor(w))
    with pytest.raises(RuntimeError) as ours:
        F.conv2d(tg.Tensor(x), tg.Tensor(w))
    assert str(ours.value) == str(theirs.value)
    assert isinstance(ours.value, TypeError)  # (of its kind, as topograd's refusals of dtypes)


def test_conv2d_layer_initialises_as_pytorch() -> None:
    """weight and bias uniform in ±1/√fan_in (kaiming_uniform_ with a = √5), fan_in = in /
    groups · kH · kW; float32; the same numbers for the same seed."""
    conv = tg.nn.Conv2d(6, 4, (3, 2), groups=2, seed=7)
    bound = 1 / np.sqrt(3 * 3 * 2)
    assert conv.weight.shape == (4, 3, 3, 2) and conv.bias.shape == (4,)
    assert conv.weight.dtype == conv.bias.dtype == np.float32
    for p in (conv.weight, conv.bias):
        assert np.abs(p.data).max() <= bound and np.abs(p.data).max() > bound / 2
    again = tg.nn.Conv2d(6, 4, (3, 2), groups=2, seed=7)
    np.testing.assert_array_equal(conv.weight.data, again.weight.data)
    assert [name for name, _ in conv.named_parameters()] == ["weight", "bias"]
    assert tg.nn.Conv2d(2, 3, 3, bias=False).bias is None


@pytest.mark.parametrize(
    "arguments",
    [
        {"in_channels": 2, "out_channels": 3, "kernel_size": 2},
        {
            "in_channels": 2,
            "out_channels": 3,
            "kernel_size": (2, 3),
            "stride": 2,
            "padding": 1,
            "dilation": 2,
            "bias": False,
            "padding_mode": "reflect",
        },
        {"in_channels": 4, "out_channels": 2, "kernel_size": 3, "groups": 2, "padding": "same"},
    ],
)
def test_layer_reprs_are_pytorchs(arguments: dict[str, Any]) -> None:
    assert repr(tg.nn.Conv2d(**arguments)) == repr(torch.nn.Conv2d(**arguments))
    pools = [
        ({"kernel_size": 2},),
        ({"kernel_size": (2, 3), "stride": 1, "padding": 1, "dilation": 2, "ceil_mode": True},),
    ]
    for (given_,) in pools:
        assert repr(tg.nn.MaxPool2d(**given_)) == repr(torch.nn.MaxPool2d(**given_))
    assert repr(tg.nn.AvgPool2d(3, 2, 1)) == repr(torch.nn.AvgPool2d(3, 2, 1))


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding", [(1, 2), "same"])
def test_padding_modes_are_pytorchs(mode: str, padding: Any) -> None:
    """Each padded pixel picks a pixel of the image, so a pixel picked twice gets both
    gradients; "same" with an even kernel puts the odd row and column at the end."""
    ours = tg.nn.Conv2d(2, 3, (3, 2), padding=padding, padding_mode=mode, seed=0, dtype=np.float64)
    theirs = torch.nn.Conv2d(2, 3, (3, 2), padding=padding, padding_mode=mode, dtype=torch.float64)
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(ours.weight.array))
        theirs.bias.copy_(torch.tensor(ours.bias.array))
    x = np.random.default_rng(6).uniform(-2, 2, (2, 2, 4, 5))
    (mine,), (their,) = ours_and_theirs(x)
    warns = padding == "same" and mode == "zeros"  # PyTorch's warning of an uneven padding
    expecting = pytest.warns(UserWarning, match="padding='same'")
    with expecting if warns else contextlib.nullcontext():
        expected = theirs(their)
    out = ours(mine)
    g = np.random.default_rng(7).uniform(-1, 1, out.shape)
    out.backward(g)
    expected.backward(torch.tensor(g))
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-13, atol=1e-13)
    for a, b in [(mine.grad, their.grad), (ours.weight.grad, theirs.weight.grad)]:
        np.testing.assert_allclose(a, b.numpy(), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("suffix", [".npz", ".json"])
def test_a_model_with_conv2d_saves_and_loads(tmp_path: Any, suffix: str) -> None:
    trained, fresh = DigitsCNN(seed=0), DigitsCNN(seed=1)
    x = np.random.default_rng(8).random((4, 64), dtype=np.float32)
    path = tmp_path / f"cnn{suffix}"
    trained.save(path)
    assert not np.array_equal(fresh(x).data, trained(x).data)
    fresh.load(path)
    np.testing.assert_array_equal(fresh(x).data, trained(x).data)
    names = [name for name, _ in fresh.named_parameters()]
    assert names == [
        "conv1.weight",
        "conv1.bias",
        "conv2.weight",
        "conv2.bias",
        "out.weight",
        "out.bias",
    ]


def test_the_digits_cnn_reaches_98_5_percent_with_the_default_seed() -> None:
    pytest.importorskip("sklearn")
    from topograd.train.digits import train_digits

    run = train_digits(steps=300, seed=0, model="cnn")
    assert run.test_accuracy >= 0.985, run.test_accuracy
    assert len(run.history.losses) == 300 and run.history.losses[-1] < run.history.losses[0] / 50
