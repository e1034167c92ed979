"""The scratchfs pytest plugin (installed with the package through the ``pytest11`` entry point).

Fixtures:

* ``scratch_clock``: a :class:`ScratchClock`, the store's clock in tests; it stands still until told to move
  (``scratch_clock.advance(3600)``), so TTL expiry and sweeps are tested without sleeping.
* ``scratch_store``: a :class:`~scratchfs.ScratchStore` in ``tmp_path`` on that clock, closed after the test. Its
  ``orphan_grace`` is 0 (a sweep removes files with no row at once). Pass other settings with the marker
  ``@pytest.mark.scratch_store(frame_bytes=4096, ...)``. It is the embedded store (a SQLite index and files in
  ``tmp_path``) whatever the environment says: ``$SCRATCHFS_INDEX``, ``$SCRATCHFS_BLOBS`` and
  ``$SCRATCHFS_SEGMENT_ENTRY_BYTES`` are not read (a test on a clock of 2100 would otherwise find a shared fleet
  store's entries expired, and its sweep delete them); give ``index=``/``blobs=`` in the marker to test on a fleet.
* ``scratch_scope``: ``scratch_store.scope("run-1", "agent-1")``; other ids with
  ``@pytest.mark.scratch_scope("run", "agent")``.

A marker with a bad setting or id (``default_ttl=0``, a misspelt ``spill_treshold_bytes``: the message names the
closest setting) fails its test's setup with one line saying so (``pytest.fail(..., pytrace=False)``), no traceback.
* ``scratch_store_factory``: ``factory(name="extra", **settings)`` opens more stores in ``tmp_path`` on the same
  clock (each closed after the test; embedded, as ``scratch_store``, unless ``index=``/``blobs=`` are given).

To start a test from recorded tool outputs, spill a folder of them with :func:`scratchfs.loader.load_dir`
(``scratchfs load DIR --run R --agent A`` from a shell).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from scratchfs.api.scope import Scope
from scratchfs.api.store import ScratchStore
from scratchfs.foundation.errors import InvalidArgument
from scratchfs.foundation.limits import SEGMENT_ENTRY_BYTES

DEFAULT_START = 4_102_444_800.0
"""Where :class:`ScratchClock` starts, epoch seconds (2100-01-01T00:00:00Z): far enough ahead that what a test wrote
is still live on the wall clock when a person reads the store it left behind (``scratchfs --root .../scratchfs ls``,
which reads with the wall clock), for decades."""
DEFAULT_RUN_ID = "run-1"
DEFAULT_AGENT_ID = "agent-1"


class ScratchClock:
    """A clock that stands still until told to move; call it for the time (epoch seconds).

    Attributes:
        now: the current time, epoch seconds.
    """

    def __init__(self, start: float = DEFAULT_START) -> None:
        self.now = float(start)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        """Move the clock forward (or back, for a negative value) by ``seconds``; return the new time."""
        self.now += seconds
        return self.now

    def set(self, epoch_seconds: float) -> None:
        """Set the time."""
        self.now = float(epoch_seconds)

    def __repr__(self) -> str:
        return f"ScratchClock(now={self.now!r})"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "scratch_store(**settings): ScratchStore settings for the scratch_store "
                                       "fixture (e.g. frame_bytes=4096)")
    config.addinivalue_line("markers", "scratch_scope(run_id, agent_id): the ids of the scratch_scope fixture")


@pytest.fixture
def scratch_clock() -> ScratchClock:
    """The store clock of this test (see :class:`ScratchClock`)."""
    return ScratchClock()


@pytest.fixture
def scratch_store_factory(tmp_path: Path, scratch_clock: ScratchClock) -> Iterator[Callable[..., ScratchStore]]:
    """``factory(name="extra", **settings)``: a store at ``tmp_path/name`` on ``scratch_clock`` (``orphan_grace=0``
    unless given), embedded whatever the environment says (see the module docstring), closed after the test."""
    stores: list[ScratchStore] = []

    def factory(name: str = "extra", **settings: Any) -> ScratchStore:
        settings.setdefault("clock", scratch_clock)
        settings.setdefault("orphan_grace", 0.0)
        for where in ("index", "blobs"):  # the embedded index and files, whatever $SCRATCHFS_INDEX/_BLOBS say
            settings.setdefault(where, "")
        if "settings" not in settings:  # nor $SCRATCHFS_SEGMENT_ENTRY_BYTES: the test's store is the same anywhere
            settings.setdefault("segment_entry_bytes", SEGMENT_ENTRY_BYTES)
        store = ScratchStore(tmp_path / name, **settings)
        stores.append(store)
        return store

    yield factory
    for store in stores:
        store.close()


@pytest.fixture
def scratch_store(request: pytest.FixtureRequest, scratch_store_factory: Callable[..., ScratchStore]) -> ScratchStore:
    """A store in ``tmp_path`` on ``scratch_clock``, closed after the test; settings from
    ``@pytest.mark.scratch_store(...)``."""
    marker = request.node.get_closest_marker("scratch_store")
    if marker is not None and marker.args:
        pytest.fail(f"@pytest.mark.scratch_store takes settings by name (frame_bytes=4096), not {marker.args!r}",
                    pytrace=False)
    try:
        return scratch_store_factory("scratchfs", **(marker.kwargs if marker else {}))
    except InvalidArgument as exc:  # a bad setting is the marker's fault: one line at the test, no traceback
        bad = str(exc)
    pytest.fail(f"@pytest.mark.scratch_store: {bad}", pytrace=False)  # (outside the except: no chained error)


@pytest.fixture
def scratch_scope(request: pytest.FixtureRequest, scratch_store: ScratchStore) -> Scope:
    """``scratch_store.scope("run-1", "agent-1")``, or the ids of ``@pytest.mark.scratch_scope(run, agent)``."""
    marker = request.node.get_closest_marker("scratch_scope")
    if marker is not None and (len(marker.args) != 2 or marker.kwargs):
        pytest.fail(f"@pytest.mark.scratch_scope takes a run id and an agent id, (\"run-1\", \"agent-1\"), not "
                    f"{marker.args!r}" + (f" and {marker.kwargs!r}" if marker.kwargs else ""), pytrace=False)
    run_id, agent_id = marker.args if marker else (DEFAULT_RUN_ID, DEFAULT_AGENT_ID)
    try:
        return scratch_store.scope(run_id, agent_id)
    except InvalidArgument as exc:
        bad = str(exc)
    pytest.fail(f"@pytest.mark.scratch_scope: {bad}", pytrace=False)


__all__ = ["ScratchClock"]
