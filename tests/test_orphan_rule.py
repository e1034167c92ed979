"""The one rule for a blob no row names (scratchfs.engine.takeover.OrphanRule), which the fleet sweep, the local
sweep, the segment sweep and fsck go by: keep it, adopt it, remove it as an orphan, or refuse it as stale. Checked
against a plain table of the rule as the README states it ("One owner per prefix"), with the shipped constants:
looked up from ADOPT_AFTER (300 s) or orphan_grace if shorter, within MARGIN_SECONDS + TOMBSTONE_SECONDS (70 min) of
the pairing, a row committed over TOMBSTONE_SECONDS (an hour) ago is stale; removed once older than the grace."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchfs.engine import takeover
from scratchfs.engine.takeover import ADOPT, KEEP, REMOVE, STALE, OrphanRule

HOUR, AFTER, WINDOW = 3600.0, 300.0, 4200.0  # (TOMBSTONE_SECONDS; ADOPT_AFTER; MARGIN_SECONDS + TOMBSTONE_SECONDS)

# (pairing within 70 min, old enough to look up, a previous owner's row names it, that row under an hour old,
#  at least orphan_grace old) -> verdict: adopt or stale only when the first three hold; else by the grace alone
TABLE = {key: (REMOVE if key[4] else KEEP) for key in itertools.product((False, True), repeat=5)}
TABLE.update({(True, True, True, True, past): ADOPT for past in (False, True)})
TABLE.update({(True, True, True, False, past): STALE for past in (False, True)})


def _plain(age: float, grace: float, since: float, committed: float | None) -> str:
    """The table's verdict (finite or infinite numbers: NaN is pinned apart)."""
    return TABLE[(since < WINDOW, age >= min(grace, AFTER), committed is not None,
                  committed is not None and committed < HOUR, age >= grace)]


def test_the_shipped_constants_are_the_tables():
    assert (takeover.TOMBSTONE_SECONDS, takeover.ADOPT_AFTER,
            takeover.MARGIN_SECONDS + takeover.TOMBSTONE_SECONDS) == (HOUR, AFTER, WINDOW)


@pytest.mark.parametrize(("age", "grace", "since", "committed", "verdict"), [
    (299.0, 300.0, 0.0, 10.0, KEEP),  # (too young to look up, or to remove)
    (300.0, 300.0, 0.0, 10.0, ADOPT),
    (300.0, 7200.0, 0.0, 10.0, ADOPT),  # (a grace over the hour: looked up from ADOPT_AFTER on)
    (299.0, 7200.0, 0.0, 10.0, KEEP),
    (1.0, 0.0, 0.0, 10.0, ADOPT),  # (a grace under ADOPT_AFTER: from the grace on)
    (300.0, 300.0, 0.0, None, REMOVE),  # (no previous owner's row names it: an orphan)
    (300.0, 300.0, 0.0, 3599.0, ADOPT),
    (300.0, 300.0, 0.0, 3600.0, STALE),  # (its tombstones may be gone: not adopted)
    (5000.0, 7200.0, 0.0, 3600.0, STALE),  # (stale, kept until the grace: then removed as an orphan)
    (300.0, 300.0, 4199.0, 10.0, ADOPT),
    (300.0, 300.0, 4200.0, 10.0, REMOVE),  # (70 minutes after the pairing: nothing is looked up)
    (300.0, 300.0, math.inf, 10.0, REMOVE),  # (no previous owner)
    (100.0, 300.0, math.inf, None, KEEP),
    (300.0, 300.0, 0.0, math.nan, STALE),  # (a NaN row never adopts)
    (math.nan, 300.0, 0.0, 10.0, KEEP),  # (a NaN age is neither adopted nor removed)
    (300.0, 300.0, math.nan, 10.0, REMOVE),  # (a NaN pairing time adopts nothing)
    (-5.0, -math.inf, 0.0, 10.0, ADOPT),  # (grace -inf: any age, dated ahead too)
    (-5.0, -math.inf, 0.0, None, REMOVE),
])
def test_the_rule_at_its_edges(age, grace, since, committed, verdict):
    assert OrphanRule(grace, since).judge(age, committed) == verdict


finite = st.floats(min_value=-1e7, max_value=1e7, allow_nan=False) | st.sampled_from(
    [0.0, AFTER, HOUR, WINDOW, math.inf, -math.inf])


@given(age=finite, grace=finite.filter(lambda g: g >= 0 or g == -math.inf), since=finite,
       committed=st.none() | finite)
def test_the_rule_is_the_plain_table(age, grace, since, committed):
    rule = OrphanRule(grace, since)
    assert rule.judge(age, committed) == _plain(age, grace, since, committed)
    assert rule.due(age) == (since < WINDOW and age >= min(grace, AFTER))  # (a row committed just now: adopted)


@given(ages=st.lists(st.floats(min_value=0, max_value=1e6), max_size=20), grace=st.floats(0, 1e4))
def test_the_pairing_is_asked_once_and_only_once_an_age_calls_for_it(ages, grace):
    """(Asking is a query of the index: a sweep of a store never taken over, or of young blobs, makes none.)"""
    asked = []
    rule = OrphanRule(grace, lambda: asked.append(1) or 0.0)
    verdicts = [rule.judge(age, 10.0) for age in ages]
    assert len(asked) == (1 if any(age >= min(grace, AFTER) for age in ages) else 0)
    assert verdicts == [_plain(age, grace, 0.0, 10.0) for age in ages]


def test_the_rule_reads_the_modules_constants_when_it_judges(monkeypatch):
    """(The tests shorten ADOPT_AFTER, TOMBSTONE_SECONDS and MARGIN_SECONDS on scratchfs.engine.takeover: the one
    place the sweeps and fsck take them from.)"""
    monkeypatch.setattr(takeover, "ADOPT_AFTER", 1.0)
    monkeypatch.setattr(takeover, "TOMBSTONE_SECONDS", 2.0)
    monkeypatch.setattr(takeover, "MARGIN_SECONDS", 0.0)
    assert OrphanRule(300.0, 1.0).judge(1.0, 1.0) == ADOPT
    assert OrphanRule(300.0, 1.0).judge(1.0, 2.0) == STALE
    assert OrphanRule(300.0, 2.0).judge(1.0, 1.0) == KEEP


@pytest.mark.parametrize("kind", ["s3", "segment"])
def test_the_sweeps_take_the_rules_timing_from_the_one_place(postgres_dsn, pg_schema, s3_env, tmp_path, monkeypatch,
                                                             kind):
    """ADOPT_AFTER shortened on scratchfs.engine.takeover alone (1 s), orphan_grace as shipped (300 s): the fleet
    sweep (an S3 object) and the segment sweep (the records of a segment an old host still holds) look A's late
    writes up from 1 s on. Each kept a copy of the timing (fleet_sweeper.ADOPT_AFTER, segment_sweep's inline
    ``max(cutoff, time.time() - ADOPT_AFTER)``): they waited for 300 s."""
    import time

    from scratchfs import ScratchStore
    from scratchfs.engine import fleet_sweeper, segment_sweep  # noqa: F401 (before the patch: a copy taken at import)
    from tests.services import postgres_url
    from tests.test_fencing import _read, _rebuild
    from tests.test_fencing_adopt_edges import _long_windows

    _long_windows(monkeypatch)
    monkeypatch.setattr(takeover, "ADOPT_AFTER", 1.0)
    blobs, root_b = (s3_env, tmp_path / "b") if kind == "s3" else (None, tmp_path / "a")
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=blobs) as a:
        scope = a.scope("run-1", "agent-1")
        scope.scratch_write("notes", b"first\n")
        _rebuild(new, blobs, tmp_path / ("rebuild" if kind == "s3" else "a"))
        late = scope.spill(b"within the window\n" * (20_000 if kind == "s3" else 1)).handle
        with ScratchStore(root_b, index=new, blobs=blobs) as b:  # (A still running: its segment held)
            time.sleep(1.1)
            b.sweep(full=True)
            assert _read(b, late) == b"within the window\n" * (20_000 if kind == "s3" else 1)


def test_an_index_failure_while_adopting_a_held_segments_records_is_raised_once_closed(tmp_path, monkeypatch):
    """A segment a writer holds is judged for adoption alone (segment_sweep._adopt_held), which closed its two file
    descriptors and raised the index's StorageError into check_segment's handler, which closed them again: an
    OSError (EBADF) instead of the StorageError -- or, in a process with other threads, someone else's descriptor
    closed."""
    import os
    import time

    from scratchfs import ScratchStore
    from scratchfs.engine import segment_sweep
    from scratchfs.engine.segments import SEGMENT_NAME_RE
    from scratchfs.foundation.errors import StorageError

    def failing(*args):
        raise StorageError("the index failed")

    closed: list[tuple[int, int]] = []
    close = segment_sweep._closed

    def counted(fd: int, dir_fd: int) -> None:
        closed.append((fd, dir_fd))
        close(fd, dir_fd)

    with ScratchStore(tmp_path) as store:
        store.scope("run-1", "agent-1").spill(b"a small one\n")  # (a record of this process's held segment)
        where = store.blobs.segment_dir("run-1", "agent-1")
        name = next(n for n in os.listdir(tmp_path / "runs" / where[0] / where[1]) if SEGMENT_NAME_RE.match(n))
        monkeypatch.setattr(segment_sweep, "adopt_named", failing)
        monkeypatch.setattr(segment_sweep, "_closed", counted)
        with pytest.raises(StorageError, match="the index failed"):
            segment_sweep.check_segment(store.index, store.blobs, where, name, OrphanRule(0.0, 0.0, time.time()),
                                        remove=False, adopt=lambda found, at: True)
        assert len(closed) == 1
