"""Each blob is bound to its entry (issue 9): another entry's valid blob copied over A's is refused, fsck finds it
even when the sizes agree, and a lost index is rebuilt from the bindings the blobs carry."""

from __future__ import annotations

import json
import os
import shutil
import struct
from functools import partial
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from scratchfs import ScratchStore as _ScratchStore
from scratchfs.api.inspector import fsck
from scratchfs.api.rebuild import open_for_rebuild
from scratchfs.cli import main
from scratchfs.engine.binding import BINDING_MAGIC, EMPTY_CHECKSUM, Binding, FormatError
from scratchfs.engine.seekable import encode_seek_table, read_seek_table
from scratchfs.foundation.errors import CorruptBlob, StorageError

from .conftest import FIXTURE_FILES

# blob files of their own, to copy, splice and restore (tests/test_segments.py does the same to segment entries)
ScratchStore = partial(_ScratchStore, segment_entry_bytes=0)


def blob_path(store: _ScratchStore, kind: str, key: str) -> Path:
    entry = next(e for e in store.list_entries() if e.kind == kind and e.key == key)
    return Path(store.blobs.path(entry.run_id, entry.agent_id, entry.blob))


def fresh_values(store: _ScratchStore) -> None:
    store.entries.drop_value_cache()  # no cached value: every read goes to the file


def test_another_entrys_blob_of_the_same_size_is_refused_and_fsck_finds_it(tmp_path, clock):
    payload_a, payload_b = os.urandom(30_000), os.urandom(30_000)  # incompressible: the same stored size
    with ScratchStore(tmp_path, detect_shape=False, clock=clock) as store:
        scope = store.scope("r", "a")
        a = scope.spill(payload_a, source_tool="t").handle
        b = scope.spill(payload_b, source_tool="t").handle
        scope.scratch_write("ka", payload_a)
        scope.scratch_write("kb", payload_b)
        fresh_values(store)
        for kind, victim, donor in (("handle", a, b), ("scratch", "ka", "kb")):
            target, source = blob_path(store, kind, victim), blob_path(store, kind, donor)
            assert target.stat().st_size == source.stat().st_size  # the sizes agree: only the binding tells
            shutil.copyfile(source, target)
        with pytest.raises(CorruptBlob, match="another entry"):
            scope.read_handle(a)
        with pytest.raises(CorruptBlob, match="another entry"):
            scope.read_handle(a, match=b"x")
        with pytest.raises(CorruptBlob, match="another entry"):
            scope.scratch_read("ka")
        assert scope.read_handle(b, 0, 100).data == payload_b[:100]  # the donor still reads
        report = fsck(store, deep=False)
        assert sorted(p.key for p in report.problems if p.kind == "corrupt") == sorted([a, "ka"])
        assert all("another entry" in p.detail for p in report.problems)


def test_a_binding_spliced_from_another_blob_is_refused(tmp_path):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        a = scope.spill(b"A" * 5000, source_tool="t").handle
        b = scope.spill(b"B" * 5000, source_tool="t").handle
        raw_a, raw_b = blob_path(store, "handle", a).read_bytes(), blob_path(store, "handle", b).read_bytes()
        table_a = _table(blob_path(store, "handle", a))
        table_b = _table(blob_path(store, "handle", b))
        frames_a = raw_a[: table_a.c_offsets[-1]]
        binding_b = raw_b[table_b.c_offsets[-1] : len(raw_b) - 9 - 8 - 2 * 12]
        assert binding_b[:4] == struct.pack("<I", BINDING_MAGIC)
        # a's content frame and seek table entry with b's binding frame, at b's name: b's token, a's frames
        spliced = frames_a + binding_b + encode_seek_table([len(frames_a), len(binding_b)], [table_a.size, 0],
                                                           [table_a.checksums[0], EMPTY_CHECKSUM])
        blob_path(store, "handle", b).write_bytes(spliced)
        with pytest.raises(CorruptBlob, match="does not match"):
            scope.read_handle(b)


def _table(path: Path):
    fd = os.open(path, os.O_RDONLY)
    try:
        return read_seek_table(fd, os.fstat(fd).st_size)
    finally:
        os.close(fd)


def test_a_blob_without_a_binding_is_refused(tmp_path):
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(b"hello\n" * 100, source_tool="t").handle
        path = blob_path(store, "handle", handle)
        fd = os.open(path, os.O_RDONLY)
        try:
            table = read_seek_table(fd, os.fstat(fd).st_size)
        finally:
            os.close(fd)
        assert Binding.of_table(table).key == handle
        # rewrite the blob as a plain seekable blob: the same content frames, no binding frame
        raw = path.read_bytes()
        frames = raw[: table.c_offsets[-1]]
        plain = frames + encode_seek_table([len(frames)], [table.size], [table.checksums[0]])
        path.write_bytes(plain)
        with pytest.raises(CorruptBlob, match="no binding"):
            scope.read_handle(handle)


names = st.text(st.characters(min_codepoint=32, max_codepoint=0x2FFF, exclude_categories=("Cs",)), max_size=40)


@given(token=names, run=names, agent=names, key=names, tool=st.none() | names,
       ttl=st.floats(0.001, 1e7), created=st.floats(0, 4e9), size=st.integers(0, 2**40),
       frames=st.integers(0, 2**27))
def test_a_binding_round_trips(token, run, agent, key, tool, ttl, created, size, frames):
    b = Binding(token, run, agent, "scratch", key, tool, ttl, created, size, frames, "0" * 32)
    assert Binding.decode(b.encode()) == b


@pytest.mark.parametrize("payload", [b"", b"scratchfs-binding/1\n{", b"scratchfs-binding/1\n[]",
                                     b"scratchfs-binding/1\n{\"token\": 1}", b"other"])
def test_a_damaged_binding_is_a_format_error(payload):
    with pytest.raises(FormatError):
        Binding.decode(payload)


_A_BINDING = Binding("tok", "run", "agent", "handle", "h_x", "tool", 3600.0, 1.7e9, 4096, 1, "0" * 32).encode()


@given(at=st.integers(len(b"scratchfs-binding/1\n"), len(_A_BINDING) - 1), value=st.integers(0, 255))
def test_a_binding_with_any_byte_flipped_decodes_or_says_why_in_the_formats_words(at, value):
    """A byte of the binding's JSON damaged (a field's name among them: 'frales' for 'frames') decodes as a
    binding or raises one FormatError that names the frame, never a Python constructor's words."""
    damaged = _A_BINDING[:at] + bytes([value]) + _A_BINDING[at + 1 :]
    try:
        Binding.decode(damaged)
    except FormatError as exc:
        text = str(exc)
        assert text.startswith("the binding frame "), text
        assert "__init__" not in text and "argument" not in text and "mapping" not in text, text


@pytest.mark.parametrize(("payload", "said"), [
    (_A_BINDING.replace(b'"frames"', b'"frales"'), "it has an unknown field 'frales'"),
    (_A_BINDING.replace(b'"run_id"', b'"run_ie"'), "it has an unknown field 'run_ie' and no field 'run_id'"),
    (b"scratchfs-binding/1\n[1, 2]", "its JSON is not an object")])
def test_a_binding_with_a_damaged_field_name_says_which(payload, said):
    with pytest.raises(FormatError, match=f"^the binding frame does not parse: {said}$"):
        Binding.decode(payload)


# -- rebuilding a lost index ----------------------------------------------------------------------------------------

def _populate(store: ScratchStore) -> dict[tuple[str, str, str, str], bytes]:
    written = {}
    for i, path in enumerate(FIXTURE_FILES):
        scope = store.scope(f"run-{i % 2}", f"agent {i}")
        content = path.read_bytes()
        handle = scope.spill(content, source_tool=f"tool-{path.suffix}", ttl=600 + i).handle
        written[("handle", scope.run_id, scope.agent_id, handle)] = content
        scope.scratch_write(f"notes/{path.name}", content[:1000], ttl=900)
        written[("scratch", scope.run_id, scope.agent_id, f"notes/{path.name}")] = content[:1000]
    return written


def _drop_index(root: Path) -> None:
    for name in ("index.sqlite", "index.sqlite-wal", "index.sqlite-shm"):
        (root / name).unlink(missing_ok=True)


def _strip(entries) -> list[dict]:
    return sorted((e._asdict() for e in entries), key=lambda d: (d["kind"], d["key"]))


def test_a_lost_index_is_rebuilt_from_the_blobs(tmp_path, clock):
    with ScratchStore(tmp_path, clock=clock) as store:
        written = _populate(store)
        expired = store.scope("gone", "a").spill(b"old", source_tool="t", ttl=1).handle
        before = _strip(store.list_entries())
    clock.advance(5)  # the short-lived entry has expired
    _drop_index(tmp_path)
    with pytest.raises(StorageError, match="rebuild it from the blobs"):  # a lost index is never silently replaced
        ScratchStore(tmp_path, clock=clock)
    with open_for_rebuild(tmp_path, clock=clock, segment_entry_bytes=0) as store:
        assert store.list_entries() == []
        report = fsck(store, rebuild_index=True)
        assert report.rebuilt.restored == len(written)
        assert [reason for _, reason in report.rebuilt.skipped] == ["expired (left to the sweeper)"]
        # the expired entry's file is left to the sweeper, so fsck sees an orphan: nothing else is wrong
        assert [(p.kind, p.run_id) for p in report.problems] == [("orphaned", "gone")]
        after = _strip(store.list_entries())
        assert after == [e for e in before if e["key"] != expired]  # every field, created_at and shape included
        for (kind, run, agent, key), content in written.items():
            scope = store.scope(run, agent)
            if kind == "scratch":
                assert scope.scratch_read(key) == content
            else:
                got = b"".join(scope.read_handle(key, off, 65536).data for off in range(0, len(content), 65536))
                assert got == content
                last = scope.read_handle(key, line=1, lines=10_000)
                assert last.total_lines == content.count(b"\n") + (not content.endswith(b"\n"))
        again = fsck(store, rebuild_index=True)
        assert again.rebuilt.restored == 0 and again.rebuilt.already == len(written)


def test_rebuild_keeps_a_newer_value_and_the_cli_reports_it(tmp_path, clock):
    with ScratchStore(tmp_path, clock=clock) as store:
        scope = store.scope("r", "a")
        scope.scratch_write("k", b"old")
        old_blob = blob_path(store, "scratch", "k")
        kept = old_blob.read_bytes()
        clock.advance(1)
        scope.scratch_write("k", b"new")
        old_blob.write_bytes(kept)  # the old value's file comes back (a restore from backup)
        result = CliRunner().invoke(main, ["fsck", "--root", str(tmp_path), "--rebuild-index", "--json"])
    report = json.loads(result.stdout)
    assert report["rebuilt"]["restored"] == 0
    assert report["rebuilt"]["skipped"][0][1] == "a newer entry holds its key"
    with ScratchStore(tmp_path, clock=clock) as store:
        assert store.scope("r", "a").scratch_read("k") == b"new"
    _drop_index(tmp_path)
    result = CliRunner().invoke(main, ["fsck", "--root", str(tmp_path), "--rebuild-index", "--repair"])
    assert result.exit_code == 0, result.output
    assert "entries restored" in result.output
    with ScratchStore(tmp_path, clock=clock) as store:
        assert store.scope("r", "a").scratch_read("k") == b"new"  # the newer of the two blobs wins


def test_a_rebuilt_large_json_document_is_described_as_its_spill_was(tmp_path, clock):
    """A JSON document larger than the shape sample is described whole (its top level streamed from the blob) when
    spilled; a rebuild describes it by the same function, so shape, lines and preview come back equal."""
    from scratchfs.api.shape import SAMPLE_BYTES

    doc = {"items": [{"id": i, "name": f"n{i}" * 20} for i in range(12000)], "total": 12000, "tail": {"x": [1, 2]}}
    data = json.dumps(doc, indent=1).encode()
    assert len(data) > 2 * SAMPLE_BYTES
    with ScratchStore(tmp_path, clock=clock) as store:
        handle = store.scope("r", "a").spill(data, source_tool="api").handle
        (spilled,) = store.list_entries()
    assert spilled.shape.endswith("total: int, tail: object(1 key: x)")  # keys past the sample: streamed
    _drop_index(tmp_path)
    with open_for_rebuild(tmp_path, clock=clock) as store:
        assert fsck(store, rebuild_index=True).rebuilt.restored == 1
        (rebuilt,) = store.list_entries()
    assert rebuilt.key == handle
    assert ((rebuilt.shape, rebuilt.content_type, rebuilt.lines, rebuilt.preview)
            == (spilled.shape, spilled.content_type, spilled.lines, spilled.preview))
    assert rebuilt == spilled  # every field


def test_fsck_rebuilds_a_lost_index_at_the_default_root(tmp_path, monkeypatch):
    """Without --root (and without $SCRATCHFS_ROOT) the store is the user cache directory's; --rebuild-index rebuilds
    its lost index there as it does with --root, instead of refusing to open it."""
    monkeypatch.delenv("SCRATCHFS_ROOT", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "cache" / "scratchfs"
    with ScratchStore(None) as store:
        assert store.root == root
        store.scope("r", "a").scratch_write("k", b"kept")
    _drop_index(root)
    result = CliRunner().invoke(main, ["fsck", "--rebuild-index", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rebuilt"]["restored"] == 1
    with ScratchStore(None) as store:
        assert store.scope("r", "a").scratch_read("k") == b"kept"


@pytest.mark.parametrize("damage", ["truncated", "overwritten"])
def test_fsck_rebuilds_a_damaged_index_keeping_the_damaged_file(tmp_path, damage):
    """Attacker's trial: an index cut to its first page (or overwritten with other bytes) made every verb fail with
    "the index file is corrupt" (or "not a SQLite database"), exit 4 and no way back named -- and ``fsck
    --rebuild-index``, whose help names "a lost or damaged index", failed the same way, so the store's entries were
    out of reach though every blob was sound. Now the message names the way back and the rebuild moves the damaged
    file aside (never removes it) and restores every entry from its blob."""
    data = {name: path.read_bytes() for name, path in ((p.name, p) for p in FIXTURE_FILES)}
    root = tmp_path / "root"
    with _ScratchStore(root) as store:
        scope = store.scope("r", "a")
        handles = {name: scope.spill(content).handle for name, content in data.items()}
        scope.scratch_write("plan", b"small value")  # a segment entry
    index = root / "index.sqlite"
    original = index.read_bytes()
    damaged = original[:4096] if damage == "truncated" else os.urandom(len(original))
    index.write_bytes(damaged)
    result = CliRunner().invoke(main, ["ls", "--root", str(root)])
    assert result.exit_code == 4
    assert result.stderr.count("\n") == 1 and "scratchfs fsck --rebuild-index" in result.stderr, result.stderr
    result = CliRunner().invoke(main, ["fsck", "--root", str(root), "--rebuild-index", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rebuilt"]["restored"] == len(data) + 1
    [aside] = [p for p in root.iterdir() if p.name.startswith("index.sqlite.damaged-")]
    assert aside.read_bytes() == damaged and oct(aside.stat().st_mode & 0o777) == "0o600"
    with _ScratchStore(root) as store:
        scope = store.scope("r", "a")
        for name, content in data.items():
            assert scope.read_range(handles[name], 0, 65536).data == content[:65536]
        assert scope.scratch_read("plan") == b"small value"


def test_a_foreign_sqlite_file_is_still_refused_by_a_rebuild(tmp_path):
    """The rebuild moves aside only a file that is damaged or not a database; another application's sound SQLite
    file where the index belongs is refused, untouched."""
    import sqlite3

    root = tmp_path / "root"
    with _ScratchStore(root) as store:
        store.scope("r", "a").scratch_write("k", b"v")
    index = root / "index.sqlite"
    index.unlink()
    with sqlite3.connect(index) as conn:
        conn.execute("CREATE TABLE theirs (x)")
    before = index.read_bytes()
    result = CliRunner().invoke(main, ["fsck", "--root", str(root), "--rebuild-index"])
    assert result.exit_code == 4 and "is not a scratchfs index" in result.stderr, result.stderr
    assert index.read_bytes() == before
    assert not [p for p in root.iterdir() if p.name.startswith("index.sqlite.damaged-")]
