"""The playground server's open connections, at most ``limit`` of them, each either reading its
request (since when) or busy answering it.

A thread serves each admitted connection, so the limit caps the threads. A connection that
has not sent its request whole within the deadline is cut; and when a new one arrives with
every place taken, the connection that has waited longest for its request is cut to make
room: clients that trickle their bytes in (or send nothing) cannot keep out one that asks
and waits for its answer. Only when every place is busy answering is the newcomer refused.

>>> import socket
>>> a, b = socket.socketpair()
>>> open_now = Connections(limit=1, deadline=10.0)
>>> open_now.admit(a), open_now.admit(b)  # b takes a's place: a was only waiting
(True, True)
>>> open_now.busy(b); open_now.admit(a)  # b is answering: nobody to make room
False
>>> a.close(); b.close()
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time

LIMIT = 64  # connections served at once (a thread each)


def cut(sock: socket.socket) -> None:
    """Shut a connection, whatever thread is reading it: its reads return at once."""
    with contextlib.suppress(OSError):  # already closed
        sock.shutdown(socket.SHUT_RDWR)


class Connections:
    """The open connections: admitted, reading a request, busy answering, closed."""

    def __init__(self, limit: int = LIMIT, deadline: float = 10.0) -> None:
        self.limit, self.deadline = limit, deadline
        self._lock = threading.Lock()
        self._reading: dict[socket.socket, float] = {}  # connection -> since when
        self._busy: set[socket.socket] = set()

    def __len__(self) -> int:
        with self._lock:
            return len(self._reading) + len(self._busy)

    def admit(self, sock: socket.socket) -> bool:
        """Whether ``sock`` may be served: there is a place, or one was made for it by cutting
        the connection that has waited longest for its request."""
        with self._lock:
            if len(self._reading) + len(self._busy) >= self.limit:
                if not self._reading:
                    return False
                oldest = min(self._reading, key=self._reading.__getitem__)
                del self._reading[oldest]
                cut(oldest)
            self._reading[sock] = time.monotonic()
            return True

    def reading(self, sock: socket.socket) -> None:
        """The next request begins on a kept-alive ``sock``: its deadline runs from now. (The
        first one's ran from its admission; a connection cut meanwhile stays cut.)"""
        with self._lock:
            if sock in self._busy:
                self._busy.discard(sock)
                self._reading[sock] = time.monotonic()

    def busy(self, sock: socket.socket) -> None:
        """The request on ``sock`` has arrived whole: it is answered, not cut."""
        with self._lock:
            if self._reading.pop(sock, None) is not None:
                self._busy.add(sock)

    def close(self, sock: socket.socket) -> None:
        with self._lock:
            self._reading.pop(sock, None)
            self._busy.discard(sock)

    def reap(self) -> None:
        """Cut every connection whose request has not arrived whole within the deadline."""
        now = time.monotonic()
        with self._lock:
            late = [s for s, since in self._reading.items() if now - since > self.deadline]
            for sock in late:
                del self._reading[sock]
                cut(sock)
