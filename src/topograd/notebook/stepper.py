"""The stepper widget: an anywidget whose page is the playground's own JavaScript (format.js,
graph.js, nodes.js, stepper.js, labels.js, travel.js, zoom.js, with widget.js to start it),
read from the playground's files and composed into one module, so the page and the notebook
run one source. Its data is what the playground's API answers for the graph; its step is
shared with Python.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import anywidget
import traitlets

from ..playground.api import value_reply
from ..scalar.value import Value

# the page's files the widget runs, in the page's order, inside render()
PARTS = ("graph.js", "nodes.js", "stepper.js", "labels.js", "travel.js", "zoom.js", "widget.js")


def static(name: str) -> str:
    return resources.files("topograd.playground").joinpath("static", name).read_text()


def module() -> str:
    """The widget's ES module: format.js, then render({model, el}) holding the page's files,
    with $ (an element of this widget by id) and state its own. Each view's ids carry a
    prefix counted on the page (a module may be loaded once per widget: the count is the
    page's, not the module's), so several widgets in one notebook share none."""
    return "\n".join(
        [
            static("format.js"),
            f"const TEMPLATE = {json.dumps(static('widget.html'))};",
            "const SHOWN = Symbol.for('topograd.widgets');  // views on this page, for ids",
            "function render({ model, el }) {",
            "const counted = (globalThis[SHOWN] = (globalThis[SHOWN] ?? 0) + 1);",
            "const state = { data: null, step: 0, timer: null, scope: `tg${counted}-` };",
            "el.innerHTML = TEMPLATE;",
            'const $ = (id) => el.querySelector(`[id="${CSS.escape(state.scope + id)}"]`);',
            *(static(name) for name in PARTS),
            "return start();",
            "}",
            "export default { render };",
        ]
    )


class Stepper(anywidget.AnyWidget):
    """``tg.widget(output)``: see ``topograd.notebook.widget``."""

    _esm = module()
    _css = static("graph.css") + static("widget.css")
    data = traitlets.Dict().tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)

    def __init__(self, output: Value, step: int = 0, **kwargs: Any) -> None:
        super().__init__(data=value_reply(output), step=step, **kwargs)

    def __repr__(self) -> str:
        """What a notebook without the widget's frontend shows: the same every time (not an
        address), so that a committed notebook's outputs can be compared."""
        value = self.data["value"]
        shown = f"{value:.6g}" if isinstance(value, float) else str(value)
        steps = len(self.data["steps"])
        return f"<tg.widget: {self.data['output']} = {shown}, step {self.step} of {steps}>"
