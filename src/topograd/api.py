"""``tg.backward`` and ``tg.grad`` for either data kind: scalar Values or Tensors.

>>> import topograd as tg
>>> t = tg.Tensor([1.0, 2.0], requires_grad=True)
>>> tg.grad((t * t).sum(), [t])
[array([2., 4.])]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import engine, value
from .tensor import Tensor
from .tensor.core import _seed_of


def backward(outputs: Sequence[Any], grads: Sequence[Any]) -> None:
    """Backward from several outputs at once, each seeded with its upstream gradient."""
    outputs, grads = list(outputs), list(grads)
    if not any(isinstance(o, Tensor) for o in outputs):
        value.backward(outputs, grads)
        return
    if not all(isinstance(o, Tensor) for o in outputs):
        raise TypeError("backward() takes outputs of one kind: all Values or all Tensors")
    if len(outputs) != len(grads):
        raise ValueError(f"backward() got {len(outputs)} outputs but {len(grads)} gradients")
    engine.backward(outputs, [_seed_of(o, g) for o, g in zip(outputs, grads)])


def grad(output: Any, inputs: Sequence[Any], *, create_graph: bool = False) -> list[Any]:
    """d output / d input for each input (zeros where it does not depend on it), touching no
    ``.grad``; with ``create_graph=True`` the results can be differentiated again."""
    if not isinstance(output, Tensor):
        return value.grad(output, inputs, create_graph=create_graph)
    inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if not all(isinstance(t, Tensor) for t in inputs):
        raise TypeError("grad() of a Tensor takes Tensors as inputs")
    _seed_of(output, None)  # a scalar output, or the error PyTorch gives
    return engine.grad(output, inputs, create_graph=create_graph)
