"""The exception classes that are two at once.

PyTorch raises a ``RuntimeError`` where topograd raised a ``ValueError`` (shapes that do not
fit, a bad size or axis, a convolution's bad arguments, a state that does not fit its module):
``RuntimeValueError`` is both, so code written for PyTorch (``except RuntimeError``) and code
written for topograd before (``except ValueError``) both catch it. ``RuntimeTypeError`` is the
same for what topograd refuses as a ``TypeError`` (a function transform given a result of the
wrong kind) and PyTorch as a ``RuntimeError``.

>>> try:
...     raise RuntimeValueError("negative padding is not supported")
... except RuntimeError as error:
...     isinstance(error, ValueError)
True
"""

from __future__ import annotations


class RuntimeValueError(RuntimeError, ValueError):
    """A refusal that PyTorch raises as RuntimeError and topograd raised as ValueError."""


class RuntimeTypeError(RuntimeError, TypeError):
    """A refusal that PyTorch raises as RuntimeError and topograd, of its kind, as TypeError."""


class NotImplementedValueError(NotImplementedError, ValueError):
    """A dtype an op has no kernel for: PyTorch's NotImplementedError ("not implemented for
    'Bool'"), a RuntimeError too (as NotImplementedError is), and the ValueError topograd
    raised before."""


class FeatureError(NotImplementedError, AttributeError):
    """A feature of PyTorch's that topograd does not have (sparse Tensors, complex numbers,
    distributed training), refused naming it: a NotImplementedError, and an AttributeError too,
    so that ``hasattr`` says False where a program asks before it uses."""
