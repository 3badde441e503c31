"""Modules' PyTorch API beyond calls and state: attributes, ``requires_grad_`` and ``to``,
the containers, ``clip_grad_norm_``, constructor signatures (``device=``, ``dtype=``,
topograd's ``seed=`` by name), BatchNorm1d of an empty batch, mixed dtypes refused, and each
refusal of PyTorch's raised as the same exception class; each checked against PyTorch itself.
(Calls, parameter order and state: ``test_nn_modules.py``.)"""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

import numpy as np
import pytest
import torch
from test_nn_modules import both, numbers, ordered

import topograd as tg

F = tg.nn.functional
TF = torch.nn.functional


# 6. Attributes, requires_grad_, to, the containers, clip_grad_norm_.


def test_linear_and_conv2d_have_pytorchs_attributes() -> None:
    ours, theirs = both(lambda lib: lib.nn.Linear(3, 5, bias=False))
    assert (ours.in_features, ours.out_features) == (theirs.in_features, theirs.out_features)
    assert repr(ours) == repr(theirs)
    names = ["in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation"]
    names += ["groups", "padding_mode"]
    for arguments in [
        {"kernel_size": 3},
        {"kernel_size": (3, 2), "stride": 2, "padding": (1, 0), "dilation": 2, "groups": 2},
        {"kernel_size": 3, "padding": "same", "padding_mode": "reflect"},
    ]:
        ours, theirs = both(lambda lib, a=arguments: lib.nn.Conv2d(4, 6, **a))  # type: ignore[misc]
        for name in names:
            assert getattr(ours, name) == getattr(theirs, name), name


def test_requires_grad_and_to_as_pytorchs() -> None:
    model = ordered(tg)
    assert model.requires_grad_(False) is model
    assert not any(p.requires_grad for p in model.parameters())
    assert len(model.parameters()) == 8  # frozen, still its parameters
    model.requires_grad_()
    assert all(p.requires_grad for p in model.parameters())
    with pytest.raises(TypeError, match="always wants a gradient"):
        tg.nn.MLP(2, [1]).requires_grad_(False)
    assert model.to("cpu") is model and model.to(device="cpu:0") is model
    assert model.to(torch.device("cpu"), tg.float64) is model
    state = model.state_dict()
    assert all(v.dtype == np.float64 for k, v in state.items() if k != "norm.num_batches_tracked")
    assert state["norm.num_batches_tracked"].dtype == np.int64  # integers stay, as PyTorch's
    model.to(np.float32)
    assert model.body.weight.dtype == np.float32
    model.to(tg.ones(1, dtype=tg.float64))
    assert model.body.weight.dtype == np.float64
    with pytest.raises(ValueError, match="CPU only"):
        model.to("cuda")
    with pytest.raises(TypeError):
        torch.nn.Linear(2, 2).to(torch.int64)
    with pytest.raises(TypeError):
        model.to(np.int64)


def test_module_list_and_dict_as_pytorchs() -> None:
    def lists(nn: Any) -> Any:
        blocks = nn.ModuleList([nn.Linear(2, 2)])
        blocks.append(nn.ReLU())
        blocks.extend([nn.Linear(2, 3)])
        blocks.insert(1, nn.Linear(2, 2, bias=False))
        return blocks

    ours, theirs = both(lambda lib: lists(lib.nn))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert len(ours) == len(theirs) == 4 and repr(ours) == repr(theirs)
    assert [type(m).__name__ for m in ours] == [type(m).__name__ for m in theirs]
    assert type(ours[-1]).__name__ == "Linear" and len(ours[1:]) == 3
    assert [n for n, _ in ours[1:].named_parameters()] == [
        n for n, _ in theirs[1:].named_parameters()
    ]

    def dicts(nn: Any) -> Any:
        heads = nn.ModuleDict({"b": nn.Linear(2, 1), "a": nn.Linear(2, 2)})
        heads["c"] = nn.Tanh()
        heads.update({"d": nn.Linear(1, 1)})
        heads.pop("a")
        return heads

    ours, theirs = both(lambda lib: dicts(lib.nn))
    assert (
        list(ours.state_dict())
        == list(theirs.state_dict())
        == [
            "b.weight",
            "b.bias",
            "d.weight",
            "d.bias",
        ]
    )
    assert list(ours) == list(theirs) and list(ours.keys()) == list(theirs.keys())
    assert [type(m).__name__ for m in ours.values()] == ["Linear", "Tanh", "Linear"]
    assert [k for k, _ in ours.items()] == ["b", "c", "d"] and "c" in ours and len(ours) == 3
    assert repr(ours) == repr(theirs)
    with pytest.raises(TypeError):
        ours["e"] = 3  # type: ignore[assignment]


@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf, 3.0])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("max_norm", [0.5, 1e6])
def test_clip_grad_norm_is_pytorchs(norm_type: float, dtype: Any, max_norm: float) -> None:
    rng = np.random.default_rng(3 if norm_type == math.inf else int(norm_type))
    grads = [np.asarray(rng.normal(size=s), dtype) for s in [(3, 4), (5,), ()]]
    ours = [tg.Tensor(np.zeros_like(g), requires_grad=True) for g in grads]
    theirs = [
        torch.zeros(g.shape, dtype=torch.from_numpy(g).dtype, requires_grad=True) for g in grads
    ]
    for p, q, g in zip(ours, theirs, grads, strict=True):
        p.grad, q.grad = g.copy(), torch.from_numpy(g.copy())
    unused = tg.Tensor([1.0], requires_grad=True)  # no gradient: skipped, as PyTorch does
    found = tg.nn.utils.clip_grad_norm_([*ours, unused], max_norm, norm_type=norm_type)
    expected = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type=norm_type)
    assert found.dtype == dtype and not found.requires_grad
    ulps = 0 if norm_type in (1.0, math.inf) else 4  # (sums of another order: a few ulps)
    spacing = np.spacing(np.asarray(expected.item(), dtype))
    assert abs(found.item() - expected.item()) <= ulps * spacing
    for p, q in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(p.grad, numbers(q.grad), rtol=4 * np.finfo(dtype).eps)
        assert p.grad.dtype == dtype
    if max_norm == 1e6:  # nothing to clip: the gradients as they were, to the bit
        assert all(np.array_equal(p.grad, g) for p, g in zip(ours, grads, strict=True))


def test_clip_grad_norm_exactly_and_at_the_edges_as_pytorchs() -> None:
    p, q = tg.Tensor([0.0, 0.0], requires_grad=True), torch.zeros(2, requires_grad=True)
    p.grad, q.grad = np.array([3.0, 4.0], np.float32), torch.tensor([3.0, 4.0])
    found, expected = tg.nn.utils.clip_grad_norm_(p, 1.0), torch.nn.utils.clip_grad_norm_(q, 1.0)
    assert found.item() == expected.item() == 5.0
    assert p.grad.array.tobytes() == q.grad.numpy().tobytes()  # to the bit
    empty = tg.nn.utils.clip_grad_norm_([], 1.0)
    assert empty.item() == torch.nn.utils.clip_grad_norm_([], 1.0).item() == 0.0
    p.grad, q.grad = np.array([np.inf, 1.0], np.float32), torch.tensor([np.inf, 1.0])
    with pytest.raises(RuntimeError, match="non-finite"):
        torch.nn.utils.clip_grad_norm_(q, 1.0, error_if_nonfinite=True)
    with pytest.raises(RuntimeError, match="non-finite"):
        tg.nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    assert tg.nn.utils.clip_grad_norm_((x for x in [p]), 1.0).item() == math.inf  # a generator


# 7. Constructors: PyTorch's positional arguments, device= and dtype=, topograd's seed= by name.


FACTORIES = {
    "Linear": lambda nn, **k: nn.Linear(3, 2, **k),
    "Conv2d": lambda nn, **k: nn.Conv2d(1, 2, 3, **k),
    "LayerNorm": lambda nn, **k: nn.LayerNorm(3, **k),
    "BatchNorm1d": lambda nn, **k: nn.BatchNorm1d(3, **k),
    "Embedding": lambda nn, **k: nn.Embedding(4, 3, **k),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_constructors_take_pytorchs_device_and_dtype(name: str) -> None:
    build = FACTORIES[name]
    for dtype, theirs in [(tg.float64, torch.float64), (None, None)]:
        ours = build(tg.nn, device="cpu", dtype=dtype)
        reference = build(torch.nn, device="cpu", dtype=theirs)
        assert [str(p.dtype).removeprefix("topograd.") for p in ours.parameters()] == [
            str(p.dtype).removeprefix("torch.") for p in reference.parameters()
        ]
    with pytest.raises(ValueError, match="CPU only"):
        build(tg.nn, device="cuda")


def test_positional_arguments_are_pytorchs_and_seed_is_by_name() -> None:
    assert tg.nn.Linear(3, 2, True, "cpu", tg.float64).weight.dtype == np.float64
    assert tg.nn.Linear(3, 2, True, None, None, seed=0).weight.array.tobytes() == (
        tg.nn.Linear(3, 2, seed=0).weight.array.tobytes()
    )
    conv = tg.nn.Conv2d(1, 2, 3, 1, 0, 1, 1, True, "zeros", "cpu", tg.float64, seed=0)
    assert conv.weight.dtype == np.float64
    with pytest.raises(TypeError):
        tg.nn.Linear(3, 2, True, None, None, 0)  # type: ignore[misc]
    with pytest.raises(RuntimeError):  # 0 is no CPU device (PyTorch: cuda:0)
        tg.nn.Linear(3, 2, True, 0)


# 8. BatchNorm1d of an empty batch in training, as PyTorch's.


def test_batch_norm_of_an_empty_batch_changes_only_the_count() -> None:
    ours, theirs = both(lambda lib: lib.nn.BatchNorm1d(3))
    x, y = (
        tg.zeros(0, 3, dtype=tg.float32, requires_grad=True),
        torch.zeros(0, 3, requires_grad=True),
    )
    found, expected = ours(x), theirs(y)
    assert found.shape == tuple(expected.shape) == (0, 3)
    found.sum().backward()
    expected.sum().backward()
    np.testing.assert_array_equal(ours.weight.grad, numbers(theirs.weight.grad))
    np.testing.assert_array_equal(ours.bias.grad, numbers(theirs.bias.grad))
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        np.testing.assert_array_equal(numbers(getattr(ours, name)), numbers(getattr(theirs, name)))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        ours(tg.zeros(1, 3, dtype=tg.float32))


# 9. Mixed dtypes: refused where PyTorch refuses them, its message for Linear.


# each layer, and whether PyTorch refuses it a Tensor of another dtype than its own
MIXED = {
    "Linear": (lambda nn: nn.Linear(3, 2), True),
    "Linear without bias": (lambda nn: nn.Linear(3, 2, bias=False), True),
    "LayerNorm": (lambda nn: nn.LayerNorm(3), True),
    "LayerNorm without affine": (lambda nn: nn.LayerNorm(3, elementwise_affine=False), False),
    "BatchNorm1d": (lambda nn: nn.BatchNorm1d(3), True),
    "BatchNorm1d in eval": (lambda nn: nn.BatchNorm1d(3).eval(), True),
    "BatchNorm1d, statistics only": (lambda nn: nn.BatchNorm1d(3, affine=False), True),
    "BatchNorm1d with nothing": (
        lambda nn: nn.BatchNorm1d(3, affine=False, track_running_stats=False),
        False,
    ),
}


@pytest.mark.parametrize("name", sorted(MIXED))
def test_a_float32_layer_on_a_float64_tensor_is_refused_as_by_pytorch(name: str) -> None:
    build, refused = MIXED[name]
    ours, theirs = both(lambda lib: build(lib.nn))
    x = np.arange(6.0).reshape(2, 3)
    if refused:
        with pytest.raises(RuntimeError) as caught:
            theirs(torch.from_numpy(x))
        with pytest.raises(RuntimeError) as mine:
            ours(tg.Tensor(x))
        assert str(mine.value) == str(caught.value)
    else:
        expected = theirs(torch.from_numpy(x))
        found = ours(tg.Tensor(x))
        assert found.dtype == np.float64
        np.testing.assert_allclose(found.data, numbers(expected), rtol=1e-6)
    if [*ours.parameters(), *ours.buffers()]:
        assert ours(x).dtype == np.float32  # an array takes the layer's dtype


def test_linear_refuses_a_wrong_size_with_pytorchs_message() -> None:
    for shape in [(4, 5), (5,), (4, 2, 5)]:
        for bias in (True, False):
            ours, theirs = both(lambda lib, b=bias: lib.nn.Linear(3, 2, bias=b))  # type: ignore[misc]
            with pytest.raises(RuntimeError) as caught:
                theirs(torch.zeros(shape))
            with pytest.raises(RuntimeError) as refused:
                ours(tg.zeros(*shape, dtype=tg.float32))
            assert str(refused.value) == str(caught.value)
    with pytest.raises(RuntimeError, match="at least 1D"):
        tg.nn.Linear(3, 2)(tg.Tensor(np.float32(1.0)))


# 10. PyTorch's RuntimeErrors (which are topograd's ValueErrors too).


REFUSALS = [
    lambda lib: lib.nn.functional.conv2d(lib.zeros(1, 3, 5, 5), lib.zeros(2, 2, 3, 3)),
    lambda lib: lib.nn.functional.conv2d(lib.zeros(5, 5), lib.zeros(2, 2, 3, 3)),
    lambda lib: lib.nn.functional.conv2d(lib.zeros(1, 2, 2, 2), lib.zeros(2, 2, 3, 3)),
    lambda lib: lib.nn.functional.conv2d(lib.zeros(1, 2, 5, 5), lib.zeros(2, 2, 3, 3), stride=0),
    lambda lib: lib.nn.functional.conv2d(lib.zeros(1, 2, 5, 5), lib.zeros(2, 2, 3, 3), dilation=0),
    lambda lib: lib.nn.functional.conv2d(lib.zeros(1, 2, 5, 5), lib.zeros(2, 2, 3, 3), padding=-1),
    lambda lib: lib.nn.functional.conv2d(
        lib.zeros(1, 2, 5, 5), lib.zeros(2, 2, 3, 3), lib.zeros(3)
    ),
    lambda lib: lib.nn.functional.conv2d(lib.zeros(1, 2, 5, 5), lib.zeros(3, 2, 3, 3), groups=2),
    lambda lib: lib.nn.functional.max_pool2d(lib.zeros(1, 2, 5, 5), 6),
    lambda lib: lib.nn.functional.max_pool2d(lib.zeros(1, 2, 5, 5), 2, padding=2),
    lambda lib: lib.nn.functional.max_pool2d(lib.zeros(1, 2, 5, 5), 2, stride=0),
    lambda lib: lib.nn.functional.max_pool2d(lib.zeros(1, 2, 5, 5), 2, dilation=0),
    lambda lib: lib.nn.functional.max_pool2d(lib.zeros(1, 2, 5, 5), 2, padding=-1),
    lambda lib: lib.nn.functional.max_pool2d(lib.zeros(5, 5), 2),
    lambda lib: lib.nn.functional.max_pool2d(lib.zeros(1, 2, 9, 9), 3, padding=2, dilation=2),
    lambda lib: lib.nn.functional.avg_pool2d(lib.zeros(1, 2, 5, 5), 2, divisor_override=0),
    lambda lib: lib.nn.functional.avg_pool2d(lib.zeros(1, 2, 5, 5), 2, padding=-1),
    lambda lib: lib.nn.functional.avg_pool2d(lib.zeros(1, 2, 5, 5), 6),
    lambda lib: lib.nn.functional.avg_pool2d(lib.zeros(1, 2, 5, 5), 2, stride=0),
    lambda lib: lib.nn.functional.unfold(lib.zeros(1, 2, 5, 5), 7),
    lambda lib: lib.nn.functional.fold(lib.zeros(1, 7, 16), (5, 5), 2),
    lambda lib: lib.nn.Conv2d(2, 3, 4, padding=3, padding_mode="reflect")(lib.zeros(1, 2, 3, 3)),
    lambda lib: lib.nn.Flatten(2, 1)(lib.zeros(2, 3, 4)),
    lambda lib: lib.nn.Linear(-1, 2),
    lambda lib: lib.nn.Linear(2, -1),
    lambda lib: lib.nn.Conv2d(-1, 2, 3),
    lambda lib: lib.nn.Embedding(-1, 2),
    lambda lib: lib.nn.LayerNorm(-1),
    lambda lib: lib.nn.BatchNorm1d(-1),
    lambda lib: lib.nn.Linear(2, 2).load_state_dict({"weight": lib.zeros(2, 2)}),
    lambda lib: lib.nn.Linear(2, 2).load_state_dict(
        {"weight": lib.zeros(3, 2), "bias": lib.zeros(2)}
    ),
]


@pytest.mark.parametrize("refusal", REFUSALS)
def test_pytorchs_runtime_errors_are_runtime_errors(refusal: Any) -> None:
    with pytest.raises(RuntimeError):
        refusal(torch)
    with pytest.raises(RuntimeError) as refused:
        refusal(tg)
    if "negative dimension" in str(refused.value):
        with pytest.raises(RuntimeError) as caught:
            refusal(torch)
        assert str(refused.value) == str(caught.value)


# The lower priorities: Embedding.from_pretrained, Sequential(OrderedDict), its slices.


def test_embedding_from_pretrained_is_pytorchs() -> None:
    rows = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    for freeze, padding_idx in [(True, None), (False, 1)]:
        ours = tg.nn.Embedding.from_pretrained(tg.Tensor(rows), freeze, padding_idx)
        theirs = torch.nn.Embedding.from_pretrained(torch.from_numpy(rows), freeze, padding_idx)
        assert ours.weight.requires_grad == theirs.weight.requires_grad == (not freeze)
        assert ours.padding_idx == theirs.padding_idx and repr(ours) == repr(theirs)
        ids = np.array([[1, 2], [0, 1]])
        found, expected = ours(tg.tensor(ids, dtype=tg.int64)), theirs(torch.from_numpy(ids))
        np.testing.assert_array_equal(found.data, numbers(expected))
        if not freeze:
            found.sum().backward()
            expected.sum().backward()
            np.testing.assert_array_equal(ours.weight.grad, numbers(theirs.weight.grad))
    with pytest.raises(AssertionError, match="2-dimensional"):
        tg.nn.Embedding.from_pretrained(tg.ones(3))


def test_sequential_of_an_ordered_dict_and_its_slices_keep_the_names() -> None:
    def named(nn: Any) -> Any:
        return nn.Sequential(
            OrderedDict(
                [("encode", nn.Linear(2, 3)), ("act", nn.ReLU()), ("decode", nn.Linear(3, 1))]
            )
        )

    ours, theirs = both(lambda lib: named(lib.nn))
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert type(ours.act).__name__ == "ReLU" and ours.decode is ours[2] and ours[-1] is ours[2]
    assert repr(ours) == repr(theirs)
    assert (
        list(ours[1:].state_dict())
        == list(theirs[1:].state_dict())
        == [
            "decode.weight",
            "decode.bias",
        ]
    )
    plain, their_plain = both(lambda lib: lib.nn.Sequential(lib.nn.ReLU(), lib.nn.Linear(2, 2)))
    assert (
        list(plain[1:].state_dict())
        == list(their_plain[1:].state_dict())
        == [
            "1.weight",
            "1.bias",
        ]
    )
    with pytest.raises(AttributeError):
        _ = ours.missing
