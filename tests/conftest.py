"""Shared fixtures: a store in a temporary directory, a controllable clock, and the real-data fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from scratchfs import ScratchStore

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
FIXTURE_FILES = sorted(p for p in FIXTURES.iterdir() if p.suffix in {".html", ".json", ".csv", ".txt"})

# a store fixture is shared by the examples of one test on purpose: every spill gets a fresh handle
settings.register_profile("default", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
settings.register_profile("stress", deadline=None, max_examples=2000, suppress_health_check=list(HealthCheck))
settings.load_profile("stress" if os.environ.get("SCRATCHFS_STRESS") else "default")


class FakeClock:
    """A clock that stands still until told to move (epoch seconds)."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(tmp_path: Path, clock: FakeClock):
    with ScratchStore(tmp_path / "store", clock=clock, orphan_grace=0.0) as s:
        yield s


@pytest.fixture
def small_frames_store(tmp_path: Path, clock: FakeClock):
    """A store with 4 KiB frames, so that modest contents span many frames."""
    with ScratchStore(tmp_path / "small", clock=clock, frame_bytes=4096, orphan_grace=0.0) as s:
        yield s


@pytest.fixture
def scope(store):
    return store.scope("run-1", "agent-1")


@pytest.fixture(scope="session")
def fixture_data() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in FIXTURE_FILES}
