"""The playground's numbers as a learner reads them, at the API and on the command line: a
relative difference where the numbers are large, a nan blamed on the function's domain rather
than on the check's step, a flat sum of 500 terms refused only for its drawing's size."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from topograd.expr import parse
from topograd.playground.api import MAX_DRAWN, graph_request
from topograd.verify.numeric import central_difference


def answer(expr: str, values: dict[str, float]) -> dict[str, object]:
    status, reply = graph_request(json.dumps({"expr": expr, "values": values}).encode())
    assert status == 200, reply
    return reply


def test_the_difference_is_relative_where_the_numbers_are_large() -> None:
    reply = answer("x*y", {"x": 1.0, "y": 1e21})
    out, inputs = parse("x*y").build({"x": 1.0, "y": 1e21})
    out.backward()
    check = central_difference(out, inputs["x"])
    assert reply["checks"]["x"] == check and reply["grads"]["x"] == 1e21
    assert reply["differences"]["x"] == abs(check - 1e21) / max(abs(check), 1e21)
    assert reply["differences"]["x"] < 1e-9 < abs(check - 1e21)  # relative small, absolute not
    small = answer("x*y", {"x": 0.5, "y": 0.25})  # below 1: absolute, as the flag's tolerance
    assert small["differences"]["x"] == abs(small["grads"]["x"] - small["checks"]["x"])


def test_the_command_line_shows_the_same_relative_difference() -> None:
    run = [sys.executable, "-m", "topograd", "grad", "x*y", "x=1", "y=1e21"]
    report = json.loads(subprocess.run([*run, "--json"], capture_output=True, check=True).stdout)
    reply = answer("x*y", {"x": 1.0, "y": 1e21})
    assert report["relative_differences"] == reply["differences"]
    table = subprocess.run(run, capture_output=True, text=True, check=True).stdout
    assert "rel. diff" in table and "|diff|" not in table
    row = next(line for line in table.splitlines() if line.startswith("x "))
    assert row.split()[-1] == f"{reply['differences']['x']:.1e}"


@pytest.mark.parametrize(
    ("expr", "values", "words"),
    [
        ("log(x)", {"x": -1}, "log(-1) is nan: -1 is outside the domain of log"),
        ("x*2 + sqrt(x - 5)", {"x": 1}, "sqrt(-4) is nan: -4 is outside the domain of sqrt"),
        ("x/y + 1", {"x": 0, "y": 0}, "0 / 0 is nan"),
        ("exp(x) - exp(x)", {"x": 1000}, "inf - inf is nan: an infinity"),
    ],
)
def test_a_nan_is_blamed_on_the_domain_not_the_step(expr, values, words) -> None:  # type: ignore[no-untyped-def]
    reply = answer(expr, values)
    assert reply["value"] == "nan"
    assert reply["undefined"].startswith(words), reply["undefined"]
    assert "whatever the central difference's step h" in reply["undefined"]
    table = subprocess.run(
        [sys.executable, "-m", "topograd", "grad", expr, *(f"{k}={v}" for k, v in values.items())],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"note: {reply['undefined']}" in table


def test_a_finite_answer_has_nothing_undefined() -> None:
    assert answer("tanh(a*b + c)", {"a": 2, "b": -3, "c": 10})["undefined"] == ""
    assert answer("log(x)", {"x": 0})["undefined"] == ""  # -inf: a limit, not outside the domain


def test_a_flat_500_term_sum_is_refused_only_for_its_drawing() -> None:
    text = " + ".join(f"x{k}" for k in range(1, 501))
    status, reply = graph_request(json.dumps({"expr": text}).encode())
    assert status == 422
    assert "nested" not in reply["error"] and f"at most {MAX_DRAWN}" in reply["error"]
    assert "topograd grad" in reply["error"]


def test_a_value_of_1e309_is_refused_naming_its_field() -> None:
    status, reply = graph_request(b'{"expr": "x + y", "values": {"x": 1, "y": 1e309}}')
    assert (status, reply["error"]) == (400, 'the value of "y" is too large')
