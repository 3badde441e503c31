"""The playground's API and server: answers, and a table of hostile requests, each answered
with a 4xx and an error while the server goes on serving."""

from __future__ import annotations

import http.client
import json
import math
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from importlib import resources
from typing import Any

import pytest

import topograd as tg
from topograd.expr import MAX_LENGTH, parse
from topograd.playground import server as server_module
from topograd.playground.api import MAX_DRAWN, graph_request, value_reply
from topograd.playground.server import make_server


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    server_module.Handler.timeout = 2  # a slow client is dropped sooner than the default
    server = make_server(0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_port
    server.shutdown()
    server.server_close()


def request(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    sent = {"Host": f"127.0.0.1:{port}"}
    if method == "POST":
        sent["Content-Type"] = "application/json"
    connection.request(method, path, body=body, headers={**sent, **(headers or {})})
    reply = connection.getresponse()
    data = reply.read()
    connection.close()
    return reply.status, dict(reply.getheaders()), data


def test_the_graph_of_the_lesson() -> None:
    status, reply = graph_request(
        b'{"expr": "tanh(a*b + c)", "values": {"a": 2, "b": -3, "c": 10}}'
    )
    assert status == 200
    out, inputs = parse("tanh(a*b + c)").build({"a": 2, "b": -3, "c": 10})
    out.backward()
    assert reply["value"] == out.data
    assert reply["grads"] == {name: v.grad for name, v in inputs.items()}
    assert all(abs(reply["checks"][n] - reply["grads"][n]) < 1e-9 for n in "abc")
    assert [s["node"] for s in reply["steps"]] == [s.node for s in tg.trace(out).steps]
    assert {"nodes", "edges", "svg", "names", "values"} <= set(reply)
    assert reply["svg"].startswith("<svg")
    json.dumps(reply, allow_nan=False)


def lesson_request(expr: str) -> dict[str, Any]:
    body = {"expr": expr, "values": {"a": 2, "b": -3, "c": 10}}
    status, reply = graph_request(json.dumps(body).encode())
    assert status == 200, reply
    return reply


def test_the_lesson_in_lines_is_the_lesson_in_one_expression_with_its_names() -> None:
    one = lesson_request("tanh(a*b + c)")
    lines = lesson_request("d = a*b; n = d + c; e = tanh(n)")
    for reply in (one, lines):
        assert (reply["value"], reply["grads"], reply["names"]) == (
            one["value"],
            one["grads"],
            ["a", "b", "c"],
        )
        assert [n["label"] for n in reply["nodes"]] == ["a", "b", "d", "c", "n", "e"]
        rules = {(e["parent"], e["rule"]) for s in reply["steps"] for e in s["edges"]}
        by_label = {n["label"]: n["id"] for n in reply["nodes"]}
        assert (by_label["a"], "∂d/∂a = b") in rules
        assert (by_label["n"], "∂e/∂n = 1 - tanh²(n)") in rules
        assert reply["output"] == "e"
        assert 'class="label"' in reply["svg"] and ">d</text>" in reply["svg"]
    assert (one["formula"], lines["formula"]) == ("tanh(a*b + c)", "tanh(n)")
    assert lines["expr"] == "d = a*b; n = d + c; e = tanh(n)"


def test_names_the_learner_chose_are_the_graph_s() -> None:
    reply = lesson_request("prod = a*b\nnet = prod + c\nout = tanh(net)")
    assert [n["label"] for n in reply["nodes"]] == ["a", "b", "prod", "c", "net", "out"]
    assert (reply["output"], reply["formula"]) == ("out", "tanh(net)")
    rules = [e["rule"] for s in reply["steps"] for e in s["edges"]]
    assert rules[0] == "∂out/∂net = 1 - tanh²(net)" and "∂prod/∂a = b" in rules


def test_lines_that_cannot_be_read_are_refused_saying_why() -> None:
    for expr, message in [
        ("d = a*b; e = c + 1", "d is never used"),
        ("d = a*b; d = d + c", "d is assigned twice"),
        ("d = a", "computes nothing"),
    ]:
        status, reply = graph_request(json.dumps({"expr": expr}).encode())
        assert status == 422 and message in reply["error"]


def test_a_graph_built_in_python_gets_the_lesson_s_names_for_what_is_unnamed() -> None:
    a, b, c = tg.Value(2.0, label="a"), tg.Value(-3.0, label="b"), tg.Value(10.0, label="c")
    product = a * b
    e = (product + c).tanh()
    reply = value_reply(e)
    assert [n["label"] for n in reply["nodes"]] == ["a", "b", "d", "c", "n", "e"]
    assert reply["output"] == "e" and product.label == e.label == ""  # the Values untouched
    product.label = "ab"
    assert [n["label"] for n in value_reply(e)["nodes"]][2] == "ab"


def test_missing_values_default_to_one_and_extra_ones_are_ignored() -> None:
    status, reply = graph_request(b'{"expr": "x*y", "values": {"x": 3, "z": 5}}')
    assert status == 200
    assert reply["values"] == {"x": 3.0, "y": 1.0}
    assert reply["grads"] == {"x": 1.0, "y": 3.0}


def test_a_flat_500_term_sum_is_refused_for_its_size_not_its_depth() -> None:
    """x1 + ... + x500 is one long line to its writer, not 499 levels of nesting: the page
    refuses it only as too large to draw, and draws a flat sum of 80 terms."""
    terms = [f"x{k}" for k in range(500)]
    status, reply = graph_request(json.dumps({"expr": " + ".join(terms)}).encode())
    assert status == 422 and "nested" not in reply["error"]
    assert f"the graph has 500 edges; the playground draws at most {MAX_DRAWN}" in reply["error"]
    status, reply = graph_request(json.dumps({"expr": " - ".join(terms[:80])}).encode())
    assert status == 200 and len(reply["nodes"]) == 159


def test_infinities_travel_as_strings() -> None:
    status, reply = graph_request(b'{"expr": "log(x)", "values": {"x": 0}}')
    assert (status, reply["value"], reply["grads"]["x"]) == (200, "-inf", "inf")


def test_pages_and_headers(port: int) -> None:
    status, headers, body = request(port, "GET", "/")
    assert status == 200
    assert headers["Content-Type"].startswith("text/html")
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe" not in csp
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert b'<script src="/app.js"' in body
    for path, kind in [
        ("/app.js", "text/javascript"),
        ("/stepper.js", "text/javascript"),
        ("/labels.js", "text/javascript"),
        ("/travel.js", "text/javascript"),
        ("/nodes.js", "text/javascript"),
        ("/format.js", "text/javascript"),
        ("/graph.js", "text/javascript"),
        ("/share.js", "text/javascript"),
        ("/zoom.js", "text/javascript"),
        ("/chart.js", "text/javascript"),
        ("/descent.js", "text/javascript"),
        ("/paths.js", "text/javascript"),
        ("/style.css", "text/css"),
    ]:
        status, headers, _ = request(port, "GET", path)
        assert (status, headers["Content-Type"].split(";")[0]) == (200, kind)


def test_the_page_has_no_inline_script_and_no_eval() -> None:
    static = resources.files("topograd.playground").joinpath("static")
    html = static.joinpath("index.html").read_text()
    assert re.findall(r"<script[^>]*>", html) == [
        '<script src="/format.js" defer>',
        '<script src="/graph.js" defer>',
        '<script src="/stepper.js" defer>',
        '<script src="/labels.js" defer>',
        '<script src="/travel.js" defer>',
        '<script src="/nodes.js" defer>',
        '<script src="/share.js" defer>',
        '<script src="/zoom.js" defer>',
        '<script src="/chart.js" defer>',
        '<script src="/descent.js" defer>',
        '<script src="/paths.js" defer>',
        '<script src="/app.js" defer>',
    ]
    assert not re.search(r"\son[a-z]+\s*=", html)  # no inline event handlers
    assert not re.search(r"style\s*=", html)
    app = "".join(
        static.joinpath(f).read_text()
        for f in (
            "app.js",
            "format.js",
            "graph.js",
            "stepper.js",
            "labels.js",
            "travel.js",
            "nodes.js",
            "share.js",
            "zoom.js",
            "chart.js",
            "descent.js",
            "paths.js",
        )
    )
    for forbidden in [
        "eval(",
        "new Function",
        'setTimeout("',
        "innerHTML +=",
        "document.write",
        "http://",
        "https://",
    ]:
        assert forbidden not in app, forbidden


LONG = "x+" * (MAX_LENGTH // 2) + "x"
HOSTILE = [
    # (method, path, body, extra headers, expected status, words in the error)
    ("POST", "/api/graph", b"{not json", {}, 400, "not JSON"),
    ("POST", "/api/graph", b"\xff\xfe", {}, 400, "not JSON"),
    ("POST", "/api/graph", b"[1, 2]", {}, 400, "JSON object"),
    ("POST", "/api/graph", b'{"expr": 3}', {}, 400, '"expr" must be a string'),
    ("POST", "/api/graph", b'{"values": {}}', {}, 400, '"expr" must be a string'),
    ("POST", "/api/graph", b'{"expr": "x", "down": "yes"}', {}, 400, '"down" must be true'),
    ("POST", "/api/graph", b'{"expr": "x", "values": [1]}', {}, 400, '"values" must be an object'),
    ("POST", "/api/graph", b'{"expr": "x", "values": {"x": "1"}}', {}, 400, "must be a number"),
    ("POST", "/api/graph", b'{"expr": "x", "values": {"x": true}}', {}, 400, "must be a number"),
    ("POST", "/api/graph", b'{"expr": "x", "values": {"x": NaN}}', {}, 400, "NaN"),
    ("POST", "/api/graph", b'{"expr": "x", "values": {"x": 1e999}}', {}, 400, "too large"),
    (
        "POST",
        "/api/graph",
        b'{"expr": "x", "values": {"x": 1' + b"0" * 400 + b"}}",
        {},
        400,
        "too large",
    ),
    (
        "POST",
        "/api/graph",
        b'{"expr": "x", "values": {"x": 1' + b"0" * 5000 + b"}}",
        {},
        400,
        "not JSON",
    ),
    ("POST", "/api/graph", b'{"expr": "x\\ud800"}', {}, 422, "not text"),
    ("POST", "/api/graph", b"[" * 100_00 + b"]" * 100_00, {}, 400, "JSON"),
    ("POST", "/api/graph", b'{"expr": "__import__(\'os\')"}', {}, 422, "unknown function"),
    ("POST", "/api/graph", b'{"expr": "x.__class__"}', {}, 422, "attributes"),
    ("POST", "/api/graph", b'{"expr": "(lambda: 1)()"}', {}, 422, "built-in functions"),
    ("POST", "/api/graph", json.dumps({"expr": LONG}).encode(), {}, 422, f"at most {MAX_LENGTH}"),
    ("POST", "/api/graph", json.dumps({"expr": "x" * 70_000}).encode(), {}, 413, "64 kB"),
    ("POST", "/api/graph", b"", {"Content-Length": "999999999"}, 413, "64 kB"),
    ("POST", "/api/graph", b"{}", {"Content-Length": "ten"}, 400, "Content-Length"),
    ("POST", "/api/graph", b"{}", {"Transfer-Encoding": "chunked"}, 411, "Content-Length"),
    ("POST", "/api/other", b"{}", {}, 404, "no such route"),
    ("GET", "/../../etc/passwd", None, {}, 404, "no such page"),
    ("GET", "/%2e%2e/%2e%2e/etc/passwd", None, {}, 404, "no such page"),
    ("GET", "/static/app.js", None, {}, 404, "no such page"),
    ("GET", "/api/graph", None, {}, 404, "no such page"),
    ("GET", "/", None, {"Host": "evil.example:80"}, 403, "its own address"),
    ("POST", "/api/graph", b'{"expr": "x"}', {"Host": "attacker.test"}, 403, "its own address"),
    ("PUT", "/api/graph", b"{}", {}, 405, "not allowed"),
    ("DELETE", "/", None, {}, 405, "not allowed"),
    ("OPTIONS", "/", None, {}, 405, "not allowed"),
    ("TRACE", "/", None, {}, 405, "TRACE is not allowed"),
    (
        "POST",
        "/api/graph",
        json.dumps({"expr": "+".join(["x"] * 300)}).encode(),
        {},
        422,
        f"at most {MAX_DRAWN}",
    ),
    ("BREW", "/", None, {}, 405, "BREW is not allowed"),
    ("POST", "/api/graph", b'{"expr": "x"}', {"Origin": "http://evil.example"}, 403, "own pages"),
    ("POST", "/api/graph", b'{"expr": "x"}', {"Content-Type": "text/plain"}, 415, "json"),
    ("GET", "/" + "a" * 70_000, None, {}, 414, "URI Too Long"),
    ("GET", "/", None, {f"X-Header-{k}": "1" for k in range(120)}, 431, "Too many headers"),
]


@pytest.mark.parametrize(("method", "path", "body", "headers", "status", "words"), HOSTILE)
def test_hostile_requests_get_a_4xx_and_the_server_goes_on(
    port, method, path, body, headers, status, words
) -> None:  # type: ignore[no-untyped-def]
    if headers.get("Transfer-Encoding") or headers.get("Content-Length") == "999999999":
        got, reply = raw_request(port, method, path, body or b"", headers)
    else:
        got, sent, data = request(port, method, path, body, headers)
        reply = json.loads(data)
        assert sent["Content-Type"] == "application/json"
        assert "Content-Security-Policy" in sent and sent["X-Content-Type-Options"] == "nosniff"
    assert got == status
    assert words in reply["error"]
    assert request(port, "GET", "/")[0] == 200  # still serving


def raw_request(
    port: int, method: str, path: str, body: bytes, headers: dict[str, str]
) -> tuple[int, dict[str, str]]:
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
    lines += ["Content-Type: application/json"] if method == "POST" else []
    lines += [f"{k}: {v}" for k, v in headers.items()]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, payload = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(payload)


RAW = [  # what http.client will not send: each the bytes, the status and words of the answer
    (b"NONSENSE\r\n\r\n", 400, "Bad request"),
    (b"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nHost: 127.0.0.1:{port}\r\n\r\n", 400, "Host"),
    (
        b"POST /api/graph HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        b"Content-Length: 2\r\nContent-Length: 40\r\n\r\n{}",
        400,
        "Content-Length header is given twice",
    ),
]


@pytest.mark.parametrize(("raw", "status", "words"), RAW)
def test_a_malformed_request_gets_a_json_error_with_the_security_headers(
    port: int, raw: bytes, status: int, words: str
) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw.replace(b"{port}", str(port).encode()))
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, payload = data.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == str(status).encode()
    assert b"Content-Type: application/json" in head and b"Content-Security-Policy" in head
    assert words in json.loads(payload)["error"]
    assert request(port, "GET", "/")[0] == 200


def test_a_request_trickling_in_is_cut_at_the_deadline() -> None:
    """One byte every 0.3 s would hold a thread for as long as the client likes; the server
    cuts the request when its deadline (here 1.5 s) has passed, whole or not."""
    server = make_server(0, deadline=1.5)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_port
    start = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            for byte in f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: {'a' * 40}":
                try:
                    sock.sendall(byte.encode())
                except OSError:
                    break
                time.sleep(0.3)
                if time.monotonic() - start > 8:
                    break
            data = sock.recv(100)
        assert data == b""  # cut, not answered
        assert time.monotonic() - start < 6  # not the 13 s the bytes would take
        assert request(port, "GET", "/")[0] == 200
    finally:
        server.shutdown()
        server.server_close()


def test_a_burst_of_connections_waits_in_the_queue_not_for_a_retry(port: int) -> None:
    """16 clients connecting at once: none waits for a SYN retry (1 s) as a 5-deep listen
    queue makes the sixth do."""
    times: list[float] = []

    def connect() -> None:
        start = time.monotonic()
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            times.append(time.monotonic() - start)

    threads = [threading.Thread(target=connect) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(times) == 16 and max(times) < 0.9


def test_a_client_that_never_finishes_is_dropped_not_waited_for(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        head = (
            f"POST /api/graph HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            "Content-Type: application/json\r\nContent-Length: 50\r\n\r\n"
        )
        sock.sendall(head.encode() + b"{")
        data = sock.recv(1000)  # the server gives up after its timeout
    assert data == b"" or data.startswith(b"HTTP/1.1 408")
    assert request(port, "GET", "/")[0] == 200


def test_the_command_prints_its_address_first_and_stops_on_ctrl_c() -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "topograd", "playground", "--no-browser", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        first = process.stdout.readline().strip()
        match = re.fullmatch(r"http://127\.0\.0\.1:(\d+)/", first)
        assert match, first
        assert request(int(match.group(1)), "GET", "/")[0] == 200
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
        assert "Traceback" not in process.stderr.read()


def test_a_port_in_use_is_one_line_and_exit_2(port: int) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "topograd", "playground", "--no-browser", "--port", str(port)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: cannot serve on port {port}")


def test_the_functions_route_lists_the_registrys_functions(port: int) -> None:
    from topograd.expr import functions

    status, headers, body = request(port, "GET", "/api/functions")
    assert status == 200 and headers["Content-Type"] == "application/json"
    reply = json.loads(body)
    assert reply["functions"] == list(functions())
    assert reply["operators"] == ["+", "-", "*", "/", "**"]
    assert "Content-Security-Policy" in headers


def test_the_step_chart_shows_truncation_and_rounding() -> None:
    """The central difference's error against h: large at both ends, least in between."""
    body = {"expr": "tanh(a*b + c)", "values": {"a": 2, "b": -3, "c": 10}, "steps_for": "c"}
    status, reply = graph_request(json.dumps(body).encode())
    assert status == 200
    rows = reply["step_errors"]
    assert [row["h"] for row in rows] == [10.0**-k for k in range(1, 16)]
    out, inputs = parse("tanh(a*b + c)").build({"a": 2, "b": -3, "c": 10})
    out.backward()
    for row in rows:
        assert row["error"] == abs(row["estimate"] - inputs["c"].grad)
    errors = [row["error"] for row in rows]
    best = errors.index(min(errors))
    assert 2 <= best <= 7  # h from 1e-3 to 1e-8
    assert errors[0] > 100 * errors[best] and errors[-1] > 100 * errors[best]
    status, reply = graph_request(json.dumps({**body, "steps_for": "z"}).encode())
    assert (status, reply["error"]) == (422, "'z' is not an input of the expression")


def test_each_activation_comes_with_its_function_and_derivative_around_its_input() -> None:
    from topograd.autograd.registry import OPS

    for c, at in [(10, 4.0), (0, -6.0), (100, 94.0)]:
        body = {"expr": "tanh(a*b + c)", "values": {"a": 2, "b": -3, "c": c}}
        _, reply = graph_request(json.dumps(body).encode())
        (node,) = reply["curves"]  # the one tanh
        curve = reply["curves"][node]
        assert next(n for n in reply["nodes"] if n["id"] == node)["op"] == "tanh"
        assert (curve["op"], curve["at"], curve["value"]) == ("tanh", at, math.tanh(at))
        assert curve["slope"] == OPS["tanh"].rule(1.0, at, math.tanh(at))[0]
        assert curve["x"][0] < at < curve["x"][-1] and curve["x"][0] <= -4
        for x, f, d in zip(curve["x"], curve["f"], curve["df"]):  # six digits, as drawn
            assert math.isclose(f, math.tanh(x), rel_tol=1e-5, abs_tol=1e-6)
            assert math.isclose(d, 1 - math.tanh(x) ** 2, rel_tol=1e-5, abs_tol=1e-6)
    assert lesson_request("tanh(a*b + c)")["curves"].keys()
    _, reply = graph_request(b'{"expr": "sigmoid(x) + relu(y) + exp(x)", "values": {"y": -2}}')
    assert sorted(c["op"] for c in reply["curves"].values()) == ["relu", "sigmoid"]
    relu = next(c for c in reply["curves"].values() if c["op"] == "relu")
    assert (relu["at"], relu["slope"]) == (-2.0, 0.0)  # dead: nothing flows back below 0
    assert relu["df"] == [1.0 if x > 0 else 0.0 for x in relu["x"]]


def paths_of(expr: str, values: dict[str, float], name: str) -> dict[str, Any]:
    body = {"expr": expr, "values": values, "paths_for": name}
    status, reply = graph_request(json.dumps(body).encode())
    assert status == 200, reply
    return reply["paths"]


def test_the_paths_from_an_input_add_up_to_its_gradient() -> None:
    found = paths_of("tanh(a*b + c)", {"a": 2, "b": -3, "c": 10}, "a")
    out, inputs = parse("tanh(a*b + c)").build({"a": 2, "b": -3, "c": 10})
    out.backward()
    ((path,),) = [found["paths"]]  # a reaches e one way only: through d and n
    assert path["rules"] == ["∂e/∂n = 1 - tanh²(n)", "∂n/∂d = 1", "∂d/∂a = b"]
    assert path["partials"] == [1 - math.tanh(4) ** 2, 1.0, -3.0]
    assert path["product"] == found["sum"] == found["gradient"] == inputs["a"].grad
    assert (found["count"], found["complete"]) == (1, True)
    shared = paths_of("x*x + x", {"x": 3}, "x")  # three paths: 3 + 3 + 1 = 7
    assert sorted(p["product"] for p in shared["paths"]) == [1.0, 3.0, 3.0]
    assert [len(p["edges"]) for p in shared["paths"]] == [2, 2, 1]
    assert shared["sum"] == shared["gradient"] == 7.0
    larger = "sigmoid(w1*x1 + w2*x2 + b) * tanh(x1*x2) + relu(w1 - w2) / (1 + x1*x1)"
    point = {"w1": 0.5, "x1": 1.5, "w2": -1.2, "x2": 0.8, "b": 0.1}
    for name in point:
        found = paths_of(larger, point, name)
        assert found["complete"] and found["count"] == len(found["paths"]) >= 1
        assert math.isclose(found["sum"], found["gradient"], rel_tol=1e-12, abs_tol=1e-15)
        for p in found["paths"]:
            assert math.isclose(p["product"], math.prod(p["partials"]), rel_tol=1e-15)
    assert paths_of(larger, point, "x1")["count"] == 4  # w1*x1, x1*x2 and x1*x1 (twice)


def test_too_many_paths_are_counted_all_and_listed_in_part() -> None:
    lines = ["d1 = x + x"] + [f"d{k} = d{k - 1} + d{k - 1}" for k in range(2, 13)]
    found = paths_of("; ".join(lines), {"x": 1.0}, "x")
    assert found["count"] == 2**12 and len(found["paths"]) == 64 and not found["complete"]
    assert found["gradient"] == 2.0**12 and found["sum"] == 64.0
