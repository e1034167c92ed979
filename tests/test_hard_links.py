"""A second name (a hard link) for a file the store writes in place -- a ``cp -al`` snapshot of the root, or one an
outsider with write access plants -- had every write go to the other name too, with no symlink anywhere: a spill
after ``ln index.sqlite /elsewhere`` changed the file at /elsewhere. The index files are now refused (one
StorageError naming the file and what to do), as the store opens and before each commit (``scratchfs fsck`` exited 4
with that error: it now lists the file as a problem, exit 3, without opening the index); a segment a spill would
append to is sealed and a new one begun; a deleted entry's dead mark is not written into a segment with other names;
fsck reports such a segment."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3

import pytest

from scratchfs import ScratchStore
from scratchfs.api.inspector import fsck
from scratchfs.engine.journal import problems as journal_problems
from scratchfs.foundation.errors import StorageError


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _rows(path) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("select count(*) from entries").fetchone()[0]
    finally:
        conn.close()


def test_an_index_with_another_name_is_refused_as_the_store_opens(tmp_path):
    root, other = tmp_path / "root", tmp_path / "snap.sqlite"
    with ScratchStore(root, index_write_behind=False) as store:
        store.scope("r", "a").spill(b"a\n", source_tool="t")
    os.link(root / "index.sqlite", other)
    before = _digest(other)
    with pytest.raises(StorageError, match=r"index\.sqlite has 2 names \(a hard link, e\.g\. cp -al\).*remove the "
                                           r"other name"):
        ScratchStore(root, index_write_behind=False)
    assert _digest(other) == before and _rows(other) == 1  # (2 before: the next spill went into it)
    os.unlink(other)
    with ScratchStore(root, index_write_behind=False) as store:  # the other name gone: opens as before
        store.scope("r", "a").spill(b"b\n", source_tool="t")
        assert len(store.list_entries()) == 2


@pytest.mark.parametrize("name", ["index.sqlite", "index.sqlite-wal"])
def test_an_index_file_given_another_name_while_open_is_not_written_again(tmp_path, name):
    root, other = tmp_path / "root", tmp_path / "other"
    store = ScratchStore(root, index_write_behind=False)
    try:
        scope = store.scope("r", "a")
        scope.spill(b"a\n", source_tool="t")
        os.link(root / name, other)
        before = _digest(other)
        with pytest.raises(StorageError, match=f"{name} has 2 names"):
            scope.spill(b"b\n", source_tool="t")
        assert _digest(other) == before
        with pytest.raises(StorageError, match=f"{name} has 2 names"):  # (fsck too: it opens a store)
            ScratchStore(root, index_write_behind=False)
    finally:
        store.close()
    if name == "index.sqlite":
        assert _rows(other) == 1


def test_an_index_shm_with_another_name_is_refused_as_another_store_opens(tmp_path):
    root = tmp_path / "root"
    with ScratchStore(root, index_write_behind=False) as store:
        store.scope("r", "a").spill(b"a\n", source_tool="t")
        os.link(root / "index.sqlite-shm", tmp_path / "other")
        with pytest.raises(StorageError, match=r"index\.sqlite-shm has 2 names"):
            ScratchStore(root, index_write_behind=False)


def _segments(root) -> list:
    return sorted((root / "runs").rglob("*.zseg"))


def test_a_segment_given_another_name_is_sealed_not_appended_to(tmp_path):
    root, other = tmp_path / "root", tmp_path / "snap.zseg"
    with ScratchStore(root, index_write_behind=False) as store:
        scope = store.scope("r", "a")
        first = scope.spill(b"first line\n" * 400, source_tool="t").handle
        [segment] = _segments(root)
        os.link(segment, other)
        before = _digest(other)
        second = scope.spill(b"second line\n" * 400, source_tool="t").handle
        assert _digest(other) == before  # (before: the second spill was appended to it)
        assert len(_segments(root)) == 2
        assert b"".join(scope.iter_content("handle", first)) == b"first line\n" * 400
        assert b"".join(scope.iter_content("handle", second)) == b"second line\n" * 400
        [problem] = [p for p in fsck(store).problems if p.path == str(segment)]
        assert problem.kind == "unexpected" and "2 names (a hard link" in problem.detail


def test_a_delete_marks_nothing_dead_in_a_segment_with_another_name(tmp_path):
    root = tmp_path / "root"
    with ScratchStore(root, index_write_behind=False) as store:
        scope = store.scope("r", "a")
        handles = [scope.spill(b"line %d\n" % i * 300, source_tool="t").handle for i in range(3)]
    [segment] = _segments(root)
    os.link(segment, tmp_path / "snap.zseg")  # (as cp -al makes: the store closed, the index not linked)
    before = _digest(tmp_path / "snap.zseg")
    with ScratchStore(root, index_write_behind=False) as store:
        scope = store.scope("r", "a")
        assert scope.delete_entry("handle", handles[0])
        store.flush()
        assert [e.key for e in store.list_entries()] == handles[1:]
    assert _digest(tmp_path / "snap.zseg") == before  # (before: the record's magic became the dead mark there)


def test_a_failed_write_is_not_rolled_back_through_another_name_of_its_segment(tmp_path):
    """A spill whose row was not written marks its record dead and cuts it off (SegmentWriter.roll_back): into a
    segment given another name meanwhile, neither is written (the segment is sealed instead)."""
    from scratchfs.foundation.checks import new_token

    with ScratchStore(tmp_path / "root") as store:
        pending = store.blobs.write("r", "a", new_token(), [b"x" * 5000], None)
        other = tmp_path / "snap.zseg"
        os.link(store.root / pending.segment_path, other)
        before = _digest(other)
        pending.discard()  # (logged: not marked dead)
        assert _digest(other) == before  # (before: its magic marked dead, then cut off to 0 bytes)
        assert not store.blobs.segments.is_active(tuple(pending.segment_path.split("/")[:3]),
                                                  pending.segment_path.split("/")[3])


def test_a_write_behind_journal_given_another_name_is_never_written_in_place(tmp_path):
    root, other = tmp_path / "root", tmp_path / "snap.journal"
    with ScratchStore(root, index_write_behind=True) as store:
        store.scope("r", "a").spill(b"a\n" * 100, source_tool="t")
        [journal] = (root / "journal").iterdir()
        os.link(journal, other)
        before = other.read_bytes()
        assert before.startswith(b"runs/")  # (the segment's path, its row not yet committed)
        [(path, detail)] = journal_problems(store.blobs.root_fd)  # (what fsck reports; its flush renews the journal)
        assert path == f"journal/{journal.name}" and "2 names (a hard link" in detail
        store.scope("r", "b").spill(b"b\n" * 100, source_tool="t")  # a new segment: a line noted
        store.flush()  # every row committed: the journal emptied
        assert other.read_bytes() == before  # (before: a line appended, then truncated to 0 bytes)
        assert not journal.exists()
        [renewed] = (root / "journal").iterdir()
        assert os.stat(renewed).st_nlink == 1


@pytest.mark.parametrize("extra", [[], ["--json"], ["--repair"]])
def test_fsck_lists_an_index_with_another_name_as_a_problem_without_opening_it(tmp_path, extra):
    from click.testing import CliRunner

    from scratchfs.cli import main

    root, other = tmp_path / "root", tmp_path / "snap.sqlite"
    with ScratchStore(root, index_write_behind=False) as store:
        store.scope("r", "a").spill(b"a\n", source_tool="t")
    os.link(root / "index.sqlite", other)
    before, names = _digest(other), sorted(os.listdir(root))
    got = CliRunner().invoke(main, ["fsck", "--root", str(root), *extra])
    assert got.exit_code == 3, got.output  # (problems remain, as for any other: not 4, a storage error)
    assert _digest(other) == before and sorted(os.listdir(root)) == names  # (never opened: no -wal, -shm made)
    if extra == ["--json"]:
        report = json.loads(got.stdout)
        assert (report["clean"], report["unexpected"]) == (False, 1), report
        (problem,) = report["problems"]
        assert problem["path"] == str(root / "index.sqlite") and "has 2 names" in problem["detail"], problem
    else:
        assert "index: not checked" in got.stdout and "unexpected 1" in got.stdout, got.output
        assert "index.sqlite has 2 names" in got.stdout and "1 problem remains (unexpected)" in got.output, got.output
    os.unlink(other)
    assert CliRunner().invoke(main, ["fsck", "--root", str(root)]).exit_code == 0  # (its one name again: clean)
