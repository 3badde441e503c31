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

from collections.abc import Sequence
from typing import Any

from ..autograd.kinds import kind_of
from ..autograd.modes import recording
from ..scalar.value import Value, is_real
from .trees import Tree, flatten


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
        from ..tensors.tensor import Tensor, constant

        if self.keep:
            return x if isinstance(x, Tensor) else constant(array(x))
        data = array(x.array if isinstance(x, Tensor) else x)
        return constant(data) if self.wrapped else data

    def zeros(self, of_shape: tuple[int, ...], like: Any) -> Any:
        """A derivative that is zero (the output does not depend on the input): 0.0, or an
        array of zeros of this shape, of the dtype of ``like`` (a node or an array)."""
        if not self.tensors:
            return 0.0
        import numpy as np

        return np.zeros(of_shape, getattr(like, "dtype", np.float64))


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


def prepare(primals: Sequence[Any], what: str) -> tuple[list[Any], Calling, list[Tree]]:
    """The leaves to call the function on (every leaf of every argument's tree, in order), how
    to answer, and each argument's tree."""
    atoms: list[Any] = []
    names: list[str] = []
    trees = []
    for k, primal in enumerate(primals):
        found, tree = flatten(primal)
        atoms += found
        names += [f"{what}[{k}]"] * len(found)
        trees.append(tree)
    return *_leaves(atoms, names), trees


def spans(trees: Sequence[Tree]) -> list[range]:
    """Where each argument's leaves lie among all of them."""
    found, start = [], 0
    for tree in trees:
        found.append(range(start, start + tree.size))
        start += tree.size
    return found


def rebuilt(flat: Sequence[Any], trees: Sequence[Tree]) -> list[Any]:
    """Each argument's tree, built around its share of ``flat``."""
    return [tree.build([flat[i] for i in span]) for tree, span in zip(trees, spans(trees))]


def _leaves(atoms: Sequence[Any], names: Sequence[str]) -> tuple[list[Any], Calling]:
    """The nodes to call the function on, one per argument's leaf, never one for two. A node
    given that is part of a graph (a Value; a Tensor that requires a gradient) gets a new node
    that depends on it (``p * 1.0``: the same numbers, -0.0 and nan kept), so that an outer
    transform sees through, and the same node given twice, or used inside the function as
    well, counts as the variables it is given as (as in PyTorch); anything else becomes a new
    leaf."""
    if any(is_tensor_like(p) for p in atoms):
        return _tensor_leaves(atoms, names)
    found, keep = [], False
    for p, name in zip(atoms, names):
        if isinstance(p, Value):
            with recording(True):
                found.append(p * 1.0)
            keep = True
        elif is_real(p):
            found.append(Value(float(p)))
        else:
            raise TypeError(
                f"{name} must be a number, a Value, an array or a Tensor (or a tuple, list or "
                f"dict of them), got {type(p).__name__}"
            )
    return found, Calling(False, keep, False)


def _tensor_leaves(atoms: Sequence[Any], names: Sequence[str]) -> tuple[list[Any], Calling]:
    from ..tensors.tensor import Tensor

    found, keep, wrapped = [], False, False
    for p, name in zip(atoms, names):
        if isinstance(p, Tensor):
            wrapped = True
            if p.requires_grad:
                with recording(True):
                    found.append(p * 1.0)
                keep = True
                continue
            p = p.array
        elif isinstance(p, Value):
            raise TypeError(f"{name} is a Value among arrays or Tensors: give one kind")
        elif not is_tensor_like(p) and not is_real(p):
            raise TypeError(
                f"{name} must be an array, a Tensor or a number, got {type(p).__name__}"
            )
        real(p, name)
        found.append(Tensor(p, requires_grad=True))
    return found, Calling(True, keep, wrapped)


def real(x: Any, name: str, floating: bool = False) -> None:
    """Refuse, naming it, an array that does not hold real numbers (or, where ``floating``,
    floating-point ones: a tangent, as PyTorch's)."""
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        return
    kinds = "f" if floating else "iuf"
    if dtype.kind not in kinds:
        what = "floating-point" if floating else "real"
        raise TypeError(f"{name} must hold {what} numbers, got an array of {dtype}")


def shape(x: Any) -> tuple[int, ...]:
    """A node's or a result's shape: () for a Value or a number."""
    return tuple(getattr(x, "shape", ()))


def outputs(out: Any, function: str) -> tuple[list[Any], Tree]:
    """The function's outputs: the leaves of its result's tree, and that tree."""
    found, tree = flatten(out)
    return [output(o, function) for o in found], tree


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
