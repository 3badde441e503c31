"""Modules as PyTorch's modules behave: ``forward`` is what a call computes (a subclass may
override it), parameters and state come in PyTorch's order under PyTorch's names (tied weights
too), ``load_state_dict`` takes what PyTorch's takes and answers as it does, the containers,
``to``, ``requires_grad_``, ``clip_grad_norm_``, constructor signatures, and each refusal of
PyTorch's raised as the same exception class. Each is checked against PyTorch itself."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import topograd as tg

F = tg.nn.functional
TF = torch.nn.functional


def both(build: Any) -> tuple[Any, Any]:
    """The same construction in topograd and in PyTorch (``build`` takes the library)."""
    return build(tg), build(torch)


def numbers(x: Any) -> Any:
    return x.detach().numpy() if isinstance(x, torch.Tensor) else np.asarray(x.data)


def same_weights(ours: Any, theirs: Any) -> None:
    """PyTorch's module given topograd's numbers, name by name (the names must agree)."""
    mine, their = ours.state_dict(), theirs.state_dict()
    assert list(mine) == list(their)
    theirs.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in mine.items()})


# 1. A call runs forward, and a subclass's forward is what it runs.

LAYERS = {
    "Linear": lambda nn: nn.Linear(4, 4),
    "Sequential": lambda nn: nn.Sequential(nn.Linear(4, 4), nn.Tanh()),
    "ReLU": lambda nn: nn.ReLU(),
    "Tanh": lambda nn: nn.Tanh(),
    "Identity": lambda nn: nn.Identity(),
    "Flatten": lambda nn: nn.Flatten(0),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_a_subclass_that_overrides_forward_is_called_through_it(name: str) -> None:
    def residual(nn: Any) -> Any:
        base = type(LAYERS[name](nn))

        class Residual(base):  # type: ignore[misc, valid-type]
            def forward(self, x: Any) -> Any:
                return x + super().forward(x)

        return Residual(*_arguments(name, nn))

    ours, theirs = both(lambda lib: residual(lib.nn))
    if name in ("Linear", "Sequential"):
        same_weights(ours, theirs)
    x = np.linspace(-2.0, 2.0, 4, dtype=np.float32)
    found, expected = ours(tg.Tensor(x)), theirs(torch.from_numpy(x))
    np.testing.assert_allclose(numbers(found), numbers(expected), rtol=1e-6, atol=1e-6)
    assert np.array_equal(numbers(ours.forward(tg.Tensor(x))), numbers(found))


def _arguments(name: str, nn: Any) -> tuple[Any, ...]:
    return {
        "Linear": (4, 4),
        "Sequential": (nn.Linear(4, 4), nn.Tanh()),
        "Flatten": (0,),
    }.get(name, ())


@pytest.mark.parametrize(
    "build",
    [
        lambda nn: nn.Conv2d(1, 2, 3, padding=1),
        lambda nn: nn.MaxPool2d(1),
        lambda nn: nn.AvgPool2d(1),
        lambda nn: nn.LayerNorm(4),
        lambda nn: nn.Dropout(0.0),
    ],
)
def test_every_built_in_layer_is_called_through_its_forward(build: Any) -> None:
    def doubled(nn: Any) -> Any:
        layer = build(nn)

        class Twice(type(layer)):  # type: ignore[misc]
            def forward(self, x: Any) -> Any:
                return super().forward(x) * 2

        layer.__class__ = Twice
        return layer

    ours, theirs = both(lambda lib: doubled(lib.nn))
    same_weights(ours, theirs)
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4) / 7
    found, expected = ours(tg.Tensor(x)), theirs(torch.from_numpy(x))
    np.testing.assert_allclose(numbers(found), numbers(expected), rtol=1e-5, atol=1e-6)


def test_linear_forward_is_its_call_and_a_residual_sequential_is_pytorchs() -> None:
    class Residual(tg.nn.Sequential):
        def forward(self, x: Any) -> Any:
            return x + super().forward(x)

    class TorchResidual(torch.nn.Sequential):
        def forward(self, x: Any) -> Any:
            return x + super().forward(x)

    ours = Residual(tg.nn.Linear(3, 3), tg.nn.ReLU())
    theirs = TorchResidual(torch.nn.Linear(3, 3), torch.nn.ReLU())
    same_weights(ours, theirs)
    x = np.array([[0.5, -1.0, 2.0]], np.float32)
    expected = numbers(theirs(torch.from_numpy(x)))
    # float32 products summed by NumPy's BLAS and by PyTorch's kernel, whose order and fused
    # multiply-adds differ by CPU: an ulp or two apart, not the same bits (3 terms, then + x)
    np.testing.assert_array_max_ulp(ours(tg.Tensor(x)).data, expected, maxulp=4)
    assert np.array_equal(ours[0].forward(tg.Tensor(x)).data, ours[0](tg.Tensor(x)).data)


def test_the_scalar_mlp_is_called_through_forward_and_honours_an_override() -> None:
    model = tg.nn.MLP(2, [3, 1], seed=0)
    assert model.forward([1.0, 2.0]).data == model([1.0, 2.0]).data

    class Shifted(tg.nn.MLP):
        def forward(self, x: Any) -> Any:
            return super().forward(x) + 1.0

    shifted = Shifted(2, [3, 1], seed=0)
    assert shifted([1.0, 2.0]).data == model([1.0, 2.0]).data + 1.0


# 2. PyTorch's order: a module's own parameters, its own buffers, then its sub-modules'.


def ordered(lib: Any) -> Any:
    nn = lib.nn

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Linear(2, 3)
            self.norm = nn.BatchNorm1d(3)
            self.scale = nn.Parameter(lib.ones(3))
            self.register_buffer("offset", lib.zeros(3))
            self.head = nn.Sequential(nn.Linear(3, 1))
            self.gain = nn.Parameter(lib.ones(1))

        def forward(self, x: Any) -> Any:
            return self.head(self.norm(self.body(x)) * self.scale + self.offset) * self.gain

    return Net()


def test_parameters_buffers_and_state_come_in_pytorchs_order() -> None:
    ours, theirs = both(ordered)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [p.shape for p in ours.parameters()] == [tuple(p.shape) for p in theirs.parameters()]
    assert list(ours.state_dict())[:3] == ["scale", "gain", "offset"]


def test_the_scalar_mlp_keeps_micrographs_order() -> None:
    model = tg.nn.MLP(3, [4, 2], seed=0)
    micrograd = [p for layer in model.layers for n in layer.neurons for p in [*n.w, n.b]]
    assert [id(p) for p in model.parameters()] == [id(p) for p in micrograd]


# 3. A pool gets its options only, whatever else its module holds.


@pytest.mark.parametrize("name", ["MaxPool2d", "AvgPool2d"])
def test_a_pool_works_after_train_eval_and_other_attributes(name: str) -> None:
    ours, theirs = both(lambda lib: getattr(lib.nn, name)(2, stride=1, padding=1))
    x = np.random.default_rng(0).normal(size=(1, 2, 4, 5)).astype(np.float32)
    for mode in ("eval", "train"):
        getattr(ours, mode)()
        getattr(theirs, mode)()
        ours.note = theirs.note = "set by a user"
        found, expected = ours(tg.Tensor(x)), theirs(torch.from_numpy(x))
        np.testing.assert_array_equal(found.data, numbers(expected))


# 4. A tied weight is saved under every name, loaded through each, listed once.


def _tied(lib: Any) -> Any:
    nn = lib.nn

    class Tied(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(4, 2)
            self.out = nn.Linear(2, 4, bias=False)
            self.out.weight = self.emb.weight

    return Tied()


def test_tied_weights_are_in_the_state_under_both_names_as_pytorchs() -> None:
    ours, theirs = both(_tied)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["emb.weight", "out.weight"]
    assert len(ours.parameters()) == len(list(theirs.parameters())) == 1
    state = theirs.state_dict()
    state["emb.weight"] = torch.ones(4, 2)
    state["out.weight"] = torch.full((4, 2), 2.0)
    assert repr(ours.load_state_dict(state)) == repr(theirs.load_state_dict(state))
    assert ours.out.weight is ours.emb.weight
    np.testing.assert_array_equal(ours.emb.weight.data, numbers(theirs.emb.weight))  # the last
    again = _tied(tg)
    again.load_state_dict(ours.state_dict())
    assert np.array_equal(again.out.weight.data, ours.out.weight.data)


# 5. load_state_dict: PyTorch's values, strict, its answer and its errors.


@pytest.mark.parametrize(
    "value",
    [
        lambda: torch.ones(2, 3),
        lambda: tg.ones(2, 3, requires_grad=True),
        lambda: np.ones((2, 3), np.float64),
        lambda: [[1, 1, 1], [1, 1, 1]],
    ],
)
def test_load_state_dict_takes_tensors_arrays_and_what_numpy_takes(value: Any) -> None:
    layer = tg.nn.Linear(3, 2)
    keys = layer.load_state_dict({"weight": value(), "bias": torch.zeros(2)})
    assert keys == ([], []) and repr(keys) == "<All keys matched successfully>"
    assert layer.weight.dtype == np.float32 and np.array_equal(layer.weight.data, np.ones((2, 3)))


def test_load_state_dict_answers_and_refuses_as_pytorchs() -> None:
    ours, theirs = both(lambda lib: lib.nn.Linear(2, 2))
    for state in [{"weight": torch.zeros(2, 2)}, {"weight": torch.zeros(2, 2), "x": torch.ones(1)}]:
        mine = ours.load_state_dict(state, strict=False)
        their = theirs.load_state_dict(state, strict=False)
        assert mine.missing_keys == their.missing_keys
        assert mine.unexpected_keys == their.unexpected_keys
        assert tuple(mine) == tuple(their)
        with pytest.raises(RuntimeError) as caught:
            theirs.load_state_dict(state)
        with pytest.raises(RuntimeError) as refused:
            ours.load_state_dict(state)
        assert str(refused.value) == str(caught.value)
        assert isinstance(refused.value, ValueError)  # as topograd raised before
    wrong = {"weight": torch.zeros(3, 2), "bias": torch.zeros(2)}
    before = ours.weight.array.copy()
    for strict in (True, False):
        with pytest.raises(RuntimeError, match="size mismatch for weight"):
            theirs.load_state_dict(wrong, strict=strict)
        with pytest.raises(RuntimeError, match=r"size mismatch for weight: .*\(2, 2\)"):
            ours.load_state_dict(wrong, strict=strict)
    assert np.array_equal(ours.weight.data, before)  # nothing changed
