"""What a course makes of grades: points from a course file, Gradescope's results.json, and a
class graded in one batch (a summary table, each report into a folder, resumable after the
grader is killed), run as the command a teacher types."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_grade import CORRECT, MUTANTS, mutant, topograd

from topograd.grading import grade
from topograd.grading.course import Points, gradescope, scored
from topograd.grading.objectives import OBJECTIVES

OVERWRITES = mutant(MUTANTS["overwrites at shared nodes"][0])  # add's rule assigns (=)
BROKEN = "1 / 0\n"
WARNINGS = {o.id for o in OBJECTIVES if o.warning}


def written(folder: Path, **files: str) -> list[str]:
    for name, source in files.items():
        (folder / f"{name}.py").write_text(source)
    return [str(folder / f"{name}.py") for name in files]


def test_default_points_are_one_per_objective_and_none_for_warnings(tmp_path: Path) -> None:
    report = grade(Path(written(tmp_path, e=OVERWRITES)[0]), seed=4)
    points = Points()
    failing = {r.id for r in report.rows if r.status in ("fail", "blocked")}
    skipped = {r.id for r in report.rows if r.status == "skip"}
    graded = len(OBJECTIVES) - len(WARNINGS) - len(skipped - WARNINGS)
    assert scored(report, points) == (graded - len(failing - WARNINGS), graded)
    results = gradescope(report, points)
    assert results["score"] == scored(report, points)[0]
    assert [t["tags"] for t in results["tests"]] == [[o.id] for o in OBJECTIVES]
    assert sum(t["max_score"] for t in results["tests"]) == graded
    assert sum(t["score"] for t in results["tests"]) == results["score"]
    rules = next(t for t in results["tests"] if t["tags"] == ["rules"])
    assert rules["status"] == "failed" and rules["score"] == 0.0
    assert rules["output"].startswith("fail: add's _backward assigns (=) where it should add")
    assert results["extra_data"] == {"status": 1, "seed": 4, "engine": report.engine}


def test_a_course_file_sets_points_and_bad_ones_are_refused_in_one_line(tmp_path: Path) -> None:
    course = tmp_path / "course.toml"
    course.write_text("[points]\ndefault = 2\nlesson = 5\ndeep = 1.5\n")
    points = Points.read(course)
    assert (points.of("lesson"), points.of("add"), points.of("deep"), points.of("twice")) == (
        5.0,
        2.0,
        1.5,
        0.0,
    )
    (file,) = written(tmp_path, engine=CORRECT)
    ran = topograd("grade", file, "--format", "gradescope", "--points", str(course))
    assert ran.returncode == 0, ran.stderr
    results = json.loads(ran.stdout)
    most = sum(t["max_score"] for t in results["tests"])
    assert results["score"] == most == 2 * (len(OBJECTIVES) - len(WARNINGS) - 1) + 5 + 1.5
    assert all(t["status"] == "passed" and t["visibility"] == "visible" for t in results["tests"])
    for text, words in (
        ("[points]\nlesson = 'five'\n", "lesson = 'five' in"),
        ("[points]\nlessons = 5\n", "names no objective 'lessons' (ids: accumulate, add,"),
        ("[points]\nlesson = -1\n", "is not from 0 to 1000"),
        ("lesson = 5\n", "holds one table, [points]"),
        ("[points\n", "is not TOML"),
    ):
        course.write_text(text)
        refused = topograd("grade", file, "--points", str(course))
        assert refused.returncode == 2 and refused.stdout == ""
        assert refused.stderr.startswith("error: --points: ") and words in refused.stderr
        assert len(refused.stderr.splitlines()) == 1
    missing = topograd("grade", file, "--points", str(tmp_path / "none.toml"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_gradescope_scores_a_file_that_cannot_load_zero_on_every_objective(
    tmp_path: Path,
) -> None:
    (file,) = written(tmp_path, broken=BROKEN)
    ran = topograd("grade", file, "--format", "gradescope")
    assert ran.returncode == 2
    results = json.loads(ran.stdout)
    assert results["score"] == 0.0 and len(results["tests"]) == len(OBJECTIVES)
    assert all(t["score"] == 0.0 and t["status"] == "failed" for t in results["tests"])
    assert "ZeroDivisionError" in results["tests"][0]["output"]
    assert "ZeroDivisionError" in results["output"]


def test_a_class_is_graded_in_one_batch_with_a_summary(tmp_path: Path) -> None:
    files = written(tmp_path, alice=CORRECT, bob=OVERWRITES, carol=BROKEN)
    ran = topograd("grade", *files, "--seed", "8")
    assert ran.returncode == 2, ran.stderr  # the worst file's status
    lines = ran.stdout.splitlines()
    assert lines[0].split() == ["file", "status", "score", "summary"]
    alice, bob, carol = (line.split() for line in lines[1:4])
    most = len(OBJECTIVES) - len(WARNINGS)
    assert alice[:3] == ["alice", "pass", f"{most}/{most}"]
    assert bob[:2] == ["bob", "FAIL"] and bob[2] != f"{most}/{most}" and "failed" in lines[2]
    assert carol[:4] == ["carol", "cannot", "load", f"0/{most}"] and "ZeroDivision" in lines[3]
    assert lines[-1] == "3 files: 1 passed, 1 failed, 1 could not be loaded."
    assert [line.split(":")[0] for line in ran.stderr.splitlines()] == ["alice", "bob", "carol"]
    as_json = topograd("grade", *files, "--json")
    batch = json.loads(as_json.stdout)
    assert batch["status"] == 2 and [f["name"] for f in batch["files"]] == ["alice", "bob", "carol"]
    seeds = {f["report"]["seed"] for f in batch["files"]}
    assert len(seeds) == 3  # each file at points of its own
    assert batch["files"][1]["report"]["objectives"][0]["id"] == "value"


def test_two_files_of_one_name_or_a_missing_one_are_refused_before_grading(
    tmp_path: Path,
) -> None:
    """a/engine.py and b/engine.py are named by their folders (a--engine, b--engine); a file
    a--engine.py beside them would write a--engine's report too."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    files = [*written(tmp_path / "a", engine=CORRECT), *written(tmp_path / "b", engine=CORRECT)]
    files += written(tmp_path, **{"a--engine": CORRECT})
    ran = topograd("grade", *files, "--out", str(tmp_path / "out"))
    assert ran.returncode == 2 and ran.stdout == ""
    assert f"{tmp_path}/a/engine.py and {tmp_path}/a--engine.py would write the report " in (
        ran.stderr
    )
    assert not (tmp_path / "out" / "topograd-batch.json").exists()
    ran = topograd("grade", files[0], str(tmp_path / "nobody.py"))
    assert ran.returncode == 2 and ran.stderr == f"error: grade: not a file: {tmp_path}/nobody.py\n"


def test_a_batch_killed_midway_goes_on_where_it_stopped(tmp_path: Path) -> None:
    """The grader is killed (SIGKILL) while the second file loads; run again, the first
    file's report is kept, the rest graded; a file handed in again is graded again."""
    slow = "import time\ntime.sleep(60)\n" + CORRECT
    files = written(tmp_path, alice=CORRECT, bob=slow, carol=OVERWRITES)
    out = tmp_path / "reports"
    command = [sys.executable, "-m", "topograd", "grade", *files, "--out", str(out), "--json"]
    grader = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not (out / "topograd-batch.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(grader.pid, signal.SIGKILL)
    grader.wait()
    record = json.loads((out / "topograd-batch.json").read_text())
    assert [f["name"] for f in record["files"]] == ["alice"]
    first = (out / "alice.json").read_text()
    Path(files[1]).write_text(CORRECT)  # bob hands in a version that loads
    ran = topograd("grade", *files, "--out", str(out), "--json")
    assert ran.returncode == 1, ran.stderr
    assert ran.stderr.splitlines()[0].endswith("(kept from an earlier run)")
    assert (out / "alice.json").read_text() == first
    record = json.loads((out / "topograd-batch.json").read_text())
    assert [(f["name"], f["status"]) for f in record["files"]] == [
        ("alice", 0),
        ("bob", 0),
        ("carol", 1),
    ]
    assert json.loads((out / "carol.json").read_text())["status"] == 1
    Path(files[2]).write_text(CORRECT)  # carol mends her engine and hands it in again
    again = topograd("grade", *files, "--out", str(out), "--json")
    assert again.returncode == 0
    kept = [line.endswith("(kept from an earlier run)") for line in again.stderr.splitlines()]
    assert kept == [True, True, False]
    assert sorted(p.name for p in out.iterdir()) == [
        "alice.json",
        "bob.json",
        "carol.json",
        "topograd-batch.json",
    ]


@pytest.mark.parametrize("form", ["table", "gradescope"])
def test_a_batch_writes_each_report_in_its_format(tmp_path: Path, form: str) -> None:
    files = written(tmp_path, alice=CORRECT)
    out = tmp_path / "out"
    ran = topograd("grade", *files, "--out", str(out), "--format", form, "--seed", "2")
    assert ran.returncode == 0, ran.stderr
    if form == "table":
        assert (out / "alice.txt").read_text().startswith("Grading Value from alice.py")
    else:
        assert json.loads((out / "alice.json").read_text())["extra_data"]["seed"] == 2
    assert ran.stdout.splitlines()[-1] == "1 files: 1 passed."


def test_the_guide_lists_every_objective_id_with_its_default_points() -> None:
    guide = (Path(__file__).parent.parent / "docs" / "grading.md").read_text()
    table = guide.split("<!-- objective ids:", 1)[1].split("\n\n", 1)[0].splitlines()[3:]
    listed = [[cell.strip() for cell in line.strip("|").split("|")] for line in table]
    points = Points()
    assert listed == [
        [f"`{o.id}`", o.title.replace("_", "\\_").replace("*", "\\*"), f"{points.of(o.id):g}"]
        for o in OBJECTIVES
    ]


def test_an_op_the_course_names_counts_when_missing(tmp_path: Path) -> None:
    """A skeleton whose tanh only raises NotImplementedError: by default tanh (and the lesson's
    example, which needs it) count for nothing; a course that gives them points gets 0 of
    those points, not full marks."""
    stub = '\n    def tanh(self):\n        raise NotImplementedError("tanh")\n'
    start, end = CORRECT.index("\n    def tanh(self):"), CORRECT.index("\n    def exp(self):")
    (file,) = written(tmp_path, engine=CORRECT[:start] + stub + CORRECT[end:])
    report = grade(Path(file), seed=6)
    status = {r.id: r.status for r in report.rows}
    assert (status["tanh"], status["lesson"], report.status) == ("missing", "skip", 0)
    plain = gradescope(report, Points())
    tanh = next(t for t in plain["tests"] if t["tags"] == ["tanh"])
    assert tanh["max_score"] == 0.0 and "status" not in tanh
    named = gradescope(report, Points.read_text("[points]\ntanh = 3\nlesson = 5\n"))
    tanh, lesson = (next(t for t in named["tests"] if t["tags"] == [i]) for i in ("tanh", "lesson"))
    assert (tanh["score"], tanh["max_score"], tanh["status"]) == (0.0, 3.0, "failed")
    assert (lesson["score"], lesson["max_score"], lesson["status"]) == (0.0, 5.0, "failed")
    assert named["score"] == sum(t["max_score"] for t in named["tests"]) - 8


def test_a_batch_survives_a_file_that_vanishes_and_a_record_of_the_wrong_shape(
    tmp_path: Path,
) -> None:
    """The first file takes a few seconds to load; meanwhile the second is deleted (a real
    fault: the file is gone when its turn comes). A record whose fields have the wrong types
    is graded afresh, not trusted."""
    slow = "import time\ntime.sleep(3)\n" + CORRECT
    files = written(tmp_path, alice=slow, bob=CORRECT, carol=CORRECT)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "topograd", "grade", *files, "--out", str(out)]
    grader = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1)
    Path(files[1]).unlink()
    stdout, stderr = grader.communicate(timeout=120)
    assert grader.returncode == 2, stderr
    lines = {line.split()[0]: line for line in stdout.splitlines()[1:4]}
    assert "cannot read it: No such file or directory" in lines["bob"]
    assert lines["alice"].split()[1] == lines["carol"].split()[1] == "pass"
    record = json.loads((out / "topograd-batch.json").read_text())
    record["files"][0]["status"] = "0"  # a hand-edited record
    (out / "topograd-batch.json").write_text(json.dumps(record))
    Path(files[1]).write_text(CORRECT)
    again = topograd("grade", *files, "--out", str(out))
    assert again.returncode == 0, again.stderr
    kept = [line.endswith("(kept from an earlier run)") for line in again.stderr.splitlines()]
    assert kept == [False, False, True]  # alice's entry was not trusted, bob's was not there


def test_a_folder_per_student_names_each_report_by_its_folder(tmp_path: Path) -> None:
    for student in ("alice", "bob"):
        (tmp_path / student).mkdir()
        written(tmp_path / student, engine=CORRECT)
    (tmp_path / "batch").mkdir()
    files = [str(tmp_path / s / "engine.py") for s in ("alice", "bob")]
    ran = topograd("grade", *files, "--out", str(tmp_path / "out"), "--json")
    assert ran.returncode == 0, ran.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "alice--engine.json",
        "bob--engine.json",
        "topograd-batch.json",
    ]
    (file,) = written(tmp_path / "batch", **{"topograd-batch": CORRECT})
    clash = topograd("grade", file, "--out", str(tmp_path / "out2"), "--json")
    assert clash.returncode == 2 and "which another file (or the batch's record)" in clash.stderr
    module = topograd(
        "grade", "--module", "engine", "--path", str(tmp_path / "alice"), "--out", "o"
    )
    assert module.returncode == 2 and "--out grades files" in module.stderr
