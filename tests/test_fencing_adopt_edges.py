"""Edges of the adoption of an old host's writes after a takeover (scratchfs.engine.takeover): fsck's view of them,
fsck --repair on local files, an orphan_grace over the tombstones' hour. Real PostgreSQL and S3 API servers."""

from __future__ import annotations

import re
import time

import pytest
from click.testing import CliRunner

from scratchfs import ScratchStore
from scratchfs.cli import main
from scratchfs.engine import blob_file, local_blobs, s3_blobs
from scratchfs.foundation.errors import NotFound
from tests.services import postgres_url
from tests.test_fencing import _read, _rebuild


def _long_windows(monkeypatch) -> None:
    monkeypatch.setattr(s3_blobs, "OWNER_CHECK_SECONDS", 3600.0)  # (A's writes within the window, however slow)
    monkeypatch.setattr(local_blobs, "LOCAL_CHECK_SECONDS", 3600.0)
    monkeypatch.setattr(blob_file, "LOCAL_CHECK_SECONDS", 3600.0)


def _late_writes(postgres_dsn, pg_schema, s3_env, tmp_path, files: bool, small: bool = False) -> tuple:
    """A host of index A writes a key, A's blobs are rebuilt into index B (a takeover), then A's host, within its
    window, spills a large write (and, with ``small``, a record of its segment): ``(blobs, B's root, B's index URL,
    the spills' handles)``, on local files (``files``) or S3."""
    blobs, root_b = (None, tmp_path / "a") if files else (s3_env, tmp_path / "b")
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=blobs) as a:
        a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
        _rebuild(new, blobs, root_b if files else tmp_path / "rebuild")
        handles = [a.scope("run-1", "agent-1").spill(b"within the window\n" * 20_000).handle]
        if small:
            handles.append(a.scope("run-1", "agent-1").spill(b"a small one\n").handle)
    return blobs, root_b, new, tuple(handles)


def test_fsck_repair_on_local_files_adopts_an_old_hosts_segment_entries(postgres_dsn, pg_schema, tmp_path,
                                                                       monkeypatch):
    """(Pins what a review doubted: fsck --repair of a PostgreSQL index with local files adopts an old host's small
    writes after a takeover, entries of its segment, as the sweep does -- ``blob_files`` lists a segment's records.)"""
    from scratchfs.api.inspector import fsck

    _long_windows(monkeypatch)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old) as a:
        scope = a.scope("run-1", "agent-1")
        small = _writes_after_a_takeover(scope, new, tmp_path / "a")
    with ScratchStore(tmp_path / "a", index=new, orphan_grace=0) as b:
        time.sleep(1.1)
        assert fsck(b, repair=True).problems == []
        assert _read(b, small) == b"a small one\n"
        assert b.scope("run-1", "agent-1").scratch_read("fresh") == b"a new key\n"


@pytest.mark.parametrize("files", [False, True])
def test_plain_fsck_lists_an_old_hosts_writes_as_adoptable(postgres_dsn, pg_schema, s3_env, tmp_path, monkeypatch,
                                                           files):
    """fsck without --repair listed an old host's write after a takeover (which the sweep and fsck --repair adopt)
    as an orphan -- garbage the sweep removes, a problem that remains (exit 3) once older than orphan_grace. It is
    listed as adoptable now: the sweep's, no problem that remains."""
    from scratchfs.api.inspector import fsck

    _long_windows(monkeypatch)
    blobs, root_b, new, (late, small) = _late_writes(postgres_dsn, pg_schema, s3_env, tmp_path, files, small=True)
    with ScratchStore(root_b, index=new, blobs=blobs, orphan_grace=0) as b:
        time.sleep(1.1)
        report = fsck(b)
        assert [p.kind for p in report.problems] == ["adoptable"] * 2  # (not orphans to remove, nor dead bytes)
        assert report.problems[0].sweeps and report.clean and report.counts()["adoptable"] == 2
        assert "before a takeover" in report.problems[0].detail
        told = CliRunner().invoke(main, ["fsck", "--root", str(root_b)], env={"SCRATCHFS_INDEX": new,
                                                                                "SCRATCHFS_BLOBS": blobs})
        assert told.exit_code == 0, told.output  # (no problem that remains)
        assert "adoptable 2 (an old host's writes after a takeover: the sweep adopts them)" in told.output
        assert [p.kind for p in fsck(b, repair=True).problems] == []  # (adopted, as the sweep does)
        assert _read(b, late) == b"within the window\n" * 20_000
        assert _read(b, small) == b"a small one\n"



@pytest.mark.parametrize("files", [False, True])
def test_fsck_repair_leaves_a_young_old_host_write_and_adopts_it_once_old(postgres_dsn, pg_schema, s3_env, tmp_path,
                                                                        monkeypatch, files):
    """fsck --repair adopted an old host's write after a takeover at any age: a blob a host of the old index was
    still writing (or deletes next, within its window) was adopted at once -- the race the sweeps avoid by looking
    only at orphans ``min(orphan_grace, ADOPT_AFTER)`` old. fsck goes by the same rule: the young write is listed as
    adoptable with when it is judged, left alone (no row, its blob kept); 400 s later the same repair adopts it."""
    import os
    import types

    from scratchfs.api.inspector import fsck
    from scratchfs.engine import backends

    _long_windows(monkeypatch)
    blobs, root_b, new, (late,) = _late_writes(postgres_dsn, pg_schema, s3_env, tmp_path, files)
    with ScratchStore(root_b, index=new, blobs=blobs) as b:  # (orphan_grace and ADOPT_AFTER: 300 s)
        for repair in (True, False):
            problems = fsck(b, repair=repair).problems
            with pytest.raises(NotFound):  # (not adopted: no row yet)
                _read(b, late)
            assert [(p.kind, p.sweeps, p.repaired) for p in problems] == [("adoptable", True, False)]
            wait = re.search(r"judged for adoption in (\d+) s", problems[0].detail)
            assert wait and 290 <= int(wait[1]) <= 300 and "too young to judge" in problems[0].detail
        if files:
            for path in (tmp_path / "a" / "runs").rglob("*.zst"):
                os.utime(path, (path.stat().st_atime - 400, path.stat().st_mtime - 400))
        else:  # (an object's LastModified is the server's: the clock that ages it is moved on instead)
            clock = types.SimpleNamespace(**{k: getattr(time, k) for k in dir(time) if not k.startswith("_")})
            clock.time = lambda: time.time() + 400
            monkeypatch.setattr(backends, "time", clock)
        (due,) = fsck(b).problems
        assert due.kind == "adoptable" and "too young" not in due.detail
        assert fsck(b, repair=True).problems == []  # (adopted, as the sweep does)
        assert _read(b, late) == b"within the window\n" * 20_000


def _writes_after_a_takeover(scope, new: str, root) -> str:
    """In the old host's ``scope`` (under ``root``): a key written, the index rebuilt into ``new``, then a small
    spill and the key ``fresh`` written late; the spill's handle."""
    scope.scratch_write("notes", b"first\n")
    _rebuild(new, None, root)
    small = scope.spill(b"a small one\n").handle
    scope.scratch_write("fresh", b"a new key\n")
    return small


def _hours_pass(monkeypatch, dsn: str, schemas: list[str], root, seconds: float) -> None:
    """``seconds`` pass: every time the index schemas record (rows, pairings, tombstones) that much earlier, every
    blob and segment file under ``root`` last modified that much earlier, and the fleet sweep's clock (which dates
    objects) that much later."""
    import os
    import types

    import psycopg

    from scratchfs.engine import backends, takeover

    with psycopg.connect(dsn, autocommit=True) as conn:
        for name in schemas:
            conn.execute(f'UPDATE "{name}".entries SET created_at = created_at - %(s)s, '
                         'expires_at = expires_at - %(s)s',
                         {"s": seconds})
            conn.execute(f'UPDATE "{name}".store SET paired_at = paired_at - %(s)s', {"s": seconds})
            conn.execute(f'UPDATE "{name}".gone SET at = at - %(s)s', {"s": seconds})
            conn.execute(f'UPDATE "{name}".scope_tombstones SET at = at - %(s)s, marked = marked - %(s)s',
                         {"s": seconds})
    for path in (root / "runs").rglob("*"):
        if path.is_file():
            st = path.stat()
            os.utime(path, (st.st_atime - seconds, st.st_mtime - seconds))
    clock = types.SimpleNamespace(**{k: getattr(time, k) for k in dir(time) if not k.startswith("_")})
    clock.time = lambda: time.time() + seconds
    monkeypatch.setattr(backends, "time", clock)
    takeover._owners.clear()  # (the pairing times remembered for a minute)


def test_plain_fsck_lists_an_old_hosts_write_too_old_to_adopt_as_an_orphan(postgres_dsn, pg_schema, s3_env,
                                                                           tmp_path, monkeypatch):
    """An old host's write committed over the tombstones' hour ago (``stale``) is refused by the sweep, which removes
    it as an orphan; plain fsck listed it as adoptable ('the sweep adopts it') in the 20 minutes the takeover's
    window (MARGIN_SECONDS either side) still looked it up. The hour is 1 s here."""
    from scratchfs.api.inspector import fsck
    from scratchfs.engine import takeover

    _long_windows(monkeypatch)
    monkeypatch.setattr(takeover, "TOMBSTONE_SECONDS", 1.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=s3_env) as a:
        a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
        _rebuild(new, s3_env, tmp_path / "rebuild")
        late = a.scope("run-1", "agent-1").spill(b"within the window\n" * 20_000).handle
    with ScratchStore(tmp_path / "b", index=new, blobs=s3_env, orphan_grace=0) as b:
        time.sleep(1.1)
        assert [p.kind for p in fsck(b).problems] == ["orphaned"]
        assert b.sweep(full=True).orphans_removed == 1  # (what fsck says: removed, not adopted)
        with pytest.raises(NotFound):
            _read(b, late)


@pytest.mark.parametrize("kind", ["s3", "file", "segment"])
def test_a_key_deleted_after_an_old_hosts_write_stays_deleted_with_an_orphan_grace_over_the_hour(
        postgres_dsn, pg_schema, s3_env, tmp_path, monkeypatch, kind):
    """orphan_grace over the hour the tombstones last: A (the old schema) overwrites a key after the takeover, B
    (the new one) deletes it after that. The sweep looked at A's orphan only once older than the grace (S3 objects,
    segments), or looked at it at once and kept it, refused as deleted, until then (a file): by then B's tombstone
    was forgotten, and A's value was adopted -- the deleted key back. An orphan is now looked at for adoption
    from ADOPT_AFTER on (300 s as shipped, 1 s here), and not once the tombstones of the writes it could adopt may
    be gone (takeover.adopting, stale); A's new key, adopted within the hour, stays."""
    from scratchfs import NotFound
    from scratchfs.engine import takeover

    _long_windows(monkeypatch)
    monkeypatch.setattr(takeover, "ADOPT_AFTER", 1.0)  # (the one place the sweeps take it from)
    blobs, root_b = (s3_env, tmp_path / "b") if kind == "s3" else (None, tmp_path / "a")
    size = 1 if kind == "segment" else 20_000
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old, blobs=blobs) as a:
        scope = a.scope("run-1", "agent-1")
        scope.scratch_write("notes", b"first\n" * 20_000)
        _rebuild(new, blobs, tmp_path / ("rebuild" if kind == "s3" else "a"))
        scope.scratch_write("notes", b"second, in A\n" * size, ttl=86_400)
        scope.scratch_write("fresh", b"a new key\n" * size, ttl=86_400)
    with ScratchStore(root_b, index=new, blobs=blobs, orphan_grace=7200) as b:
        mine = b.scope("run-1", "agent-1")
        assert mine.scratch_read("notes") == b"first\n" * 20_000
        assert mine.scratch_delete("notes")  # (after A's write: the key stays deleted)
        time.sleep(1.1)
        b.sweep(full=True)  # (a sweep of the hour after the takeover)
        _hours_pass(monkeypatch, postgres_dsn, [pg_schema, pg_schema + "_b"], root_b, 7300.0)
        b.sweep(full=True)
        with pytest.raises(NotFound):
            mine.scratch_read("notes")
        assert mine.scratch_read("fresh") == b"a new key\n" * size


def test_two_takeovers_within_the_margin_keep_both_old_indexes_writes(postgres_dsn, pg_schema, s3_env, tmp_path,
                                                                      monkeypatch):
    """A second takeover within MARGIN_SECONDS of the first (B's hosts lost before B's sweep adopted A's writes
    after the first): C's rebuild restores A's late writes (their objects are there, bound), and C's sweep adopts
    B's late writes through B's rows; both A and B are C's previous owners. (Pins what a review asked about.)"""
    from scratchfs.engine.pairing import location_of
    from scratchfs.engine.takeover import previous_owners

    _long_windows(monkeypatch)
    first, second, third = (postgres_url(postgres_dsn, pg_schema + tail) for tail in ("", "_b", "_c"))
    with ScratchStore(tmp_path / "a", index=first, blobs=s3_env) as a:
        a.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
        _rebuild(second, s3_env, tmp_path / "rebuild")
        from_a = a.scope("run-1", "agent-1").spill(b"A's, after the first takeover\n" * 3000).handle
    with ScratchStore(tmp_path / "b", index=second, blobs=s3_env) as b:
        b.scope("run-1", "agent-1").scratch_write("notes", b"B's, before the second\n")
        time.sleep(0.05)
        _rebuild(third, s3_env, tmp_path / "rebuild2")
        b.scope("run-1", "agent-1").scratch_write("notes", b"B's, after the second\n")
        from_b = b.scope("run-1", "agent-1").spill(b"B's, after the second takeover\n" * 3000).handle
    with ScratchStore(tmp_path / "c", index=third, blobs=s3_env, orphan_grace=0) as c:
        assert previous_owners(c.index, location_of(s3_env))[1] == [pg_schema, pg_schema + "_b"]
        time.sleep(1.1)
        c.sweep(full=True)
        assert _read(c, from_a) == b"A's, after the first takeover\n" * 3000
        assert _read(c, from_b) == b"B's, after the second takeover\n" * 3000
        assert c.scope("run-1", "agent-1").scratch_read("notes") == b"B's, after the second\n"
        assert c.sweep(full=True).orphans_removed == 0


def test_an_index_never_taken_over_stops_asking_a_schema_paired_before_it(postgres_dsn, pg_schema, tmp_path):
    """Every PostgreSQL index with local files records the same location, so an index paired after another of the
    same database, on a root of its own and never taken over, counted that one as a previous owner: each of its
    sweeps looked the orphans of every directory up in the other's rows, forever. Since no row of the window can
    be adopted once its tombstones may be gone, nothing is looked up past MARGIN_SECONDS + TOMBSTONE_SECONDS
    after the pairing (2 hours back here). (Schema version 5 records what a pairing took over: an index paired
    without a takeover has no previous owner at all; one paired before version 5 -- ``took_over`` NULL -- keeps the
    rule of before, bounded so.)"""
    import psycopg

    from scratchfs.engine import takeover
    from scratchfs.engine.pairing import LOCAL_LOCATION

    other, mine = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "other", index=other) as x:
        x.scope("run-1", "agent-1").scratch_write("notes", b"first\n")
    time.sleep(0.05)
    with ScratchStore(tmp_path / "mine", index=mine, orphan_grace=0) as y:
        y.scope("run-1", "agent-1").spill(b"kept\n" * 20_000)
        assert takeover.previous_owners(y.index, LOCAL_LOCATION)[1] == []  # (paired with no takeover: none)
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:  # (as paired before schema version 5)
            conn.execute(f'UPDATE "{pg_schema}_b".store SET took_over = NULL')
        takeover._owners.clear()
        assert takeover.previous_owners(y.index, LOCAL_LOCATION)[1] == [pg_schema]  # (never its owner)
        orphan = tmp_path / "mine" / "runs" / "run-1" / "agent-1" / ("a" * 24 + ".zst")
        orphan.write_bytes(b"no row names it")
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            for name in (pg_schema, pg_schema + "_b"):
                conn.execute(f'UPDATE "{name}".store SET paired_at = paired_at - 7200')
        takeover._owners.clear()
        asked = []
        read = type(y.index).read

        def counted(self, query, *args, **kwargs):
            asked.append(query)
            return read(self, query, *args, **kwargs)

        type(y.index).read = counted
        try:
            assert y.sweep(full=True).orphans_removed == 1
        finally:
            type(y.index).read = read
        assert [q for q in asked if "entries WHERE blob" in q] == []


def test_an_old_hosts_delete_within_its_window_is_not_undone_by_an_early_adoption(postgres_dsn, pg_schema, tmp_path,
                                                                                   monkeypatch):
    """Local files: the sweep looked every file no row names up in the old schema's rows at once, whatever its age
    (S3 objects only past orphan_grace): a write of the old host A adopted a moment after it committed, then
    deleted by A within its window (acknowledged; its file left, fenced), stayed in B. Files are looked at from
    min(orphan_grace, ADOPT_AFTER) on now, as objects are: A's window is long over by then."""
    import os

    from scratchfs import NotFound

    _long_windows(monkeypatch)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old) as a:
        scope = a.scope("run-1", "agent-1")
        scope.scratch_write("notes", b"first\n")
        _rebuild(new, None, tmp_path / "a")
        scope.scratch_write("fresh", b"written, then deleted, in A\n" * 20_000)
        with ScratchStore(tmp_path / "a", index=new) as b:  # (orphan_grace as shipped)
            b.sweep(full=True)  # (a sweep right after A's write)
            assert scope.scratch_delete("fresh")  # (A's acknowledged delete, within its window)
            for path in (tmp_path / "a" / "runs").rglob("*.zst"):
                os.utime(path, (time.time() - 400, time.time() - 400))  # (past the grace)
            b.sweep(full=True)
            with pytest.raises(NotFound):
                b.scope("run-1", "agent-1").scratch_read("fresh")
            assert b.scope("run-1", "agent-1").scratch_read("notes") == b"first\n"


def test_an_old_host_still_running_has_its_small_writes_adopted_within_the_hour(postgres_dsn, pg_schema, tmp_path,
                                                                                 monkeypatch):
    """Local files: A's small writes after the takeover are records of A's own segment, which A holds while it
    runs; the sweep judged a segment only once its writer let go of it. A fenced host may run on for hours, and no
    write over an hour old is adopted (its tombstones may be gone): the sweep now adopts the records of a held
    segment too (from ADOPT_AFTER on; 1 s here), removing nothing of it."""
    from scratchfs.engine import takeover

    _long_windows(monkeypatch)
    monkeypatch.setattr(takeover, "ADOPT_AFTER", 1.0)
    old, new = postgres_url(postgres_dsn, pg_schema), postgres_url(postgres_dsn, pg_schema + "_b")
    with ScratchStore(tmp_path / "a", index=old) as a:
        scope = a.scope("run-1", "agent-1")
        small = _writes_after_a_takeover(scope, new, tmp_path / "a")
        with ScratchStore(tmp_path / "a", index=new, orphan_grace=0) as b:
            time.sleep(1.1)
            b.sweep(full=True)  # (A still running: its segment held)
            assert _read(b, small) == b"a small one\n"
            assert b.scope("run-1", "agent-1").scratch_read("fresh") == b"a new key\n"
            assert _read(a, small) == b"a small one\n"  # (A's segment left in place)


@pytest.mark.parametrize("files", [False, True])
def test_fsck_repair_never_removes_an_old_host_write_that_turns_due_while_it_runs(postgres_dsn, pg_schema, s3_env,
                                                                                 tmp_path, monkeypatch, files):
    """hostile11: fsck --repair adopts the due ones of an old host's writes, then lists the orphans again and takes
    every one due by then as adopted above. A write one second short of ``min(orphan_grace, ADOPT_AFTER)`` at the
    adoption (left: too young) and past it at the listing (a slow repair, a clock step) was neither: listed as an
    orphan, and the repair removed it -- an acknowledged write lost. It is listed as adoptable, the sweep's, kept."""
    from scratchfs.api import rebuild
    from scratchfs.api.inspector import fsck
    from scratchfs.engine.takeover import ADOPT_AFTER

    _long_windows(monkeypatch)
    blobs, root_b, new, (late,) = _late_writes(postgres_dsn, pg_schema, s3_env, tmp_path, files)
    ages = iter([ADOPT_AFTER - 1.0, ADOPT_AFTER + 1.0])  # (at the adoption, then at the listing)
    monkeypatch.setattr(rebuild, "_age", lambda store, found: next(ages, ADOPT_AFTER + 1.0))
    with ScratchStore(root_b, index=new, blobs=blobs) as b:  # (orphan_grace and ADOPT_AFTER: 300 s)
        problems = fsck(b, repair=True).problems
        assert [(p.kind, p.sweeps, p.repaired) for p in problems] == [("adoptable", True, False)], problems
        assert fsck(b, repair=True).problems == []  # (due at both: adopted, as the sweep does)
        assert _read(b, late) == b"within the window\n" * 20_000
