"""A store's clock that reads a finite time no date can be made of (hostile43).

A clock reading past year 9999 or before year 1 was taken as it came: a spill at 1e300 (or 2**70, or -1e300)
returned a stub whose handle was gone at once (``now + ttl`` rounds to ``now`` past 2**53 s, so the entry was born
expired and the next sweep deleted it), and an entry that expired under a clock at 3e11 (year 11476) or -1e12 raised
a bare ValueError or OSError from the "expired at <date>" message instead of Expired. Every call now refuses such a
reading with one InvalidArgument naming it, and nothing is written with it.
"""

from __future__ import annotations

import hashlib
import os

import pytest

from scratchfs.api.store import ScratchStore
from scratchfs.foundation.errors import Expired, InvalidArgument


@pytest.mark.parametrize("reading", [1e300, -1e300, 2.0**70, 1e18, 3e11, -1e12])
def test_a_clock_past_the_dates_is_one_typed_error_and_writes_nothing(tmp_path, reading):
    now = {"t": 1_700_000_000.0}
    content = os.urandom(50_000)
    with ScratchStore(tmp_path / "s", clock=lambda: now["t"]) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(content, source_tool="t").handle
        now["t"] = reading
        for call in (lambda: scope.spill(b"y" * 100_000, source_tool="t"), lambda: scope.scratch_write("k", b"v"),
                     lambda: scope.read_range(handle, 0, 10), store.sweep, lambda: store.list_entries_for_run("r")):
            with pytest.raises(InvalidArgument, match="year 1 and year 9999"):
                call()
        now["t"] = 1_700_000_001.0
        assert [e.key for e in store.list_entries_for_run("r")] == [handle]
        data = scope.read_range(handle, 0, len(content)).data
        assert hashlib.sha256(data).digest() == hashlib.sha256(content).digest()
        assert store.sweep().rows_deleted == 0


@pytest.mark.parametrize("start", [-62_135_596_800.0, 253_402_300_799.0 - 30 * 24 * 3600.0 - 20])
def test_an_entry_expired_at_the_edges_of_the_dates_says_when(tmp_path, start):
    """The first and last readings taken still date an expiry: Expired with a UTC date, never a ValueError."""
    now = {"t": start}
    with ScratchStore(tmp_path / "s", clock=lambda: now["t"]) as store:
        scope = store.scope("r", "a")
        scope.scratch_write("k", b"v", ttl=10)
        now["t"] = start + 20
        with pytest.raises(Expired, match=r"expired at \d+-\d\d-\d\dT"):
            scope.scratch_read("k")
