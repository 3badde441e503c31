"""An optimizer's state as ``torch.optim``'s ``state_dict()``: parameters by their place
(numbered in order across the groups), ``{"state": {index: {...}}, "param_groups": [{...,
"params": [indices]}]}``, and back onto the parameters of another optimizer made alike.

>>> import topograd as tg
>>> w = tg.Value(1.0)
>>> (w * w).backward()
>>> opt = tg.optim.SGD([w], lr=0.1, momentum=0.9)
>>> opt.step()
>>> saved = packed(opt.param_groups, opt.state)
>>> saved["state"], saved["param_groups"][0]["params"]
({0: {'momentum_buffer': 2.0}}, [0])
"""

from __future__ import annotations

import copy
import itertools
from collections import defaultdict
from typing import Any


def packed(groups: list[dict[str, Any]], state: dict[Any, dict[str, Any]]) -> dict[str, Any]:
    """The state dict of an optimizer with these groups and this per-parameter state: each
    parameter replaced by its index, as PyTorch numbers them (a parameter listed twice keeps
    its first number); each state a copy of its dict (its arrays are never written in place:
    the updates make new ones)."""
    index: dict[int, int] = {}
    saved_groups = []
    start = 0
    for group in groups:
        saved = {key: value for key, value in group.items() if key != "params"}
        for i, p in enumerate(group["params"], start):
            index.setdefault(id(p), i)
        saved["params"] = [index[id(p)] for p in group["params"]]
        start += len(saved["params"])
        saved_groups.append(saved)
    saved_state = {index.get(id(p), p): dict(values) for p, values in state.items()}
    return {"state": saved_state, "param_groups": saved_groups}


def unpacked(
    saved: dict[str, Any], groups: list[dict[str, Any]]
) -> tuple[defaultdict[Any, dict[str, Any]], list[dict[str, Any]]]:
    """The per-parameter state and the groups that ``saved`` (a ``packed`` state) gives an
    optimizer whose groups are ``groups``: the saved hyperparameters, these parameters (and
    their names, where the saved groups have none), and each state cast to its parameter's
    precision, as ``torch.optim``'s ``load_state_dict``."""
    saved_groups = copy.deepcopy(saved["param_groups"])
    if len(groups) != len(saved_groups):
        raise ValueError("loaded state dict has a different number of parameter groups")
    if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
        raise ValueError(
            "loaded state dict contains a parameter group that doesn't match the size of "
            "optimizer's group"
        )
    params = dict(
        zip(
            itertools.chain.from_iterable(s["params"] for s in saved_groups),
            itertools.chain.from_iterable(g["params"] for g in groups),
        )
    )
    state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
    for key, values in saved["state"].items():
        if key in params:
            p = params[key]
            state[p] = {name: cast(p, name, value) for name, value in values.items()}
        else:  # kept as it is, as PyTorch keeps state of no parameter
            state[key] = values
    for group, new in zip(groups, saved_groups):
        new["params"] = group["params"]
        if "param_names" in group and "param_names" not in new:
            new["param_names"] = group["param_names"]
    return state, saved_groups


def cast(p: Any, name: str, value: Any) -> Any:
    """A saved state ``value`` for ``p``: an array copied (never shared with the dict it came
    from), in ``p``'s precision if it holds floats; a number for a Value; the step count as
    it is (as PyTorch, which never casts ``step``)."""
    if name == "step" or not hasattr(value, "astype"):
        return value
    if isinstance(p.data, float):
        return float(value)
    dtype = getattr(p.data, "dtype", None)
    if dtype is not None and value.dtype.kind == "f":
        return value.astype(dtype)
    return value.copy()
