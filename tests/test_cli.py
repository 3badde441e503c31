"""The command line, driven as a user drives it: in a subprocess, exit codes and messages."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from topograd.autograd.registry import OPS
from topograd.expr import MAX_LENGTH


def topograd(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "topograd", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def test_demo_tells_the_lesson_and_draws_the_graph(tmp_path: Path) -> None:
    result = topograd("demo", "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    forward, rest = out.split("2. Backward pass order")
    for label, value in [("a", "2"), ("b", "-3"), ("c", "10"), ("d = a*b", "-6")]:
        assert re.search(rf"^   {re.escape(label)}\s+{value}\s", forward, re.M), label
    assert "0.99932929973906703" in forward
    assert "e -> n -> c -> d -> b -> a" in rest
    n = 2 * -3 + 100  # the saturation experiment: tanh's input is n = a*b + c
    assert f"tanh'({n}) = 1 - tanh({n})² rounds to 0" in rest
    steps, checks = rest.split("4. Every gradient")
    assert re.search(r"^\s+4\s+d = a\*b\s+\*\s+0.00134095\s+-> a\s+-3", steps, re.M)
    for label in ["e = tanh(n)", "n = d + c", "c", "d = a*b", "b", "a"]:
        row = re.search(rf"^   de/d {re.escape(label)}  +(.*)$", checks, re.M)
        assert row is not None, label
        numbers = [float(cell) for cell in row.group(1).split()]
        backprop, numeric, gap = numbers[:3]
        assert abs(backprop - numeric) <= 1e-8 * max(1.0, abs(numeric))
        assert gap == pytest.approx(abs(backprop - numeric), rel=0.1, abs=1e-13)
        if len(numbers) == 4:  # PyTorch's, where torch is installed
            assert numbers[3] == pytest.approx(backprop, rel=1e-12)
    assert "c = 0     de/dc = 2.46e-05, was 0.00134" in out
    assert "a = 0     de/db = 0:" in out
    assert "c = 100   e = 1.0; de/da = 0, de/db = 0, de/dc = 0" in out
    svg = tmp_path / "out" / "lesson.svg"
    assert str(svg) in out
    assert len(ET.parse(svg).getroot().findall(".//{http://www.w3.org/2000/svg}rect")) == 7


def test_grad_prints_value_and_checked_gradients() -> None:
    result = topograd("grad", "tanh(a*b + c)", "a=2", "b=-3", "c=10")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "tanh(a*b + c)  at  a = 2, b = -3, c = 10"
    assert lines[1] == "value  0.999329299739067"
    grads = {cells[0]: [float(c) for c in cells[1:]] for cells in map(str.split, lines[4:7])}
    assert grads["a"][0] == -0.0040228520490775965
    assert grads["b"][0] == 0.002681901366051731
    for backprop, numeric, gap in grads.values():
        assert abs(backprop - numeric) < 1e-9
        assert gap == pytest.approx(abs(backprop - numeric), rel=0.1)


def test_grad_json_and_trace() -> None:
    result = topograd("grad", "x*x + x", "x=3", "--json", "--trace")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["expression"] == "x*x + x"
    assert report["value"] == 12.0
    assert report["grads"] == {"x": 7.0}
    assert report["central_differences"]["x"] == pytest.approx(7.0, rel=1e-9)
    into_x = [
        e["contribution"]
        for s in report["trace"]["steps"]
        for e in s["edges"]
        if e["parent"] == "n0"
    ]
    assert into_x == [1.0, 3.0, 3.0]


def test_grad_json_writes_infinities_as_strings() -> None:
    result = topograd("grad", "log(x)", "x=0", "--json")
    report = json.loads(result.stdout)
    assert (report["value"], report["grads"]["x"]) == ("-inf", "inf")


def test_grad_trace_table_shows_three_contributions_to_x() -> None:
    result = topograd("grad", "x*x + x", "x=3", "--trace")
    table = result.stdout.split("step by step:")[1]
    assert len(re.findall(r"-> x\s", table)) == 3
    assert re.search(r"-> x\s+3\s+3\s+7$", table, re.M)


def test_grad_draws_svg_and_dot_and_says_so(tmp_path: Path) -> None:
    svg, dot = tmp_path / "g.svg", tmp_path / "g.dot"
    result = topograd("grad", "x*x + x", "x=3", "--svg", str(svg), "--dot", str(dot))
    assert result.returncode == 0, result.stderr
    assert ET.parse(svg).getroot().tag == "{http://www.w3.org/2000/svg}svg"
    assert dot.read_text().count('"n0" -> "n1-op"') == 2
    # as train says "model saved to m.json": each file written, last, by its path
    assert result.stdout.splitlines()[-2:] == [
        f"the graph drawn as SVG: {svg}",
        f"the graph as Graphviz DOT: {dot}",
    ]
    only_svg = topograd("grad", "x*x", "x=3", "--svg", str(svg), "--json")
    assert json.loads(only_svg.stdout)["files"] == {"svg": str(svg)}
    assert "files" not in json.loads(topograd("grad", "x*x", "x=3", "--json").stdout)


BAD_INPUT = [
    (["grad", "a.b", "a=1"], "attributes"),
    (["grad", "foo(x)", "x=1"], "unknown function 'foo'"),
    (["grad", "tanh(x, y)", "x=1", "y=2"], "exactly one argument"),
    (["grad", "tanh(x=1)"], "keyword"),
    (["grad", "(x", "x=1"], "syntax error"),
    (["grad", "x +", "x=1"], "syntax error"),
    (["grad", "x", "x"], "'x' is not NAME=VALUE"),
    (["grad", "x", "=1"], "not NAME=VALUE"),
    (["grad", "x", "x=abc"], "is not a number"),
    (["grad", "x", "x="], "is not a number"),
    (["grad", "x", "x=1", "x=2"], "given twice"),
    (["grad", "x + y", "x=1"], "no value given for y"),
    (["grad", "x", "x=1", "z=2"], "z not in the expression"),
    (["grad", "__import__('os')", ""], "unknown function"),
    (["grad", "x" * (MAX_LENGTH + 1), "x=1"], f"at most {MAX_LENGTH}"),
    (["grad", "9" * 300 + "**x", "x=1"], ""),  # not an error: a huge literal is inf
    (["grad"], "required"),
    (["grad", "x", "x=1", "--svg", "/no/such/dir/g.svg"], "cannot write"),
    (["frobnicate"], "invalid choice"),
    (["train", "--plot", "/no/such/dir/x.png"], "no folder"),
    (["train", "--save", "/no/such/dir/x.json"], "no folder"),
    (["train", "--plot", "x.unknownext"], "--plot must end in"),
    (["train", "--save", "x.pickle"], "--save must end in"),
    (["train", "--points", "1"], "argument --points: must be from 8"),
    (["train", "--dataset", "spiral", "--points", "2", "--steps", "1"], "from 8 to 10000"),
    (["train", "--dataset", "digits", "--seed", "-1"], "must be 0 or more"),
    (["train", "--dataset", "digits", "--engine", "scalar"], "tensor engine"),
    (["train", "--dataset", "digits", "--compare"], "--compare"),
    (["train", "--model", "cnn"], "--model cnn trains on the digits' images"),
    (["train", "--dataset", "digits", "--model", "resnet"], "invalid choice: 'resnet'"),
    (["grad", "x\udcff", "x=1"], "not text"),
    (["grad", "1if 1else 2"], "the number 1 runs into if"),  # not a SyntaxWarning first
    (["grad", "\U0001d465*2", "\U0001d465=3"], "\U0001d465 would be read as x"),
    (["grad", "é*é + f(é)", "é=1"], "(at column 7)"),
    (["check", "--points", "0"], "at least 1"),
]


@pytest.mark.parametrize(("args", "message"), BAD_INPUT)
def test_bad_input_is_one_line_on_stderr_and_exit_2(args: list[str], message: str) -> None:
    result = topograd(*args)
    if not message:
        assert result.returncode == 0, result.stderr
        return
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert message in lines[0]
    assert "Traceback" not in result.stderr


def test_demo_into_a_file_instead_of_a_folder_is_one_line(tmp_path: Path) -> None:
    occupied = tmp_path / "taken"
    occupied.write_text("a file, not a folder")
    result = topograd("demo", "--out", str(occupied))
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: cannot write into {occupied} (--out)")
    assert len(result.stderr.splitlines()) == 1


def test_check_passes_every_builtin_rule() -> None:
    result = topograd("check", "--points", "100")
    assert result.returncode == 0, result.stdout
    built_in = [op for op in OPS.values() if not op.custom]
    assert f"{sum(len(op.kinds) for op in built_in)} rules checked" in result.stdout
    assert "all pass" in result.stdout


def test_help_names_every_command() -> None:
    result = topograd("--help")
    assert result.returncode == 0
    for command in ("demo", "grad", "check"):
        assert re.search(rf"^\s+{command}\s", result.stdout, re.M)


# Flags out of their documented bounds: one error line naming the flag, exit 2, no traceback.
BAD_FLAGS = [
    (["train", "--steps", "100000000000000000000"], "--steps"),
    (["train", "--steps", "0"], "--steps"),
    (["train", "--steps", "x"], "--steps"),
    (["train", "--points", "1"], "--points"),
    (["train", "--points", "10000000"], "--points"),
    (["train", "--dataset", "spiral", "--steps", "2", "--points", "2"], "--points"),
    (["modes", "--sizes", "0,10"], "--sizes"),
    (["modes", "--sizes", "ten"], "--sizes"),
]


@pytest.mark.parametrize(("args", "flag"), BAD_FLAGS, ids=[" ".join(a) for a, _ in BAD_FLAGS])
def test_a_flag_out_of_bounds_is_one_error_line_naming_it(args: list[str], flag: str) -> None:
    ran = topograd(*args)
    assert ran.returncode == 2 and ran.stdout == ""
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: argument " + flag), ran.stderr


def test_grad_code_prints_the_compiled_backward_pass() -> None:
    table = topograd("grad", "x*x + x", "x=3", "--code")
    assert table.returncode == 0, table.stderr
    code = table.stdout.split("one line per rule:\n\n")[1]
    assert code.startswith("def f(args):\n    x = args[0].data\n")
    assert code.count("dx += dv1 * x  # mul") == 1 and "dx = dv2\n" in code  # paths meet: +=
    compile(code, "<printed>", "exec")  # the printed text is Python (parsed, not run)
    report = json.loads(
        topograd("grad", "tanh(a*b + c)", "a=2", "b=-3", "c=10", "--code", "--json").stdout
    )
    assert "dv5 = 1.0" in report["code"] and "# tanh: 1 - tanh²(x)" in report["code"]


def test_grad_forward_shows_one_pass_per_input_ending_in_the_gradient() -> None:
    result = topograd("grad", "tanh(a*b + c)", "a=2", "b=-3", "c=10", "--forward", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    forward = report["forward"]
    assert forward["nodes"] == ["a", "b", "d", "c", "n", "e"]  # the lesson's names
    for name in "abc":
        column = forward["tangents"][name]
        assert column[forward["nodes"].index(name)] == 1.0  # the seed, d(name)/d(name)
        assert column[-1] == report["grads"][name]  # the output's row: backprop's gradient
    assert forward["tangents"]["a"][2] == -3.0  # dd/da = b, made from a's and b's tangents
    table = topograd("grad", "x*x + x", "x=3", "--forward")
    lines = table.stdout.splitlines()
    assert "Forward mode, step by step: 1 pass, one per input" in table.stdout
    assert lines[-3:] == [
        "   1  x     input      3     1",
        "   2  d     *          9     6",
        "   3  e     +         12     7",
    ]


def test_modes_times_both_modes_and_plots_them(tmp_path: Path) -> None:
    result = topograd("modes", "--sizes", "1,4", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    rows = re.findall(r"^\s+(\d+)\s+(\d+)((?:\s+\d+\.\d\d){4})$", result.stdout, re.M)
    # n takes each size with m = 10, then m takes each with n = 10
    assert [(int(n), int(m)) for n, m, _ in rows] == [(1, 10), (4, 10), (10, 1), (10, 4)]
    assert all(float(t) > 0 for *_, times in rows for t in times.split())
    image = (tmp_path / "modes.png").read_bytes()
    assert image.startswith(b"\x89PNG") and len(image) > 20_000
    assert f"Plotted into {tmp_path / 'modes.png'}" in result.stdout


def test_train_help_explains_the_models_and_names_them_as_train_does() -> None:
    from topograd.cli.train import MODELS
    from topograd.train.digits import MODELS as TRAINED

    assert MODELS == TRAINED
    text = " ".join(topograd("train", "--help").stdout.split())
    assert "--model {mlp,cnn}" in text
    assert "cnn, two 3x3 convolutions" in text and "loss curve beside an MLP's" in text
