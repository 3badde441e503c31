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

import math
from typing import Any, NamedTuple

import numpy as np
import pytest
import torch
import torch.nn.functional as TF  # noqa: N812 - PyTorch's own abbreviation
from hypothesis import given
from hypothesis import strategies as st
from test_nn_layers import RTOL, SEEDS, against_torch, close

import topograd as tg
from topograd.autograd.registry import OPS
from topograd.tensors.arrays import kernel

F = tg.nn.functional
REDUCTIONS = st.sampled_from(["mean", "sum", "none"])
SHAPES = st.lists(st.integers(0, 3), max_size=3).map(tuple)  # empty and 0-d too
# every label smoothing PyTorch takes: in [0, 1], and below 0 (or nan), which smooths nothing
SMOOTHINGS = st.one_of(
    st.sampled_from([0.0, 0.0, 0.1, 0.5, 1.0, -0.0, -0.1, -math.inf, math.nan]),
    st.floats(-5.0, 1.0),
)


@pytest.fixture(autouse=True, scope="module")
def _one_thread() -> Any:
    """PyTorch on one thread for these small tensors: its thread pool costs more than they."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def twin(array: np.ndarray | None) -> torch.Tensor | None:
    """PyTorch's float64 twin of an optional array (a weight): None stays None."""
    return None if array is None else torch.tensor(array)


class Classes(NamedTuple):
    """Scores over classes and what the class losses compare them with."""

    scores: np.ndarray
    target: np.ndarray  # class indices, some of them ``ignored``
    probabilities: np.ndarray  # the scores' shape (PyTorch asks no sum of 1)
    weight: np.ndarray | None  # per class
    ignored: int


@st.composite
def classes(draw: Any, most: int = 4, ignored: tuple[int, ...] = (-100,)) -> Classes:
    """Scores of one sample (C), of a batch (N, C) or of a batch of sequences (N, C, L), with
    up to ``most`` samples and ``most + 1`` classes, and their targets and class weights."""
    form = draw(st.sampled_from(["one", "batch", "sequence"]))
    n, count = draw(st.integers(0, most)), draw(st.integers(1, most + 1))
    ignore, weighted = draw(st.sampled_from(ignored)), draw(st.booleans())
    rng = np.random.default_rng(draw(SEEDS))
    shape = {"one": (count,), "batch": (n, count), "sequence": (n, count, 3)}[form]
    target_shape = shape[:1] + shape[2:] if form != "one" else ()
    scores = rng.normal(0.0, 3.0, shape)
    target = rng.integers(0, count, target_shape)
    target = np.where(rng.random(target_shape) < 0.2, ignore, target)
    probabilities = rng.uniform(0.0, 1.0, shape)
    weight = rng.uniform(0.1, 2.0, count) if weighted else None
    return Classes(scores, target, probabilities, weight, ignore)


def twins(*arrays: np.ndarray) -> tuple[list[tg.Tensor], list[torch.Tensor]]:
    """Leaves of ``arrays``: ours and PyTorch's float64 twins, all wanting a gradient."""
    return (
        [tg.Tensor(a, requires_grad=True) for a in arrays],
        [torch.tensor(a, requires_grad=True) for a in arrays],
    )


def call(lib: Any, name: str, *inputs: Any, **options: Any) -> Any:
    """``lib.<name>`` of ``inputs``: ours (F, tg.nn) or PyTorch's (TF, torch.nn), to which
    arrays (class indices, weights) go as its tensors."""
    if lib in (TF, torch.nn):
        inputs = tuple(twin(v) if isinstance(v, np.ndarray) else v for v in inputs)
        options = {k: twin(v) if isinstance(v, np.ndarray) else v for k, v in options.items()}
    return getattr(lib, name)(*inputs, **options)


def both(name: str, leaves: tuple[list[Any], list[Any]], **options: Any) -> tuple[Any, Any]:
    """The loss on our leaves and PyTorch's on theirs."""
    return call(F, name, *leaves[0], **options), call(TF, name, *leaves[1], **options)


def loss_against_torch(
    name: str, arrays: list[np.ndarray], *fixed: Any, second_rtol: float = RTOL, **options: Any
) -> None:
    """The loss of ``arrays`` (differentiated, to second order) and ``fixed`` inputs (class
    indices) against PyTorch's, array options (weights) held fixed."""
    against_torch(
        lambda *a: call(F, name, *a, *fixed, **options),
        lambda *a: call(TF, name, *a, *fixed, **options),
        arrays,
        second_rtol=second_rtol,
    )


@given(case=classes(), reduction=REDUCTIONS, smoothing=SMOOTHINGS)
def test_cross_entropy_with_class_indices_is_pytorchs(
    case: Classes, reduction: str, smoothing: float
) -> None:
    loss_against_torch(
        "cross_entropy",
        [case.scores],
        case.target,
        weight=case.weight,
        reduction=reduction,
        label_smoothing=smoothing,
    )


@given(case=classes(ignored=(-100, 0, 2)), reduction=REDUCTIONS)
def test_nll_loss_is_pytorchs(case: Classes, reduction: str) -> None:
    loss_against_torch(
        "nll_loss",
        [case.scores],
        case.target,
        weight=case.weight,
        reduction=reduction,
        ignore_index=case.ignored,
    )


@given(case=classes(most=3), reduction=REDUCTIONS, smoothing=SMOOTHINGS)
def test_cross_entropy_with_class_probabilities_is_pytorchs(
    case: Classes, reduction: str, smoothing: float
) -> None:
    loss_against_torch(
        "cross_entropy",
        [case.scores, case.probabilities],
        weight=case.weight,
        reduction=reduction,
        label_smoothing=smoothing,
    )


def test_cross_entropy_is_stable_and_its_plain_case_is_the_fused_node() -> None:
    z = np.array([[1000.0, -1000.0, 0.0], [-1000.0, 999.0, 1000.0]])
    target = np.array([2, 1])
    for smoothing in (0.0, 0.3):
        loss_against_torch("cross_entropy", [z], target, label_smoothing=smoothing)
    assert F.cross_entropy(tg.Tensor(z, requires_grad=True), target).op == "cross_entropy"
    plain = F.cross_entropy(tg.Tensor(z, requires_grad=True), target, reduction="sum")
    assert plain.op != "cross_entropy"  # composed: nll_loss of log_softmax
    tensor_target = tg.tensor(target, dtype=tg.int64)  # class indices in a Tensor, as torch's
    assert (
        F.cross_entropy(tg.Tensor(z), tensor_target).item()
        == F.cross_entropy(tg.Tensor(z), target).item()
    )


SPECIAL = [0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 1e30, -1e30, 1e-40]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_the_fused_cross_entropy_rule_from_its_kept_softmax_is_the_recomputed_one(
    dtype: Any,
) -> None:
    """An ordinary backward hands the rule the softmax its forward made (``Op.keeps``); its
    contribution is the one the rule computes from the logits again, to the bit: signed
    zeros, infinities and every NaN's bits, whatever the upstream gradient."""
    op, forward = OPS["cross_entropy"], kernel(OPS["cross_entropy"])
    rng = np.random.default_rng(1)
    with np.errstate(all="ignore"):
        for rows, classes in ((1, 1), (3, 1), (1, 3), (5, 4), (128, 10), (4, 17)):
            for trial in range(12):
                z = rng.normal(size=(rows, classes)) * rng.choice([1, 10, 1000])
                if trial % 3 == 0:
                    z.flat[rng.integers(0, z.size, 2)] = rng.choice(SPECIAL, 2)
                z, t = z.astype(dtype), rng.integers(0, classes, rows)
                out, kept = forward(z, t)
                for g in [1.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 3.5, 1e-45, 6e4]:
                    for grad in (np.asarray(g, dtype), dtype(g)):
                        again = op.rule(grad, z, t, out)[0]
                        found = op.rule(grad, z, t, out, kept=kept)[0]
                        assert found.dtype == again.dtype
                        assert found.tobytes() == again.tobytes(), (rows, classes, g)


@given(
    shape=SHAPES,
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
    options: dict[str, Any] = {"weight": w[weight], "reduction": reduction}
    loss_against_torch("binary_cross_entropy", [x, t], second_rtol=1e-9, **options)  # (see above)
    ours, theirs = both("binary_cross_entropy", twins(x, t), **options)
    if reduction == "none":  # the same formula, its two terms of one sign: no cancellation
        # PyTorch's kernel calls the C library's log1p, topograd NumPy's, and the two differ by
        # an ulp at some x (0x1.425ed15946231p-1): each loss within 2 ulps, not to the bit
        np.testing.assert_array_max_ulp(ours.data, theirs.detach().numpy(), maxulp=2)
    else:
        close(ours, theirs, "first order")


def test_binary_cross_entropy_clamps_its_logs_at_minus_100() -> None:
    x = np.array([0.0, 1.0, 1e-50, 1.0 - 1e-16, 0.5])
    t = np.array([1.0, 0.0, 1.0, 0.0, 1.0])
    ours, theirs = both("binary_cross_entropy", twins(x, t), reduction="none")
    close(ours, theirs, "values", exact=True)
    leaf = tg.Tensor(x, requires_grad=True)
    F.binary_cross_entropy(leaf, tg.Tensor(t), reduction="sum").backward()
    assert leaf.grad is not None and np.isfinite(leaf.grad).all()  # no nan from log(0)
    # The derivative of the clamped loss: 0 where a log is clamped, where PyTorch's formula
    # (x - t) / max(x (1 - x), 1e-12) gives -1e12 and 1e12.
    assert leaf.grad[:3].tolist() == [0.0, 0.0, 0.0]


@given(
    shape=SHAPES,
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
    loss_against_torch(
        "binary_cross_entropy_with_logits", [x, t], weight=w, reduction=reduction, pos_weight=pw
    )


def test_binary_cross_entropy_with_logits_has_pytorchs_value_and_gradient_to_the_bit() -> None:
    """Both where one form alone would lose digits: log σ(40) for a target of 1 (the value is
    4.2e-18, not 0), σ(-40) - 0 for a target of 0 (the gradient, not 1 - σ(40) = 0)."""
    x = np.array([40.0, -40.0, 1000.0, -1000.0, 0.0, 3.0, -700.0, np.inf, -np.inf, np.inf])
    t = np.array([1.0, 0.0, 0.0, 1.0, 0.5, 0.25, 0.0, 0.3, 0.3, 1.0])
    for pw in (None, np.array([2.5])):
        leaves = twins(x, t)
        (ours, _), (theirs, _) = leaves
        options = {"reduction": "none", "pos_weight": pw}
        out, their_out = both("binary_cross_entropy_with_logits", leaves, **options)
        close(out, their_out, f"values, pos_weight {pw}", exact=True)
        out.sum().backward()
        their_out.sum().backward()
        close(ours.grad, theirs.grad, f"gradients, pos_weight {pw}", exact=True)


@given(shape=SHAPES, weighted=st.booleans(), reduction=REDUCTIONS, seed=SEEDS)
def test_mse_loss_is_pytorchs(
    shape: tuple[int, ...], weighted: bool, reduction: str, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    arrays = [rng.normal(size=shape), rng.normal(size=shape)]
    if weighted:  # differentiated too
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
    x, t = rng.uniform(0.1, 0.9, (2, 3)), rng.uniform(size=(2, 3))
    pos = rng.uniform(0.5, 2.0, 3)

    def made(name: str, *args: Any, **options: Any) -> tuple[Any, Any]:
        return call(tg.nn, name, *args, **options), call(torch.nn, name, *args, **options)

    cases = [  # (ours, PyTorch's), scores, target, the names in both state_dicts
        (made("CrossEntropyLoss", weight, label_smoothing=0.2), z, target, ["weight"]),
        (made("NLLLoss", weight, reduction="sum"), z, target, ["weight"]),
        (made("BCELoss", reduction="none"), x, t, []),
        (made("BCEWithLogitsLoss", pos_weight=pos), z[:2], t, ["pos_weight"]),
        (made("MSELoss"), z[:2], t, []),
    ]
    for (ours, theirs), scores, wanted, names in cases:
        mine = wanted if wanted.dtype.kind == "i" else tg.Tensor(wanted)  # indices as given
        their = theirs(torch.tensor(scores), torch.tensor(wanted))
        close(ours(tg.Tensor(scores), mine), their, repr(ours))
        assert list(ours.state_dict()) == list(theirs.state_dict()) == names


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
        "expected target dtype to be Long or Byte, but got Double",
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
        r"Using a target size \(topograd.Size\(\[4\]\)\) that is different to the input size "
        r"\(topograd.Size\(\[3\]\)\)",  # (PyTorch's words, torch.Size([4]) under its name)
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
        r"Target size \(topograd.Size\(\[4\]\)\) must be the same as input size "
        r"\(topograd.Size\(\[3\]\)\)",
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
