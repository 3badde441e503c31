"""The acceptance of topograd as PyTorch: published PyTorch programs, each stored in
``tests/programs/`` with only its import lines changed (and its long loops cut; each file's
header names its source, commit, licence and every change), run under PyTorch 2.13 and under
topograd, and give the same numbers.

The programs: "Learning PyTorch with Examples" (the polynomial fit by hand, with autograd, with
a custom ``autograd.Function``, with ``nn``, ``optim`` and a custom ``nn.Module``, and the
dynamic graph), karpathy's makemore lectures 1 to 5 (the notebooks' code cells), and d2l's
linear regression (from scratch and concise) and softmax regression (scikit-learn's digits in
Fashion-MNIST's place). ``program_runs.py`` runs each once per library, in a fresh process,
seeded alike (so the random starts are PyTorch's too: topograd's generator gives its numbers),
each on the kernels that are the same code on every CPU of this kind (``PORTABLE``), and
records what each cell prints and shows; ``program_records.py`` compares the records.

Each program's numbers may differ by its ``rtol`` (times the scale of what they stand beside):
float32 rounding, 1e-5, except where training amplifies rounding into larger differences.
PyTorch differs from itself there as much (measured between its AVX2 kernels and its portable
ones, ``ATEN_CPU_CAPABILITY=default``: 6.6e-3 for RMSprop's polynomial fit, 5.3e-4 for
makemore's MLP), and the tolerance is about three times that spread.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from program_records import Differences, compare
from program_runs import PROGRAMS as FOLDER
from program_runs import changed_lines

RUNNER = Path(__file__).parent / "program_runs.py"
ROUNDING = 1e-5  # float32 rounding, accumulated over a program's sums and steps
# makemore part 4's cmp(): "name | exact: True | approximate: True | maxdiff: 0.0"
CMP = re.compile(
    r"^(?P<name>\S+)\s+\| exact: (?P<exact>True|False)\s*\| approximate: "
    r"(?P<approximate>True|False)\s*\| maxdiff: (?P<maxdiff>\S+)$",
    re.MULTILINE,
)
# its check of a faster batchnorm formula: "max diff: tensor(4.7684e-07, grad_fn=<...>)", an
# ulp or two of float32 that differ with the kernels (PyTorch's own, AVX2 against portable)
MAX_DIFF = re.compile(
    r"^max diff: tensor\((?P<maxdiff>[^,)]+)(, grad_fn=<[^>]*>)?\)$", re.MULTILINE
)
APART = re.compile(f"{CMP.pattern}|^max diff: ", re.MULTILINE)  # the lines of their own tests


@dataclass(frozen=True)
class Program:
    name: str
    watch: tuple[str, ...] = ()  # what the program keeps and does not print: its losses
    rtol: float = ROUNDING


BOARD = ("model.board.data",)  # d2l's losses, as its ProgressBoard would plot them
PROGRAMS = (
    Program("polynomial_tensor"),
    Program("polynomial_autograd"),
    Program("polynomial_custom_function"),
    Program("polynomial_nn"),
    Program("polynomial_optim", rtol=2e-2),  # RMSprop's steps of +-lr amplify rounding
    Program("polynomial_module"),
    Program("dynamic_net"),
    Program("makemore_part1_bigrams"),
    Program("makemore_part2_mlp", ("lossi",), rtol=2e-3),  # lr 0.1 on a wild start
    # (hx: the histograms' edges; not hy, its counts, where one number of a rounding apart
    # may cross an edge: tg.histogram is PyTorch's to the bit, test_torch_functions.py)
    Program("makemore_part3_bn", ("lossi", "ud", "hx")),
    Program("makemore_part4_backprop", ("lossi",)),
    Program("makemore_part5_cnn1", ("lossi",)),
    Program("d2l_linear_regression_scratch", BOARD),
    Program("d2l_linear_regression_concise", BOARD),
    Program("d2l_softmax_regression_scratch", BOARD),
    Program("d2l_softmax_regression_concise", BOARD),
)
NAMES = [p.name for p in PROGRAMS]


# Each library on the kernels that are the same code on every x86-64 CPU: a sampled name is a
# draw against float32 probabilities, which PyTorch's own AVX2 and AVX-512 kernels round apart
# (makemore's "nen." under one, "ner." under the other), so only there are bits comparable.
PORTABLE = {
    "torch": {"ATEN_CPU_CAPABILITY": "default"},
    "topograd": {
        "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR",
        "OPENBLAS_CORETYPE": "Prescott",
    },
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Every program's record under each library: ``runs[name]["torch"]``. The two libraries
    run side by side, one process each (and a fork of it per program), on one thread each."""
    out = tmp_path_factory.mktemp("programs")
    spec = out / "spec.json"
    spec.write_text(json.dumps([{"name": p.name, "watch": list(p.watch)} for p in PROGRAMS]))
    threads = dict.fromkeys(("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"), "1")
    env = {**os.environ, **threads, "PYTHONWARNINGS": "ignore"}
    started = [
        subprocess.Popen(
            [sys.executable, str(RUNNER), backend, str(spec), str(out)],
            env={**env, **PORTABLE[backend]},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for backend in ("torch", "topograd")
    ]
    for process in started:
        _, errors = process.communicate(timeout=900)
        assert process.returncode == 0, errors
    return {
        name: {b: json.loads((out / f"{name}.{b}.json").read_text()) for b in ("torch", "topograd")}
        for name in NAMES
    }


@pytest.mark.xdist_group("programs")  # one worker runs them all, once
@pytest.mark.parametrize("program", PROGRAMS, ids=NAMES)
def test_the_program_runs_to_its_end(program: Program, runs: dict[str, Any]) -> None:
    assert runs[program.name]["torch"]["error"] is None  # (the program itself, as published)
    assert runs[program.name]["topograd"]["error"] is None


@pytest.mark.xdist_group("programs")
@pytest.mark.parametrize("program", PROGRAMS, ids=NAMES)
def test_topograd_prints_and_shows_pytorchs_numbers(program: Program, runs: dict[str, Any]) -> None:
    record = runs[program.name]
    apart = APART if program.name == "makemore_part4_backprop" else None
    found = compare(record["topograd"], record["torch"], program.rtol, apart)
    assert found.mismatches == []


def _cmp_lines(record: dict[str, Any]) -> list[dict[str, str]]:
    return [m.groupdict() for cell in record["cells"] for m in CMP.finditer(cell["stdout"])]


@pytest.mark.xdist_group("programs")
def test_the_backward_by_hand_agrees_with_autograd_as_with_pytorchs(
    runs: dict[str, Any],
) -> None:
    """makemore part 4's gradients by hand, beside ``.grad`` by cmp(): close everywhere
    (approximate: True), exact wherever PyTorch's are, never further apart than PyTorch's
    (a few times: its kernels differ from topograd's in their last bits)."""
    record = runs["makemore_part4_backprop"]
    mine, theirs = _cmp_lines(record["topograd"]), _cmp_lines(record["torch"])
    assert len(theirs) == 28 and [m["name"] for m in mine] == [t["name"] for t in theirs]
    for m, t in zip(mine, theirs):
        assert t["approximate"] == "True" and m["approximate"] == "True", m["name"]
        assert m["exact"] == "True" or t["exact"] == "False", m["name"]
        assert float(m["maxdiff"]) <= 4 * float(t["maxdiff"]), m["name"]
    ours, torchs = (
        [float(m["maxdiff"]) for cell in r["cells"] for m in MAX_DIFF.finditer(cell["stdout"])]
        for r in (record["topograd"], record["torch"])
    )
    assert len(torchs) == 1 and len(ours) == 1  # the fast batchnorm against the slow one
    assert ours[0] <= 4 * max(torchs[0], 2.0**-23), (ours, torchs)  # 2**-23: an ulp at 1


@pytest.mark.parametrize("name", [*NAMES, "d2l_torch"])
def test_only_import_lines_are_changed(name: str) -> None:
    """Each line that differs from the published program (or from d2l's library, which the
    d2l programs import) imports topograd where that line imported torch; topograd is named
    nowhere else but in comments."""
    path = FOLDER / f"{name}.py"
    changed = changed_lines(path)
    assert changed
    for line in changed:
        now, _, was = line.partition("# was:")
        assert _imports(now) and all(name.startswith("topograd") for name in _imports(now))
        assert _imports(was) and all(name.startswith("torch") for name in _imports(was))
    others = [line for line in path.read_text().splitlines() if line not in changed]
    assert not [line for line in others if "topograd" in line.partition("#")[0]]


def _imports(line: str) -> list[str]:
    """The modules an import line imports from (none for a line that is not an import)."""
    (statement,) = ast.parse(line.strip()).body
    if isinstance(statement, ast.Import):
        return [alias.name for alias in statement.names]
    return [statement.module or ""] if isinstance(statement, ast.ImportFrom) else []


def test_a_changed_number_or_word_is_a_mismatch() -> None:
    """The comparison finds what a wrong program would print: a number off by more than its
    tolerance, a word, a whole number, a Tensor of another dtype, a loss history apart."""
    tensor = {"dtype": "float32", "shape": [2], "tensor": [1.0, 2.0]}
    theirs = {"cells": [{"line": 1, "stdout": "99 1.5\nabc", "value": tensor, "watch": {}}]}
    wrong = [
        {"stdout": "99 1.5001\nabc"},
        {"stdout": "98 1.5\nabc"},
        {"stdout": "99 1.5\nabd"},
        {"value": {**tensor, "dtype": "float64"}},
        {"value": {**tensor, "tensor": [1.0, 2.001]}},
    ]
    for change in wrong:
        mine = {"cells": [{**theirs["cells"][0], **change}]}
        assert compare(mine, theirs, ROUNDING).mismatches, change
    assert compare(theirs, theirs, ROUNDING).mismatches == []


def test_a_coefficient_near_zero_is_held_to_its_lines_scale() -> None:
    found = Differences(rtol=1e-5)
    found.text("y = -6.7e-10 + 0.85 x", "y = -3.6e-09 + 0.85 x", "Result")
    assert found.mismatches == []
    found.text("y = 0.0001 + 0.85 x", "y = -3.6e-09 + 0.85 x", "Result")
    assert found.mismatches
