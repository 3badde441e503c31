"""The command line, driven as a user drives it: in a subprocess."""

from __future__ import annotations

import re
import subprocess
import sys


def topograd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "topograd", *args], capture_output=True, text=True, timeout=60
    )


def test_demo_prints_every_node_and_every_gradient_beside_its_check() -> None:
    result = topograd("demo")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "e = tanh(a*b + c)" in out
    forward, backward = out.split("Backward pass")
    for label, value in [
        ("a", "2"),
        ("b", "-3"),
        ("c", "10"),
        ("d = a*b", "-6"),
        ("n = d + c", "4"),
    ]:
        assert re.search(rf"^  {re.escape(label)}\s+{value}\s", forward, re.M), label
    assert "0.99932929973906703" in forward
    rows = {}
    for line in backward.splitlines()[2:]:
        label, grad, numeric, gap = line.rsplit(maxsplit=3)
        rows[label.strip()] = (float(grad), float(numeric), float(gap))
    assert set(rows) == {"a", "b", "c", "d = a*b", "n = d + c", "e = tanh(n)"}
    assert rows["a"][0] == -0.0040228520490775965
    for grad, numeric, gap in rows.values():
        assert gap == abs(grad - numeric) or abs(gap - abs(grad - numeric)) < 1e-13
        assert abs(grad - numeric) <= 1e-8 * max(1.0, abs(numeric))


def test_no_command_is_a_usage_error() -> None:
    result = topograd()
    assert result.returncode == 2
    assert "usage: topograd" in result.stderr
