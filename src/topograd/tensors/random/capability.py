"""Which of its CPU kernels PyTorch runs here, as far as the draws differ by it: the AVX2 ones
(on AVX-512 machines too), compiled with fused multiply-adds and drawing float32 normal numbers
with a vectorised Cephes logarithm and sine; or the default ones (``ATEN_CPU_CAPABILITY=default``,
or an x86-64 CPU without AVX2 and FMA), with separate multiplies and adds and the C library's
float32 ``logf``, ``sinf`` and ``cosf``. Elsewhere than x86-64, topograd draws the AVX2
kernels' numbers (PyTorch's own may then differ in the last bits).

>>> isinstance(vectorised(), bool)
True
"""

from __future__ import annotations

import functools
import os
import platform


@functools.cache
def _cpu_has_avx2_and_fma() -> bool:
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return True
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            flags = next((line for line in info if line.startswith("flags")), "").split()
    except OSError:  # (no /proc: assume the AVX2 of any x86-64 CPU of the last decade)
        return True
    return not flags or ("avx2" in flags and "fma" in flags)


def vectorised() -> bool:
    """Whether PyTorch runs its AVX2 kernels here (read at each call, as the environment
    variable may be set after import, before PyTorch reads it)."""
    if os.environ.get("ATEN_CPU_CAPABILITY") == "default":
        return False
    return _cpu_has_avx2_and_fma()
