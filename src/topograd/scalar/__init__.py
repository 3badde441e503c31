"""The scalar kind: ``Value``, a float in a graph, and the fused functions of many Values.
Standard library only."""

from .functions import affine, dot, sum_of
from .kind import SCALAR as SCALAR  # the kind registers itself with the engine
from .value import Value

__all__ = ["Value", "affine", "dot", "sum_of"]
