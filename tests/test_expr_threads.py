"""Expressions parsed in several threads at once, as the playground's server does beside
its caller. CPython 3.11 keeps ast.parse's tree-building state per interpreter: a thread
switch inside it (here forced by collections whose finalizers run Python) made another
thread's parse fail with "SystemError: AST constructor recursion depth mismatch"
(python/cpython#106905; seen in this suite). topograd parses one text at a time."""

from __future__ import annotations

import gc
import sys
import threading

from topograd.expr import parse

EXPR = " + ".join(f"a{i}*b{i}" for i in range(60))


class Finalized:
    """An object whose finalizer runs Python, freed by the cyclic collector."""

    def __del__(self) -> None:
        total = 0
        for i in range(50):
            total += i


def test_expressions_parse_in_many_threads_at_once() -> None:
    errors: list[BaseException] = []

    def work() -> None:
        for _ in range(150):
            junk = [Finalized() for _ in range(20)]
            for j in junk:
                j.cycle = j  # type: ignore[attr-defined]
            del junk
            try:
                assert len(parse(EXPR).names) == 120
            except Exception as error:  # (SystemError among them)
                errors.append(error)
                return

    interval, threshold = sys.getswitchinterval(), gc.get_threshold()
    sys.setswitchinterval(1e-6)
    gc.set_threshold(50)
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
        gc.set_threshold(*threshold)
    assert errors == []
