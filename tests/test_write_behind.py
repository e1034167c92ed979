"""Rows written behind (scratchfs.engine.write_behind, issue 16): read-your-writes in one process, recovery of a
killed writer's rows from its journal, the sweeper's respect of journals, and deletes ordered against queued rows."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.inspector import fsck, stats_in_sql
from scratchfs.engine import write_behind
from scratchfs.engine.journal import JOURNAL_DIR

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def held_back(monkeypatch):
    """The flusher never commits on its own: only a use of the index (or close) does."""
    monkeypatch.setattr(write_behind, "FLUSH_DELAY", 3600.0)
    monkeypatch.setattr(write_behind, "BATCH_ROWS", 10_000)


def _content(i: int) -> bytes:
    return b"".join(b"line %d of spill %d\n" % (n, i) for n in range(1 + i % 40))


def _fields(entries) -> list[tuple]:
    """What a listing says of each entry but its handle, blob and times: sorted."""
    return sorted((e.kind, e.run_id, e.agent_id, e.size, e.lines, e.preview, e.source_tool, e.content_type, e.shape,
                   e.ttl) for e in entries)


def _read(scope, handle: str, size: int) -> bytes:
    return scope.read_handle(handle, 0, size + 1).data


def test_a_queued_row_is_read_listed_and_counted_at_once(tmp_path, held_back):
    with ScratchStore(tmp_path / "root", orphan_grace=0) as store:
        scope = store.scope("run", "agent")
        stubs = []
        for i in range(20):
            stubs.append(scope.spill(_content(i), source_tool="t"))
            assert store.entries.behind.queued == 1  # the row waits: the read below must commit it
            assert _read(scope, stubs[-1].handle, 10_000) == _content(i)
        for i in range(5):
            scope.spill(_content(100 + i), source_tool="t")
        assert store.entries.behind.queued == 5
        assert len(scope.list_entries()) == 25
        assert sum(s.entries for s in stats_in_sql(store, store.now())) == 25
        scope.spill(_content(200), source_tool="t")
        assert store.sweep().files_deleted == 0
        assert len(store.list_entries()) == 26
        assert scope.delete_entry("handle", stubs[0].handle)
        scope.spill(_content(201), source_tool="t")
        assert store.delete_run("run") == 26
        assert store.list_entries() == []


def test_another_store_object_over_the_same_index_reads_queued_rows(tmp_path, held_back):
    with ScratchStore(tmp_path / "root") as writer, ScratchStore(tmp_path / "root") as reader:
        stub = writer.scope("run", "agent").spill(_content(7), source_tool="t")
        assert writer.entries.behind.queued == 1
        assert _read(reader.scope("run", "agent"), stub.handle, 10_000) == _content(7)
        writer.scope("run", "agent").spill(_content(8), source_tool="t")
        assert len(reader.list_entries_for_run("run")) == 2
        writer.scope("run", "b").spill(_content(9), source_tool="t")
        assert reader.delete_agent("run", "b") == 1  # the queued row was committed first, then deleted
        writer.flush()
        assert len(writer.list_entries()) == 2


_OPS = st.lists(st.tuples(st.sampled_from(["spill", "spill", "spill", "read", "list", "other", "delete", "run",
                                           "sweep", "stats"]), st.integers(0, 3)), max_size=30)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_OPS)
def test_interleavings_answer_as_without_write_behind(tmp_path_factory, ops):
    base = tmp_path_factory.mktemp("wb")
    with ScratchStore(base / "behind", orphan_grace=0) as behind, ScratchStore(base / "behind") as other, \
            ScratchStore(base / "sync", orphan_grace=0, index_write_behind=False) as sync:
        handles: dict[int, list[tuple[str, str, int]]] = {0: [], 1: []}
        for n, (op, arg) in enumerate(ops):
            run = f"r{arg % 2}"
            if op == "spill":
                for side, store in enumerate((behind, sync)):
                    stub = store.scope(run, "a").spill(_content(n), source_tool="t")
                    handles[side].append((run, stub.handle, n))
            elif op == "read" and handles[0]:
                for side, store in enumerate((behind, sync)):
                    run_of, handle, i = handles[side][arg % len(handles[side])]
                    assert _read(store.scope(run_of, "a"), handle, 10_000) == _content(i)
            elif op in ("list", "other"):
                reader = other if op == "other" else behind
                assert _fields(reader.list_entries()) == _fields(sync.list_entries())
            elif op == "delete" and handles[0]:
                k = arg % len(handles[0])
                for side, store in enumerate((behind, sync)):
                    run_of, handle, _ = handles[side].pop(k)
                    assert store.scope(run_of, "a").delete_entry("handle", handle)
            elif op == "run":
                store_for_delete = other if arg >= 2 else behind
                assert store_for_delete.delete_run(run) == sync.delete_run(run)
                for side in (0, 1):
                    handles[side] = [h for h in handles[side] if h[0] != run]
            elif op == "sweep":
                behind.sweep()
                sync.sweep()
            elif op == "stats":
                assert ([s.entries for s in stats_in_sql(other, other.now())]
                        == [s.entries for s in stats_in_sql(sync, sync.now())])
        for side, store in enumerate((behind, sync)):
            for run_of, handle, i in handles[side]:
                assert _read(store.scope(run_of, "a"), handle, 10_000) == _content(i)
        assert _fields(other.list_entries()) == _fields(sync.list_entries())


# -- a writer killed with rows queued -----------------------------------------------------------------------------

_WRITER = """
import sys
sys.path.insert(0, {repo!r})
from scratchfs import ScratchStore
from scratchfs.engine import write_behind
write_behind.FLUSH_DELAY = 3600.0
write_behind.BATCH_ROWS = 10_000
store = ScratchStore({root!r}, orphan_grace=0)
scope = store.scope("run", "agent")
for i in range({n}):
    content = b"".join(b"line %d of spill %d\\n" % (n, i) for n in range(1 + i % 40))
    print(scope.spill(content, source_tool="t").handle, flush=True)
assert store.entries.behind.queued == {n}
print("ready", flush=True)
line = sys.stdin.readline()
if line.strip() == "flush":
    store.flush()
    print(len(store.list_entries()), flush=True)
    store.close()
    print("closed", flush=True)
"""


def _writer(root: Path, n: int) -> tuple[subprocess.Popen, list[str]]:
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(_WRITER.format(repo=str(REPO), root=str(root),
                                                                                  n=n))],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    handles = []
    while True:
        line = proc.stdout.readline()
        assert line, "the writer died"
        if line.strip() == "ready":
            return proc, handles
        handles.append(line.strip())


def _kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    _closed(proc)


def _closed(proc: subprocess.Popen) -> None:
    proc.wait()
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None and not pipe.closed:
            pipe.close()


def _reference(tmp_path: Path, n: int) -> list[tuple]:
    with ScratchStore(tmp_path / "reference", index_write_behind=False) as ref:
        for i in range(n):
            ref.scope("run", "agent").spill(_content(i), source_tool="t")
        return _fields(ref.list_entries())


def test_a_killed_writers_acknowledged_spills_are_restored_by_the_next_open(tmp_path):
    root = tmp_path / "root"
    proc, handles = _writer(root, 30)
    _kill(proc)
    assert len(os.listdir(root / JOURNAL_DIR)) == 1
    with ScratchStore(root, orphan_grace=0) as store:
        assert os.listdir(root / JOURNAL_DIR) == []  # recovered as the store opened
        scope = store.scope("run", "agent")
        for i, handle in enumerate(handles):
            assert _read(scope, handle, 10_000) == _content(i)
        assert _fields(store.list_entries()) == _reference(tmp_path, 30)
        assert sorted(e.key for e in store.list_entries()) == sorted(handles)
        assert store.sweep(full=True).files_deleted == 0
        assert not fsck(store).problems


def test_a_sweep_never_removes_a_segment_a_dead_writers_journal_names(tmp_path, monkeypatch):
    root = tmp_path / "root"
    proc, handles = _writer(root, 10)
    _kill(proc)
    monkeypatch.setattr(ScratchStore, "recover", lambda self, quiet=False: 0)  # a writer died after recovery
    with ScratchStore(root, orphan_grace=0) as store:
        assert store.list_entries() == []
        store.sweep(full=True)
        fsck(store, repair=True)
    monkeypatch.undo()
    with ScratchStore(root, orphan_grace=0) as store:  # the open recovers: nothing was lost
        assert sorted(e.key for e in store.list_entries()) == sorted(handles)
        for i, handle in enumerate(handles):
            assert _read(store.scope("run", "agent"), handle, 10_000) == _content(i)


def test_a_handle_not_found_recovers_a_dead_writers_rows_first(tmp_path):
    root = tmp_path / "root"
    with ScratchStore(root, orphan_grace=0) as store:  # opened before the writer dies: no recovery at open
        proc, handles = _writer(root, 3)
        _kill(proc)
        assert _read(store.scope("run", "agent"), handles[1], 10_000) == _content(1)
        assert len(store.list_entries()) == 3


def test_a_live_writers_journal_is_left_alone(tmp_path):
    root = tmp_path / "root"
    proc, handles = _writer(root, 5)
    try:
        with ScratchStore(root, orphan_grace=0) as store:
            assert store.list_entries() == []  # another process's queued rows: not yet committed
            assert store.recover() == 0
            store.sweep(full=True)
            assert not fsck(store).problems  # neither the journal nor the unindexed records are problems
            assert len(os.listdir(root / JOURNAL_DIR)) == 1
            proc.stdin.write("flush\n")
            proc.stdin.flush()
            assert proc.stdout.readline().strip() == "5"
            assert proc.stdout.readline().strip() == "closed"
            assert sorted(e.key for e in store.list_entries()) == sorted(handles)
            assert os.listdir(root / JOURNAL_DIR) == []  # unlinked by its closing writer
    finally:
        _kill(proc)


# -- deletes ordered against queued rows --------------------------------------------------------------------------

def test_a_delete_run_of_another_process_drops_the_queued_rows(tmp_path):
    root = tmp_path / "root"
    proc, _handles = _writer(root, 5)
    with ScratchStore(root, orphan_grace=0) as store:
        assert store.delete_run("run") == 0  # the rows were not committed: the write is ordered before the delete
        proc.stdin.write("flush\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "0"  # its flush found the segment moved away: rows dropped
        assert proc.stdout.readline().strip() == "closed"
        _closed(proc)
        store.sweep(full=True)
        assert store.list_entries() == []
    with ScratchStore(root) as store:
        assert store.list_entries() == []


def test_a_killed_writers_rows_of_a_deleted_run_are_not_resurrected(tmp_path, monkeypatch):
    root = tmp_path / "root"
    proc, _handles = _writer(root, 5)
    _kill(proc)
    monkeypatch.setattr(ScratchStore, "recover", lambda self, quiet=False: 0)
    with ScratchStore(root, orphan_grace=0) as store:
        store.delete_run("run")
    monkeypatch.undo()
    with ScratchStore(root, orphan_grace=0) as store:
        assert store.list_entries() == []
        assert os.listdir(root / JOURNAL_DIR) == []


def test_a_delete_run_in_the_same_process_deletes_queued_rows(tmp_path, held_back):
    with ScratchStore(tmp_path / "root") as writer, ScratchStore(tmp_path / "root") as deleter:
        for i in range(4):
            writer.scope("run", "agent").spill(_content(i), source_tool="t")
        assert writer.entries.behind.queued == 4
        assert deleter.delete_run("run") == 4
        writer.flush()
        assert writer.list_entries() == []
    with ScratchStore(tmp_path / "root") as store:
        assert store.list_entries() == []


def test_off_commits_each_row_before_the_spill_returns(tmp_path, held_back):
    with ScratchStore(tmp_path / "root", index_write_behind=False) as store:
        store.scope("run", "agent").spill(_content(1), source_tool="t")
        assert store.entries.behind is None
        assert len(store.index.list_all(store.now())) == 1
    with ScratchStore(tmp_path / "q", run_quota_entries=100) as store:  # a quota counts every row: none behind
        store.scope("run", "agent").spill(_content(1), source_tool="t")
        assert store.entries.behind.queued == 0


def test_a_fork_child_starts_with_an_empty_queue(tmp_path, held_back):
    with ScratchStore(tmp_path / "root") as store:
        scope = store.scope("run", "agent")
        scope.spill(_content(1), source_tool="t")
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            code = 1
            try:
                if store.entries.behind.queued == 0:
                    scope.spill(_content(2), source_tool="t")
                    store.flush()
                    code = 0
            finally:
                os._exit(code)
        assert os.waitpid(pid, 0)[1] == 0
        store.flush()
        assert len(store.list_entries()) == 2


def test_while_the_queue_cannot_be_committed_reads_go_on_and_new_spills_commit_their_own_rows(tmp_path, held_back,
                                                                                             monkeypatch):
    """A flush that fails (a full disk, an index locked past the busy timeout: here put_many raising) keeps its rows
    queued, and must neither fail every later read of the process nor queue more rows behind it: a spill then
    commits its own row (and would fail as before, so that the adapter passes the result through)."""
    from scratchfs.engine.sqlite_index import Index
    from scratchfs.foundation.errors import StorageError

    failing = [False]
    put_many = Index.put_many

    def faulty(self, rows):
        if failing[0]:
            raise StorageError("cannot commit (a fault of the test)")
        return put_many(self, rows)

    monkeypatch.setattr(Index, "put_many", faulty)
    with ScratchStore(tmp_path / "root") as store:
        scope = store.scope("run", "agent")
        old = scope.spill(_content(1), source_tool="t").handle
        store.flush()
        failing[0] = True
        queued = scope.spill(_content(2), source_tool="t").handle
        with pytest.raises(StorageError):  # asked for, the flush says why
            store.flush()
        assert _read(scope, old, 10_000) == _content(1)  # reads go on
        assert len(scope.list_entries()) == 1
        fresh = scope.spill(_content(3), source_tool="t").handle  # committed with the spill
        assert store.entries.behind.queued == 1
        with ScratchStore(tmp_path / "root", index_write_behind=False) as other:
            assert _read(other.scope("run", "agent"), fresh, 10_000) == _content(3)
        failing[0] = False
        assert _read(scope, queued, 10_000) == _content(2)  # committed by the next use
        assert store.entries.behind.queued == 0
        later = scope.spill(_content(4), source_tool="t").handle
        assert store.entries.behind.queued == 1  # written behind again
        assert _read(scope, later, 10_000) == _content(4)


def test_a_use_of_the_index_with_nothing_queued_walks_no_queue(tmp_path, held_back, monkeypatch):
    """The hook before each use of the index tests one count: walking the store objects' queues on every read cost a
    cached scratch_read a third of its time (bench T8: 1.88x diskcache.get against 1.50x with the rows synchronous)."""
    walks = []
    flush = write_behind._Group.flush
    monkeypatch.setattr(write_behind._Group, "flush", lambda group: (walks.append(1), flush(group)))
    with ScratchStore(tmp_path / "root") as store:
        scope = store.scope("run", "agent")
        handle = scope.spill(_content(1), source_tool="t").handle
        scope.scratch_write("k", b"v")
        assert _read(scope, handle, 10_000) == _content(1)  # commits the queued row: one walk
        assert len(walks) == 1
        for _ in range(20):
            assert scope.scratch_read("k") == b"v"
            assert _read(scope, handle, 10_000) == _content(1)
        assert len(scope.list_entries()) == 2
        assert len(walks) == 1


@pytest.mark.parametrize("how", ["store left open", "adapter offload"])
def test_rows_queued_when_the_interpreter_exits_are_committed_quietly(tmp_path, how):
    """A program that spills and exits without ``close()`` (a script, the adapter's ``offload``) has its queued rows
    committed at exit, with nothing on stderr: the lock files' descriptors stay open until they are (weakref's exit
    hook, which closed them first, ran before the write-behind's)."""
    root = tmp_path / "root"
    body = {"store left open": "s = ScratchStore(root=sys.argv[1]); h = s.scope('r', 'a').spill(b'x' * 20_000).handle",
            "adapter offload": "s = ScratchStore(root=sys.argv[1]); "
                               "o = Observation(tool='t', content='y' * 20_000, result_class='query'); "
                               "h = s.scope('r', 'a').offload(o).stub.handle"}
    code = f"import sys\nfrom scratchfs import Observation, ScratchStore\n{body[how]}\nprint(h)\n"
    done = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, timeout=60,
                          cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert os.listdir(root / JOURNAL_DIR) == []  # committed, not left for recovery
    handle = done.stdout.strip()
    with ScratchStore(root) as store:
        assert [e.key for e in store.list_entries()] == [handle]


def test_an_acknowledged_spill_whose_row_cannot_be_committed_reads_as_waiting_not_as_not_found(tmp_path, held_back,
                                                                                             monkeypatch):
    """On a full disk (found on a 2 MiB tmpfs: 27 of 41 acknowledged spills) a spill acknowledged on its segment
    record whose queued row could not be committed read as NotFound, "no handle ... in this scope; copy the handle
    whole ..., or run the tool that made it again if its result expired over an hour ago", though it was stored and
    came back once space was freed. Such a read now says it is stored and waits for room (StorageError), and the
    same handle reads whole once the index takes its row; a handle never spilled is still NotFound."""
    from scratchfs.engine.sqlite_index import Index
    from scratchfs.foundation.errors import NotFound, StorageError

    failing = [False]
    put_many = Index.put_many

    def faulty(self, rows):
        if failing[0]:
            raise StorageError("database or disk is full (a fault of the test)")
        return put_many(self, rows)

    monkeypatch.setattr(Index, "put_many", faulty)
    with ScratchStore(tmp_path / "root") as store:
        scope = store.scope("run", "agent")
        failing[0] = True
        queued = scope.spill(_content(2), source_tool="t").handle
        for _ in range(2):  # (the first read's flush fails, the second finds the queue failing)
            with pytest.raises(StorageError) as caught:
                scope.read_handle(queued, 0, 10)
            assert str(caught.value) == (
                f"handle {queued!r} is stored, but its row could not be written to the index yet (the disk is full, "
                "or the index locked): read it again once space is freed (a sweep, delete-run); it is written then, "
                "nothing is lost")
        with pytest.raises(NotFound):
            scope.read_handle(queued[:-2] + "aa" if not queued.endswith("aa") else queued[:-2] + "bb", 0, 10)
        with pytest.raises(NotFound):
            store.scope("run", "other").read_handle(queued, 0, 10)  # another scope's: nothing learnt
        failing[0] = False
        assert _read(scope, queued, 10_000) == _content(2)


def test_a_flush_looks_each_segment_up_once_not_each_row(tmp_path, held_back, monkeypatch):
    # the rows of one transaction under the shared delete lock: no delete can move their segment meanwhile, so one
    # lstat of it answers for all of them (it was one per row, on the flusher's thread: issue 16's T1)
    from scratchfs.engine import safe_fs

    with ScratchStore(tmp_path / "root", orphan_grace=0) as store:
        scope = store.scope("run", "agent")
        other = store.scope("run", "other")
        stubs = [(s, s.spill(_content(i), source_tool="t")) for i in range(30) for s in (scope, other)]
        assert store.entries.behind.queued == 60
        looked: list[str] = []
        is_at = safe_fs.is_at
        monkeypatch.setattr(safe_fs, "is_at", lambda root, path, ident, sole=False: looked.append(path) or is_at(
            root, path, ident, sole))
        store.flush()
        assert store.entries.behind.queued == 0
        assert len(looked) == 2 and len(set(looked)) == 2  # the two agents' segments, once each
        assert len(scope.list_entries()) == 30 and len(other.list_entries()) == 30
        for s, stub in stubs[:4]:
            assert _read(s, stub.handle, 10_000).startswith(b"line 0 of spill ")
