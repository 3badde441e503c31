"""``topograd grade`` on a table of engines: the lesson's correct engine, and one mutant per
classic mistake, each of which must get its own diagnosis and no other; micrograd 0.1.0 as it
is; and engines that hang, crash, allocate without end or cannot be loaded, run for real in
the child process."""

from __future__ import annotations

import ctypes
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import micrograd.engine
import pytest

import topograd as tg
from topograd.grading import FOLLOWS, Report, grade
from topograd.grading.inside.probes import PROBES
from topograd.grading.lesson import Draw, drawn
from topograd.grading.objectives import OBJECTIVES, fmt
from topograd.grading.runner import Spawned, measure
from topograd.grading.sandbox import Submission

CORRECT = (Path(__file__).parent / "engines" / "lesson_engine.py").read_text()
SEED = 1204  # the points of the grades below (any seed's points tell every mistake apart)


def facts(at: Draw) -> dict[str, str]:
    """The numbers a diagnosis quotes at the points ``at``, as the report writes them."""
    (add_a, add_b), (mul_a, mul_b) = at.ops["add"][0], at.ops["mul"][0]
    (k, m), x, (pow_x,), (exp_x,) = at.diamond, at.shared, at.ops["pow"][0], at.ops["exp"][0]
    a, b, c = at.lesson
    t = math.tanh(a * b + c)
    numbers = {
        "add_a": add_a,
        "add_b": add_b,
        "mul_a": mul_a,
        "mul_b": mul_b,
        "k": k,
        "m": m,
        "k_m": k + m,
        "x": x,
        "stale": 6 * x + 2,  # y = x*x + x, backward twice with stale inner gradients
        "chain": at.chain,
        "held": at.held,
        "chain_mul_b": at.chain * mul_b,
        "pow_x": pow_x,
        "pow_wrong": 3 * pow_x**3,
        "exp_x": exp_x,
        "de_da": (1 - t * t) * b,
    }
    found = {name: fmt(v) for name, v in numbers.items()}
    sign = "-" if at.chain < 0 else "+"
    found["held_plus_chain"] = (
        f"{fmt(at.held)} {sign} {fmt(abs(at.chain))} = {fmt(at.held + at.chain)}"
    )
    return found


FACTS = facts(drawn(SEED))

RECURSIVE_ORDER = """        topo, visited = [], set()

        def build(node):
            if node not in visited:
                visited.add(node)
                for child in node._prev:
                    build(child)
                topo.append(node)

        build(self)
"""
ITERATIVE_ORDER = CORRECT[
    CORRECT.index("        topo, visited = [], set()") : CORRECT.index(
        "        for node in topo:\n"
    )
]
BREADTH_FIRST = """        order, seen, queue = [], {self}, [self]
        while queue:
            node = queue.pop(0)
            order.append(node)
            for child in node._prev:
                if child not in seen:
                    seen.add(child)
                    queue.append(child)
        topo = order[::-1]
"""
ADD_RULE = """        def _backward():
            self.grad += out.grad
            other.grad += out.grad
"""
LATE_BOUND = """        updates = []
        for node in (self, other):

            def update():
                node.grad += out.grad

            updates.append(update)

        def _backward():
            for update in updates:
                update()
"""

TANH = CORRECT[CORRECT.index("\n    def tanh(self):") : CORRECT.index("\n    def exp(self):")]
PASS = CORRECT[
    CORRECT.index("        topo, visited = [], set()") : CORRECT.index("    def __repr__")
]
PRE_ORDER = """        self.grad = 1.0
        seen, stack = set(), [self]
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                node._backward()
                stack.extend(node._prev)

"""
TANH_OF_EXP = """
    def tanh(self):
        e = (self * 2).exp()
        return (e - 1) / (e + 1)
"""
BY_DATA = """    def __eq__(self, other):
        return isinstance(other, Value) and self.data == other.data

    def __hash__(self):
        return hash(self.data)

    def __repr__"""

# mutant: (edits of the correct engine, the objective that fails or warns, words of its diagnosis)
MUTANTS: dict[str, tuple[list[tuple[str, str]], str, str]] = {
    "overwrites at shared nodes": (
        [(ADD_RULE, ADD_RULE.replace("+=", "="))],
        "rules",
        "add's _backward assigns (=) where it should add (+=): with a.grad = {held} before, the "
        "_backward of a + b at a = {add_a}, b = {add_b} under out.grad = {chain} leaves a.grad = "
        "{chain}, expected {held_plus_chain}",
    ),
    "tanh's rule from the input": (
        [("(1 - t**2)", "(1 - self.data**2)")],
        "tanh",
        "tanh's rule uses the input, not the output: 1 - x² instead of 1 - t²",
    ),
    "no seed": (
        [("        self.grad = 1.0\n", "")],
        "seed",
        "the output's gradient is not seeded with 1",
    ),
    "forward order": (
        [("for node in reversed(topo):", "for node in topo:")],
        "order",
        "nodes run before all their users (not reverse topological order): on the diamond "
        "b = a*{k}, c = a*{m}, d = b + c, a gets 0, expected {k_m}",
    ),
    "no visited set": (
        [("elif node not in visited:", "else:")],
        "visited",
        "a node is visited twice in the order (no visited set): on y = a*{k} + a*{m} with a = x*3",
    ),
    "stale second backward": (
        [("                node.grad = 0.0\n", "                pass\n")],
        "twice",
        "backward twice re-propagates stale gradients: a second y.backward() on y = x*x + x at "
        "x = {x} gives dy/dx = {stale}",
    ),
    "recursive order": (
        [(ITERATIVE_ORDER, RECURSIVE_ORDER)],
        "deep",
        "RecursionError at depth",
    ),
    "wrong mul rule": (
        [
            ("self.grad += other.data * out.grad", "self.grad += self.data * out.grad"),
            ("other.grad += self.data * out.grad", "other.grad += other.data * out.grad"),
        ],
        "mul",
        "mul's rule gives each input its own value, not the other's: a * b at a = {mul_a}, "
        "b = {mul_b} gives da = {mul_a}, db = {mul_b}, expected {mul_b}, {mul_a}",
    ),
    "wrong add rule": (
        [("            other.grad += out.grad\n", "")],
        "add",
        "add's rule updates only its first input: a + b at a = {add_a}, b = {add_b} gives "
        "da = 1, db = 0",
    ),
    "never zeroed": (
        [("        self.grad = 0.0\n", "        self.grad = 1.0\n")],
        "zero",
        "gradients do not start at zero: a new Value(3.0) has .grad = 1",
    ),
    "breadth-first order": (
        [(ITERATIVE_ORDER, BREADTH_FIRST)],
        "postorder",
        "a node ran before all its users had added their parts (breadth-first order, not "
        "depth-first post-order)",
    ),
    "loop variable bound late": (
        [(ADD_RULE, LATE_BOUND)],
        "binding",
        "every update went to the last input: a + b at a = {add_a}, b = {add_b} gives da = 0, "
        "db = 2",
    ),
    "ignores the upstream gradient": (
        [
            ("self.grad += other.data * out.grad", "self.grad += other.data"),
            ("other.grad += self.data * out.grad", "other.grad += self.data"),
        ],
        "chain",
        "mul's rule ignores the upstream gradient: (a * b) * {chain} gives da = {mul_b}, "
        "expected {chain} × {mul_b} = {chain_mul_b} (multiply by out.grad)",
    ),
    "no __rmul__": (
        [("    def __rmul__(self, other):\n        return self * other\n", "")],
        "numbers",
        "2 * x raises TypeError: unsupported operand type(s) for *: 'int' and 'Value' "
        "(define __rmul__)",
    ),
    "pow keeps the exponent": (
        [("n * self.data ** (n - 1)", "n * self.data**n")],
        "pow",
        "pow's rule keeps the exponent: n·xⁿ instead of n·xⁿ⁻¹: x ** 3 at x = {pow_x} gives "
        "dx = {pow_wrong}",
    ),
}


MUTANTS.update(
    {
        "seed after the pass": (
            [
                (
                    "        self.grad = 1.0\n        for node in reversed(topo):\n            "
                    "node._backward()\n",
                    "        for node in reversed(topo):\n            "
                    "node._backward()\n        self.grad = 1.0\n",
                )
            ],
            "seed",
            "the output's gradient is seeded after the pass: after y.backward() on y = a * b, "
            "y.grad = 1 but no gradient moved",
        ),
        "rules run in depth-first pre-order": (
            [(PASS, PRE_ORDER)],
            "visited",
            "a node ran before all its users: on y = a*{k} + a*{m} with a = x*3 at x = {x}, x "
            "gets ",
        ),
        "tanh built of a wrong exp": (
            [
                (TANH, TANH_OF_EXP),
                ("self.grad += out.data * out.grad", "self.grad += self.data * out.grad"),
            ],
            "exp",
            "exp's rule uses the input, not the output eˣ: exp(x) at x = {exp_x} gives "
            "dx = {exp_x}",
        ),
        "numbers not wrapped in mul": (
            [
                (
                    "        other = other if isinstance(other, Value) else Value(other)\n"
                    "        out = Value(self.data * other.data",
                    "        out = Value(self.data * other.data",
                )
            ],
            "numbers",
            "x * 2 raises AttributeError: 'int' object has no attribute 'data' (wrap a number "
            "in a Value in __mul__)",
        ),
        "numbers wrapped only when ints": (
            [
                (
                    "        other = other if isinstance(other, Value) else Value(other)\n"
                    "        out = Value(self.data * other.data",
                    "        other = Value(other) if isinstance(other, int) else other\n"
                    "        out = Value(self.data * other.data",
                )
            ],
            "numbers",
            "x * 2.5 raises AttributeError: 'float' object has no attribute 'data' (wrap a "
            "number in a Value in __mul__)",
        ),
        "nodes equal by data": (
            [("    def __repr__", BY_DATA)],
            "identity",
            "two nodes with equal data were taken for one: on b = a + 1, c = a * 2, y = b * c "
            "at a = 1 (b and c both 2), a gets 2, expected 6",
        ),
    }
)


BACKWARD = CORRECT[CORRECT.index("    def backward(self):") : CORRECT.index("    def __repr__")]


def test_an_engine_without_backward_is_told_which_rules_overwrite(tmp_path: Path) -> None:
    """Each _backward is run on its own, so the rules are graded before backward() exists."""
    source = mutant([(ADD_RULE, ADD_RULE.replace("+=", "=")), (BACKWARD, "")])
    report = grade(engine_file(tmp_path, source), seed=SEED)
    assert list(said(report)) == ["implemented", "rules"], said(report)
    assert said(report)["implemented"].startswith("the class has no backward() method")
    assert said(report)["rules"].startswith("add's _backward assigns (=) where it should add")
    assert "mul" not in said(report)["rules"] and report.status == 1


def test_without_a_backward_attribute_the_overwrite_shows_at_a_shared_node(
    tmp_path: Path,
) -> None:
    """An engine that keeps its closures under another name: no rule can be run on its own,
    so += is checked where paths meet."""
    source = mutant([(ADD_RULE, ADD_RULE.replace("+=", "="))]).replace("_backward", "_step")
    report = grade(engine_file(tmp_path, source), seed=SEED)
    assert list(said(report)) == ["accumulate"], said(report)
    assert said(report)["accumulate"].startswith(
        f"gradients at a shared node are overwritten, not accumulated: y = x + x at x = "
        f"{FACTS['x']} gives dy/dx = 1, expected 2"
    )
    assert next(r for r in report.rows if r.id == "rules").status == "skip"


SKELETON_MUL = """    def __mul__(self, other):
        raise NotImplementedError("the product, and its _backward")

    def _mul(self, other):
"""


def test_a_skeleton_is_told_what_to_write_first(tmp_path: Path) -> None:
    """A skeleton as handed out: __mul__ raises NotImplementedError, tanh is only pass."""
    source = mutant(
        [
            ("    def __mul__(self, other):\n", SKELETON_MUL),
            (TANH, '\n    def tanh(self):\n        """tanh, and its _backward."""\n'),
        ]
    )
    report = grade(engine_file(tmp_path, source), seed=SEED)
    assert list(said(report)) == ["implemented"], said(report)
    assert said(report)["implemented"].startswith(
        "not written yet: __mul__ (only raises NotImplementedError): every other check builds"
    )
    status = {r.id: (r.status, r.text) for r in report.rows}
    assert status["tanh"] == (
        "missing",
        "tanh is not written yet (its body is empty): tanh(x) not graded",
    )
    assert status["zero"][0] == status["mul"][0] == "blocked"
    written_mul = mutant([(TANH, '\n    def tanh(self):\n        """tanh."""\n')])
    report = grade(engine_file(tmp_path, written_mul, "next.py"), seed=SEED)
    assert report.status == 0 and said(report) == {}
    assert "not yet, and not graded: tanh (its body is empty)" in next(
        r.text for r in report.rows if r.id == "implemented"
    )
    assert {r.id: r.status for r in report.rows}["lesson"] == "skip"
    no_mul = mutant([("    def __mul__(self, other):\n", "    def times(self, other):\n")])
    report = grade(engine_file(tmp_path, no_mul, "no_mul.py"), seed=SEED)
    assert said(report) == {
        "implemented": "the class has no __mul__: every other check builds on __add__, __mul__ "
        "and backward(), so write those first"
    }


def test_an_op_the_class_lacks_is_missing_whatever_fails_before_it(tmp_path: Path) -> None:
    no_tanh = mutant([(TANH, ""), ("        self.grad = 1.0\n", "")])  # and no seed
    report = grade(engine_file(tmp_path, no_tanh), seed=SEED)
    assert list(said(report)) == ["seed"]
    status = {r.id: (r.status, r.text) for r in report.rows}
    assert status["tanh"] == ("missing", "the class has no tanh: tanh(x) not graded")
    assert status["mul"][0] == "blocked" and status["lesson"][0] == "skip"
    required = grade(engine_file(tmp_path, no_tanh, "req.py"), seed=SEED, require=("tanh",))
    assert list(said(required)) == ["seed", "tanh"]
    assert said(required)["tanh"] == "the class has no tanh, and tanh(x) is required"


def mutant(edits: list[tuple[str, str]]) -> str:
    source = CORRECT
    for old, new in edits:
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    return source


def engine_file(tmp_path: Path, source: str, name: str = "engine.py") -> Path:
    path = tmp_path / name
    path.write_text(source)
    return path


def said(report: Report) -> dict[str, str]:
    """Objective -> diagnosis, for every objective that failed or warned."""
    return {row.id: row.text for row in report.rows if row.status in ("fail", "warn")}


def test_the_correct_engine_passes_every_objective(tmp_path: Path) -> None:
    report = grade(engine_file(tmp_path, CORRECT), seed=SEED)
    assert [row.id for row in report.rows if row.status != "pass"] == []
    assert report.status == 0 and report.passed
    assert report.engine == "Value from engine.py"
    lesson = next(row for row in report.rows if row.id == "lesson")
    assert f"de/da = {FACTS['de_da']}" in lesson.text and "PyTorch agree" in lesson.text
    assert report.seed == SEED


@pytest.mark.parametrize("name", MUTANTS)
def test_each_mistake_gets_its_own_diagnosis_and_no_other(tmp_path: Path, name: str) -> None:
    edits, objective, words = MUTANTS[name]
    report = grade(engine_file(tmp_path, mutant(edits)), seed=SEED)
    assert list(said(report)) == [objective], said(report)
    assert words.format(**FACTS) in said(report)[objective]
    warning = objective in ("twice", "deep")
    assert report.status == (0 if warning else 1)
    assert {row.status for row in report.rows} <= {"pass", "blocked", "skip"} | {
        "warn" if warning else "fail"
    }


def test_micrograd_itself_passes_the_rules_with_its_two_known_warnings() -> None:
    report = grade(micrograd.engine.Value, seed=SEED)
    status = {row.id: row.status for row in report.rows}
    assert status["add"] == status["mul"] == status["pow"] == status["relu"] == "pass"
    assert status["tanh"] == status["exp"] == "missing"  # micrograd has neither
    assert status["lesson"] == "skip"  # (it needs tanh)
    assert list(said(report)) == ["twice", "deep"]
    assert "micrograd 0.1.0 behaves so too" in said(report)["twice"]
    assert f"dy/dx = {FACTS['stale']}" in said(report)["twice"]
    assert said(report)["deep"].startswith("RecursionError at depth")
    assert report.status == 0
    assert grade(micrograd.engine.Value, require=("tanh",)).status == 1


def test_tg_grade_is_the_same_function() -> None:
    assert tg.grade is grade


HANGS = "\n    def tanh(self):\n        while True:\n            pass\n"
HOSTILE: dict[str, tuple[str, str, str]] = {
    # engine: (the correct engine's tanh replaced by this, the row, words of its diagnosis)
    "an endless loop": (HANGS, "tanh", "did not finish in 2 s (an endless loop?)"),
    "10 GB": (
        "\n    def tanh(self):\n        return bytearray(10 * 2**30)\n",
        "tanh",
        "MemoryError (over the grader's memory limit)",
    ),
    "a segmentation fault": (
        "\n    def tanh(self):\n        import ctypes\n        return ctypes.string_at(0)\n",
        "tanh",
        "the process died of SIGSEGV",
    ),
    "os._exit": (
        "\n    def tanh(self):\n        import os\n        os._exit(3)\n",
        "tanh",
        "the process exited with status 3",
    ),
    "input()": (
        "\n    def tanh(self):\n        return Value(float(input()))\n",
        "tanh",
        "EOFError: EOF when reading a line (at engine.py, line ",
    ),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_op_is_reported_and_the_rest_still_graded(tmp_path: Path, name: str) -> None:
    replacement, row, words = HOSTILE[name]
    source = mutant([(TANH, replacement)]) + "\nprint('noise on the standard output')\n"
    report = grade(engine_file(tmp_path, source), timeout=2.0, memory=256)
    assert said(report) == {row: said(report)[row]} and words in said(report)[row]
    status = {r.id: r.status for r in report.rows}
    assert status["lesson"] == "blocked" and status["chain"] == status["deep"] == "pass"
    assert report.status == 1


def test_after_three_timeouts_the_rest_is_not_run(tmp_path: Path) -> None:
    source = mutant([(TANH, HANGS)]).replace(
        "    def __mul__(self, other):\n",
        "    def __mul__(self, other):\n        while True:\n            pass\n",
    )
    submission = Submission(file=engine_file(tmp_path, source))
    at = drawn(SEED)
    request = {"class": "Value", "memory": 256, "points": at.sent(), "cpu_seconds": 60}
    found = measure(
        lambda todo: Spawned(submission, {**request, "probes": todo}, sandboxed=True),
        list(PROBES),
        1.5,
        FOLLOWS,
    )
    errors = [o.error for o in found.outcomes.values()]
    assert sorted(found.outcomes) == sorted(PROBES)
    assert errors.count("did not finish in 1.5 s (an endless loop?)") == 3
    assert found.outcomes["zero"].error.startswith("did not finish")  # x * Value(2.0)
    assert found.outcomes["op.add"].numbers == {
        "0.value": sum(at.ops["add"][0]),
        "0.ops": "+",
        "0.out": 1.0,
        "0.d0": 1.0,
        "0.d1": 1.0,
    }
    assert errors.count("not run: 3 probes timed out") > 20


LOAD_ERRORS: dict[str, tuple[str, str, str]] = {
    # the file: (its source, the error's line, the learner's frame)
    "a syntax error": (
        "import math\n\nclass Value:\n    def __init__(self, data)\n        self.data = data\n",
        "SyntaxError: expected ':'",
        "engine.py, line 4: def __init__(self, data)",
    ),
    "an import error": (
        "import math\nimport no_such_module_here\n",
        "ModuleNotFoundError: No module named 'no_such_module_here'",
        "engine.py, line 2, in <module>: import no_such_module_here",
    ),
    "a failing line": (
        "def helper():\n    return 1 / 0\n\nX = helper()\n",
        "ZeroDivisionError: division by zero",
        "engine.py, line 2, in helper: return 1 / 0",
    ),
    "sys.exit": ("import sys\nsys.exit(4)\n", "the code called sys.exit(4)", "line 2"),
    "no Value class": ("class Scalar:\n    pass\n", "no class Value in the file", ""),
    "an endless import": ("while True:\n    pass\n", "loading the file did not finish in 3 s", ""),
    "a crash at import": (
        "import ctypes\nctypes.string_at(0)\n",
        "the process died of SIGSEGV",
        "",
    ),
}


@pytest.mark.parametrize("name", LOAD_ERRORS)
def test_a_file_that_cannot_load_is_status_2_with_its_line(tmp_path: Path, name: str) -> None:
    source, error, frame = LOAD_ERRORS[name]
    report = grade(engine_file(tmp_path, source), timeout=3.0)
    assert report.status == 2 and not report.rows
    assert error in report.load_error
    assert frame in report.where
    assert report.table().startswith("cannot load engine.py: ")


def test_the_class_is_found_by_name_or_as_the_only_engine(tmp_path: Path) -> None:
    path = engine_file(tmp_path, CORRECT.replace("Value", "Scalar"))
    assert grade(path).engine == "Scalar from engine.py"
    assert grade(path).passed
    two = CORRECT.replace("Value", "Scalar") + "\n\nclass Other(Scalar):\n    pass\n"
    path = engine_file(tmp_path, two)
    assert grade(path).load_error == (
        "no class Value in the file (classes there: Other, Scalar; use --class)"
    )
    assert grade(path, class_name="Other").engine == "Other from engine.py"


def test_a_file_sees_no_sibling_but_a_package_is_graded_as_a_module(tmp_path: Path) -> None:
    """Graded as a file, a submission sees only itself (not a classmate's file beside it); an
    engine laid out as a package (pkg/engine.py importing pkg.core) is graded with --path and
    --module, its imports working as under ``python -m pkg.engine`` in that folder."""
    (tmp_path / "engine_core.py").write_text(CORRECT)
    path = engine_file(tmp_path, "from engine_core import Value\n", "submission.py")
    alone = grade(path)
    assert alone.status == 2 and "No module named 'engine_core'" in alone.load_error
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "core.py").write_text(CORRECT)
    (package / "engine.py").write_text("from pkg.core import Value\n")
    report = grade(path=tmp_path, module="pkg.engine")
    assert report.passed and report.engine == "Value from pkg.engine in " + str(tmp_path)


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="is not a file"):
        grade(tmp_path)
    with pytest.raises(ValueError, match="require: no op named sin"):
        grade(micrograd.engine.Value, require=("sin",))
    with pytest.raises(TypeError, match="a Value class or a file's path"):
        grade(3)


def topograd(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "topograd", *argv], capture_output=True, text=True, timeout=300
    )


def test_the_command_prints_a_table_and_its_status(tmp_path: Path) -> None:
    good = topograd("grade", str(engine_file(tmp_path, CORRECT)))
    assert good.returncode == 0, good.stderr
    assert good.stdout.startswith("Grading Value from engine.py against the lesson's objectives (")
    count = len(OBJECTIVES)
    assert f"{count} objectives: {count} passed; every required objective passes." in good.stdout
    edits, _, words = MUTANTS["overwrites at shared nodes"]
    bad = topograd("grade", str(engine_file(tmp_path, mutant(edits), "bad.py")), "--seed", "3")
    assert bad.returncode == 1
    assert "  FAIL     each node's _backward, run on its own, adds (+=) its part" in bad.stdout
    assert " ".join(bad.stdout.split()).count(words.format(**facts(drawn(3)))) == 1
    assert "Grading Value from bad.py against the lesson's objectives (seed 3):" in bad.stdout


def test_the_command_writes_json_for_an_autograder(tmp_path: Path) -> None:
    edits, objective, words = MUTANTS["tanh's rule from the input"]
    result = topograd("grade", str(engine_file(tmp_path, mutant(edits))), "--json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["status"] == 1 and report["passed"] is False
    assert isinstance(report["seed"], int)
    failed = [o for o in report["objectives"] if o["status"] == "fail"]
    assert [o["id"] for o in failed] == [objective] and words in failed[0]["text"]
    assert {"id", "objective", "status", "text"} == set(failed[0])
    broken = topograd("grade", str(engine_file(tmp_path, "1/0\n", "broken.py")), "--json")
    assert broken.returncode == 2
    assert json.loads(broken.stdout)["load_error"] == "ZeroDivisionError: division by zero"


def test_the_command_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    engine_file(tmp_path, CORRECT, "g.py")
    engine_file(tmp_path, "{}", "n.ipynb")
    for argv, words in (
        (["grade", str(tmp_path / "missing.py")], "missing.py is not a file"),
        (["grade", str(tmp_path)], "is not a file"),
        (["grade", str(tmp_path / "g.py"), "--require", "tanh,sin"], "no op named sin"),
        (["grade", str(tmp_path / "g.py"), "--timeout", "0"], "timeout: seconds above 0"),
        (["grade", str(tmp_path / "g.py"), "--memory", "0"], "memory: MiB, at least 1"),
        (["grade", str(tmp_path / "g.py"), "--timeout", "soon"], "invalid float value"),
        (["grade", str(tmp_path / "n.ipynb")], "n.ipynb is a notebook: grade its class"),
    ):
        result = topograd(*argv)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.startswith("error: ") and words in result.stderr
        assert len(result.stderr.splitlines()) == 1
    broken = topograd("grade", str(engine_file(tmp_path, "import nowhere\n")))
    assert broken.returncode == 2 and broken.stdout == ""
    assert broken.stderr.splitlines() == [
        "error: cannot load engine.py: ModuleNotFoundError: No module named 'nowhere'",
        "  engine.py, line 1, in <module>: import nowhere",
    ]


def test_a_module_that_raises_the_recursion_limit_is_warned_not_crashed(tmp_path: Path) -> None:
    edits, _, _ = MUTANTS["recursive order"]
    source = "import sys\nsys.setrecursionlimit(10**6)\n" + mutant(edits)
    report = grade(engine_file(tmp_path, source))
    assert list(said(report)) == ["deep"] and report.status == 0
    assert "the module raised the limit to 1,000,000" in said(report)["deep"]


class Hangs(micrograd.engine.Value):  # a class in hand is graded in a fork of this process
    def tanh(self) -> Hangs:
        while True:
            pass


class Exits(micrograd.engine.Value):
    def tanh(self) -> Exits:
        os._exit(3)


class Crashes(micrograd.engine.Value):
    def tanh(self) -> Crashes:
        return ctypes.string_at(0)  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("engine", "words"),
    [(Exits, "the process exited with status 3"), (Crashes, "the process died of SIGSEGV")],
)
def test_a_class_in_hand_that_ends_its_fork_is_reported_on_its_row(
    engine: type, words: str
) -> None:
    report = grade(engine)
    assert said(report) == {"tanh": f"tanh(x): {words}"} | {
        k: v for k, v in said(report).items() if k in ("twice", "deep")
    }
    assert report.status == 1


def test_a_module_of_the_current_folder_does_not_shadow_the_graders(tmp_path: Path) -> None:
    (tmp_path / "inspect.py").write_text("raise RuntimeError('the wrong inspect')\n")
    (tmp_path / "resource.py").write_text("raise RuntimeError('the wrong resource')\n")
    path = engine_file(tmp_path / "..", CORRECT, f"{tmp_path.name}-engine.py")
    command = Path(sys.executable).parent / "topograd"  # the script: no folder first on its path
    result = subprocess.run(
        [str(command), "grade", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr


def test_a_class_in_hand_that_hangs_is_stopped_in_its_fork() -> None:
    report = grade(Hangs, timeout=1.5)
    assert said(report)["tanh"] == "tanh(x): did not finish in 1.5 s (an endless loop?)"
    assert report.status == 1 and report.engine == "test_grade.Hangs"


def test_the_teachers_guide_shows_the_sample_engines_real_report() -> None:
    docs = Path(__file__).parent.parent / "docs"
    guide = (docs / "grading.md").read_text()
    shown = guide.split("shown):\n\n```text\n", 1)[1].split("\n```", 1)[0]
    seed = re.search(r"objectives \(seed (\d+)\):", shown)
    assert seed is not None, shown
    assert shown == grade(docs / "examples" / "learner_engine.py", seed=int(seed[1])).table()
