"""Saves that are whole or nothing, under real faults: a file-size limit (RLIMIT_FSIZE), a
child killed with SIGKILL in the middle of a save, a full tmpfs and a read-only one (where this
machine lets the tests mount one), a missing folder, a folder in the way. After each, the
previous file is byte-identical and no temporary file is left beside it."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

import topograd as tg
from topograd.disk.atomic import LEFTOVER

SUFFIXES = [".json", ".npz", ".safetensors"]


def saved_bytes(model: tg.nn.Module, path: Path) -> bytes:
    model.save(path)
    return path.read_bytes()


def model(size: int, seed: int = 0) -> tg.nn.Linear:
    return tg.nn.Linear(size, size, seed=seed)


def child(script: str, *, fsize: int | None = None) -> subprocess.Popen[bytes]:
    """A Python process running ``script`` (with a file-size limit, if given)."""

    def limit() -> None:
        if fsize is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(script)],
        preexec_fn=limit,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _size_limit(target: Path) -> list[bytes]:
    """A child saving a bigger model under a file-size limit of 64 kB (RLIMIT_FSIZE)."""
    process = child(
        f"""
        import topograd as tg
        tg.nn.Linear(300, 300, seed=1).save({str(target)!r})
        """,
        fsize=64 * 1024,
    )
    _, err = process.communicate(timeout=120)
    assert process.returncode != 0 and b"File too large" in err
    return []


def _writing(pid: int, folder: Path) -> bool:
    """Whether process ``pid`` has a file of ``folder`` open (a save under way)."""
    fds = Path(f"/proc/{pid}/fd")
    with contextlib.suppress(OSError):
        for fd in fds.iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd).startswith(str(folder) + os.sep):
                    return True
    return False


def _killed(target: Path) -> list[bytes]:
    """A child saving a bigger model again and again, killed with SIGKILL while a save is open:
    the file is the old one or the new one, whole."""
    reference = target.with_name(f"reference{target.suffix}")
    after = saved_bytes(model(400, seed=2), reference)
    reference.unlink()
    process = child(
        f"""
        import topograd as tg
        m = tg.nn.Linear(400, 400, seed=2)
        while True:
            m.save({str(target)!r})
        """
    )
    deadline = time.monotonic() + 60
    try:
        while not _writing(process.pid, target.parent) and time.monotonic() < deadline:
            time.sleep(0.0005)
        assert process.poll() is None, "the saving process ended by itself"
    finally:
        process.send_signal(signal.SIGKILL)
        process.communicate()  # (waits, and closes its pipes)
    assert process.returncode == -signal.SIGKILL
    return [after]


def _full(target: Path) -> list[bytes]:
    """A bigger model saved on a tmpfs of 256 kB."""
    with pytest.raises(OSError, match="No space left"):
        model(300, seed=1).save(target)
    return []


def _read_only(target: Path) -> list[bytes]:
    """Another model saved on a tmpfs remounted read-only."""
    subprocess.run(["mount", "-o", "remount,ro", str(target.parent)], check=True)
    with pytest.raises(OSError, match="Read-only"):
        model(3, seed=1).save(target)
    return []


@contextlib.contextmanager
def tmpfs(size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted for the test, or a skip where this machine does not allow
    mounting one (not root, or no CAP_SYS_ADMIN in a container)."""
    folder = Path(tempfile.mkdtemp())
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True,
    )
    if mounted.returncode != 0:
        folder.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)
        folder.rmdir()


@contextlib.contextmanager
def folder_on(disk: str, tmp_path: Path) -> Iterator[Path]:
    if disk == "tmp":
        yield tmp_path
    else:
        with tmpfs(disk) as folder:
            yield folder


# Each row a real fault during a save over a good file, the disk it happens on (the test's
# folder, or a tmpfs of that size), and the fault (which checks how the save failed and names
# any other whole file it may leave instead of the old one).
SAVE_FAULTS = [
    ("a file-size limit", "tmp", _size_limit),
    ("SIGKILL mid-save", "tmp", _killed),
    ("a full disk", "256k", _full),
    ("a read-only disk", "1m", _read_only),
]


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize(("what", "disk", "fault"), SAVE_FAULTS, ids=[r[0] for r in SAVE_FAULTS])
def test_a_failed_save_leaves_the_previous_file_and_nothing_else(
    tmp_path: Path, what: str, disk: str, fault: Callable[[Path], list[bytes]], suffix: str
) -> None:
    with folder_on(disk, tmp_path) as folder:
        target = folder / f"model{suffix}"
        before = saved_bytes(model(3), target)
        also = fault(target)
        assert target.read_bytes() in [before, *also]  # never a cut file
        left = sorted(p.name for p in folder.iterdir() if p != target)
        if fault is _killed and left:  # killed in the instant between a link and its rename
            assert len(left) == 1 and LEFTOVER.fullmatch(left[0])
            if disk == "tmp":
                saved_bytes(model(3), folder / "next.json")  # the next save removes it
                left = sorted(p.name for p in folder.iterdir() if p.name != "next.json")
                left.remove(target.name)
        assert left == []


def test_a_command_on_a_read_only_disk_says_so_and_keeps_the_old_file() -> None:
    with tmpfs("1m") as disk:
        svg = disk / "g.svg"
        svg.write_text("old drawing")
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        ran = subprocess.run(
            [sys.executable, "-m", "topograd", "grad", "x*x", "x=2", "--svg", str(svg)],
            capture_output=True,
            text=True,
        )
        assert ran.returncode == 2
        assert ran.stderr.count("error:") == 1 and "Traceback" not in ran.stderr
        assert svg.read_text() == "old drawing"
        assert [p.name for p in disk.iterdir()] == ["g.svg"]


@contextlib.contextmanager
def read_only_mount(path: Path) -> Iterator[None]:
    """``path`` alone mounted read-only over itself (a bind mount): a fault root meets too, in a
    folder that still takes new files. A skip where this machine does not allow mounting."""
    bound = subprocess.run(["mount", "--bind", str(path), str(path)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip(f"cannot bind-mount a file here: {bound.stderr.decode().strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(path)], check=True)
        yield
    finally:
        subprocess.run(["umount", str(path)], check=False)


# A save and then open(path, "w"), each as "save" or "open", then "succeeded" or the error's
# class, errno and file name. As root (who may write any file) the child first gives up root
# for nobody, after importing what a save needs.
SAVE_THEN_OPEN = """
import os, sys
import topograd as tg
path, warm_up, as_nobody, saver = sys.argv[1], sys.argv[2], sys.argv[3] == "nobody", sys.argv[4]
def save(target):
    model = tg.nn.Linear(3, 3, seed=1)
    model.save(target) if saver == "Module.save" else tg.save(model.state_dict(), target)
save(warm_up)
if as_nobody and os.geteuid() == 0:
    os.setgid(65534)
    os.setuid(65534)
for what, write in (("save", lambda: save(path)), ("open", lambda: open(path, "w").close())):
    try:
        write()
        print(what, "succeeded")
    except OSError as error:
        print(what, type(error).__name__, error.errno, error.filename)
"""


def _saved_then_opened(target: Path, warm_up: Path, user: str, saver: str) -> dict[str, str]:
    ran = subprocess.run(
        [sys.executable, "-c", SAVE_THEN_OPEN, str(target), str(warm_up), user, saver],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    return dict(line.split(" ", 1) for line in ran.stdout.splitlines())


@pytest.mark.parametrize(
    ("saver", "suffix"),
    [("Module.save", ".json"), ("Module.save", ".safetensors"), ("tg.save", ".safetensors")],
)
@pytest.mark.parametrize("fault", ["mode 0o444", "a read-only mount of the file"])
def test_a_save_over_a_file_open_would_refuse_fails_as_open_does(
    tmp_path: Path, fault: str, saver: str, suffix: str
) -> None:
    """The rename in the folder would replace the file: the save must not, but raise what
    open(path, "w") raises, naming the file. Mode 0o444 as nobody (root writes any file); the
    read-only mount as whoever runs the tests (root, where mounting is allowed)."""
    folder = Path(tempfile.mkdtemp())  # (not under pytest's own folders, which nobody cannot pass)
    try:
        folder.chmod(0o777)  # anyone may add and rename files here: only the file says no
        target = folder / f"model{suffix}"
        before = saved_bytes(model(3), target)
        with contextlib.ExitStack() as stack:
            if fault == "mode 0o444":
                target.chmod(0o444)
            else:
                stack.enter_context(read_only_mount(target))
            user = "nobody" if fault == "mode 0o444" else "self"
            found = _saved_then_opened(target, tmp_path / f"warm-up{suffix}", user, saver)
            assert found["open"] != "succeeded", "the fault is not real here"
            assert found["save"] == found["open"]
            assert found["save"].endswith(f" {target}")  # (the file's name, as given)
        assert target.read_bytes() == before
        assert [p.name for p in folder.iterdir()] == [target.name]
    finally:
        shutil.rmtree(folder)


def test_a_missing_folder_or_a_folder_in_the_way_is_an_error_and_changes_nothing(
    tmp_path: Path,
) -> None:
    with pytest.raises(FileNotFoundError):
        model(3).save(tmp_path / "missing" / "model.json")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "model.json").mkdir()
    with pytest.raises(IsADirectoryError):
        model(3).save(tmp_path / "model.json")
    assert [p.name for p in tmp_path.iterdir()] == ["model.json"]
    assert list((tmp_path / "model.json").iterdir()) == []


def topograd(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "topograd", *args], cwd=cwd, capture_output=True, text=True
    )


# A command that fails leaves no output of that run: each row, the command line (run in an
# empty folder) and the flag its one error line names.
COMMANDS = [
    (["grad", "x*x", "x=2", "--svg", "ok.svg", "--dot", "missing/g.dot"], "--dot"),
    (["grad", "x*x", "x=2", "--svg", "ok.svg", "--dot", "."], "--dot"),
    (["train", "--steps", "3", "--plot", "ok.png", "--save", "/proc/m.json"], "--save"),
    (["train", "--steps", "3", "--plot", "ok.png", "--save", "m.txt"], "--save"),
    (["grad", "x*x", "x=2", "--svg", "g.svg", "--dot", "g.svg"], "--svg and --dot name the same"),
    (["grad", "x*x", "x=2", "--svg", "./g.svg", "--dot", "g.svg"], "--svg and --dot name the same"),
]


@pytest.mark.parametrize(("args", "flag"), COMMANDS, ids=[" ".join(a) for a, _ in COMMANDS])
def test_a_command_that_cannot_write_an_output_writes_none(
    tmp_path: Path, args: list[str], flag: str
) -> None:
    ran = topograd(*args, cwd=tmp_path)
    assert ran.returncode == 2
    assert ran.stderr.count("error:") == 1 and flag in ran.stderr, ran.stderr
    assert "Traceback" not in ran.stderr
    assert list(tmp_path.iterdir()) == []


def test_several_outputs_are_written_all_or_none() -> None:
    from topograd.disk import write_all

    with tmpfs("1m") as disk:
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
        good = Path(tempfile.mkdtemp()) / "ok.svg"
        with pytest.raises(OSError, match="Read-only"):
            write_all({good: b"<svg/>", disk / "g.dot": b"digraph {}"})
        assert not good.exists() and list(good.parent.iterdir()) == []
        good.parent.rmdir()


def test_a_save_writes_through_a_link_and_keeps_the_file_s_permissions(tmp_path: Path) -> None:
    real, link = tmp_path / "real.json", tmp_path / "link.json"
    saved_bytes(model(3), real)
    real.chmod(0o600)
    link.symlink_to(real.name)
    after = saved_bytes(model(3, seed=1), link)
    assert link.is_symlink() and real.read_bytes() == after
    assert real.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]


def test_a_long_name_is_saved_the_temporary_name_is_short(tmp_path: Path) -> None:
    target = tmp_path / ("m" * 250 + ".json")  # 255 characters: the most a name may have
    saved_bytes(model(3), target)
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_the_leftover_of_a_killed_save_goes_at_the_next_save(tmp_path: Path) -> None:
    """A SIGKILL between the link and the rename leaves .topograd-PID-RANDOM.tmp: the next save
    into the folder removes it when its process is gone, never when it runs."""
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True
    )
    dead = tmp_path / f".topograd-{int(gone.stdout)}-0123abcd.tmp"
    live = tmp_path / f".topograd-{os.getppid()}-0123abcd.tmp"
    dead.write_bytes(b"cut")
    live.write_bytes(b"being written")
    saved_bytes(model(3), tmp_path / "model.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == [live.name, "model.json"]


# Every module's state, its buffers included (a BatchNorm's running statistics, a loss's class
# weights), goes to disk and back whole; a state that does not fit is refused, naming the file.


def _trained_batch_norm() -> tg.nn.Module:
    norm = tg.nn.BatchNorm1d(3, momentum=None)
    for seed in (1, 2):
        norm(tg.randn(4, 3, generator=tg.Generator().manual_seed(seed), dtype=tg.float32))
    return norm


MODULES: dict[str, Callable[[], tg.nn.Module]] = {
    "Linear": lambda: tg.nn.Linear(3, 2),
    "LayerNorm": lambda: tg.nn.LayerNorm((2, 3)),
    "LayerNorm without bias": lambda: tg.nn.LayerNorm(3, bias=False),
    "BatchNorm1d": _trained_batch_norm,
    "Embedding": lambda: tg.nn.Embedding(5, 2, padding_idx=0),
    "Dropout": lambda: tg.nn.Dropout(0.2),
    "GELU": lambda: tg.nn.GELU(),
    "Flatten": lambda: tg.nn.Flatten(),
    "CrossEntropyLoss": lambda: tg.nn.CrossEntropyLoss(weight=tg.rand(3)),
    "BCEWithLogitsLoss": lambda: tg.nn.BCEWithLogitsLoss(pos_weight=tg.rand(2)),
    "Sequential": lambda: tg.nn.Sequential(
        tg.nn.Linear(3, 4), tg.nn.BatchNorm1d(4), tg.nn.SiLU(), tg.nn.Dropout(), tg.nn.Linear(4, 2)
    ),
}


def _scrambled(module: tg.nn.Module) -> tg.nn.Module:
    """The module with every number of its state changed (its integers too)."""
    with tg.no_grad():
        for _, t in [*module.named_parameters(), *module.named_buffers()]:
            t.copy_(t.data * 3 + 1)
    return module


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_saves_and_loads_its_whole_state(
    tmp_path: Path, name: str, suffix: str
) -> None:
    tg.manual_seed(0)
    saved = _scrambled(MODULES[name]())
    path = tmp_path / f"m{suffix}"
    saved.save(path)
    loaded = MODULES[name]()
    loaded.load(path)
    before, after = saved.state_dict(), loaded.state_dict()
    assert list(before) == list(after)
    for key in before:
        assert after[key].dtype == before[key].dtype, key
        assert np.array_equal(after[key], before[key]), key
    if name == "BatchNorm1d":
        names = ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
        assert list(after) == names
        x = tg.randn(4, 3, dtype=tg.float32)  # (its dtype: another is refused, as by PyTorch)
        assert np.array_equal(saved.eval()(x).data, loaded.eval()(x).data)


def test_a_state_without_the_buffers_a_module_needs_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    tg.nn.BatchNorm1d(3, track_running_stats=False).save(path)
    model = _trained_batch_norm()
    before = {k: np.array(v) for k, v in model.state_dict().items()}  # (copies: state_dict shares)
    with pytest.raises(ValueError, match=f"{path}.*missing running_mean, running_var, num_"):
        model.load(path)
    model.save(path)
    with pytest.raises(ValueError, match=f"{path}.*unexpected running_mean"):
        tg.nn.BatchNorm1d(3, track_running_stats=False).load(path)
    with pytest.raises(ValueError, match=rf"{path}.*weight must be an array of shape \(4,\)"):
        tg.nn.BatchNorm1d(4).load(path)
    after = model.state_dict()
    assert all(np.array_equal(before[k], after[k]) for k in before)  # unchanged
