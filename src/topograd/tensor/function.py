"""``Function``: a custom op on Tensors written as PyTorch's ``torch.autograd.Function``, a
``forward`` and a ``backward`` of static methods sharing a context, applied with ``apply``.

Each subclass becomes a custom entry of the registry (named after the class) on its first use,
so ``gradcheck`` names it when its backward is wrong, and anomaly mode, ``no_grad`` and the
drawings treat it as any op.

>>> import topograd as tg
>>> class Cube(tg.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x * x * x
...     @staticmethod
...     def backward(ctx, grad):
...         (x,) = ctx.saved_tensors
...         return grad * 3 * x * x
>>> x = tg.Tensor([1.0, 2.0], requires_grad=True)
>>> Cube.apply(x).sum().backward()
>>> x.grad.tolist()
[3.0, 12.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.modes import no_grad
from ..autograd.registry import ANY, VARIADIC, Op, add
from .tensor import Tensor, make

_ENTRIES: dict[type, Op] = {}


class FunctionCtx:
    """What ``forward`` leaves for ``backward``: ``save_for_backward`` and ``saved_tensors``,
    ``needs_input_grad`` (one bool per argument of ``apply``), and any attribute set on it."""

    def __init__(self, needs: tuple[bool, ...]) -> None:
        self.needs_input_grad = needs
        self.saved: tuple[Any, ...] = ()

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep Tensors (or None) for ``backward``."""
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward() takes Tensors or None, not {type(t).__name__}"
                )
        self.saved = tensors

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        return self.saved


class Function:
    """Subclass it with ``forward(ctx, *args)`` (Tensors in, run without a graph, a Tensor or
    array out) and ``backward(ctx, grad)`` (one gradient per argument of ``forward``, None for
    a non-Tensor one or one that gets none), both static methods; call ``apply(*args)``.
    Under ``create_graph=True``, ``backward`` runs with the graph recorded, so written with
    topograd's ops it gives higher derivatives."""

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any) -> Any:
        raise NotImplementedError("a Function defines forward(ctx, *args)")

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Any) -> Any:
        raise NotImplementedError("a Function defines backward(ctx, grad)")

    @classmethod
    def apply(cls, *args: Any) -> Tensor:
        """Run ``forward`` and record one node whose rule is ``backward``."""
        needs = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx = FunctionCtx(needs)
        with no_grad():
            out = cls.forward(ctx, *args)
        data = out.data if isinstance(out, Tensor) else np.asarray(out)
        if data.dtype.kind != "f":
            raise TypeError(f"{cls.__name__}.forward must return floats, got {data.dtype}")
        positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
        inputs = [args[i] for i in positions]
        others = tuple(None if i in positions else a for i, a in enumerate(args))
        params = {"ctx": ctx, "positions": positions, "others": others}
        return make(data, _entry(cls), inputs, params)


def _entry(cls: type[Function]) -> Op:
    """The registry's entry for a Function subclass, made on its first use."""
    op = _ENTRIES.get(cls)
    if op is None:
        op = Op(
            cls.__name__,
            _Backward(cls),
            VARIADIC,
            f"{cls.__name__}.forward, defined by the user",
            f"{cls.__name__}.backward",
            None,
            _Forward(cls),
            domain=(ANY,),
            custom=True,
        )
        add(op)
        _ENTRIES[cls] = op
    return op


class _Forward:
    """A Function's ``forward`` on arrays, the other arguments as ``apply`` was given them:
    what gradcheck runs to find a faulty ``backward``."""

    def __init__(self, cls: type[Function]) -> None:
        self.cls = cls

    def __call__(
        self, *arrays: Any, ctx: FunctionCtx, positions: tuple[int, ...], others: tuple[Any, ...]
    ) -> Any:
        args = list(others)
        for i, array in zip(positions, arrays, strict=True):
            args[i] = Tensor(array)
        with no_grad():
            out = self.cls.forward(FunctionCtx(ctx.needs_input_grad), *args)
        return out.data if isinstance(out, Tensor) else np.asarray(out)


class _Backward:
    """A Function's ``backward`` as a rule: its gradients for the Tensor arguments."""

    def __init__(self, cls: type[Function]) -> None:
        self.cls = cls

    def __call__(
        self,
        grad: Any,
        *args: Any,
        ctx: FunctionCtx,
        positions: tuple[int, ...],
        others: tuple[Any, ...],
    ) -> tuple[Any, ...]:
        recording = isinstance(grad, Tensor)  # create_graph: the rule sees nodes
        if recording:
            grads = self.cls.backward(ctx, grad)
        else:
            with no_grad():
                grads = self.cls.backward(ctx, Tensor(grad))
        if not isinstance(grads, (tuple, list)):
            grads = (grads,)
        count = len(ctx.needs_input_grad)
        if len(grads) != count:
            raise TypeError(
                f"{self.cls.__name__}.backward returned {len(grads)} gradient(s) for "
                f"{count} argument(s) of forward"
            )
        picked = [grads[i] for i in positions]
        if recording:
            return tuple(picked)
        return tuple(g.data if isinstance(g, Tensor) else g for g in picked)
