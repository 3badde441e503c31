"""``has_aux=True``, as ``torch.func``'s transforms take it: the function returns a tuple
``(output, aux)``; the output is transformed, and ``aux`` (a tree of Values, numbers, Tensors
or arrays, of the arguments' family) comes back beside the result as it came out, in the form
the arguments were given, not differentiated. Anything else is refused with PyTorch's words.

>>> import topograd as tg
>>> tg.func.grad(lambda x: (x * x, {"twice": 2 * x}), has_aux=True)(3.0)
(6.0, {'twice': 6.0})
"""

from __future__ import annotations

from typing import Any

from ..autograd.errors import RuntimeTypeError
from ..autograd.kinds import kind_of
from ..scalar.value import is_real
from .arguments import Calling, is_tensor_like
from .trees import flatten

# each transform's name in PyTorch's refusal (grad's is its grad_and_value's, jacrev's vjp's)
CALLED = {
    "grad": "grad_and_value(f)(*args)",
    "vjp": "vjp(f, *primals)",
    "jacrev": "vjp(f, *primals)",
    "jvp": "jvp(f, primals, tangents)",
    "jacfwd": "jvp(f, primals, tangents)",
}


class Aux:
    """What a function gave beside its output: its leaves and its structure."""

    __slots__ = ("leaves", "tree")

    def __init__(self, given: Any) -> None:
        self.leaves, self.tree = flatten(given)
        for leaf in self.leaves:
            if kind_of(leaf) is None and not is_tensor_like(leaf) and not is_real(leaf):
                raise RuntimeTypeError(f"Expected tensors, got unsupported type {type(leaf)}")

    def give(self, calling: Calling) -> Any:
        """The aux in its structure, each leaf as the caller gave the arguments."""
        return self.tree.build([calling.give(leaf) for leaf in self.leaves])


def split(result: Any, has_aux: bool, function: str) -> tuple[Any, Aux | None]:
    """The output to transform and the aux (None without ``has_aux``): with it, the result
    must be a tuple of two, as PyTorch asks."""
    if not has_aux:
        return result, None
    if not isinstance(result, tuple) or len(result) != 2:
        raise RuntimeTypeError(
            f"{CALLED[function]}: output of function f should be a tuple: (output, aux) if "
            "has_aux is True"
        )
    return result[0], Aux(result[1])
