"""The losses of ``tg.nn.functional`` and their modules against PyTorch 2.13 float64: values,
gradients and second derivatives over hypothesis shapes (one sample, a batch, a batch of
sequences, empty batches, 0-d inputs), with every option (weight, ignore_index, reduction,
label_smoothing, class probabilities, pos_weight), and their refusals.

Tolerances are those of ``test_nn_layers.close`` (1e-12 of the largest number compared: the
same maths summed in another order), except binary_cross_entropy's second derivatives: PyTorch
computes them with 1e-12 added to x and to 1 - x ((x² - 2xt + t) / ((x + ε)² (1 - x + ε)²)),
topograd exactly, a relative difference of about 2ε / min(x, 1 - x), under 1e-9 for the
x in [0.01, 0.99] drawn here."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as TF  # noqa: N812 - PyTorch's own abbreviation
from hypothesis import given
from hypothesis import strategies as st
from test_nn_layers import SEEDS, against_torch, close

import topograd as tg

F = tg.nn.functional
REDUCTIONS = st.sampled_from(["mean", "sum", "none"])


@pytest.fixture(autouse=True, scope="module")
def _one_thread() -> Any:
    """PyTorch on one thread for these small tensors: its thread pool costs more than they."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def scores_and_targets(
    form: str, n: int, classes: int, rng: np.random.Generator, ignored: int = -100
) -> tuple[np.ndarray, np.ndarray]:
    """Scores of one sample (C), of a batch (N, C) or of a batch of sequences (N, C, L), and
    class indices for them, some of them ``ignored``."""
    shape = {"one": (classes,), "batch": (n, classes), "sequence": (n, classes, 3)}[form]
    target_shape = shape[:1] + shape[2:] if form != "one" else ()
    scores = rng.normal(0.0, 3.0, shape)
    target = rng.integers(0, classes, target_shape)
    target = np.where(rng.random(target_shape) < 0.2, ignored, target)
    return scores, target


@given(
    form=st.sampled_from(["one", "batch", "sequence"]),
    n=st.integers(0, 4),
    classes=st.integers(1, 5),
    weighted=st.booleans(),
    reduction=REDUCTIONS,
    smoothing=st.sampled_from([0.0, 0.0, 0.1, 0.5, 1.0]),
    seed=SEEDS,
)
def test_cross_entropy_with_class_indices_is_pytorchs(
    form: str, n: int, classes: int, weighted: bool, reduction: str, smoothing: float, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    scores, target = scores_and_targets(form, n, classes, rng)
    weight = rng.uniform(0.1, 2.0, classes) if weighted else None
    options = {"reduction": reduction, "label_smoothing": smoothing}
    against_torch(
        lambda z: F.cross_entropy(z, target, weight, **options),
        lambda z: TF.cross_entropy(
            z, torch.tensor(target), None if weight is None else torch.tensor(weight), **options
        ),
        [scores],
    )


@given(
    form=st.sampled_from(["one", "batch", "sequence"]),
    n=st.integers(0, 4),
    classes=st.integers(1, 5),
    weighted=st.booleans(),
    reduction=REDUCTIONS,
    ignore_index=st.sampled_from([-100, 0, 2]),
    seed=SEEDS,
)
def test_nll_loss_is_pytorchs(
    form: str, n: int, classes: int, weighted: bool, reduction: str, ignore_index: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    scores, target = scores_and_targets(form, n, classes, rng, ignore_index)
    weight = rng.uniform(0.1, 2.0, classes) if weighted else None
    options = {"reduction": reduction, "ignore_index": ignore_index}
    against_torch(
        lambda x: F.nll_loss(x, target, weight, **options),
        lambda x: TF.nll_loss(
            x, torch.tensor(target), None if weight is None else torch.tensor(weight), **options
        ),
        [scores],
    )


@given(
    form=st.sampled_from(["one", "batch", "sequence"]),
    n=st.integers(0, 3),
    classes=st.integers(1, 4),
    weighted=st.booleans(),
    reduction=REDUCTIONS,
    smoothing=st.sampled_from([0.0, 0.2]),
    seed=SEEDS,
)
def test_cross_entropy_with_class_probabilities_is_pytorchs(
    form: str, n: int, classes: int, weighted: bool, reduction: str, smoothing: float, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    scores, _ = scores_and_targets(form, n, classes, rng)
    probabilities = rng.uniform(0.0, 1.0, scores.shape)  # (PyTorch asks no sum of 1)
    weight = rng.uniform(0.1, 2.0, classes) if weighted else None
    options = {"reduction": reduction, "label_smoothing": smoothing}
    against_torch(
        lambda z, p: F.cross_entropy(z, p, weight, **options),
        lambda z, p: TF.cross_entropy(
            z, p, None if weight is None else torch.tensor(weight), **options
        ),
        [scores, probabilities],
    )


def test_cross_entropy_is_stable_and_its_plain_case_is_the_fused_node() -> None:
    z = np.array([[1000.0, -1000.0, 0.0], [-1000.0, 999.0, 1000.0]])
    target = np.array([2, 1])
    for smoothing in (0.0, 0.3):
        against_torch(
            lambda x, s=smoothing: F.cross_entropy(x, target, label_smoothing=s),
            lambda x, s=smoothing: TF.cross_entropy(x, torch.tensor(target), label_smoothing=s),
            [z],
        )
    assert F.cross_entropy(tg.Tensor(z, requires_grad=True), target).op == "cross_entropy"
    plain = F.cross_entropy(tg.Tensor(z, requires_grad=True), target, reduction="sum")
    assert plain.op != "cross_entropy"  # composed: nll_loss of log_softmax
    tensor_target = tg.Tensor(target)  # class indices held as floats by a Tensor
    assert (
        F.cross_entropy(tg.Tensor(z), tensor_target).item()
        == F.cross_entropy(tg.Tensor(z), target).item()
    )


@given(
    shape=st.lists(st.integers(0, 3), max_size=3).map(tuple),
    weight=st.sampled_from(["none", "last", "full"]),
    reduction=REDUCTIONS,
    seed=SEEDS,
)
def test_binary_cross_entropy_is_pytorchs(
    shape: tuple[int, ...], weight: str, reduction: str, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    x, t = rng.uniform(0.01, 0.99, shape), rng.uniform(0.0, 1.0, shape)
    w = {"none": None, "last": rng.uniform(0, 2, shape[-1:]), "full": rng.uniform(0, 2, shape)}
    given_weight = w[weight]
    their_weight = None if given_weight is None else torch.tensor(given_weight)
    against_torch(
        lambda a, b: F.binary_cross_entropy(a, b, given_weight, reduction=reduction),
        lambda a, b: TF.binary_cross_entropy(a, b, their_weight, reduction=reduction),
        [x, t],
        second_rtol=1e-9,  # (the module's doc says why)
    )
    ours = F.binary_cross_entropy(tg.Tensor(x), tg.Tensor(t), given_weight, reduction=reduction)
    theirs = TF.binary_cross_entropy(
        torch.tensor(x), torch.tensor(t), their_weight, reduction=reduction
    )
    close(ours, theirs, "first order", exact=reduction == "none")  # the same formula


def test_binary_cross_entropy_clamps_its_logs_at_minus_100() -> None:
    x = np.array([0.0, 1.0, 1e-50, 1.0 - 1e-16, 0.5])
    t = np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    ours = F.binary_cross_entropy(tg.Tensor(x), tg.Tensor(t), reduction="none")
    theirs = TF.binary_cross_entropy(torch.tensor(x), torch.tensor(t), reduction="none")
    close(ours, theirs, "values", exact=True)
    leaf = tg.Tensor(x, requires_grad=True)
    F.binary_cross_entropy(leaf, tg.Tensor(t), reduction="sum").backward()
    assert leaf.grad is not None and np.isfinite(leaf.grad).all()  # no nan from log(0)
    # The derivative of the clamped loss: 0 where a log is clamped, where PyTorch's formula
    # (x - t) / max(x (1 - x), 1e-12) gives -1e12 and 1e12.
    assert leaf.grad[:3].tolist() == [0.0, 0.0, 0.0]


@given(
    shape=st.lists(st.integers(0, 3), max_size=3).map(tuple),
    weight=st.booleans(),
    pos_weight=st.booleans(),
    reduction=REDUCTIONS,
    seed=SEEDS,
)
def test_binary_cross_entropy_with_logits_is_pytorchs(
    shape: tuple[int, ...], weight: bool, pos_weight: bool, reduction: str, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 10.0, shape) * rng.choice([1.0, 1.0, 100.0], shape)
    t = rng.uniform(0.0, 1.0, shape)
    w = rng.uniform(0.0, 2.0, shape) if weight else None
    pw = rng.uniform(0.1, 3.0, shape[-1:]) if pos_weight else None

    def theirs(a: Any, b: Any) -> Any:
        return TF.binary_cross_entropy_with_logits(
            a,
            b,
            None if w is None else torch.tensor(w),
            reduction=reduction,
            pos_weight=None if pw is None else torch.tensor(pw),
        )

    against_torch(
        lambda a, b: F.binary_cross_entropy_with_logits(
            a, b, w, reduction=reduction, pos_weight=pw
        ),
        theirs,
        [x, t],
    )


def test_binary_cross_entropy_with_logits_has_pytorchs_value_and_gradient_to_the_bit() -> None:
    """Both where one form alone would lose digits: log σ(40) for a target of 1 (the value is
    4.2e-18, not 0), σ(-40) - 0 for a target of 0 (the gradient, not 1 - σ(40) = 0)."""
    x = np.array([40.0, -40.0, 1000.0, -1000.0, 0.0, 3.0, -700.0, np.inf, -np.inf, np.inf])
    t = np.array([1.0, 0.0, 0.0, 1.0, 0.5, 0.25, 0.0, 0.3, 0.3, 1.0])
    for pw in (None, np.array([2.5])):
        ours = tg.Tensor(x, requires_grad=True)
        theirs = torch.tensor(x, requires_grad=True)
        loss = F.binary_cross_entropy_with_logits(ours, t, reduction="none", pos_weight=pw)
        their_loss = TF.binary_cross_entropy_with_logits(
            theirs,
            torch.tensor(t),
            reduction="none",
            pos_weight=None if pw is None else torch.tensor(pw),
        )
        close(loss, their_loss, f"values, pos_weight {pw}", exact=True)
        loss.sum().backward()
        their_loss.sum().backward()
        close(ours.grad, theirs.grad, f"gradients, pos_weight {pw}", exact=True)


@given(
    shape=st.lists(st.integers(0, 3), max_size=3).map(tuple),
    weighted=st.booleans(),
    reduction=REDUCTIONS,
    seed=SEEDS,
)
def test_mse_loss_is_pytorchs(
    shape: tuple[int, ...], weighted: bool, reduction: str, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    arrays = [rng.normal(size=shape), rng.normal(size=shape)]
    if weighted:
        arrays.append(rng.uniform(0.1, 2.0, shape))
    against_torch(
        lambda *a: F.mse_loss(a[0], a[1], reduction=reduction, weight=a[2] if weighted else None),
        lambda *a: TF.mse_loss(a[0], a[1], reduction=reduction, weight=a[2] if weighted else None),
        arrays,
    )


def test_the_loss_modules_are_their_functions_and_keep_their_weights() -> None:
    rng = np.random.default_rng(0)
    z, weight = rng.normal(size=(4, 3)), rng.uniform(0.5, 2.0, 3)
    target = np.array([0, 2, -100, 1])
    pairs = [
        (
            tg.nn.CrossEntropyLoss(weight, label_smoothing=0.2),
            torch.nn.CrossEntropyLoss(torch.tensor(weight), label_smoothing=0.2),
        ),
        (
            tg.nn.NLLLoss(weight, reduction="sum"),
            torch.nn.NLLLoss(torch.tensor(weight), reduction="sum"),
        ),
    ]
    for ours, theirs in pairs:
        close(ours(tg.Tensor(z), target), theirs(torch.tensor(z), torch.tensor(target)), repr(ours))
        assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
    x, t = rng.uniform(0.1, 0.9, (2, 3)), rng.uniform(size=(2, 3))
    pos = rng.uniform(0.5, 2.0, 3)
    binary = [
        (tg.nn.BCELoss(reduction="none"), torch.nn.BCELoss(reduction="none"), x),
        (
            tg.nn.BCEWithLogitsLoss(pos_weight=pos),
            torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(pos)),
            z[:2],
        ),
        (tg.nn.MSELoss(), torch.nn.MSELoss(), z[:2]),
    ]
    for ours, theirs, scores in binary:
        close(
            ours(tg.Tensor(scores), tg.Tensor(t)),
            theirs(torch.tensor(scores), torch.tensor(t)),
            repr(ours),
        )
        assert list(ours.state_dict()) == list(theirs.state_dict())


def test_size_average_and_reduce_are_read_as_pytorch_reads_them() -> None:
    z, target = np.random.default_rng(1).normal(size=(3, 4)), np.array([1, 0, 3])
    for size_average, reduce in [(False, None), (None, False), (True, True), (False, True)]:
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            ours = F.cross_entropy(tg.Tensor(z), target, size_average=size_average, reduce=reduce)
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            theirs = TF.cross_entropy(
                torch.tensor(z), torch.tensor(target), size_average=size_average, reduce=reduce
            )
        close(ours, theirs, f"{size_average}, {reduce}")


REFUSALS: list[tuple[Any, type[Exception], str]] = [
    (lambda: F.nll_loss(tg.Tensor(1.0), 0), ValueError, r"Expected 1 or more dimensions \(got 0\)"),
    (
        lambda: F.nll_loss(tg.zeros(3, 4), [0, 1]),
        ValueError,
        r"Expected input batch_size \(3\) to match target batch_size \(2\)",
    ),
    (lambda: F.nll_loss(tg.zeros(3, 4), [0, 1, 5]), IndexError, "Target 5 is out of bounds"),
    (lambda: F.nll_loss(tg.zeros(3, 4), [0, 1, -1]), IndexError, "Target -1 is out of bounds"),
    (
        lambda: F.nll_loss(tg.zeros(3, 4), [0, 1, 2], np.ones(3)),
        RuntimeError,
        "weight tensor should be defined either for all 4 classes",
    ),
    (
        lambda: F.nll_loss(tg.zeros(3, 4), np.array([0.5, 1, 2])),
        RuntimeError,
        "integer indices, got float64",
    ),
    (
        lambda: F.nll_loss(tg.zeros(2, 3, 4), np.zeros((2, 3), int)),
        RuntimeError,
        r"Expected target size \[2, 4\], got \[2, 3\]",
    ),
    (
        lambda: F.nll_loss(tg.zeros(3, 4), [0, 1, 2], reduction="avg"),
        ValueError,
        "avg is not a valid value for reduction",
    ),
    (
        lambda: F.cross_entropy(tg.zeros(3, 4), [0, 1, 2], label_smoothing=1.5),
        RuntimeError,
        "label_smoothing must be between 0.0 and 1.0. Got: 1.5",
    ),
    (
        lambda: F.cross_entropy(tg.zeros(3, 4), np.ones((3, 4), int)),
        RuntimeError,
        "Expected floating point type for target with class probabilities",
    ),
    (
        lambda: F.cross_entropy(tg.zeros(3, 4), np.ones((3, 5))),
        RuntimeError,
        "0D or 1D target tensor expected, multi-target not supported",
    ),
    (
        lambda: F.cross_entropy(tg.zeros(3, 4), [0, 1, 2], tg.ones(4, requires_grad=True)),
        RuntimeError,
        "'nll_loss_forward' is not differentiable with respect to argument 'weight'",
    ),
    (
        lambda: F.binary_cross_entropy(tg.zeros(3), tg.zeros(4)),
        ValueError,
        r"Using a target size \(\(4,\)\) that is different to the input size \(\(3,\)\)",
    ),
    (
        lambda: F.binary_cross_entropy(tg.Tensor([1.5]), tg.zeros(1)),
        RuntimeError,
        "all elements of input should be between 0 and 1",
    ),
    (
        lambda: F.binary_cross_entropy(tg.Tensor([np.nan]), tg.zeros(1)),
        RuntimeError,
        "all elements of input should be between 0 and 1",
    ),
    (
        lambda: F.binary_cross_entropy(tg.zeros(1), tg.Tensor([1.5])),
        RuntimeError,
        "all elements of target should be between 0 and 1",
    ),
    (
        lambda: F.binary_cross_entropy(tg.zeros(1), tg.zeros(1), tg.ones(1, requires_grad=True)),
        RuntimeError,
        "'binary_cross_entropy' is not differentiable",
    ),
    (
        lambda: F.binary_cross_entropy_with_logits(tg.zeros(3), tg.zeros(4)),
        ValueError,
        r"Target size \(\(4,\)\) must be the same as input size \(\(3,\)\)",
    ),
    (
        lambda: F.binary_cross_entropy_with_logits(
            tg.zeros(3), tg.zeros(3), pos_weight=tg.ones(3, requires_grad=True)
        ),
        RuntimeError,
        "argument 'pos_weight'",
    ),
    (
        lambda: F.mse_loss(tg.zeros(3), tg.zeros(3), weight=tg.ones(2)),
        ValueError,
        "Weights and input must have the same size",
    ),
]


@pytest.mark.parametrize(("call", "error", "message"), REFUSALS, ids=[r[2][:40] for r in REFUSALS])
def test_bad_input_is_refused_as_pytorch_refuses_it(
    call: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        call()


def test_a_target_of_another_size_for_mse_warns_as_pytorch() -> None:
    with pytest.warns(UserWarning, match="different to the input size"):
        loss = F.mse_loss(tg.zeros(3, 1), tg.ones(3))
    assert loss.item() == 1.0
