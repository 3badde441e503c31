"""``Function``: a custom op written as PyTorch's ``torch.autograd.Function``, a ``forward``
and a ``backward`` of static methods sharing a context, applied with ``apply``.

The class is the core's, so that ``tg.autograd.Function`` is where a PyTorch user looks for
it; running one is the data kind's: ``apply`` hands the class and its arguments to the kind of
the nodes among them (Tensors: ``tensors/function.py``, where each subclass becomes a custom
entry of the registry).

>>> import topograd as tg
>>> class Cube(tg.autograd.Function):
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

from .kinds import dispatch, kind_of


class FunctionCtx:
    """What ``forward`` leaves for ``backward``: ``save_for_backward`` and ``saved_tensors``,
    ``needs_input_grad`` (one bool per argument of ``apply``), and any attribute set on it.
    ``saved_outputs`` (the kind's): which saved nodes are outputs of ``forward``, by their
    place among the saved and among the outputs, so that under ``create_graph=True``
    gradients flow through them (PyTorch's exp: ``grad * out``)."""

    def __init__(self, needs: tuple[bool, ...]) -> None:
        self.needs_input_grad = needs
        self.saved: tuple[Any, ...] = ()
        self.saved_outputs: dict[int, int] = {}

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep nodes (or None) for ``backward``."""
        for t in tensors:
            if t is not None and kind_of(t) is None:
                raise TypeError(
                    f"save_for_backward() takes Tensors or None, not {type(t).__name__}"
                )
        self.saved = tensors

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        return self.saved


class Function:
    """Subclass it with ``forward(ctx, *args)`` (Tensors in, run without a graph, a Tensor or
    array out, or a tuple of them) and ``backward(ctx, *grads)`` (one gradient per output in,
    one per argument of ``forward`` out, None for a non-Tensor one or one that gets none; a
    gradient in a shape the argument broadcasts to is summed back to it), both static
    methods; call ``apply(*args)``. Under ``create_graph=True``, ``backward`` runs with the
    graph recorded, so written with topograd's ops it gives higher derivatives."""

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any) -> Any:
        raise NotImplementedError("a Function defines forward(ctx, *args)")

    @staticmethod
    def backward(ctx: FunctionCtx, *grads: Any) -> Any:
        raise NotImplementedError("a Function defines backward(ctx, *grads)")

    @classmethod
    def apply(cls, *args: Any) -> Any:
        """Run ``forward`` and record one node whose rule is ``backward``: a Tensor, or a
        tuple of Tensors where ``forward`` returns a tuple (each a piece of that one node)."""
        kind = dispatch(args)
        run = getattr(kind, "apply_function", None)
        if run is None:
            raise TypeError(
                f"{cls.__name__}.apply takes Tensors (for Values, write the op with tg.custom_op)"
            )
        return run(cls, args)
