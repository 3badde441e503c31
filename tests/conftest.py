import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from topograd.autograd.registry import OPS

# CI draws the same examples on every run; locally, more of them.
settings.register_profile(
    "ci",
    max_examples=200,
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=300, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(autouse=True)
def _registry_as_it_was() -> Iterator[None]:
    """Custom ops a test defines leave the registry with the test."""
    before = dict(OPS)
    yield
    OPS.clear()
    OPS.update(before)
