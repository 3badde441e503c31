"""Parameter groups as ``torch.optim``'s: what an optimizer's ``params`` may be (parameters,
``(name, parameter)`` pairs as ``named_parameters()`` gives them, or dicts of either with
hyperparameters of their own), each group completed from the optimizer's defaults, and the
refusals PyTorch makes, in its words.

>>> import topograd as tg
>>> w, b = tg.Value(1.0), tg.Value(2.0)
>>> groups = as_groups([{"params": [("w", w)], "lr": 0.5}, {"params": b}])
>>> groups = [complete(g, {"lr": 0.1, "momentum": 0.0}) for g in groups]
>>> [(g["params"] == [p], g["lr"], g.get("param_names")) for g, p in zip(groups, [w, b])]
[(True, 0.5, ['w']), (True, 0.1, None)]
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import Any

from ..autograd.engine import is_leaf
from ..autograd.kinds import kind_of

# What each flag would ask of topograd, which updates ``.data`` one parameter at a time.
UNSUPPORTED = {
    "fused": "PyTorch's fused kernels, which topograd does not have: leave fused=None",
    "capturable": "a step that CUDA graphs can capture, which topograd does not do: "
    "leave capturable=False",
    "differentiable": "a step that autograd can differentiate through; topograd's writes "
    ".data in place: leave differentiable=False",
}


def as_groups(params: Iterable[Any]) -> list[Any]:
    """``params`` as a list of groups: itself if it holds dicts, else one group of it.

    >>> as_groups([])
    Traceback (most recent call last):
    ...
    ValueError: optimizer got an empty parameter list (an optimizer needs at least one parameter)
    """
    if kind_of(params) is not None:
        raise TypeError(
            "params argument given to the optimizer should be an iterable of parameters "
            f"(Tensors or Values) or dicts, but got one {type(params).__name__}: write [p]"
        )
    groups = list(params)
    if not groups:
        raise ValueError(
            "optimizer got an empty parameter list (an optimizer needs at least one parameter)"
        )
    return groups if isinstance(groups[0], dict) else [{"params": groups}]


def complete(group: Any, defaults: dict[str, Any]) -> dict[str, Any]:
    """``group`` itself, as PyTorch keeps it: its ``params`` made a list of parameters (their
    names, if given as pairs, in ``param_names``), each checked, and every hyperparameter it
    does not set taken from ``defaults``.

    >>> complete({"params": [1.0]}, {})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: optimizer can only optimize Tensors, but one of the params is float (...)
    """
    if not isinstance(group, dict):
        raise TypeError(f"param_group must be a dict, but got {type(group)}")
    given = group["params"]
    if kind_of(given) is not None:
        given = [given]
    elif isinstance(given, set):
        raise TypeError(
            "optimizer parameters need to be organized in ordered collections, but the "
            "ordering of tensors in sets will change between runs. Please use a list instead."
        )
    entries = list(given)
    group["params"] = [p[1] if isinstance(p, tuple) else p for p in entries]
    names = [p[0] for p in entries if isinstance(p, tuple)]
    if names and len(names) != len(entries):
        raise ValueError(
            "all optimizer params should be with/without names. Some param names are missing"
        )
    if names:
        group["param_names"] = names
    for p in group["params"]:
        check_parameter(p)
    for name, default in defaults.items():
        group.setdefault(name, default)
    check_hyperparameters(group)
    if len({id(p) for p in group["params"]}) != len(group["params"]):
        warnings.warn(
            "optimizer contains a parameter group with duplicate parameters; "
            "in future, this will cause an error; "
            "see github.com/pytorch/pytorch/issues/40967 for more information",
            stacklevel=4,
        )
    return group


def check_parameter(p: Any) -> None:
    """Refuse what is not a parameter (a Value, a Tensor, or anything with ``.data`` and
    ``.grad``), and a non-leaf, which no optimizer can move."""
    if kind_of(p) is None and not (hasattr(p, "data") and hasattr(p, "grad")):
        raise TypeError(
            "optimizer can only optimize Tensors, but one of the params is "
            f"{typename(p)} (topograd optimizes Tensors and Values)"
        )
    if not is_leaf(p):
        raise ValueError(
            f"can't optimize a non-leaf: {type(p).__name__} made by "
            f"{getattr(p, 'op', '?')!r} (optimize the leaves it was made from)"
        )


def check_hyperparameters(group: dict[str, Any]) -> None:
    """Refuse a negative learning rate or weight decay, and the flags that ask for what
    topograd does not do (``foreach`` only chooses PyTorch's kernels: any value is taken)."""
    lr = group.get("lr", 0.0)
    if not lr >= 0:  # nan too
        raise ValueError(f"the learning rate must be >= 0, got {lr}")
    nonnegative(weight_decay=group.get("weight_decay", 0.0))
    for flag, asks in UNSUPPORTED.items():
        if group.get(flag):
            raise NotImplementedError(f"{flag}={group[flag]!r} asks for {asks}")


def nonnegative(**hyperparameters: float) -> None:
    """Refuse a negative (or nan) hyperparameter, by its name, as ``torch.optim`` does.

    >>> nonnegative(eps=-1.0)
    Traceback (most recent call last):
    ...
    ValueError: eps must be >= 0, got -1.0
    """
    for name, value in hyperparameters.items():
        if not value >= 0:
            raise ValueError(f"{name} must be >= 0, got {value}")


def typename(x: object) -> str:
    """The name of ``x``'s type as ``torch.typename`` gives it: builtins bare, others dotted.

    >>> typename(1.0), typename(ValueError())
    ('float', 'ValueError')
    """
    t = type(x)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
