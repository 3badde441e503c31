"""How a transform is called and how it answers: the arguments become the leaves the function
is called on, and results come back in the form the arguments were given.

Two families, never mixed in one call:

- numbers and Values: numbers in, numbers out; Values in, Values out (differentiable again);
- arrays and Tensors: arrays in, arrays out; Tensors in, Tensors out, differentiable again
  where a Tensor given requires a gradient (an outer transform's, or the user's).

A Tensor's derivative by a Tensor has the shape ``output.shape + input.shape`` (as
``torch.func``); a Value's by a Value is one number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..autograd.kinds import kind_of
from ..scalar.value import Value, is_real


class Calling:
    """The family of a call's arguments and how results go back: ``keep`` (nodes with a
    graph, for an outer transform) or plain (numbers; arrays, or Tensors where one was given)."""

    __slots__ = ("keep", "tensors", "wrapped")

    def __init__(self, tensors: bool, keep: bool, wrapped: bool) -> None:
        self.tensors = tensors  # arrays and Tensors
        self.keep = keep  # results are nodes, differentiable again
        self.wrapped = wrapped  # a Tensor was given: plain results are constant Tensors

    def give(self, x: Any) -> Any:
        """A result as the caller gave the arguments."""
        if not self.tensors:
            if self.keep:
                return x if isinstance(x, Value) else Value(float(x))
            return x.data if isinstance(x, Value) else float(x)
        from ..tensor.tensor import Tensor, constant

        if self.keep:
            return x if isinstance(x, Tensor) else constant(array(x))
        data = array(x.data if isinstance(x, Tensor) else x)
        return constant(data) if self.wrapped else data

    def zeros(self, of_shape: tuple[int, ...]) -> Any:
        """A derivative that is zero (the output does not depend on the input): 0.0, or an
        array of zeros of this shape."""
        if not self.tensors:
            return 0.0
        import numpy as np

        return np.zeros(of_shape)


def array(x: Any) -> Any:
    """Numbers as an array: a float64 one for a Python number."""
    import numpy as np

    return np.asarray(x, dtype=np.float64) if isinstance(x, (int, float)) else np.asarray(x)


def is_tensor_like(x: Any) -> bool:
    """A Tensor or a NumPy array (NumPy is not imported to tell)."""
    kind = kind_of(x)
    if kind is not None:
        return kind.name == "tensor"
    return type(x).__module__ == "numpy" and hasattr(x, "shape")


def leaves(primals: Sequence[Any], what: str) -> tuple[list[Any], Calling]:
    """The nodes to call the function on, and how to answer. A node given that is part of a
    graph (a Value; a Tensor that requires a gradient) is used as it is, so that an outer
    transform sees through; anything else becomes a new leaf."""
    if any(is_tensor_like(p) for p in primals):
        return _tensor_leaves(primals, what)
    found, keep = [], False
    for k, p in enumerate(primals):
        if isinstance(p, Value):
            found.append(p)
            keep = True
        elif is_real(p):
            found.append(Value(float(p)))
        else:
            raise TypeError(
                f"{what}[{k}] must be a number, a Value, an array or a Tensor, "
                f"got {type(p).__name__}"
            )
    return found, Calling(False, keep, False)


def _tensor_leaves(primals: Sequence[Any], what: str) -> tuple[list[Any], Calling]:
    from ..tensor.tensor import Tensor

    found, keep, wrapped = [], False, False
    for k, p in enumerate(primals):
        if isinstance(p, Tensor):
            wrapped = True
            if p.requires_grad:
                found.append(p)
                keep = True
                continue
            p = p.data
        elif isinstance(p, Value):
            raise TypeError(f"{what}[{k}] is a Value among arrays or Tensors: give one kind")
        elif not is_tensor_like(p) and not is_real(p):
            raise TypeError(
                f"{what}[{k}] must be an array, a Tensor or a number, got {type(p).__name__}"
            )
        found.append(Tensor(p, requires_grad=True))
    return found, Calling(True, keep, wrapped)


def shape(x: Any) -> tuple[int, ...]:
    """A node's or a result's shape: () for a Value or a number."""
    return tuple(getattr(x, "shape", ()))


def basis(leaf: Any) -> list[Any]:
    """The seeds that pick out each element of ``leaf`` in turn: 1.0 for a Value, the unit
    arrays of its shape for a Tensor."""
    if isinstance(leaf, Value):
        return [1.0]
    import numpy as np

    size = leaf.data.size
    units = np.eye(size, dtype=leaf.dtype).reshape((size, *leaf.shape))
    return list(units)


def rows(entries: Sequence[Any], out: tuple[int, ...], of: tuple[int, ...]) -> Any:
    """A derivative of shape ``out + of`` from the derivatives of each element of the output
    in turn (each of shape ``of``)."""
    if not out:
        return entries[0]
    from ..ops.shapes import reshape, stack

    return reshape(stack(*entries, axis=0), shape=(*out, *of))


def columns(entries: Sequence[Any], out: tuple[int, ...], of: tuple[int, ...]) -> Any:
    """A derivative of shape ``out + of`` from the derivatives by each element of the input
    in turn (each of shape ``out``)."""
    if not of:
        return entries[0]
    from ..ops.shapes import reshape, stack

    return reshape(stack(*entries, axis=len(out)), shape=(*out, *of))


Structure = Callable[[list[Any]], Any]


def outputs(out: Any, function: str) -> tuple[list[Any], Structure | None]:
    """The function's outputs as a flat list (one, or a tuple or list of them), and how to give
    results the same structure (None: one output, given as it is)."""
    if isinstance(out, (tuple, list)):
        kind = type(out)
        return [output(o, function) for o in out], lambda xs: kind(xs)
    return [output(out, function)], None


def shaped(results: list[Any], structure: Structure | None) -> Any:
    """Results in the structure of the outputs."""
    return results[0] if structure is None else structure(results)


def output(out: Any, function: str) -> Any:
    """One output: a Value or a number, a Tensor or an array."""
    if kind_of(out) is not None or is_tensor_like(out):
        return out
    if is_real(out):
        return float(out)
    raise TypeError(
        f"{function}: the function must return Values, numbers, Tensors or arrays "
        f"(or a tuple or list of them), got {out!r}"
    )
