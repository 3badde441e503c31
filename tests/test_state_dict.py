"""``state_dict()`` as PyTorch's, for every layer topograd has: the same names in the same order,
shapes and dtypes (an int64 count among the buffers), each value a Tensor detached from the
graph and sharing the parameter's numbers; ``load_state_dict`` takes Tensors, arrays and
PyTorch's tensors, and writes into the parameters' own numbers, as PyTorch's ``copy_``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import topograd as tg

torch = pytest.importorskip("torch")


def _custom(nn: Any, lib: Any) -> Any:
    """A model as a PyTorch user writes one: sub-modules, lists of them, buffers of its own."""

    class Net(nn.Module):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("scale", lib.ones(2))
            self.body = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU())
            self.heads = nn.ModuleList([nn.Linear(8, 2), nn.Sequential(nn.Linear(8, 3))])
            self.register_buffer("steps", lib.zeros((), dtype=lib.int64))
            self.register_buffer("cache", lib.zeros(3), persistent=False)

    return Net()


# Each row: a name, and the model made of either library's nn and tensor makers.
MODELS: dict[str, Callable[[Any, Any], Any]] = {
    "Linear": lambda nn, lib: nn.Linear(3, 2),
    "Linear without bias": lambda nn, lib: nn.Linear(3, 2, bias=False),
    "Linear in float64": lambda nn, lib: nn.Linear(3, 2, dtype=lib.float64),
    "Conv2d": lambda nn, lib: nn.Conv2d(2, 4, 3),
    "Conv2d in groups": lambda nn, lib: nn.Conv2d(2, 4, (3, 2), groups=2, bias=False),
    "BatchNorm1d": lambda nn, lib: nn.BatchNorm1d(5),
    "BatchNorm1d without affine": lambda nn, lib: nn.BatchNorm1d(5, affine=False),
    "BatchNorm1d without statistics": lambda nn, lib: nn.BatchNorm1d(5, track_running_stats=False),
    "BatchNorm2d": lambda nn, lib: nn.BatchNorm2d(3),
    "BatchNorm2d in float64": lambda nn, lib: nn.BatchNorm2d(3, dtype=lib.float64),
    "BatchNorm2d without affine": lambda nn, lib: nn.BatchNorm2d(2, affine=False),
    "LayerNorm": lambda nn, lib: nn.LayerNorm((2, 3)),
    "LayerNorm without affine": lambda nn, lib: nn.LayerNorm(3, elementwise_affine=False),
    "LayerNorm without bias": lambda nn, lib: nn.LayerNorm(3, bias=False),
    "Embedding": lambda nn, lib: nn.Embedding(10, 4, padding_idx=0),
    "Sequential": lambda nn, lib: nn.Sequential(
        nn.Conv2d(1, 2, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(8, 2)
    ),
    "ModuleList nested": lambda nn, lib: nn.ModuleList(
        [nn.Linear(2, 2), nn.ModuleList([nn.LayerNorm(2), nn.Embedding(3, 2)])]
    ),
    "ModuleDict": lambda nn, lib: nn.ModuleDict({"a": nn.Linear(2, 1), "b": nn.BatchNorm1d(1)}),
    "CrossEntropyLoss's weight": lambda nn, lib: nn.CrossEntropyLoss(weight=lib.ones(3)),
    "Dropout, no state": lambda nn, lib: nn.Dropout(0.5),
    "a model of its own": _custom,
}


def described(state: dict[str, Any]) -> list[tuple[str, tuple[int, ...], str]]:
    """(name, shape, dtype's name) of every entry, in order, for either library."""
    return [(k, tuple(v.shape), str(v.dtype).split(".")[-1]) for k, v in state.items()]


@pytest.mark.parametrize("name", list(MODELS))
def test_the_names_shapes_and_dtypes_are_pytorch_s(name: str) -> None:
    ours, theirs = MODELS[name](tg.nn, tg), MODELS[name](torch.nn, torch)
    assert described(ours.state_dict()) == described(theirs.state_dict())


@pytest.mark.parametrize("name", list(MODELS))
def test_each_value_is_a_detached_tensor_sharing_the_parameter_s_numbers(name: str) -> None:
    model = MODELS[name](tg.nn, tg)
    held = dict([*model.named_parameters(), *model.named_buffers()])
    for key, value in model.state_dict().items():
        assert type(value) is tg.Tensor, key
        assert not value.requires_grad and value.is_leaf and value.grad is None, key
        with tg.no_grad():
            value.fill_(7)  # a write to the state is a write to the model, as PyTorch's
        assert (held[key].detach().numpy() == 7).all(), key


def test_keep_vars_and_prefix_are_pytorch_s() -> None:
    for lib in (tg, torch):
        model = lib.nn.Linear(2, 1)
        kept = model.state_dict(keep_vars=True, prefix="head.")
        assert list(kept) == ["head.weight", "head.bias"]
        assert kept["head.weight"] is model.weight


def test_the_count_of_batches_is_an_int64_and_counts() -> None:
    ours, theirs = tg.nn.BatchNorm1d(3), torch.nn.BatchNorm1d(3)
    for model, lib in ((ours, tg), (theirs, torch)):
        for _ in range(3):
            model(lib.ones(4, 3))
    assert ours.state_dict()["num_batches_tracked"].dtype == tg.int64
    assert ours.state_dict()["num_batches_tracked"].item() == 3
    assert theirs.state_dict()["num_batches_tracked"].item() == 3


def _as_tensors(state: dict[str, Any]) -> dict[str, Any]:
    return {k: tg.tensor(v.numpy()) for k, v in state.items()}


def _as_arrays(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v.numpy() for k, v in state.items()}


class Wrapped:
    """Anything with ``__array__`` (a JAX or CuPy array, say)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.array if dtype is None else self.array.astype(dtype)


FORMS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "PyTorch's tensors": dict,
    "topograd Tensors": _as_tensors,
    "NumPy arrays": _as_arrays,
    "objects with __array__": lambda s: {k: Wrapped(v.numpy()) for k, v in s.items()},
}


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("name", [n for n in MODELS if n != "Dropout, no state"])
def test_pytorch_s_state_loads_in_any_form_and_gives_its_numbers(name: str, form: str) -> None:
    torch.manual_seed(0)
    theirs = MODELS[name](torch.nn, torch)
    with torch.no_grad():
        for t in theirs.state_dict().values():
            t.copy_(torch.randint(0, 9, t.shape) if not t.is_floating_point() else t.normal_())
    ours = MODELS[name](tg.nn, tg)
    earlier = ours.state_dict()  # (shares the numbers: it sees the load, as PyTorch's does)
    assert repr(ours.load_state_dict(FORMS[form](theirs.state_dict()))) == repr(
        theirs.load_state_dict(theirs.state_dict())
    )
    for key, value in theirs.state_dict().items():
        assert ours.state_dict()[key].numpy().tobytes() == value.numpy().tobytes(), key
        assert earlier[key].numpy().tobytes() == value.numpy().tobytes(), key


def test_a_parameter_that_requires_grad_loads_as_pytorch_s_does() -> None:
    """load_state_dict(other.named_parameters()): PyTorch takes parameters as they are."""
    source = torch.nn.Linear(3, 2)
    ours = tg.nn.Linear(3, 2)
    ours.load_state_dict(dict(source.named_parameters()))
    assert np.array_equal(ours.weight.detach().numpy(), source.weight.detach().numpy())
    again = tg.nn.Linear(3, 2)
    again.load_state_dict(dict(ours.named_parameters()))
    assert np.array_equal(again.bias.detach().numpy(), ours.bias.detach().numpy())


def test_a_refused_state_leaves_the_model_and_its_state_dict_as_they_were() -> None:
    model = tg.nn.Linear(3, 2)
    state = model.state_dict()
    before = {k: v.numpy().copy() for k, v in state.items()}
    with pytest.raises(RuntimeError, match="size mismatch for bias"):
        model.load_state_dict({"weight": np.ones((2, 3)), "bias": np.ones(3)})
    assert all(np.array_equal(state[k].numpy(), before[k]) for k in before)


def test_a_module_of_values_keeps_numbers() -> None:
    """micrograd's MLP on Values: its state is numbers, and Tensors of one number load into it."""
    mlp = tg.nn.MLP(2, [2, 1], seed=0)
    state = mlp.state_dict()
    assert all(type(v) is float for v in state.values())
    other = tg.nn.MLP(2, [2, 1], seed=1)
    other.load_state_dict({k: tg.tensor(v, dtype=tg.float64) for k, v in state.items()})
    assert other.state_dict() == state
