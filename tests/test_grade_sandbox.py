"""The sandbox itself: what the child's code may import, and what the grader does where no
sandbox can be made (a real fault: a user namespace whose limit of further namespaces is 0, so
bwrap cannot make its own)."""

from __future__ import annotations

import ast
import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import topograd as tg
from topograd.grading import sandbox

CORRECT = Path(__file__).parent / "engines" / "lesson_engine.py"


def test_the_childs_code_imports_the_standard_library_only() -> None:
    """inside/ runs in the sandbox on ``python -I -S``: no topograd, no site-packages."""
    for file in sandbox.INSIDE.glob("*.py"):
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [] if node.level else [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or top == "__future__", (file.name, name)


NO_NAMESPACES = 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"'


def grade_without_namespaces(*options: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "topograd", "grade", str(CORRECT), *options]
    wrapped = ["unshare", "--user", "--map-root-user", "sh", "-c", NO_NAMESPACES, "sh"]
    return subprocess.run(
        [*wrapped, *command], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture(scope="module")
def nested_namespaces() -> None:
    trial = subprocess.run(
        ["unshare", "--user", "--map-root-user", "true"], capture_output=True, check=False
    )
    if trial.returncode:
        pytest.skip("no user namespaces to make the fault in")


@pytest.mark.usefixtures("nested_namespaces")
def test_where_no_sandbox_can_be_made_a_file_is_not_graded() -> None:
    ran = grade_without_namespaces()
    assert ran.returncode == 3 and not ran.stdout
    assert ran.stderr.startswith("error: the grader could not grade ")
    assert "lesson_engine.py is not graded, since bwrap cannot make the sandbox" in ran.stderr
    assert "--unsafe-no-sandbox" in ran.stderr and "your home" in ran.stderr
    as_json = grade_without_namespaces("--json", "--seed", "5")
    assert as_json.returncode == 3, as_json.stderr
    report = json.loads(as_json.stdout)
    assert report["status"] == 3 and report["passed"] is False and report["seed"] == 5
    assert "bwrap cannot make the sandbox" in report["grader_error"] and not report["objectives"]


@pytest.mark.usefixtures("nested_namespaces")
def test_unsafe_no_sandbox_grades_and_says_what_it_leaves_open() -> None:
    ran = grade_without_namespaces("--unsafe-no-sandbox")
    assert ran.returncode == 0, ran.stderr
    assert "every required objective passes" in ran.stdout
    assert ran.stderr.startswith("warning: grading without a sandbox: the learner's code runs")
    assert "outlive the grade" in ran.stderr and "fake its own report" in ran.stderr


def test_topograds_own_value_in_hand_is_not_graded_as_a_learners() -> None:
    class Mine(tg.Value):
        pass

    for cls in (tg.Value, Mine):
        report = tg.grade(cls)
        assert report.status == 2 and "is topograd's own Value or a subclass" in report.load_error


class Wrapper:
    """A class in hand that hands every op to topograd's own Value."""

    def __init__(self, data: Any) -> None:
        self.inner = data if isinstance(data, tg.Value) else tg.Value(data)

    @property
    def data(self) -> float:
        return float(self.inner.data)

    @property
    def grad(self) -> float:
        return float(self.inner.grad)

    def __add__(self, other: Any) -> Wrapper:
        return Wrapper(self.inner + (other.inner if isinstance(other, Wrapper) else other))

    def __mul__(self, other: Any) -> Wrapper:
        return Wrapper(self.inner * (other.inner if isinstance(other, Wrapper) else other))

    def backward(self) -> None:
        self.inner.backward()


def test_a_class_in_hand_that_wraps_topograds_value_is_told_so() -> None:
    report = tg.grade(Wrapper, seed=1)
    failed = {row.id: row.text for row in report.rows if row.status == "fail"}
    assert list(failed) == ["value"] and report.status == 1
    assert "holds topograd's own Value: the grader grades a learner's own engine" in failed["value"]


def test_a_fault_of_the_graders_own_is_status_3_with_its_json() -> None:
    """The grader run with 16 open files at most (a real limit, set before it starts) cannot
    start its child: its own failure, status 3, not the engine's 1 or 2, and the JSON report
    is written all the same."""

    def few_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (16, 16))

    command = [sys.executable, "-m", "topograd", "grade", str(CORRECT), "--json", "--seed", "9"]
    ran = subprocess.run(
        command, capture_output=True, text=True, timeout=120, check=False, preexec_fn=few_files
    )
    assert ran.returncode == 3, ran.stderr
    report = json.loads(ran.stdout)
    assert report["status"] == 3 and report["seed"] == 9 and report["objectives"] == []
    assert report["grader_error"] and report["summary"].startswith("the grader could not grade")
