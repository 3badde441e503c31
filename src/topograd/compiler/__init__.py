"""Compiling a scalar graph into Python: ``tg.compile``. ``trace`` runs the function once,
watched; ``source`` writes the forward and backward passes as code from the registry;
``compiled`` replays it and traces again where the trace no longer holds."""

from ..scalar.tracked import TraceError
from .compiled import Compiled, GuardError, compile  # noqa: A004 - as torch.compile

__all__ = ["Compiled", "GuardError", "TraceError", "compile"]
