"""What PyTorch has and topograd has not, refused where a program first uses it, with a
message naming the feature: sparse Tensors (``tg.sparse``, ``tg.sparse_coo_tensor``,
``Tensor.to_sparse()``), complex numbers (``tg.view_as_complex``; the complex dtypes are in
``dtypes.py``; distributed training is ``topograd.distributed``'s). The refusal is a
``FeatureError``: a NotImplementedError, and an AttributeError too, so that ``hasattr`` says
False where a program asks before it uses.

>>> import topograd as tg
>>> try:
...     tg.sparse.mm
... except NotImplementedError as error:
...     print(error)
tg.sparse.mm: topograd has no sparse Tensors (its Tensors are dense NumPy arrays)
>>> hasattr(tg.sparse, "mm"), tg.zeros(2).is_sparse
(False, False)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from ..autograd.errors import FeatureError

NO_SPARSE = "topograd has no sparse Tensors (its Tensors are dense NumPy arrays)"
NO_COMPLEX = "topograd has no complex numbers"


class Absent:
    """A namespace of PyTorch's that topograd does not have (``tg.sparse``): every name in it
    is refused, naming the feature."""

    def __init__(self, name: str, why: str) -> None:
        self.name, self.why = name, why

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # (Python's own probes: copy, inspect, pickle)
            raise AttributeError(attribute)
        raise FeatureError(f"{self.name}.{attribute}: {self.why}")

    def __repr__(self) -> str:
        return f"<{self.name}: {self.why}>"


def refused(name: str, why: str) -> Callable[..., NoReturn]:
    """A function of PyTorch's that topograd refuses, naming the feature."""

    def refuse(*args: Any, **kwargs: Any) -> NoReturn:
        raise FeatureError(f"{name}: {why}")

    refuse.__name__ = refuse.__qualname__ = name.rsplit(".", 1)[-1]
    refuse.__doc__ = f"Refused: {why}."
    return refuse


sparse = Absent("tg.sparse", NO_SPARSE)
sparse_coo_tensor = refused("tg.sparse_coo_tensor", NO_SPARSE)
sparse_csr_tensor = refused("tg.sparse_csr_tensor", NO_SPARSE)
view_as_complex = refused("tg.view_as_complex", NO_COMPLEX)
view_as_real = refused("tg.view_as_real", NO_COMPLEX)


class Refusals:
    """The methods of a Tensor for what it is not (a mixin): sparse, complex."""

    __slots__ = ()

    @property
    def is_sparse(self) -> bool:
        """False: a Tensor is dense (PyTorch's ``is_sparse``)."""
        return False

    def is_complex(self) -> bool:
        """False: topograd has no complex numbers."""
        return False

    def to_sparse(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise FeatureError(f"Tensor.to_sparse: {NO_SPARSE}")

    def to_sparse_csr(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise FeatureError(f"Tensor.to_sparse_csr: {NO_SPARSE}")

    def to_dense(self) -> Any:
        """Itself: a Tensor is dense already (PyTorch's answer for a dense one)."""
        return self
