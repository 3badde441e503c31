"""``view`` refused exactly where PyTorch 2.13 refuses it, from the layout (``tensors/layout.py``):
hypothesis draws a contiguous Tensor, permutes its axes, slices them (steps, empty slices) and
permutes again, then asks both libraries for views of shapes drawn to split, merge and regroup
the axes (with -1 and axes of size 1). The layouts agree stride for stride; each view is
refused by both with PyTorch's words, or given by both with the same numbers and gradients.
``reshape`` copies where a view cannot be, and both read sizes (-1, negative ones, the wrong
number of elements) as PyTorch does."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import event, given, settings
from hypothesis import strategies as st

import topograd as tg
from topograd.tensors.layout import inferred, viewable


@st.composite
def layouts(draw: Any) -> tuple[tuple[int, ...], tuple[int, ...], tuple[slice, ...], Any]:
    """A base shape, a permutation of its axes, a slice of each permuted axis (a step of 1 to
    3, empty ones too) and a second permutation."""
    axes = draw(st.sampled_from([1, 2, 2, 3, 3, 4]))
    base = tuple(draw(st.lists(st.integers(1, 5), min_size=axes, max_size=axes)))
    order = tuple(draw(st.permutations(range(len(base)))))
    slices = []
    for n in (base[a] for a in order):
        if draw(st.integers(0, 2)):  # most axes whole, so that runs of several axes are drawn
            slices.append(slice(None))
            continue
        start = draw(st.integers(0, n - 1))
        stop = start if draw(st.integers(0, 9)) == 0 else draw(st.integers(start + 1, n))
        slices.append(slice(start, stop, draw(st.integers(1, 3))))  # now and then empty
    again = tuple(draw(st.permutations(range(len(base)))))
    return base, order, tuple(slices), again


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0] if n else [0, 1, 2]


@st.composite
def targets(draw: Any, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape of as many elements: one axis, the axes regrouped (adjacent ones merged, one
    split), or any factorisation, with 1s put in and maybe one size given as -1."""
    numel = math.prod(shape)
    how = draw(st.sampled_from(["flat", "regroup", "regroup", "factors"]))
    if how == "flat":  # one axis: refused for every layout but a contiguous one
        sizes = [numel]
    elif how == "regroup" and shape:
        sizes = list(shape)
        if len(sizes) > 1 and draw(st.booleans()):
            at = draw(st.integers(0, len(sizes) - 2))
            sizes[at : at + 2] = [sizes[at] * sizes[at + 1]]
        at = draw(st.integers(0, len(sizes) - 1))
        factor = draw(st.sampled_from(divisors(sizes[at]))) if sizes[at] else 1
        if factor and sizes[at]:
            sizes[at : at + 1] = [factor, sizes[at] // factor]
    else:
        sizes, left = [], numel
        for _ in range(draw(st.integers(0, 3))):
            d = draw(st.sampled_from(divisors(left)))
            sizes.append(d)
            left = left // d if d else left
        if numel:
            sizes.append(left)
        elif 0 not in sizes:
            sizes.append(0)
    for _ in range(draw(st.integers(0, 2))):
        sizes.insert(draw(st.integers(0, len(sizes))), 1)
    if sizes and draw(st.booleans()) and math.prod(sizes):
        sizes[draw(st.integers(0, len(sizes) - 1))] = -1
    return tuple(sizes)


def outcome(call: Any) -> tuple[Any, BaseException | None]:
    try:
        return call(), None
    except RuntimeError as error:
        return None, error


def strides(x: tg.Tensor) -> tuple[int, ...]:
    return tuple(s // x.array.itemsize for s in x.array.strides)


@settings(max_examples=300)  # a refusal is one draw in ten: some thirty of them
@given(st.data())
def test_view_is_refused_exactly_where_torch_refuses_it(data: Any) -> None:
    base, order, slices, again = data.draw(layouts())
    numbers = np.arange(float(math.prod(base))).reshape(base)
    ours = tg.Tensor(numbers, requires_grad=True)
    theirs = torch.tensor(numbers, requires_grad=True)
    mine = ours.permute(*order)[slices].permute(*again)
    their = theirs.permute(*order)[slices].permute(*again)
    assert mine.shape == tuple(their.shape)
    if their.numel():  # (no elements: any strides, and every view of the size)
        assert strides(mine) == their.stride(), "the drawn layout is PyTorch's"
    target = data.draw(targets(mine.shape))
    viewed, refused = outcome(lambda: their.view(*target))
    got, our_refusal = outcome(lambda: mine.view(*target))
    event("refused" if refused is not None else "a view")
    if refused is not None:
        assert our_refusal is not None and str(our_refusal) == str(refused), target
        return
    assert our_refusal is None, f"PyTorch views {target}, ours refused: {our_refusal}"
    np.testing.assert_array_equal(got.data, viewed.detach().numpy())
    weights = np.linspace(-1.0, 1.0, viewed.numel()).reshape(viewed.shape)
    (got * weights).sum().backward()
    (viewed * torch.tensor(weights)).sum().backward()
    assert ours.grad is not None and theirs.grad is not None
    np.testing.assert_array_equal(ours.grad, theirs.grad.numpy())


@given(st.data())
def test_reshape_gives_what_view_refuses(data: Any) -> None:
    """reshape copies where it must: the numbers and gradients of PyTorch's reshape."""
    base, order, slices, again = data.draw(layouts())
    numbers = np.arange(float(math.prod(base))).reshape(base)
    ours = tg.Tensor(numbers, requires_grad=True)
    theirs = torch.tensor(numbers, requires_grad=True)
    mine = ours.permute(*order)[slices].permute(*again)
    their = theirs.permute(*order)[slices].permute(*again)
    target = data.draw(targets(mine.shape))
    got, viewed = mine.reshape(*target), their.reshape(*target)
    np.testing.assert_array_equal(got.data, viewed.detach().numpy())
    (got * 2.0).sum().backward()
    (viewed * 2.0).sum().backward()
    assert ours.grad is not None and theirs.grad is not None
    np.testing.assert_array_equal(ours.grad, theirs.grad.numpy())


@pytest.mark.parametrize(
    "sizes", [(5,), (-1, -1), (-1, 3), (0, -1), (-2, 2), (2, -3), (4, 0), (2, 2, 1, -1)]
)
@pytest.mark.parametrize("method", ["view", "reshape"])
def test_sizes_are_read_as_torch_reads_them(method: str, sizes: tuple[int, ...]) -> None:
    for shape in [(2, 2), (0, 2)]:
        theirs, refused = outcome(lambda: getattr(torch.zeros(shape), method)(*sizes))  # noqa: B023
        ours, our_refusal = outcome(lambda: getattr(tg.zeros(*shape), method)(*sizes))  # noqa: B023
        if refused is not None:
            assert our_refusal is not None and str(our_refusal) == str(refused)
        else:
            assert our_refusal is None and ours.shape == tuple(theirs.shape)


@pytest.mark.parametrize(
    ("made", "target"),
    [
        (lambda x: x.t(), (4,)),
        (lambda x: x.t(), (2, 2)),
        (lambda x: x.t(), (2, 1, 2)),
        (lambda x: x.t().unsqueeze(0), (2, 2)),
        (lambda x: x[:, :1], (2,)),
        (lambda x: x[::2], (2,)),
        (lambda x: x.permute(1, 0)[:1], (2,)),
    ],
)
def test_the_views_of_a_transpose_are_torchs(made: Any, target: tuple[int, ...]) -> None:
    """The finding: x.t().view(4) refused, x.t().view(2, 2) and size-1 axes accepted."""
    numbers = np.arange(4.0).reshape(2, 2)
    theirs, refused = outcome(lambda: made(torch.tensor(numbers)).view(*target))
    ours, our_refusal = outcome(lambda: made(tg.Tensor(numbers)).view(*target))
    assert (refused is None) == (our_refusal is None)
    if refused is None:
        np.testing.assert_array_equal(ours.data, theirs.numpy())


@settings(max_examples=300)
@given(st.data())
def test_the_rule_is_torchs_for_any_strides(data: Any) -> None:
    """``viewable`` on any layout (strides drawn freely, an axis of size 1 with any stride,
    overlaps too), against PyTorch's view of ``as_strided`` with the same strides."""
    axes = data.draw(st.integers(1, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=axes, max_size=axes)))
    steps = tuple(data.draw(st.lists(st.integers(0, 12), min_size=axes, max_size=axes)))
    size = 1 + sum((n - 1) * s for n, s in zip(shape, steps))
    array = np.lib.stride_tricks.as_strided(np.zeros(size), shape, [8 * s for s in steps])
    theirs = torch.zeros(size).as_strided(shape, steps)
    target = inferred(data.draw(targets(shape)), math.prod(shape))
    _, refused = outcome(lambda: theirs.view(*target))
    event("refused" if refused is not None else "a view")
    assert viewable(array, target) == (refused is None), (shape, steps, target)
