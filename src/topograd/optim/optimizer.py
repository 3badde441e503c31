"""The optimizer loop, once: every optimizer is a subclass that writes only ``update``.

The base class owns what all share, as ``torch.optim`` does: parameter groups (each with its
own hyperparameters, the constructor's as defaults), skipping parameters without a gradient,
``maximize`` (the gradient negated), weight decay (L2, added to the gradient; or decoupled,
as AdamW: the parameter shrunk by ``1 - lr * weight_decay`` first), the state of each
parameter (``state[p]``), ``state_dict``, ``zero_grad`` and ``step(closure)``. It works on
anything with ``.data`` and ``.grad``: scalar Values and Tensors. ``update`` reads the
hyperparameters of the group being stepped from ``self.group`` (``self.lr`` is its rate):

>>> import topograd as tg
>>> class HalfStep(Optimizer):
...     def update(self, p, grad, state):
...         p.data -= self.lr * grad / 2
>>> w = tg.Value(1.0)
>>> (w * w).backward()
>>> HalfStep([w], lr=0.1).step()
>>> w.data
0.9
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from ..autograd.engine import gradient, zero_grad
from ..autograd.kinds import Kind, kind_of
from ..autograd.modes import recording
from ..autograd.versions import wrote
from .checkpoint import packed, unpacked
from .groups import as_groups, complete


class Parameter(Protocol):
    data: Any
    grad: Any


# Parameters, (name, parameter) pairs, or dicts of either with their own hyperparameters.
Params = Iterable[Parameter] | Iterable[tuple[str, Parameter]] | Iterable[dict[str, Any]]


class Optimizer:
    """Parameter groups (``param_groups``, each a dict of ``params`` and hyperparameters,
    completed from ``defaults``) and the state of each parameter (``state[p]``).

    ``lr`` is a shorthand: inside ``update``, the learning rate of the group being stepped;
    elsewhere the rate all groups share (a ValueError if they differ: read
    ``param_groups[i]["lr"]``). Setting it sets every group's, as a scheduler does."""

    def __init__(
        self, params: Params, lr: float, weight_decay: float = 0.0, **defaults: Any
    ) -> None:
        self.defaults: dict[str, Any] = {"lr": lr, "weight_decay": weight_decay, **defaults}
        self.state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        for group in as_groups(params):
            self.add_param_group(group)
        self.group = self.param_groups[0]  # the group being stepped (the first, outside step)
        self.stepping = False

    @property
    def lr(self) -> float:
        if self.stepping:
            return self.group["lr"]  # type: ignore[no-any-return]
        first = self.param_groups[0]["lr"]
        if any(g["lr"] != first for g in self.param_groups):
            rates = [g["lr"] for g in self.param_groups]
            raise ValueError(
                f"the parameter groups have different learning rates, {rates}: read "
                'param_groups[i]["lr"]'
            )
        return first  # type: ignore[no-any-return]

    @lr.setter
    def lr(self, value: float) -> None:
        for group in self.param_groups:
            group["lr"] = value

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (``{"params": [...], "lr": ...}``), its missing
        hyperparameters taken from ``defaults``, as ``torch.optim``'s.

        >>> import topograd as tg
        >>> opt = tg.optim.SGD([tg.Value(1.0)], lr=0.1)
        >>> opt.add_param_group({"params": [tg.Value(2.0)], "lr": 0.01, "momentum": 0.9})
        >>> [(g["lr"], g["momentum"]) for g in opt.param_groups]
        [(0.1, 0.0), (0.01, 0.9)]
        """
        group = complete(param_group, self.defaults)
        named = "param_names" in group
        if any(("param_names" in other) != named for other in self.param_groups):
            raise ValueError(
                "all optimizer param groups should be with/without names. cannot add param "
                f"group {'with' if named else 'without'} names to the optimizer"
            )
        taken = {id(p) for other in self.param_groups for p in other["params"]}
        if any(id(p) in taken for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients, as PyTorch: a Tensor's to None (``set_to_none``) or to zeros
        in place; a Value's to 0.0, micrograd's, which counts as none until a backward (or,
        with ``set_to_none=False``, a gradient of 0.0 that ``step`` uses)."""
        for group in self.param_groups:
            if set_to_none:
                zero_grad(group["params"])
                continue
            for p in group["params"]:
                grad = gradient(p)
                if grad is None:
                    continue
                if isinstance(grad, float):
                    p.grad = 0.0
                else:
                    grad[...] = 0  # in place (the gradient's own array), as PyTorch's zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter that has a gradient: a write in place, so a backward
        through a graph made before it raises rather than differentiate the new values. With
        a ``closure``, it is called first, recording a graph even under ``no_grad``, and what
        it returns (the loss) is returned, as PyTorch's."""
        loss = None
        if closure is not None:
            with recording(True):
                loss = closure()
        moved: list[Any] = []
        self.stepping = True
        try:
            for group in self.param_groups:
                self.group = group
                params, start = group["params"], 0
                while start < len(params):  # once, unless the group mixes kinds
                    kind = kind_of(params[start])
                    with kind.ieee() if kind is not None else contextlib.nullcontext():
                        start = self._step_group(group, params, start, kind, moved)
        finally:
            self.stepping, self.group = False, self.param_groups[0]
            wrote(moved, f"{type(self).__name__}.step")
        return loss

    def _step_group(
        self,
        group: dict[str, Any],
        params: list[Any],
        start: int,
        entered: Kind | None,
        moved: list[Any],
    ) -> int:
        """Step ``params`` from ``start`` on, as far as they are of the kind ``entered`` (whose
        IEEE mode ``step`` entered around this: once per group, not per parameter); the index
        of the first of another kind, or the end."""
        # The hot path of micrograd's loop (hundreds of scalar Values a step): the group's
        # settings read once.
        lr, decay = group["lr"], group["weight_decay"]
        maximize = group.get("maximize", False)
        decoupled = group.get("decoupled_weight_decay", False)
        states, update = self.state, self.update
        fresh: dict[str, Any] = {}
        known = type(params[start])  # (a kind is its type's: asked once a type)
        for k in range(start, len(params)):
            p = params[k]
            if type(p) is not known:
                known = type(p)
                if kind_of(p) is not entered:
                    return k
            grad = p.grad if entered is None else entered.gradient(p)
            if grad is None:  # no backward reached it since zero_grad: left as it is
                continue
            numbers = p if entered is None else entered.moved(p)
            if maximize:
                grad = -grad
            if decay and decoupled:
                numbers.data *= 1 - lr * decay
            elif decay:
                grad = grad + decay * numbers.data
            state = states.get(p, fresh)
            update(numbers, grad, state)
            if numbers is not p and numbers.data is not numbers.array:  # rebound, not in place
                numbers.array[...] = numbers.data
            if state is fresh and fresh:  # its first state: p's own from now on (none: none)
                states[p], fresh = fresh, {}
            moved.append(p)
        return len(params)

    def update(self, p: Parameter, grad: Any, state: dict[str, Any]) -> None:
        """Move ``p`` given its gradient (weight decay included) and its state, with the
        hyperparameters of ``self.group``: ``p.data`` is the numbers (a Value's float, a new one
        each step; a Tensor's array, written in place), ``grad`` the gradient's."""
        raise NotImplementedError(f"{type(self).__name__} must define update()")

    def state_dict(self) -> dict[str, Any]:
        """The state as ``torch.optim``'s: ``{"state": {index: {...}}, "param_groups":
        [{..., "params": [indices]}]}``, parameters numbered in order across the groups.

        >>> import topograd as tg
        >>> tg.optim.Adagrad([tg.Value(1.0)], lr=0.5).state_dict()["state"]
        {0: {'step': 0, 'sum': 0.0}}
        """
        return packed(self.param_groups, self.state)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take up a state that ``state_dict()`` gave, onto this optimizer's parameters (the
        same number in each group): hyperparameters and state, so that a resumed run is the
        uninterrupted one, to the bit."""
        self.state, self.param_groups = unpacked(state_dict, self.param_groups)
        self.group = self.param_groups[0]

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines += [f"    {key}: {group[key]}" for key in sorted(group) if key != "params"]
        return "\n".join([*lines, ")"])
