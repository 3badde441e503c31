"""The notebooks, run in a real Jupyter kernel of this environment (ipykernel, through
nbclient): the lesson (docs/lesson.ipynb, committed with its outputs, whose numbers must come
out the same), and micrograd's demo and trace_graph as micrograd users write them, with only
the imports changed (docs/notebooks/micrograd_demo.ipynb). And what makes a notebook show a
graph: the display protocol's methods."""

from __future__ import annotations

import html
import json
import math
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import micrograd.engine
import micrograd.nn
import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient
from sklearn.datasets import make_moons

import topograd as tg
from topograd.autograd.registry import OPS
from topograd.playground.api import MAX_DRAWN

DOCS = Path(__file__).resolve().parent.parent / "docs"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def executed(path: Path, folder: Path) -> Any:
    """The notebook at ``path``, run top to bottom in a fresh kernel started in ``folder``."""
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    return notebook


def text_of(cell: Any) -> str:
    """What a code cell printed and the plain text of what it displayed."""
    parts = []
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            parts.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            parts.append(output.data.get("text/plain", ""))
    return "".join(parts)


def kinds_of(cell: Any) -> list[tuple[str, ...]]:
    """The kinds of a cell's outputs, a run of one stream as one (the kernel sends what a cell
    prints in as many messages as its flushes: a slow import between two prints splits them)."""
    kinds: list[tuple[str, ...]] = []
    for o in cell.get("outputs", []):
        kind = (o.output_type, o.get("name", ""), *sorted(o.get("data", {})))
        if not (kind[0] == "stream" and kinds and kinds[-1] == kind):
            kinds.append(kind)
    return kinds


@pytest.fixture(scope="module")
def lesson(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    committed = nbformat.read(DOCS / "lesson.ipynb", as_version=4)
    return committed, executed(DOCS / "lesson.ipynb", tmp_path_factory.mktemp("lesson"))


@pytest.mark.xdist_group("lesson-notebook")  # the lesson's kernel runs on one worker
def test_the_lesson_runs_without_an_error(lesson: tuple[Any, Any]) -> None:
    _, fresh = lesson
    errors = [o for c in fresh.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert errors == []


@pytest.mark.xdist_group("lesson-notebook")
def test_the_lesson_gives_the_committed_numbers(lesson: tuple[Any, Any]) -> None:
    committed, fresh = lesson
    code = [(old, new) for old, new in zip(committed.cells, fresh.cells) if old.cell_type == "code"]
    assert len(code) == 12 and all(old.outputs for old, _ in code[1:])  # committed with outputs
    for old, new in code:
        assert kinds_of(new) == kinds_of(old), old.source
        before, after = NUMBER.findall(text_of(old)), NUMBER.findall(text_of(new))
        assert after == before, old.source


@pytest.mark.xdist_group("lesson-notebook")
def test_the_lesson_shows_graphs_and_tables_inline(lesson: tuple[Any, Any]) -> None:
    _, fresh = lesson
    shown = {
        cell.source.split("(", 1)[0].split("\n")[-1]: output.data
        for cell in fresh.cells
        for output in cell.get("outputs", [])
        if output.output_type == "execute_result"
    }
    drawing = shown["tg.draw"]
    assert drawing["image/svg+xml"].startswith("<svg") and 'id="tg-' in drawing["image/svg+xml"]
    assert drawing["text/html"].startswith('<div class="topograd-drawing"')
    table = shown["tg.trace"]
    assert table["text/html"].startswith('<table class="topograd-trace"')
    assert "-&gt; n" in table["text/html"] and table["text/plain"].startswith("step  node")
    printed = "".join(text_of(c) for c in fresh.cells)
    assert "dy/dx = 7.0" in printed and "gradcheck: True" in printed
    assert "agree to 1e-12: True" in printed and "seed: e.grad = 1.0" in printed


@pytest.mark.xdist_group("lesson-notebook")
def test_the_lesson_shows_the_widget_where_it_steps_through(lesson: tuple[Any, Any]) -> None:
    """The cell after the words on tg.widget shows one (a view of an anywidget model, whose
    saved state, with the notebook, is the lesson's graph in the lesson's names)."""
    for notebook in lesson:
        words = next(k for k, c in enumerate(notebook.cells) if "tg.widget(e)" in c.source)
        cell = notebook.cells[words + 1]
        assert cell.cell_type == "code" and "tg.widget(e)" in cell.source
        (shown,) = [o for o in cell.outputs if o.output_type == "execute_result"]
        model = shown.data["application/vnd.jupyter.widget-view+json"]["model_id"]
        assert text_of(cell).startswith("<tg.widget: e = 0.999329, step 0 of ")
        saved = notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]
        data = saved["state"][model]["state"]["data"]
        assert [n["label"] for n in data["nodes"]] == ["a", "b", "d", "c", "n", "e"]
        assert data["grads"]["a"] == pytest.approx(-0.00402285, rel=1e-5)


def micrograd_losses(steps: int) -> list[str]:
    """micrograd's own demo, its first ``steps`` lines as the notebook prints them."""
    np.random.seed(1337)
    random.seed(1337)
    x, y = make_moons(n_samples=100, noise=0.1)
    y = y * 2 - 1
    model = micrograd.nn.MLP(2, [16, 16, 1])
    lines = []
    for k in range(steps):
        inputs = [list(map(micrograd.engine.Value, row)) for row in x]
        scores = list(map(model, inputs))
        losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
        total = sum(losses) * (1.0 / len(losses)) + 1e-4 * sum(p * p for p in model.parameters())
        accuracy = [(yi > 0) == (si.data > 0) for yi, si in zip(y, scores)]
        model.zero_grad()
        total.backward()
        for p in model.parameters():
            p.data -= (1.0 - 0.9 * k / 100) * p.grad
        lines.append(f"step {k} loss {total.data}, accuracy {sum(accuracy) / len(accuracy) * 100}%")
    return lines


@pytest.fixture(scope="module")
def micrograds(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("micrograd")
    return executed(DOCS / "notebooks" / "micrograd_demo.ipynb", folder)


@pytest.mark.xdist_group("micrograd-notebook")  # micrograd's demo runs on one worker
def test_micrograds_demo_runs_with_only_the_imports_changed(micrograds: Any) -> None:
    sources = [c.source for c in micrograds.cells if c.cell_type == "code"]
    assert "from topograd import Value\nfrom topograd.nn import Neuron, Layer, MLP" in sources
    printed = [text_of(c) for c in micrograds.cells if c.cell_type == "code"]
    training = next(text for text in printed if text.startswith("step 0 loss"))
    lines = training.splitlines()
    assert len(lines) == 100 and lines[-1].endswith("accuracy 100.0%")
    # micrograd's own numbers, to its rounding: its _prev is a set, so the order in which it
    # adds gradients (and their last bits) changes from run to run with the nodes' addresses
    for ours, theirs in zip(lines[:3], micrograd_losses(3)):
        assert ours.split(" loss ")[0] == theirs.split(" loss ")[0]
        assert ours.rsplit(", ", 1)[1] == theirs.rsplit(", ", 1)[1]  # the accuracy
        loss, reference = float(ours.split()[3][:-1]), float(theirs.split()[3][:-1])
        assert loss == pytest.approx(reference, rel=1e-13)
    assert "number of parameters 337" in "".join(printed)


@pytest.mark.xdist_group("micrograd-notebook")
@pytest.mark.skipif(
    shutil.which("dot") is None, reason="Graphviz's dot is not installed (apt-get install graphviz)"
)
def test_micrograds_trace_graph_draws_with_only_the_imports_changed(micrograds: Any) -> None:
    drawn = [
        output.data["image/svg+xml"]
        for cell in micrograds.cells
        for output in cell.get("outputs", [])
        if "image/svg+xml" in output.get("data", {})
    ]
    assert len(drawn) == 2
    simple, neuron = drawn  # (x * 2 + 1).relu(): 3 ops; the neuron: one fused node
    ops = re.compile(r">(\+|\*|ReLU|neuron)</text>")  # micrograd's spellings, as it draws them
    assert sorted(ops.findall(simple)) == ["*", "+", "ReLU"]
    assert ops.findall(neuron) == ["neuron"]
    records = re.compile(r">data (?:&#45;)?\d+\.\d{4}<")  # (Graphviz writes - as &#45;)
    assert len(records.findall(simple)) == 6 == len(records.findall(neuron))  # constants too
    assert ">data 1.0000</text>" in simple and ">grad 2.0000<" in simple  # x: relu(2x + 1)


def test_micrograd_names_are_the_graph_as_topograd_keeps_it() -> None:
    x = tg.Value(3.0)
    y = x * x + 2.0
    assert (y._op, y.op) == ("+", "add") and x._op == x.op == ""  # micrograd's, the registry's
    assert x._prev == set() and {v.op for v in y._prev} == {"mul", ""}
    (square,) = (v for v in y._prev if v.op == "mul")
    assert square._prev == {x}  # a set: x * x has one operand twice
    constant = next(v for v in y._prev if not v.op)
    assert constant.data == 2.0  # a number operand shows as a constant


# Expressions micrograd and the lecture's Value (Karpathy's "building micrograd": tanh, exp)
# both write; micrograd 0.1.0's own _op for those it has, the lecture's strings for the others.
SPELLED = [
    ("x + y", lambda x, y: x + y, None),
    ("x * y", lambda x, y: x * y, None),
    ("x ** 2", lambda x, y: x**2, None),
    ("x ** -1", lambda x, y: x**-1, None),
    ("x ** 0.5", lambda x, y: x**0.5, None),
    ("x ** 2.0", lambda x, y: x**2.0, None),
    ("relu(x)", lambda x, y: x.relu(), None),
    ("tanh(x)", lambda x, y: x.tanh(), "tanh"),
    ("exp(x)", lambda x, y: x.exp(), "exp"),
]


@pytest.mark.parametrize(("what", "build", "lecture"), SPELLED, ids=[r[0] for r in SPELLED])
def test_op_is_spelt_as_micrograd_and_the_lecture_spell_it(
    what: str, build: Any, lecture: str | None
) -> None:
    ours = build(tg.Value(2.0), tg.Value(3.0))
    if lecture is None:
        theirs = build(micrograd.engine.Value(2.0), micrograd.engine.Value(3.0))._op
    else:
        theirs = lecture
    assert ours._op == theirs
    assert ours.op in OPS  # .op keeps the registry's name ("add", "pow")


def test_an_op_micrograd_builds_of_others_is_spelt_as_topograds_drawings() -> None:
    x = tg.Value(2.0)
    drawn = {e._op for e in (x - 1, x / 3, -x, x**x, x.log())}
    assert drawn == {"-", "/", "**", "log"}


def test_a_drawing_and_a_trace_show_themselves() -> None:
    x = tg.Value(3.0, label="<x>")
    y = x * x + x
    drawing = tg.draw(y)
    assert drawing._repr_svg_() == tg.to_svg(y) == drawing.svg
    shown = drawing._repr_html_()
    assert shown.startswith(
        f'<div class="topograd-drawing" style="overflow:auto">{drawing.svg}</div>'
    )
    assert "Fill: the gradient" in shown  # the legend: what a box's colour and shape say
    assert repr(drawing).startswith("<topograd drawing, ")
    steps = tg.trace(y)
    table = steps._repr_html_()
    assert table.count("<tr>") == len(steps.rows()) and "&lt;x&gt;" in table and "<x>" not in table
    cells = re.findall(r"<t[dh] [^>]*>(.*?)</t[dh]>", table)
    assert cells == [html.escape(cell) for row in steps.rows() for cell in row]
    with pytest.raises(TypeError, match="takes a Value"):
        tg.draw(3.0)  # type: ignore[arg-type]


def test_drawing_needs_no_jupyter() -> None:
    code = (
        "import sys\n"
        "for name in ('IPython', 'ipykernel', 'anywidget', 'ipywidgets', 'nbformat'):\n"
        "    sys.modules[name] = None\n"
        "import topograd as tg\n"
        "x = tg.Value(2.0)\n"
        "print(tg.draw(x * x)._repr_svg_()[:4], tg.trace(x * x)._repr_html_()[:6])\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.split() == ["<svg", "<table"], result.stderr


def test_the_widget_runs_the_playgrounds_own_files() -> None:
    from importlib import resources

    from topograd.notebook.stepper import PARTS, Stepper

    static = resources.files("topograd.playground").joinpath("static")
    module = Stepper._esm
    for name in ("format.js", *PARTS):
        assert static.joinpath(name).read_text() in module  # one source, not a copy
    assert module.rstrip().endswith("export default { render };")
    assert static.joinpath("graph.css").read_text() in Stepper._css


def test_the_widget_holds_the_playgrounds_answer_and_touches_no_grad() -> None:
    a, b = tg.Value(2.0, label="a"), tg.Value(-3.0, label="b")
    e = (a * b + 10.0).tanh()
    e.label = "e"
    w = tg.widget(e, step=2)
    assert w.step == 2 and a.grad == b.grad == 0.0
    data = w.data
    assert (data["expr"], data["names"], data["values"]) == ("e", ["a", "b"], {"a": 2.0, "b": -3.0})
    (ga, gb) = tg.grad(e, [a, b])
    assert data["grads"] == {"a": ga, "b": gb}
    assert data["checks"]["a"] == pytest.approx(ga, rel=1e-6)
    assert data["svg"] == tg.to_svg(e) and data["steps"][0]["node"] == data["nodes"][-1]["id"]


def test_the_widgets_data_is_json_even_at_infinity() -> None:
    x = tg.Value(math.inf, label="x")
    w = tg.widget(x * 2.0)
    assert w.data["values"] == {"x": "inf"} and w.data["value"] == "inf"
    json.dumps(w.data, allow_nan=False)  # what the kernel sends the page: no bare Infinity


def test_the_widget_refuses_what_it_cannot_show() -> None:
    with pytest.raises(TypeError, match="widget\\(\\) takes a Value"):
        tg.widget(3.0)  # type: ignore[arg-type]
    big = tg.sum([tg.Value(float(k)) * tg.Value(1.0) for k in range(100)])
    with pytest.raises(ValueError, match=f"the stepper shows at most {MAX_DRAWN}"):
        tg.widget(big)
    code = (
        "import sys; sys.modules['anywidget'] = None\n"
        "import topograd as tg\n"
        "try:\n    tg.widget(tg.Value(1.0))\n"
        "except ImportError as error:\n    print(error)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "pip install 'topograd[notebook]'" in result.stdout, result.stderr


def test_grading_a_class_defined_in_a_notebook(tmp_path: Path) -> None:
    """tg.grade forks the kernel's process: the report comes back, the kernel lives on."""
    engine = (Path(__file__).parent / "engines" / "lesson_engine.py").read_text()
    cells = [
        engine,
        "import topograd as tg\nreport = tg.grade(Value)\nprint(report.summary())",
        'print("still here", 1 + 1)',
    ]
    path = tmp_path / "grade.ipynb"
    nbformat.write(
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells]), path
    )
    notebook = executed(path, tmp_path)
    printed = [text_of(c) for c in notebook.cells]
    assert re.fullmatch(
        r"(\d+) objectives: \1 passed; every required objective passes.\n", printed[1]
    )
    assert printed[2] == "still here 2\n"
