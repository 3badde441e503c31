"""Tools around a model, as ``torch.utils``: ``data`` (datasets and their loaders), imported
when first asked for (``from topograd.utils import data``)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from . import data

__all__ = ["data"]


def __getattr__(name: str) -> Any:
    if name == "data":
        return importlib.import_module(f"{__name__}.data")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
