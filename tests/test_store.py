"""The store's verbs through the Python API: scopes, expiry, the scratchpad, deletion and sweeping."""

from __future__ import annotations

import gc
import os
import re
import threading
import time

import pytest

from scratchfs import (
    Expired,
    InvalidArgument,
    NotFound,
    Observation,
    ScratchStore,
    StorageError,
    StoreBusy,
    should_spill,
)
from scratchfs.engine.sqlite_index import Index


def blob_files(store) -> list[str]:
    return sorted(str(found.location) for found in store.blobs.blob_files())  # files or objects, on any backend


def _first_text(page) -> bytes:
    """The first element's text of a select's page: whole, or the part of it the page holds (a long one)."""
    return (page.items[0] if page.items else page.part).encode()


def test_spill_round_trips_every_fixture(scope, fixture_data):
    for name, data in fixture_data.items():
        stub = scope.spill(data, source_tool=name)
        assert stub.size == len(data)
        shown = stub.preview.encode()  # (a page's: its text view's first bytes, as view="text" reads them; of a
        # page with a main landmark, the first bytes of the select= of it its note names first)
        landmark = re.search(r'main content \([^)]*\).*?select=\\?"([^"\\]+)', stub.note or "")
        source = data if stub.content_type != "html" or data.startswith(shown) else \
            _first_text(scope.structure.select(stub.handle, landmark.group(1), budget=65536)) if landmark else \
            scope.structure.text(stub.handle, offset=0).text.encode()
        assert shown == source[: len(shown)] and shown
        assert len(shown) <= 1024
        whole, offset = b"", 0
        while offset is not None:
            part = scope.read_handle(stub.handle, offset, 65536)
            whole += part.data
            offset = part.next_offset
        assert whole == data


def test_stub_note_names_the_exact_next_calls(scope):
    data = ("é" * 2000).encode()  # two bytes per character: the preview cuts on a character boundary
    stub = scope.spill(data, source_tool="browser.get")
    covered = len(stub.preview.encode())
    assert 900 <= covered <= 1024  # the preview gives way so that the stub fits 1.5 KiB
    assert stub.preview == "é" * (covered // 2)
    assert len(stub.to_json().encode()) <= 1536
    assert f'read_handle(handle="{stub.handle}", offset={covered})' in stub.note
    # one line of 4,000 bytes: a line read of as many lines as hold about 4 KiB -- that one line
    assert f'read_handle(handle="{stub.handle}", lines=1)' in stub.note  # (line=1: the default, left out)
    assert f'read_handle(handle="{stub.handle}", pattern="REGEX")' in stub.note


def test_previews_are_valid_text(store, tmp_path):
    # (a root of its own: a local store over the root of a PostgreSQL index's files is refused)
    store_small = ScratchStore(tmp_path / "small", preview_bytes=10, clock=store.clock)
    scope = store_small.scope("r", "a")
    # binary content: a hex dump of its first bytes, as a range read gives it
    binary = scope.spill(b"\x00\xfe\x00abc\xe2\x82")
    assert binary.content_type == "binary"
    assert binary.preview == "00000000  " + "00 fe 00 61 62 63 e2 82".ljust(47) + "  |...abc..|"
    # (after UTF-16LE's byte order mark, the bytes are that text's: its characters, as encoding="utf-16le" reads)
    assert scope.spill(b"\xff\xfe\x00abc\xe2\x82").preview == "\ufeff\u6100\u6362\u82e2"
    # text: invalid bytes become U+FFFD; a sequence cut short by the end of the content is one U+FFFD
    assert scope.spill(b"abc\xffdefghij").preview == "abc\ufffddefghi"
    assert scope.spill(b"abcdefgh\xe2\x82").preview == "abcdefgh\ufffd"
    # a sequence cut short by the preview limit is left out
    assert scope.spill(b"abcdefgh\xe2\x82\xac and more").preview == "abcdefgh"
    store_small.close()


def test_streams_and_chunk_iterables_are_accepted(scope, fixture_data, tmp_path):
    data = fixture_data["query-packages-by-month.csv"]
    path = tmp_path / "q.csv"
    path.write_bytes(data)
    with open(path, "rb") as f:
        from_file = scope.spill(f, source_tool="sql.query")
    from_chunks = scope.spill((data[i : i + 1000] for i in range(0, len(data), 1000)), source_tool="sql.query")
    from_text = scope.spill(data.decode(), source_tool="sql.query")
    for stub in (from_file, from_chunks, from_text):
        assert stub.size == len(data)
        assert scope.read_handle(stub.handle, 300_000, 5000).data == data[300_000:305_000]


def test_chunks_from_a_reused_buffer_are_stored_as_they_were(scope, fixture_data):
    # a producer that refills one buffer and yields views of it: each chunk must be taken before the next refill
    data = b"".join(fixture_data.values())
    buffer = bytearray(1 << 20)

    def views():
        for start in range(0, len(data), len(buffer)):
            n = len(data[start : start + len(buffer)])
            buffer[:n] = data[start : start + n]
            yield memoryview(buffer)[:n]

    def same_bytearray():
        for start in range(0, len(data), len(buffer)):
            n = len(data[start : start + len(buffer)])
            buffer[:n] = data[start : start + n]
            yield buffer if n == len(buffer) else buffer[:n]

    for chunks in (views(), same_bytearray()):
        stub = scope.spill(chunks)
        assert stub.size == len(data)
        for offset in range(0, len(data), 300_001):
            assert scope.read_handle(stub.handle, offset, 4096).data == data[offset : offset + 4096]


def test_a_strided_memoryview_is_stored_as_its_bytes(scope, fixture_data):
    # a view of every other byte is not contiguous: its bytes are those of tobytes(), as content or as a chunk
    data = fixture_data["query-packages-by-month.csv"]
    view = memoryview(data)[::2]
    for content in (view, [view[: len(view) // 2], view[len(view) // 2 :]]):
        stub = scope.spill(content, source_tool="sql.query")
        assert stub.size == len(data[::2])
        assert scope.read_handle(stub.handle, 100_000, 5000).data == data[::2][100_000:105_000]


def test_a_released_memoryview_is_an_invalid_argument_everywhere(scope, store):
    released = memoryview(b"x" * 20_000)
    released.release()
    handle = scope.spill(b"abc" * 10_000, source_tool="t").handle
    for call in (lambda: scope.spill(released), lambda: scope.spill([b"abc", released]),
                 lambda: scope.scratch_write("k", released), lambda: scope.search(handle, match=released)):
        with pytest.raises(InvalidArgument, match="released memoryview"):
            call()
    assert not should_spill(Observation(tool="sql.query", content=released, result_class="query"))
    assert [e.key for e in scope.list_entries()] == [handle]


@pytest.mark.parametrize("content", [None, 42, 3.5, {"a": 1}, ["text", 3], "\udcff"])
def test_bad_content_raises_and_leaves_nothing(scope, store, content):
    with pytest.raises(InvalidArgument):
        scope.spill(content, source_tool="t")
    assert scope.list_entries() == []
    assert blob_files(store) == []


def test_another_scope_sees_nothing(store):
    mine = store.scope("run-1", "agent-1")
    stub = mine.spill(b"secret" * 3000, source_tool="t")
    mine.scratch_write("k", b"v")
    for run, agent in [("run-1", "agent-2"), ("run-2", "agent-1"), ("run-1/agent-1", ""[:0] or "x")]:
        other = store.scope(run, agent)
        with pytest.raises(NotFound):
            other.read_handle(stub.handle)
        with pytest.raises(NotFound):
            other.read_handle(stub.handle, match="secret")
        with pytest.raises(NotFound):
            other.scratch_read("k")
        assert other.scratch_list() == []
        assert other.scratch_delete("k") is False
    assert mine.scratch_read("k") == b"v"


def test_expired_entries_are_invisible_before_any_sweep(store, clock):
    scope = store.scope("r", "a")
    short = scope.spill(b"x" * 10_000, source_tool="t", ttl=10)
    long = scope.spill(b"y" * 10_000, source_tool="t")
    scope.scratch_write("k", "v", ttl=10)
    clock.advance(9.999)
    assert scope.read_handle(short.handle, 0, 1).data == b"x"
    clock.advance(0.001)
    for call in (lambda: scope.read_handle(short.handle), lambda: scope.read_handle(short.handle, match="x"),
                 lambda: scope.scratch_read("k")):
        with pytest.raises(NotFound):
            call()
    assert [e.key for e in store.list_entries_for_run("r")] == [long.handle]
    assert scope.scratch_list() == []
    assert scope.scratch_delete("k") is False  # not live: nothing reported as deleted
    clock.advance(3600)
    with pytest.raises(NotFound):
        scope.read_handle(long.handle)


def test_default_and_explicit_ttl(store, clock):
    scope = store.scope("r", "a")
    scope.spill(b"a", source_tool="t")
    entry = scope.scratch_write("k", b"v", ttl=5.5)
    assert entry.expires_at == clock.now + 5.5
    (spilled,) = [e for e in store.list_entries_for_run("r") if e.kind == "handle"]
    assert spilled.expires_at - spilled.created_at == 3600.0


@pytest.mark.parametrize("ttl", [0, -1, float("nan"), float("inf"), "10", True, 10**9])
def test_bad_ttl_raises_invalid_argument(scope, ttl):
    with pytest.raises(InvalidArgument, match="ttl"):
        scope.spill(b"x", ttl=ttl)
    with pytest.raises(InvalidArgument, match="ttl"):
        scope.scratch_write("k", b"x", ttl=ttl)


def test_scratchpad_verbs(store):
    store.blobs.segment_entry_bytes = 0  # a file per entry (tests/test_segments.py covers segment entries)
    scope = store.scope("r", "a")
    scope.scratch_write("notes/1", "first")
    scope.scratch_write("notes/2", b"second")
    scope.scratch_write("Notes/3", b"third")
    scope.scratch_write("notes%", b"percent")
    scope.scratch_write("notes_x", b"underscore")
    assert scope.scratch_read("notes/1") == b"first"
    assert [e.key for e in scope.scratch_list("notes/")] == ["notes/1", "notes/2"]
    assert [e.key for e in scope.scratch_list("notes%")] == ["notes%"]  # no LIKE wildcards
    assert [e.key for e in scope.scratch_list("notes_")] == ["notes_x"]
    assert len(scope.scratch_list()) == 5
    before = len(blob_files(store))
    scope.scratch_write("notes/1", "rewritten")
    assert scope.scratch_read("notes/1") == b"rewritten"
    assert len(blob_files(store)) == before  # the old value's file is gone
    assert scope.scratch_delete("notes/1") is True
    assert scope.scratch_delete("notes/1") is False
    with pytest.raises(NotFound):
        scope.scratch_read("notes/1")
    assert len(blob_files(store)) == before - 1


def test_scratch_values_can_be_large_and_empty(small_frames_store, fixture_data):
    scope = small_frames_store.scope("r", "a")
    data = fixture_data["api-ec2-service-model.json"]
    scope.scratch_write("model", data)
    assert scope.scratch_read("model") == data
    scope.scratch_write("empty", b"")
    assert scope.scratch_read("empty") == b""


def test_list_entries_for_run_spans_agents_without_content(store):
    a = store.scope("run", "a")
    b = store.scope("run", "b")
    stub = a.spill(b"q" * 9000, source_tool="sql.query")
    b.scratch_write("k", b"v" * 10)
    store.scope("other-run", "a").scratch_write("k", b"v")
    entries = store.list_entries_for_run("run")
    assert [(e.kind, e.key, e.agent_id) for e in entries] == [("handle", stub.handle, "a"), ("scratch", "k", "b")]
    first = entries[0].to_dict()
    assert first["size"] == 9000 and first["source_tool"] == "sql.query" and "blob" not in first
    assert set(first) >= {"kind", "key", "agent_id", "size", "preview", "source_tool", "created_at", "expires_at"}


@pytest.mark.local_backend  # looks at files under the root; tests/test_backend_contract.py covers the others
def test_delete_run_and_agent_remove_rows_and_directories(store):
    a = store.scope("run", "a")
    b = store.scope("run", "b")
    ha = a.spill(b"a" * 9000, source_tool="t").handle
    hb = b.spill(b"b" * 9000, source_tool="t").handle
    keep = store.scope("run2", "a").spill(b"c", source_tool="t").handle
    assert store.delete_agent("run", "a") == 1
    with pytest.raises(NotFound):
        a.read_handle(ha)
    assert b.read_handle(hb, 0, 1).data == b"b"
    assert not store.blobs.agent_dir("run", "a").exists()
    assert store.delete_run("run") == 1
    with pytest.raises(NotFound):
        b.read_handle(hb)
    assert not store.blobs.run_dir("run").exists()
    assert store.list_entries_for_run("run") == []
    assert store.delete_run("run") == 0
    assert store.scope("run2", "a").read_handle(keep).data == b"c"
    assert os.listdir(store.root / "trash") == []


def test_a_deleted_run_can_be_used_again(store):
    scope = store.scope("run", "a")
    scope.scratch_write("k", b"1")
    store.delete_run("run")
    scope.scratch_write("k", b"2")
    assert scope.scratch_read("k") == b"2"


@pytest.mark.local_backend  # looks at files under the root; tests/test_backend_contract.py covers the others
def test_run_directory_removed_from_outside_reads_as_not_found_and_sweeps(store):
    import shutil

    scope = store.scope("run", "a")
    handle = scope.spill(b"z" * 9000, source_tool="t").handle
    store.flush()  # its row (written behind) committed: a directory removed before that takes the row with it
    shutil.rmtree(store.blobs.run_dir("run"))
    with pytest.raises(NotFound):
        scope.read_handle(handle)
    result = store.sweep()
    assert result.missing_files == 1 and result.rows_deleted == 1
    assert store.list_entries_for_run("run") == []


@pytest.mark.local_backend  # looks at files under the root; tests/test_backend_contract.py covers the others
def test_sweep_removes_expired_rows_files_and_orphans(store, clock):
    store.blobs.segment_entry_bytes = 0  # a file per entry (tests/test_segments.py covers segment entries)
    scope = store.scope("run", "a")
    for i in range(600):  # more than one batch
        scope.scratch_write(f"k{i}", b"v" * 100, ttl=10)
    live = scope.spill(b"live" * 3000, source_tool="t")
    orphan = store.blobs.agent_dir("run", "a") / ("a" * 24 + ".zst")
    orphan.write_bytes(b"left by a crash")
    stranger = store.blobs.agent_dir("run", "a") / "notes.txt"  # not ours: left alone
    stranger.write_bytes(b"x")
    clock.advance(11)
    before = sum(os.path.getsize(p) for p in blob_files(store) if p != str(orphan))
    result = store.sweep()
    assert result.rows_deleted == 600 and result.files_deleted == 600
    assert result.orphans_removed == 1
    assert result.bytes_freed == before - store.list_entries_for_run("run")[0].stored_size + len(b"left by a crash")
    assert not orphan.exists() and stranger.exists()
    assert [e.key for e in store.list_entries_for_run("run")] == [live.handle]
    assert len(blob_files(store)) == 1
    assert store.sweep().rows_deleted == 0


def test_orphans_younger_than_the_grace_period_stay(tmp_path):
    with ScratchStore(tmp_path, orphan_grace=3600) as store:
        store.scope("r", "a").scratch_write("k", b"v")
        orphan = store.blobs.agent_dir("r", "a") / ("b" * 24 + ".zst")
        orphan.write_bytes(b"in flight, perhaps")
        assert store.sweep().orphans_removed == 0
        assert orphan.exists()
        old = time.time() - 7200
        os.utime(orphan, (old, old))
        assert store.sweep().orphans_removed == 1


@pytest.mark.local_backend  # looks at files under the root; tests/test_backend_contract.py covers the others
def test_a_locked_in_flight_file_is_never_swept(store):
    import fcntl

    store.scope("r", "a").scratch_write("k", b"v")
    path = store.blobs.agent_dir("r", "a") / ("c" * 24 + ".zst")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)
    old = time.time() - 7200
    os.utime(path, (old, old))
    try:
        assert store.sweep().orphans_removed == 0
        assert path.exists()
    finally:
        os.close(fd)
    assert store.sweep().orphans_removed == 1


def test_background_sweeper_sweeps_until_closed(tmp_path):
    now = [1000.0]
    store = ScratchStore(tmp_path, clock=lambda: now[0])
    store.scope("r", "a").scratch_write("k", b"v", ttl=1)
    now[0] += 5
    store.start_sweeper(interval=0.05)
    store.start_sweeper(interval=0.05)  # a second call changes nothing
    deadline = time.time() + 10
    while store.index.blobs() and time.time() < deadline:
        time.sleep(0.02)
    assert store.index.blobs() == set()
    sweeper = store._sweeper
    store.close()
    assert sweeper is not None and not sweeper.is_alive()


def test_start_sweeper_rejects_bad_intervals(store):
    for interval in (0, -1, float("nan"), float("inf"), "5"):
        with pytest.raises(InvalidArgument):
            store.start_sweeper(interval)


def test_root_from_environment_and_default(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRATCHFS_ROOT", str(tmp_path / "env-root"))
    with ScratchStore() as store:
        assert store.root == tmp_path / "env-root"
    monkeypatch.delenv("SCRATCHFS_ROOT")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with ScratchStore() as store:
        assert store.root == tmp_path / "cache" / "scratchfs"


@pytest.mark.local_backend  # looks at files under the root; tests/test_backend_contract.py covers the others
def test_index_schema_and_pragmas(store):
    conn = store.index.conn()
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL (README, Crash safety; FULL when durable)
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000
    columns = {row[1]: row[2] for row in conn.execute("PRAGMA table_info(entries)")}
    for name in ("kind", "run_id", "agent_id", "key", "size", "stored_size", "preview", "source_tool"):
        assert name in columns
    assert columns["created_at"] == "REAL" and columns["expires_at"] == "REAL"
    unique = [row for row in conn.execute("PRAGMA index_list(entries)") if row[2]]
    cols = [[c[2] for c in conn.execute(f"PRAGMA index_info({row[1]})")] for row in unique]
    assert ["run_id", "agent_id", "kind", "key"] in cols
    assert store.integrity_check() == "ok"


def test_a_newer_schema_is_refused(tmp_path):
    with ScratchStore(tmp_path) as store:
        store.index.conn().execute("PRAGMA user_version = 99")
    with pytest.raises(StorageError, match="schema version 99"):
        Index(tmp_path / "index.sqlite", tmp_path / "locks", 1.0)


def test_closed_store_refuses_writes(tmp_path):
    store = ScratchStore(tmp_path)
    scope = store.scope("r", "a")
    store.close()
    store.close()
    with pytest.raises(StorageError, match="closed"):
        scope.spill(b"x")


def test_bad_settings_raise_invalid_argument(tmp_path):
    for kwargs in ({"default_ttl": 0}, {"spill_threshold_bytes": -1}, {"preview_bytes": 10**9},
                   {"frame_bytes": 10}, {"busy_timeout": float("nan")}, {"orphan_grace": -1}):
        with pytest.raises(InvalidArgument):
            ScratchStore(tmp_path, **kwargs)


def _open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_threads_that_end_do_not_pile_up_descriptors(store):
    def work():
        scope = store.scope("r", "a")
        scope.scratch_write("k", b"v")
        scope.scratch_read("k")

    def run(count: int) -> None:
        for _ in range(count):
            thread = threading.Thread(target=work)
            thread.start()
            thread.join()
        gc.collect()

    run(10)
    before = _open_descriptors()
    run(40)  # (each thread on S3 makes its own client, ~50 ms: 120 threads were 6.4 s of the call at a load of 5)
    assert _open_descriptors() - before < 20  # was 3 descriptors per thread: 120; one a thread would be 40 (0 or 1
    # now, each backend)


def test_a_failed_refresh_does_not_leak_the_blob_descriptor(tmp_path, monkeypatch):
    with ScratchStore(tmp_path, refresh_on_read=True) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(b"x" * 100, source_tool="t").handle
        store.flush()  # its row written behind, committed (the delete lock's descriptors open) before the count

        def busy(*args, **kwargs):
            raise StoreBusy("busy")

        monkeypatch.setattr(store.index, "touch", busy)
        before = _open_descriptors()
        for _ in range(30):
            with pytest.raises(StoreBusy):
                scope.read_handle(handle)
        assert _open_descriptors() <= before + 1


@pytest.mark.local_backend
def test_an_old_blob_that_cannot_be_removed_does_not_fail_the_write(scratch_store, monkeypatch, caplog):
    """Local files: the old blob's unlink is refused; the write stands and the refusal is logged."""
    scratch_store.blobs.segment_entry_bytes = 0  # a file per entry: a segment entry's old bytes are the sweep's
    scope = scratch_store.scope("r", "a")
    scope.scratch_write("k", b"first")
    real_unlink = os.unlink

    def refuse(path, *args, **kwargs):
        if str(path).endswith(".zst"):
            raise PermissionError(13, "Permission denied")
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", refuse)
    scope.scratch_write("k", b"second")  # the new value is committed; the old file is left to a sweep
    assert scope.scratch_read("k") == b"second"
    assert scope.scratch_delete("k") is True
    assert "cannot remove" in caplog.text


def test_expired_is_said_only_within_the_last_hour(store, clock):
    scope = store.scope("r", "a")
    scope.scratch_write("k", b"v", ttl=10)
    clock.advance(11)
    with pytest.raises(Expired):
        scope.scratch_read("k")
    clock.advance(3600)  # not swept yet, but expired more than an hour ago: nothing to tell
    with pytest.raises(NotFound) as caught:
        scope.scratch_read("k")
    assert type(caught.value) is NotFound
