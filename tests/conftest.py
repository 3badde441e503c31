import os
from collections.abc import Iterator

import pytest
import torch
from hypothesis import HealthCheck, settings

import topograd as tg
from topograd.autograd.registry import OPS

# The published programs test_programs.py runs as data (each in a process of its own), never
# imported by pytest's doctest collection, which would run them
collect_ignore_glob = ["programs/*"]

# Hypothesis: `make test` draws 50 examples per property (the same ones on every CI run, fresh
# ones on a developer's machine); `make test-deep` (--hypothesis-profile=deep) draws 1,000 fresh
# ones, for the search that finds the rare case before a user does.
settings.register_profile(
    "topograd",
    max_examples=50,
    derandomize=bool(os.environ.get("CI")),
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "deep",
    max_examples=1000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("topograd")


@pytest.fixture(autouse=True)
def _registry_as_it_was() -> Iterator[None]:
    """Custom ops a test defines leave the registry with the test."""
    before = dict(OPS)
    yield
    OPS.clear()
    OPS.update(before)


@pytest.fixture(autouse=True)
def _generators_seeded() -> None:
    """Every test starts from the same draws, whichever tests a worker ran before it: a layer's
    initial weights (topograd's and PyTorch's default generators) do not depend on the order
    pytest-xdist hands out the tests, so a failure is the same on the next run."""
    tg.manual_seed(0)
    torch.manual_seed(0)
