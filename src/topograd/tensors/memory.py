"""Keeping freed memory for the next training step, on glibc (Linux).

A training step makes and drops the same arrays every time. glibc's malloc gives the top of
its heap back to the operating system as soon as more than its trim threshold lies free there,
and maps arrays above its mmap threshold afresh; both thresholds start small (128 KiB) and
grow only as far as the largest array freed so far. Dropping a whole graph at the end of a
step frees more than that at once, so the next step gets its memory back page by page, each
page zeroed by the kernel: about 600 page faults per step of the digits' CNN, a third of its
time. PyTorch's own step makes none (its kernels keep their buffers).

So, when the Tensor kind is first imported, the thresholds are fixed where glibc's dynamic
rule would take them for arrays of up to 32 MiB: mapped from 32 MiB (glibc's own ceiling on
64-bit machines), and up to twice that kept free at the top of the heap. What a process holds
at its peak is unchanged; it keeps up to 64 MiB it no longer uses instead of returning it.

Nothing is changed where the user has chosen: ``TOPOGRAD_MALLOC=default``, any of glibc's
``MALLOC_*_`` variables or a ``glibc.malloc`` tunable in the environment; nor off glibc.

>>> MMAP_THRESHOLD >> 20, TRIM_THRESHOLD >> 20
(32, 64)
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Mapping

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters, from glibc's malloc.h
MMAP_THRESHOLD = 32 << 20  # DEFAULT_MMAP_THRESHOLD_MAX on 64-bit glibc
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD  # as glibc's dynamic rule sets it beside the other


def user_has_chosen(environ: Mapping[str, str]) -> bool:
    """Whether the environment sets malloc's behaviour (or asks topograd to leave it)."""
    if environ.get("TOPOGRAD_MALLOC", "") == "default":
        return True
    if "glibc.malloc" in environ.get("GLIBC_TUNABLES", ""):
        return True
    return any(name.startswith("MALLOC_") and name.endswith("_") for name in environ)


def keep_freed_memory() -> bool:
    """Fix glibc's thresholds as the module's doc says; whether they were set."""
    if user_has_chosen(os.environ):
        return False
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):  # raises, or is None, off glibc
            return False
        mallopt = ctypes.CDLL(None).mallopt
    except (ValueError, OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(
        mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    )
