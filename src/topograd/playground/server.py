"""The playground's HTTP server: the standard library's ThreadingHTTPServer on 127.0.0.1.

It serves fifteen packaged files and two API routes, refuses a Host that is not its own (DNS
rebinding), a POST from another origin or of anything but JSON, and answers every bad request
(a garbled or blank request line, a 70 kB URL, too many headers, a header line that is not
NAME: value, an unknown method, a duplicated Host or Content-Length, a Content-Length that is not
ASCII digits) with a JSON error and the same security headers as every page. A request must
arrive whole within a deadline, however slowly its bytes trickle in, and at most LIMIT
connections are served at once (connections.py): slow clients cannot crowd out quick ones.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
import threading
import webbrowser
from email.message import Message
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from .api import MAX_BODY, functions_reply, graph_request
from .connections import LIMIT, Connections

STATIC = {  # path -> (packaged file, content type); nothing else is served
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/format.js": ("format.js", "text/javascript; charset=utf-8"),
    "/graph.js": ("graph.js", "text/javascript; charset=utf-8"),
    "/stepper.js": ("stepper.js", "text/javascript; charset=utf-8"),
    "/labels.js": ("labels.js", "text/javascript; charset=utf-8"),
    "/travel.js": ("travel.js", "text/javascript; charset=utf-8"),
    "/nodes.js": ("nodes.js", "text/javascript; charset=utf-8"),
    "/share.js": ("share.js", "text/javascript; charset=utf-8"),
    "/zoom.js": ("zoom.js", "text/javascript; charset=utf-8"),
    "/chart.js": ("chart.js", "text/javascript; charset=utf-8"),
    "/descent.js": ("descent.js", "text/javascript; charset=utf-8"),
    "/paths.js": ("paths.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
    "/graph.css": ("graph.css", "text/css; charset=utf-8"),
}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


DEADLINE = 10.0  # seconds a request may take to arrive, whole
TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # a header's name (RFC 9110)
CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")  # in a header's value: all but tab
LENGTH = re.compile(r"[0-9]{1,18}")  # a Content-Length: ASCII digits only, no sign


def body_length(header: str) -> int | None:
    """The bytes a Content-Length announces, or None if it is not a number of bytes: ``²`` is
    a digit to Python, but not to HTTP, and 5,000 digits are more than int() reads.

    >>> body_length("42"), body_length("²"), body_length("-1"), body_length("9" * 5000)
    (42, None, None, None)
    """
    header = header.strip(" \t")
    return int(header) if LENGTH.fullmatch(header) else None


def header_fault(headers: Message) -> str:
    """What is wrong with the headers as HTTP writes them, or "" if nothing is."""
    if headers.defects:  # a line without a colon, a colon without a name
        return "a header line is not NAME: value"
    for name, value in headers.items():
        if not TOKEN.fullmatch(name):
            return f"the header name {name[:40]!r} is not a token of HTTP"
        if "\n" in value or "\r" in value:
            return f"the header {name[:40]} is folded over several lines"
        if CONTROL.search(value):
            return f"the header {name[:40]} holds a control character"
    return ""


def _static(name: str) -> bytes:
    return resources.files(__package__).joinpath("static", name).read_bytes()


class Handler(BaseHTTPRequestHandler):
    server_version = "topograd-playground"
    timeout = 10  # seconds a client may take to send its request: no thread waits forever
    protocol_version = "HTTP/1.1"
    default_request_version = "HTTP/1.0"  # a garbled request line still gets a status line

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: dict[str, Any]) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """What the standard library answers itself (a garbled request line, a URL or headers
        too long, an unknown method) as JSON with the security headers, not an HTML page."""
        self.close_connection = True
        if code == HTTPStatus.NOT_IMPLEMENTED and self.command:  # a method nobody serves
            code, message = HTTPStatus.METHOD_NOT_ALLOWED, f"{self.command} is not allowed here"
        if not self.command:  # not even the request line was read: no method to go by
            self.command = ""
        self._json(code, {"error": message or HTTPStatus(code).phrase})

    def handle_one_request(self) -> None:
        """One request; the server cuts the connection if the request has not arrived whole
        within its deadline (a client trickling its bytes in, or one that waits idle on a
        kept-alive connection)."""
        self.server.connections.reading(self.connection)  # type: ignore[attr-defined]
        super().handle_one_request()

    def parse_request(self) -> bool:
        """The standard library's parsing, and a JSON 400 for a blank request line (which it
        would drop without a word)."""
        if not self.raw_requestline.strip():  # type: ignore[attr-defined]
            self.command, self.requestline = "", ""
            self.request_version = self.default_request_version
            self._refuse(400, "the request line is empty")
            return False
        return super().parse_request()

    def _arrived(self) -> None:
        """The request is here whole: it is answered, not cut for being slow."""
        self.server.connections.busy(self.connection)  # type: ignore[attr-defined]

    def _headers_ok(self) -> bool:
        """Every header a NAME: value line, on one line; its own Host, once; at most one
        Content-Length."""
        malformed = header_fault(self.headers)
        if malformed:
            self._refuse(400, malformed)
            return False
        for name in ("Host", "Content-Length"):
            if len(self.headers.get_all(name, [])) > 1:
                self._refuse(400, f"the {name} header is given twice")
                return False
        return self._host_ok()

    def _refuse(self, status: int, message: str) -> None:
        self.close_connection = True
        self._json(status, {"error": message})

    def _own_addresses(self) -> tuple[str, str]:
        """host:port, as the browser names this server."""
        port = self.server.server_port  # type: ignore[attr-defined]
        return f"127.0.0.1:{port}", f"localhost:{port}"

    def _host_ok(self) -> bool:
        if self.headers.get("Host") in self._own_addresses():
            return True
        self._refuse(403, "this server answers only to its own address")
        return False

    def do_GET(self) -> None:
        self._arrived()
        if not self._headers_ok():
            return
        path = self.path.split("?", 1)[0]
        if path == "/api/functions":
            self._json(200, functions_reply())
            return
        if path not in STATIC:
            self._json(404, {"error": f"no such page: {path[:80]}"})
            return
        name, content_type = STATIC[path]
        self._send(200, _static(name), content_type)

    do_HEAD = do_GET  # noqa: N815

    def do_POST(self) -> None:
        if not self._headers_ok():
            return
        origin = self.headers.get("Origin")
        if origin is not None and origin not in [f"http://{a}" for a in self._own_addresses()]:
            self._refuse(403, "this server answers only to its own pages")
            return
        if self.path != "/api/graph":
            self._json(404, {"error": f"no such route: {self.path[:80]}"})
            return
        if self.headers.get_content_type() != "application/json":
            self._refuse(415, "send the body as application/json")
            return
        status, reply = self._read_body()
        self._arrived()
        if status == 200:
            try:
                status, reply = graph_request(reply["body"])
            except Exception as error:  # a bug of ours: still an answer, never a dropped line
                status, reply = 500, {"error": f"internal error: {type(error).__name__}"}
        self._json(status, reply)

    def _read_body(self) -> tuple[int, dict[str, Any]]:
        length = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding") or length is None:
            self.close_connection = True
            return 411, {"error": "send the body with a Content-Length"}
        size = body_length(length)
        if size is None:
            self.close_connection = True
            return 400, {"error": "Content-Length must be a number of bytes (ASCII digits)"}
        if size > MAX_BODY:
            self.close_connection = True  # the body is not read
            return 413, {"error": f"the body is over {MAX_BODY // 1024} kB"}
        try:
            body = self.rfile.read(size)
        except TimeoutError:
            self.close_connection = True
            return 408, {"error": "the body did not arrive in time"}
        if len(body) < size:
            self.close_connection = True
            return 400, {"error": "the body is shorter than its Content-Length"}
        return 200, {"body": body}

    def _refuse_method(self) -> None:
        self._refuse(405, f"{self.command} is not allowed here")

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = _refuse_method  # noqa: N815

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # quiet: the terminal shows the URL, not every request


class _Server(ThreadingHTTPServer):
    """A thread per connection, at most ``connections.limit`` of them (see connections.py)."""

    daemon_threads = True
    request_queue_size = 128  # a burst of connections waits in the queue, not for a SYN retry
    connections: Connections  # set by make_server

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.connections.admit(request):
            busy(request)
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.connections.close(request)

    def service_actions(self) -> None:
        """Between two connections, and twice a second: cut the requests past their deadline."""
        self.connections.reap()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # the client went away mid-answer: nothing to report
        super().handle_error(request, client_address)


def busy(sock: Any) -> None:
    """A 503 in JSON, from the accepting thread, to a connection with no place to be served."""
    body = json.dumps({"error": "the server is busy answering others; try again"}).encode()
    head = [
        "HTTP/1.1 503 Service Unavailable",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        "Connection: close",
        *(f"{name}: {value}" for name, value in SECURITY_HEADERS.items()),
    ]
    sock.settimeout(1.0)  # a client that reads nothing cannot hold the accepting thread
    with contextlib.suppress(OSError):
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + body)


def make_server(
    port: int = 0, deadline: float = DEADLINE, limit: int = LIMIT
) -> ThreadingHTTPServer:
    """A server on 127.0.0.1 (``port`` 0: a free one), not yet serving; each request must
    arrive whole within ``deadline`` seconds, and at most ``limit`` connections are served at
    once."""
    server = _Server(("127.0.0.1", port), Handler)
    server.connections = Connections(limit, deadline)
    return server


def serve(port: int = 0, open_browser: bool = True) -> None:
    """Serve until Ctrl-C; the URL is the first line on stdout."""
    server = make_server(port)
    url = f"http://127.0.0.1:{server.server_port}/"
    print(url, flush=True)
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        server.server_close()
