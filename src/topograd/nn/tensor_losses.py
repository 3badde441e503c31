"""Losses on Tensors, as ``torch.nn.functional``'s: ``nll_loss``, ``cross_entropy`` (class
indices or class probabilities, ``weight``, ``ignore_index``, ``label_smoothing``),
``binary_cross_entropy``, ``binary_cross_entropy_with_logits`` and ``mse_loss``, each with
``reduction`` "mean", "sum" or "none". (The losses on scalar Values are in ``losses.py``.)

Each is made of the registry's ops, as PyTorch composes its own: cross_entropy is nll_loss of
log_softmax, label smoothing adds the mean of the log-probabilities, so gradients and second
derivatives are the rules'. The plain case of cross_entropy (2-d logits, class indices, a mean,
nothing else) is the registry's fused ``cross_entropy``, which computes the same numbers.
``weight`` and ``pos_weight`` are constants, as in PyTorch, which refuses them with
``requires_grad``.

>>> import topograd as tg
>>> logits = tg.Tensor([[2.0, 0.5, -1.0], [0.0, 1.0, 0.0]], requires_grad=True)
>>> loss = cross_entropy(logits, [0, 2], label_smoothing=0.1)
>>> round(loss.item(), 6)
0.954711
"""

from __future__ import annotations

import warnings
from typing import Any, cast

import numpy as np

from ..autograd.modes import is_grad_enabled
from ..ops import floats
from ..ops.selection import select as where  # tg.where, the registry's entry
from ..ops.softmax import cross_entropy as fused_cross_entropy
from ..tensors import Tensor
from ..tensors.functions import log_softmax
from ..tensors.tensor import as_tensor, constant
from .embedding import indices_of

REDUCTIONS = ("none", "mean", "sum")


def reduction_of(size_average: Any, reduce: Any, reduction: str) -> str:
    """The reduction, from PyTorch's deprecated ``size_average`` and ``reduce`` where given
    (with its warning), else ``reduction``, checked."""
    if size_average is not None or reduce is not None:
        average = True if size_average is None else bool(size_average)
        reduced = True if reduce is None else bool(reduce)
        reduction = ("mean" if average else "sum") if reduced else "none"
        warnings.warn(
            "size_average and reduce args will be deprecated, please use "
            f"reduction='{reduction}' instead.",
            UserWarning,
            stacklevel=3,
        )
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduced(losses: Tensor, reduction: str) -> Tensor:
    """The losses as they are, summed, or averaged (nan for none: 0 / 0, as PyTorch's)."""
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.sum() / losses.numel()


def _constant(given: Any, like: Tensor, what: str, function: str) -> Any:
    """``weight`` or ``pos_weight`` as an array of ``like``'s dtype (None stays None); refused
    where it wants a gradient, as PyTorch's."""
    if given is None:
        return None
    if isinstance(given, Tensor) and given.requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"The function '{function}' is not differentiable with respect to argument "
            f"'{what}'. This input cannot have requires_grad True."
        )
    return np.asarray(given.array if isinstance(given, Tensor) else given, dtype=like.dtype)


def _class_axis(x: Tensor) -> int:
    ndim = x.array.ndim  # (the array's: Tensor.ndim is a property, a call more)
    if ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {ndim})")
    return 0 if ndim == 1 else 1


def _checked_targets(x: Tensor, target: Any, ignore_index: int) -> tuple[Any, Any]:
    """Class indices for the scores ``x`` (C), (N, C) or (N, C, d...), checked as PyTorch
    checks them, and where they count (not ``ignore_index``): None where every one does."""
    given = target.array if isinstance(target, Tensor) else target
    shape = given.shape if isinstance(given, np.ndarray) else np.shape(given)
    x_shape = x.array.shape
    axis = _class_axis(x)
    if axis == 1 and (not shape or shape[0] != x_shape[0]):
        found = shape[0] if shape else "none"
        raise ValueError(
            f"Expected input batch_size ({x_shape[0]}) to match target batch_size ({found})."
        )
    expected = x_shape[:axis] + x_shape[axis + 1 :]
    if len(x_shape) <= 2 and shape != expected:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if shape != expected:
        raise RuntimeError(f"Expected target size {list(expected)}, got {list(shape)}")
    t = indices_of(target, "target")
    classes = x_shape[axis]
    if t.size and not 0 <= ignore_index < classes and _within(t, classes):
        return t, None  # (the common case, in two passes over t, not five)
    counted = t != ignore_index
    wrong = counted & ((t < 0) | (t >= classes))
    if wrong.any():
        raise IndexError(f"Target {int(t[wrong].ravel()[0])} is out of bounds.")
    return t, counted


def _within(t: Any, classes: int) -> bool:
    """Every index in [0, classes) (the reductions called as they are: ``t.min()`` would go
    through NumPy's Python layer)."""
    return bool(np.minimum.reduce(t, axis=None) >= 0 and np.maximum.reduce(t, axis=None) < classes)


def _target_weights(x: Tensor, t: Any, counted: Any, weight: Any) -> Any:
    """Each target's weight (its class's, or 1), 0 where it does not count."""
    classes = x.shape[_class_axis(x)]
    if weight is None:
        return counted.astype(x.dtype)
    if weight.shape != (classes,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes "
            f"but got weight tensor of shape: {list(weight.shape)}"
        )
    return np.where(counted, weight[np.where(counted, t, 0)], 0).astype(x.dtype)


def nll_loss(
    input: Tensor,  # noqa: A002 - PyTorch's names
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """-input[target] (times the target class's ``weight``), for log-probabilities ``input``
    of shape (C), (N, C) or (N, C, d...) and class indices of shape (), (N) or (N, d...);
    targets equal to ``ignore_index`` count for nothing. "mean" divides by the sum of the
    counted targets' weights (nan if none counts), as PyTorch's."""
    reduction = reduction_of(size_average, reduce, reduction)
    x = as_tensor(input)
    w = _constant(weight, x, "weight", "nll_loss_forward")
    t, counted = _checked_targets(x, target, ignore_index)
    counted = np.ones(t.shape, bool) if counted is None else counted
    axis = _class_axis(x)
    weights = _target_weights(x, t, counted, w)
    classes = np.arange(x.shape[axis]).reshape((-1,) + (1,) * (x.ndim - axis - 1))
    chosen = (classes == np.expand_dims(t, axis)) & np.expand_dims(counted, axis)
    picked = where(chosen, x, 0.0).sum(axis=axis)  # selected: an ignored target gets +0.0
    losses: Tensor = -(picked * weights)
    if reduction != "mean":
        return _reduced(losses, reduction)
    return losses.sum() / float(weights.sum())


def _probabilities(x: Tensor, target: Any) -> Tensor | None:
    """The target as class probabilities, where it is one (numbers of the input's shape), as
    PyTorch tells them from class indices; None for class indices."""
    given = target.array if isinstance(target, Tensor) else np.asarray(target)
    if tuple(given.shape) != x.array.shape:
        return None
    if given.dtype.kind != "f":
        raise RuntimeError(
            f"Expected floating point type for target with class probabilities, got {given.dtype}"
        )
    return as_tensor(target, x) if isinstance(target, Tensor) else constant(given.astype(x.dtype))


def cross_entropy(
    input: Tensor,  # noqa: A002 - PyTorch's names
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """-log softmax(input)[target] along the classes (axis 1, or 0 for one sample), stable for
    logits of ±1000: ``nll_loss`` of ``log_softmax``, with its ``weight``, ``ignore_index`` and
    ``reduction``. A target of the input's shape holds class probabilities instead (-Σ p log q,
    a mean over the samples). ``label_smoothing`` ε mixes the target with the uniform
    distribution: (1 - ε) of the loss plus ε times the mean over the classes of -log q. As
    PyTorch's, an ε above 1 is refused and only one above 0 smooths: a negative one (or nan)
    gives the plain loss."""
    reduction = reduction_of(size_average, reduce, reduction)
    label_smoothing = _smoothing(label_smoothing)
    x = as_tensor(input)
    axis = _class_axis(x)
    w = _constant(weight, x, "weight", "nll_loss_forward")
    probabilities = _probabilities(x, target)
    if probabilities is not None:
        return _soft_cross_entropy(x, probabilities, w, reduction, label_smoothing)
    if x.array.ndim == 2 and w is None and reduction == "mean" and not label_smoothing:
        t, counted = _checked_targets(x, target, ignore_index)
        if (counted is None or counted.all()) and x.array.shape[0]:  # the plain case: fused
            return fused_cross_entropy(x, constant(t))  # type: ignore[no-any-return]
    logp = log_softmax(x, axis)
    nll = nll_loss(logp, target, w, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return nll
    uniform = _against_uniform(x, logp, target, w, ignore_index, reduction)
    share = floats.div(label_smoothing, float(x.shape[axis]))  # inf for no classes, as PyTorch's
    return (1.0 - label_smoothing) * nll + uniform * share


def _smoothing(given: float) -> float:
    """The label smoothing to apply: ``given`` where it is above 0, else none (PyTorch smooths
    only then: a negative or nan one is taken and changes nothing); above 1 refused, as by
    PyTorch."""
    found = float(given)
    if found > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {found:g}")
    return found if found > 0.0 else 0.0


def _against_uniform(
    x: Tensor, logp: Tensor, target: Any, weight: Any, ignore_index: int, reduction: str
) -> Tensor:
    """-Σ log q over the classes (each times its class's weight) for each counted target, 0 for
    the ignored ones, reduced as nll_loss reduces: label smoothing's part, as PyTorch's."""
    axis = _class_axis(x)
    t, counted = _checked_targets(x, target, ignore_index)
    counted = np.ones(t.shape, bool) if counted is None else counted
    along = (-1,) + (1,) * (x.ndim - axis - 1)
    terms = -(logp if weight is None else logp * weight.reshape(along)).sum(axis=axis)
    terms = cast(Tensor, where(counted, terms, 0.0))
    if reduction == "none":
        return terms
    if reduction == "sum":
        return terms.sum()
    return terms.sum() / float(_target_weights(x, t, counted, weight).sum())


def _soft_cross_entropy(
    x: Tensor, p: Tensor, weight: Any, reduction: str, label_smoothing: float
) -> Tensor:
    """-Σ p log softmax(x) over the classes (times each class's weight), as PyTorch's for class
    probabilities: "mean" divides by the number of samples, not by the weights."""
    axis = _class_axis(x)
    classes = x.shape[axis]
    if weight is not None and weight.shape != (classes,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {classes} classes or no classes "
            f"but got weight tensor of shape: {list(weight.shape)}"
        )
    if label_smoothing:
        p = p * (1.0 - label_smoothing) + floats.div(label_smoothing, float(classes))
    terms = log_softmax(x, axis) * p
    if weight is not None:
        terms = terms * weight.reshape((-1,) + (1,) * (x.ndim - axis - 1))
    if reduction == "none":
        return -terms.sum(axis=axis)
    if reduction == "sum":
        return -terms.sum()
    samples = x.numel() // classes if classes else 0
    return -terms.sum() / samples if samples else -terms.sum() * float("nan")


def _same_size(x: Tensor, t: Tensor, message: str) -> None:
    if t.shape != x.shape:
        raise ValueError(message.format(target=t.shape, input=x.shape))


def _log_at_least(x: Tensor, f: Any, safe: float) -> Tensor:
    """``f(x)`` but never below -100, as PyTorch clamps the logs of its binary cross-entropy;
    where it would be, -100 and no gradient (computed at ``safe``, so that log(0) leaves no
    nan in the gradient)."""
    with np.errstate(all="ignore"):
        kept = f(x.array) >= -100.0
    return cast(Tensor, where(kept, f(where(kept, x, safe)), -100.0))


def _log(x: Any) -> Any:
    return x.log() if isinstance(x, Tensor) else np.log(x)


def _log_one_minus(x: Any) -> Any:
    return (-x).log1p() if isinstance(x, Tensor) else np.log1p(-x)


def binary_cross_entropy(
    input: Tensor,  # noqa: A002 - PyTorch's names
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """-(t log x + (1 - t) log(1 - x)) (times ``weight``) for probabilities ``input`` and
    targets in [0, 1], each log at least -100, as PyTorch's. Its gradient is the derivative of
    that: PyTorch's own formula, (x - t) / max(x (1 - x), 1e-12), agrees with it except where
    x is 0 or 1 (or within 1e-12 of them)."""
    reduction = reduction_of(size_average, reduce, reduction)
    x = as_tensor(input)
    t = as_tensor(target, x)
    _same_size(
        x,
        t,
        "Using a target size ({target}) that is different to the input size ({input}) is "
        "deprecated. Please ensure they have the same size.",
    )
    for name, given in (("input", x), ("target", t)):
        if not ((given.array >= 0) & (given.array <= 1)).all():
            raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    w = _constant(weight, x, "weight", "binary_cross_entropy")
    losses = (t - 1.0) * _log_at_least(x, _log_one_minus, 0.0) - t * _log_at_least(x, _log, 1.0)
    return _reduced(losses if w is None else losses * w, reduction)


def binary_cross_entropy_with_logits(
    input: Tensor,  # noqa: A002 - PyTorch's names
    target: Any,
    weight: Any = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    pos_weight: Any = None,
) -> Tensor:
    """Binary cross-entropy of sigmoid(input), without overflow for logits of ±1000:
    (1 - t) x - l log σ(x), l = 1 + (pos_weight - 1) t weighing the positive targets.

    Both are PyTorch's: the value computed in that form, the gradient as PyTorch's formula
    l σ(x) - pos_weight t, which is the derivative of the same function written as
    l softplus(x) - pos_weight t x. Written once, one of the two would lose digits to
    cancellation where PyTorch's does not, so the value is the first form, and the graph is
    the second's: its value corrected by the (detached, constant) difference of the two."""
    reduction = reduction_of(size_average, reduce, reduction)
    x = as_tensor(input)
    t = as_tensor(target, x)
    _same_size(x, t, "Target size ({target}) must be the same as input size ({input})")
    function = "binary_cross_entropy_with_logits"
    w = _constant(weight, x, "weight", function)
    pw = _constant(pos_weight, x, "pos_weight", function)
    if pw is None:
        value = (1.0 - t) * x + (-x).softplus()  # -log σ(x) is softplus(-x), to the bit
        graph = x.softplus() - t * x
    else:  # l computed in each form as PyTorch computes it there
        value = (1.0 - t) * x + ((pw - 1.0) * t + 1.0) * (-x).softplus()
        scaled = t * pw
        graph = (scaled + 1.0 - t) * x.softplus() - scaled * x
    losses = graph + (value - graph).detach()
    lost = np.isnan(losses.array) & ~np.isnan(value.array)  # inf - inf in the graph's form only
    if lost.any():  # (an infinite logit)
        losses = where(lost, value, losses)
    return _reduced(losses if w is None else losses * w, reduction)


def mse_loss(
    input: Tensor,  # noqa: A002 - PyTorch's names
    target: Any,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Any = None,
) -> Tensor:
    """(input - target)² (times ``weight``), broadcast; "mean" with a weight divides by the
    sum of the weights, as PyTorch's."""
    reduction = reduction_of(size_average, reduce, reduction)
    x = as_tensor(input)
    t = as_tensor(target, x)
    if t.shape != x.shape:
        warnings.warn(
            f"Using a target size ({t.shape}) that is different to the input size ({x.shape}). "
            "This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.",
            UserWarning,
            stacklevel=2,
        )
    diff = x - t
    squares = diff * diff
    if weight is None:
        return _reduced(squares, reduction)
    w = as_tensor(weight, x)
    if w.shape != x.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = squares * w
    return weighted.sum() / w.sum() if reduction == "mean" else _reduced(weighted, reduction)
