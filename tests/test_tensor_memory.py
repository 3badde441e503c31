"""The Tensor kind keeps a training step's freed memory for the next step (tensors/memory.py):
page faults counted in fresh processes, the same steps with glibc's thresholds fixed by
topograd and with glibc's own (``TOPOGRAD_MALLOC=default``)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from topograd.tensors.memory import user_has_chosen

# A step that makes six arrays of 2 MiB and drops them all at its end, as a training step drops
# its graph; the page faults of 20 such steps after 3 to warm up.
STEPS = """
import resource
import numpy as np
import topograd.tensors

def step():
    arrays = [np.ones(1 << 18) for _ in range(6)]
    del arrays

for _ in range(3):
    step()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):
    step()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""

glibc = pytest.mark.skipif(
    not hasattr(os, "confstr") or "CS_GNU_LIBC_VERSION" not in os.confstr_names,
    reason="mallopt's thresholds are glibc's",
)


def faults(**environ: str) -> int:
    env = {k: v for k, v in os.environ.items() if not user_has_chosen({k: v})}
    out = subprocess.run(
        [sys.executable, "-c", STEPS], env={**env, **environ}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return int(out.stdout)


@glibc
def test_a_step_gets_its_memory_back_without_page_faults() -> None:
    pages = 20 * 6 * (2 << 20) // 4096  # every page of every step, were each faulted afresh
    assert faults(TOPOGRAD_MALLOC="default") > pages // 2  # glibc's own: given back, faulted
    assert faults() < pages // 100  # kept: the same pages serve every step


def test_a_users_own_malloc_settings_are_left_alone() -> None:
    assert user_has_chosen({"TOPOGRAD_MALLOC": "default"})
    assert user_has_chosen({"MALLOC_TRIM_THRESHOLD_": "0"})
    assert user_has_chosen({"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=0"})
    assert not user_has_chosen({"TOPOGRAD_MALLOC": "", "GLIBC_TUNABLES": "glibc.rtld.x=1"})
    assert not user_has_chosen({"MALLOC": "1"})  # not one of glibc's variables
