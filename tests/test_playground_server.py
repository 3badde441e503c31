"""The playground's server under faults made real: malformed headers and request lines sent as
raw bytes on a socket, each answered with a JSON 4xx (never a traceback, never a connection
dropped without a word); and 300 slow connections that cannot crowd out a quick request."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import statistics
import threading
import time
from collections.abc import Iterator

import pytest

from topograd.playground.connections import LIMIT
from topograd.playground.server import make_server


@pytest.fixture
def port() -> Iterator[int]:
    server = make_server(0, deadline=20.0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_port
    server.shutdown()
    server.server_close()


def exchange(port: int, raw: bytes) -> tuple[int, bytes, dict[str, str]]:
    """Send the bytes, read the reply to its end: its status, head and JSON body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    assert data, "the connection was dropped without a reply"
    head, _, payload = data.partition(b"\r\n\r\n")
    return int(head.split(b" ")[1]), head, json.loads(payload)


def post(port: int, headers: str, body: bytes = b"{}") -> bytes:
    return (
        f"POST /api/graph HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\n{headers}\r\n"
    ).encode() + body


def get(port: int, headers: str) -> bytes:
    return f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{headers}\r\n".encode()


MALFORMED = [  # (a request of the port, the status, words of the error)
    (lambda p: post(p, "Content-Length: \u00b2\r\n"), 400, "ASCII digits"),  # as UTF-8
    (lambda p: post(p, "").replace(b"json\r\n", b"json\r\nContent-Length: \xb2\r\n"), 400, "ASCII"),
    (lambda p: post(p, "Content-Length: \u0663\r\n"), 400, "ASCII digits"),  # Arabic-Indic 3
    (lambda p: post(p, "Content-Length: " + "9" * 5000 + "\r\n"), 400, "ASCII digits"),
    (lambda p: post(p, "Content-Length: " + "0" * 4999 + "2\r\n"), 400, "ASCII digits"),
    (lambda p: post(p, "Content-Length: -2\r\n"), 400, "ASCII digits"),
    (lambda p: post(p, "Content-Length: +2\r\n"), 400, "ASCII digits"),
    (lambda p: post(p, "Content-Length: 0x2\r\n"), 400, "ASCII digits"),
    (lambda p: post(p, "Content-Length: 2 2\r\n"), 400, "ASCII digits"),
    (lambda p: post(p, "Content-Length: \r\n"), 400, "ASCII digits"),
    (lambda p: post(p, "Content-Length: 70000\r\n", b""), 413, "64 kB"),
    (lambda p: post(p, "Content-Length: 999999999999999999\r\n", b""), 413, "64 kB"),
    (lambda p: post(p, ""), 411, "Content-Length"),  # absent: Length Required
    (lambda p: get(p, "Garbage\r\n"), 400, "NAME: value"),
    (lambda p: get(p, "Bad Name: 1\r\n"), 400, "NAME: value"),
    (lambda p: get(p, ": no name\r\n"), 400, "NAME: value"),
    (lambda p: get(p, "X-A: 1\r\n folded\r\n"), 400, "folded"),
    (lambda p: get(p, "X-A\x01: 1\r\n"), 400, "NAME: value"),
    (lambda p: get(p, "X-\u00e9: 1\r\n"), 400, "NAME: value"),
    (lambda p: get(p, "X(A): 1\r\n"), 400, "not a token"),
    (lambda p: get(p, "X-A: 1\x00 2\r\n"), 400, "control character"),
    (lambda p: b"\r\n", 400, "request line is empty"),
    (lambda p: b"  \r\n\r\n", 400, "request line is empty"),
    (lambda p: b"POST /\r\n\r\n", 400, "Bad HTTP/0.9 request type"),
    (lambda p: b"GET /\r\n\r\n", 403, "its own address"),  # HTTP/0.9 has no Host
    (lambda p: b"GET / HTTP/1.1 extra\r\n\r\n", 400, "Bad request"),
    (lambda p: b"GET / HTTP/x.y\r\n\r\n", 400, "Bad request version"),
    (lambda p: b"GET / HTTP/2.0\r\n\r\n", 505, "Invalid HTTP version"),
    (lambda p: b"\xff\xfe\xfd / HTTP/1.1\r\n\r\n", 405, "is not allowed"),
    (lambda p: b"GET / HTTP/1.1\r\nX: " + b"a" * 70_000 + b"\r\n\r\n", 431, "Line too long"),
]


@pytest.mark.parametrize(("make", "status", "words"), MALFORMED)
def test_every_malformed_request_gets_a_json_error(port, make, status, words) -> None:  # type: ignore[no-untyped-def]
    got, head, reply = exchange(port, make(port))
    assert (got, words in reply["error"]) == (status, True), reply
    assert b"Content-Type: application/json" in head and b"Content-Security-Policy" in head
    assert b"Traceback" not in head
    ordinary(port)  # still serving


def ordinary(port: int) -> float:
    """The seconds a plain request for the functions takes, from connecting to the last byte."""
    start = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/api/functions", headers={"Host": f"127.0.0.1:{port}"})
    reply = connection.getresponse()
    assert reply.status == 200 and json.loads(reply.read())["functions"]
    connection.close()
    return time.monotonic() - start


def test_300_slow_connections_do_not_crowd_out_a_quick_request(port: int) -> None:
    """300 connections held open, half sending nothing, half a request a byte at a time: the
    server's threads stay within its limit, and ordinary requests are answered within 1 s
    (the median of five, on a machine that other tests share)."""
    before = threading.active_count()  # this thread and the server's loop
    slow = []
    for k in range(300):
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.setblocking(False)
        slow.append((sock, k % 2 == 1))
    threads_at_peak = threading.active_count()
    stop = threading.Event()

    def trickle() -> None:
        while not stop.is_set():
            for sock, talks in slow:
                if talks:
                    with contextlib.suppress(OSError):  # cut to make room: as meant
                        sock.send(b"G")
            stop.wait(0.05)

    trickling = threading.Thread(target=trickle, daemon=True)
    trickling.start()
    try:
        time.sleep(0.5)
        threads_at_peak = max(threads_at_peak, threading.active_count())
        times = [ordinary(port) for _ in range(5)]
        threads_at_peak = max(threads_at_peak, threading.active_count())
    finally:
        stop.set()
        trickling.join()
        for sock, _ in slow:
            sock.close()
    print(f"beside 300 slow connections: {times} s, {threads_at_peak} threads at most")
    assert statistics.median(times) < 1.0, times
    serving = threads_at_peak - before - 1  # less the trickling thread
    # a thread per admitted connection, not 300; a connection cut to make room for another
    # may still be unwinding its thread when the newcomer's starts (seen once: 65)
    assert serving <= LIMIT + 2, threads_at_peak


def test_a_connection_cut_for_room_sees_its_end(port: int) -> None:
    """The oldest connection still waiting for its request is the one cut to make room."""
    first = socket.create_connection(("127.0.0.1", port), timeout=10)
    others = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(LIMIT)]
    try:
        assert first.recv(100) == b""  # cut, within recv's 10 s (at once, in fact)
        ordinary(port)
    finally:
        for sock in [first, *others]:
            sock.close()
