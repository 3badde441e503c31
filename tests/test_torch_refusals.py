"""What PyTorch has and topograd has not is refused where a program first uses it, with a
message naming the feature (README's "Coming from PyTorch"): CUDA and the other accelerators
(which say they are not there, as PyTorch's say on a machine without them), sparse Tensors,
distributed training and complex numbers (whose dtypes exist as names, so that a program may
hold them)."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest
import torch

import topograd as tg


def refusal(call: Any) -> BaseException:
    """The error ``call`` raises (an AssertionError if it raises none)."""
    try:
        call()
    except Exception as error:
        return error
    raise AssertionError("not refused")


CUDA = [
    lambda: tg.zeros(2).cuda(),
    lambda: tg.zeros(2).to("cuda"),
    lambda: tg.zeros(2).to("cuda:0"),
    lambda: tg.zeros(2).to(device="cuda"),
    lambda: tg.zeros(2, device="cuda"),
    lambda: tg.tensor([1.0], device="cuda:0"),
    lambda: tg.rand(2, device="cuda"),
    lambda: tg.device("cuda"),
    lambda: tg.nn.Linear(2, 2).cuda(),
    lambda: tg.nn.Linear(2, 2).to("cuda"),
    lambda: tg.cuda.synchronize(),
    lambda: tg.cuda.get_device_name(0),
]


@pytest.mark.parametrize("call", CUDA)
def test_cuda_is_refused_by_name(call: Any) -> None:
    assert "CUDA" in str(refusal(call))


def test_the_accelerators_say_they_are_not_there() -> None:
    assert tg.cuda.is_available() is False and tg.cuda.device_count() == 0
    assert tg.cuda.is_initialized() is False and not hasattr(tg.cuda, "synchronize")
    assert tg.backends.mps.is_available() is False and tg.backends.mps.is_built() is False
    assert tg.backends.cudnn.is_available() is False
    tg.backends.cudnn.deterministic = tg.backends.cudnn.benchmark = False  # as programs set them
    assert "MPS" in str(refusal(lambda: tg.zeros(2).to("mps")))
    if not torch.cuda.is_available():  # this machine as PyTorch sees it
        assert torch.cuda.device_count() == tg.cuda.device_count()


SPARSE = [
    lambda: tg.sparse.mm,
    lambda: tg.sparse.FloatTensor,
    lambda: tg.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2,)),
    lambda: tg.sparse_csr_tensor([0, 1], [0], [1.0]),
    lambda: tg.zeros(2).to_sparse(),
    lambda: tg.zeros(2, 2).to_sparse_csr(),
]


@pytest.mark.parametrize("call", SPARSE)
def test_sparse_tensors_are_refused_by_name(call: Any) -> None:
    error = refusal(call)
    assert isinstance(error, NotImplementedError) and "sparse Tensors" in str(error)


def test_a_tensor_is_dense_as_pytorchs() -> None:
    assert tg.zeros(2).is_sparse is torch.zeros(2).is_sparse is False
    assert not hasattr(tg.sparse, "mm")
    x = tg.ones(2)
    assert x.to_dense() is x


def test_distributed_training_is_refused_by_name() -> None:
    dist = importlib.import_module("topograd.distributed")
    assert tg.distributed is dist
    assert dist.is_available() is False and dist.is_initialized() is False
    for name in ["init_process_group", "get_rank", "get_world_size", "all_reduce", "barrier"]:
        error = refusal(lambda: getattr(dist, name)())  # noqa: B023
        assert isinstance(error, NotImplementedError) and "distributed training" in str(error)


COMPLEX_NAMES = ["complex64", "cfloat", "complex128", "cdouble"]
COMPLEX = [
    lambda c: tg.zeros(2, dtype=c),
    lambda c: tg.ones(2, dtype=c),
    lambda c: tg.empty(2, dtype=c),
    lambda c: tg.full((2,), 1.0, dtype=c),
    lambda c: tg.arange(3, dtype=c),
    lambda c: tg.rand(2, dtype=c),
    lambda c: tg.randn(2, dtype=c),
    lambda c: tg.tensor([1.0], dtype=c),
    lambda c: tg.zeros_like(tg.zeros(2), dtype=c),
    lambda c: tg.zeros(2).to(c),
    lambda c: tg.zeros(2).to(dtype=c),
    lambda c: tg.zeros(2).type(c),
    lambda c: tg.nn.Linear(2, 2).to(c),
    lambda c: np.zeros(2, c),
]


@pytest.mark.parametrize("name", COMPLEX_NAMES)
@pytest.mark.parametrize("call", COMPLEX)
def test_a_complex_dtype_is_a_name_whose_use_is_refused(name: str, call: Any) -> None:
    dtype = getattr(tg, name)
    assert repr(dtype) == f"topograd.{name}" and dtype.is_complex is getattr(torch, name).is_complex
    assert "complex numbers" in str(refusal(lambda: call(dtype)))


@pytest.mark.parametrize(
    "call",
    [
        lambda: tg.tensor(1 + 2j),
        lambda: tg.tensor([1, 2j]),
        lambda: tg.from_numpy(np.ones(2, np.complex64)),
        lambda: tg.zeros(2) * 1j,
        lambda: tg.zeros(2) + (1 + 1j),
        lambda: tg.view_as_complex(tg.zeros(2, 2)),
        lambda: tg.view_as_real(tg.zeros(2)),
    ],
)
def test_complex_numbers_are_refused_by_name(call: Any) -> None:
    assert "complex numbers" in str(refusal(call))


def test_a_tensor_is_real_as_pytorchs() -> None:
    assert tg.zeros(2).is_complex() is torch.zeros(2).is_complex() is False
    assert (tg.float32 == tg.complex64) is False


SHAPES_THAT_DO_NOT_MULTIPLY = [
    ((2,), (3,)),
    ((2, 3), (2,)),
    ((5, 2, 3), (2,)),
    ((3,), (2, 4)),
    ((2, 3), (4, 5)),
    ((5, 2, 3), (4, 5)),
]


@pytest.mark.parametrize(("a", "b"), SHAPES_THAT_DO_NOT_MULTIPLY)
def test_a_product_of_shapes_that_do_not_multiply_says_what_pytorch_says(a, b) -> None:
    ours = refusal(lambda: tg.ones(a) @ tg.ones(b))
    theirs = refusal(lambda: torch.ones(a) @ torch.ones(b))
    assert isinstance(ours, RuntimeError) and str(ours) == str(theirs)


@pytest.mark.parametrize(("x", "w"), [((2, 3), (4, 5)), ((3,), (4, 2)), ((6, 2, 3), (4, 2))])
def test_a_linear_layer_of_the_wrong_width_says_what_pytorch_says(x, w) -> None:
    ours = refusal(lambda: tg.nn.functional.linear(tg.ones(x), tg.ones(w)))
    theirs = refusal(lambda: torch.nn.functional.linear(torch.ones(x), torch.ones(w)))
    assert str(ours) == str(theirs)
