"""Shared fixtures: the plugin's store, clock and scope under the tests' names, and the real-data fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.services import pg_schema, postgres_dsn, postgres_server, s3_endpoint, s3_env  # noqa: F401

pytest_plugins = ["pytester"]

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
FIXTURE_FILES = sorted(p for p in FIXTURES.iterdir() if p.suffix in {".html", ".json", ".csv", ".txt"})

# a store fixture is shared by the examples of one test on purpose: every spill gets a fresh handle
settings.register_profile("default", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("stress", deadline=None, max_examples=2000, suppress_health_check=list(HealthCheck))
settings.load_profile("stress" if os.environ.get("SCRATCHFS_STRESS") else "default")


# The store, clock and scope fixtures come from scratchfs's own pytest plugin (scratchfs.pytest_plugin, installed
# with the package): these names are the ones the tests were written with.


@pytest.fixture
def clock(scratch_clock):
    return scratch_clock


@pytest.fixture
def store(scratch_store):
    return scratch_store


@pytest.fixture
def small_frames_store(scratch_store_factory):
    """A store with 4 KiB frames, so that modest contents span many frames."""
    return scratch_store_factory("small", frame_bytes=4096)


@pytest.fixture
def scope(scratch_scope):
    return scratch_scope


@pytest.fixture(scope="session")
def fixture_data() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in FIXTURE_FILES}
