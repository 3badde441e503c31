"""topograd in Jupyter: the stepper widget, ``tg.widget(output)``.

(A drawing and a trace show themselves in a notebook without this package: ``tg.draw`` and
``tg.trace`` return objects with IPython's display methods.) The widget needs the optional
extra ``pip install 'topograd[notebook]'`` (anywidget), imported only when a widget is made.
"""

from __future__ import annotations

from typing import Any

from ..scalar.value import Value

__all__ = ["widget"]


def widget(output: Value, step: int = 0) -> Any:
    """The playground's graph and step-through of ``output``'s backward pass, in a notebook:
    Step, Back and Play, each edge's label local derivative × upstream gradient, the running
    totals where paths meet, the forward pass too. ``step`` is the step shown, which Python
    and the page keep in step (``w = tg.widget(e); w.step = 3``). The labelled leaves are the
    inputs; no ``.grad`` is touched."""
    if not isinstance(output, Value):
        raise TypeError(f"widget() takes a Value, got {type(output).__name__}")
    try:
        from .stepper import Stepper
    except ImportError as error:  # anywidget is an optional extra
        raise ImportError(
            f"tg.widget needs anywidget ({error}): pip install 'topograd[notebook]'"
        ) from error
    return Stepper(output, step)
