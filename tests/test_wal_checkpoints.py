"""The SQLite index's write-ahead log is checkpointed on a thread of its own, never inside a writer's COMMIT
(scratchfs.engine.wal_checkpoints; issue 16)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from scratchfs import ScratchStore
from scratchfs.engine import wal_checkpoints
from scratchfs.engine.sqlite_index import Index
from scratchfs.engine.wal_checkpoints import Checkpoints
from scratchfs.foundation import forks


def _checkpoint_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "scratchfs-checkpoint"]


def _wait_idle(store: ScratchStore, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while store.index.checkpoints.running and time.monotonic() < deadline:
        time.sleep(0.005)


def test_no_connection_checkpoints_inside_a_commit(tmp_path, monkeypatch):
    opened: list[sqlite3.Connection] = []
    monkeypatch.setattr(Index, "on_connect", opened.append)
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        for i in range(wal_checkpoints.CHECKPOINT_ROWS + 5):
            scope.scratch_write(f"k{i}", b"v" * 100)
        _wait_idle(store)
        assert opened
        for conn in opened:
            try:
                value = conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
            except sqlite3.ProgrammingError:  # the checkpoint thread's own, closed when it ended
                continue
            assert value == 0


def _where_checkpoints_ran(monkeypatch) -> list[str]:
    names: list[str] = []
    run = Checkpoints._checkpoint

    def recorded(self, conn, *mode):
        names.append(threading.current_thread().name)
        return run(self, conn, *mode)

    monkeypatch.setattr(Checkpoints, "_checkpoint", recorded)
    return names


@contextlib.contextmanager
def _small_counts(tmp_path) -> Iterator[tuple[ScratchStore, Checkpoints]]:
    """A store whose index checkpoints every 16 rows and settles every 64 (so that a test writes few)."""
    with ScratchStore(tmp_path) as store:
        checkpoints = store.index.checkpoints
        checkpoints.rows, checkpoints.settle_rows = 16, 64
        yield store, checkpoints


# (no `alone` marks in this module: the bounds are of bytes, the log's size; a checkpoint slow to run is what
# the starved test below makes, and the writer waits for it)
def test_a_writer_without_pauses_settles_the_log_every_settle_rows(tmp_path, monkeypatch):
    ran = _where_checkpoints_ran(monkeypatch)
    with _small_counts(tmp_path) as (store, checkpoints):
        scope = store.scope("run", "agent")
        wal = tmp_path / "index.sqlite-wal"
        rows = 8 * checkpoints.settle_rows
        largest = 0
        for i in range(rows):
            scope.scratch_write(f"k{i}", os.urandom(64))
            largest = max(largest, wal.stat().st_size)
        _wait_idle(store)
        assert "scratchfs-checkpoint" in ran
        # without checkpoints the log would hold every page written (7-9 a row); it starts again after each settling
        # (at most twice settle_rows rows after the last, with a background checkpoint slow to run: a loaded machine)
        settled, unchecked = 2.5 * checkpoints.settle_rows * 10 * 4096, rows * 7 * 4096
        assert largest <= settled < unchecked / 2, (largest, settled, unchecked)
        assert [scope.scratch_read(f"k{i}") is not None for i in (0, rows - 1)] == [True, True]
    assert not _checkpoint_threads()


def test_a_background_checkpoint_starved_of_cpu_does_not_let_the_log_grow_without_bound(tmp_path):
    # the writer leaves the settling to a background checkpoint under way; one that is slow to run (a loaded
    # machine: seen in a loop under 3 busy processes) let the log grow by every row committed meanwhile. Once twice
    # settle_rows went by, the writer waits for it (at most 250 ms) and settles anyway.
    with _small_counts(tmp_path) as (store, checkpoints):
        connect = checkpoints._connect

        def slow_connect():
            time.sleep(0.3)
            return connect()

        checkpoints._connect = slow_connect
        scope = store.scope("run", "agent")
        wal, largest = tmp_path / "index.sqlite-wal", 0
        for i in range(8 * checkpoints.settle_rows):
            scope.scratch_write(f"k{i}", os.urandom(64))
            largest = max(largest, wal.stat().st_size)
        _wait_idle(store)
        unchecked = 8 * checkpoints.settle_rows * 7 * 4096  # (the log without any checkpoint)
        assert largest <= 2.5 * checkpoints.settle_rows * 10 * 4096 < unchecked / 2, (largest, unchecked)


def test_threads_writing_without_pauses_settle_the_log_too(tmp_path):
    # a PASSIVE checkpoint copies the whole log, but another thread's write transaction already began reading it:
    # the log never started again, and grew by 9 pages a row (`python bench/checkpoint_hazards.py threads 4 6
    # [--passive-settle]`: 388.5 MiB in 6 s with PASSIVE settling, 21.2 MiB with RESTART)
    with _small_counts(tmp_path) as (store, checkpoints):
        wal, stop, largest, failed = tmp_path / "index.sqlite-wal", threading.Event(), [0], []

        def write(agent: str) -> None:
            scope = store.scope("run", agent)
            try:
                for i in range(6 * checkpoints.settle_rows):
                    scope.scratch_write(f"k{i % 40}", os.urandom(64))
            except BaseException as exc:  # pragma: no cover - reported below
                failed.append(exc)

        def lists() -> None:
            while not stop.is_set():
                store.scope("run", "a0").scratch_list()

        writers = [threading.Thread(target=write, args=(f"a{n}",)) for n in range(4)]
        listers = [threading.Thread(target=lists) for _ in range(2)]
        for t in writers + listers:
            t.start()
        while any(t.is_alive() for t in writers):
            largest[0] = max(largest[0], wal.stat().st_size if wal.exists() else 0)
            time.sleep(0.002)
        stop.set()
        for t in writers + listers:
            t.join()
        assert not failed
        unchecked = 4 * 6 * checkpoints.settle_rows * 7 * 4096
        # (5, not 4: 10,538,992 bytes, 1.005 times 4's bound, in a suite run of three workers on 2 cores, where the
        # checkpoint thread waits its turn at the CPU; unchecked, the log grows past 44 MB here, and 388 MiB in 6 s)
        assert largest[0] <= 5 * checkpoints.settle_rows * 10 * 4096 < unchecked / 2, (largest[0], unchecked)
    assert not _checkpoint_threads()


def test_a_writer_with_pauses_never_checkpoints_itself(tmp_path, monkeypatch):
    ran = _where_checkpoints_ran(monkeypatch)
    with _small_counts(tmp_path) as (store, checkpoints):
        scope = store.scope("run", "agent")
        wal = tmp_path / "index.sqlite-wal"
        largest = 0
        for i in range(8 * checkpoints.settle_rows):
            scope.scratch_write(f"k{i}", os.urandom(64))
            largest = max(largest, wal.stat().st_size)
            _wait_idle(store)  # an agent's pace: a background checkpoint copies the whole log before the next write
        assert ran and set(ran) == {"scratchfs-checkpoint"}  # no commit waited for a checkpoint
        assert largest <= 2 * checkpoints.rows * 10 * 4096  # and the log started again after each
        assert store.index.txn_log.checkpoints == len(ran)


def test_without_a_thread_the_committing_connection_checkpoints(tmp_path, monkeypatch):
    def refuse(self):
        raise RuntimeError("can't start new thread")

    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        monkeypatch.setattr(threading.Thread, "start", refuse)
        for i in range(2 * wal_checkpoints.CHECKPOINT_ROWS):
            scope.scratch_write(f"k{i}", b"value")
        monkeypatch.undo()
        assert store.index.txn_log.checkpoints == 2
        assert scope.scratch_read("k0") == b"value"


def test_a_batched_job_settles_the_log_between_its_transactions_never_in_one(tmp_path, monkeypatch):
    # a delete's batches are sized by how long they take (engine.batches): a checkpoint run by one of its commits
    # (two fsync calls) would be timed as the batch's. With no background thread to be had, every checkpoint is the
    # job's own: all of them between its transactions, none inside a COMMIT, and the log still settles.
    from scratchfs.engine.batches import BatchSizer

    with _small_counts(tmp_path) as (store, checkpoints):
        scope = store.scope("run", "agent")
        for i in range(300):
            scope.scratch_write(f"k{i}", b"value")
        rows = [(row[0], row[3]) for row in store.index.blob_rows()]
        _wait_idle(store)
        called_from: list[str] = []
        settle = Checkpoints._settle

        def recorded(self, conn, *running):
            called_from.append(sys._getframe(1).f_code.co_name)
            assert not conn.in_transaction
            return settle(self, conn, *running)

        monkeypatch.setattr(Checkpoints, "_settle", recorded)
        monkeypatch.setattr(threading.Thread, "start", lambda self: (_ for _ in ()).throw(RuntimeError("no thread")))
        # batches of 32, half of settle_rows: a settle every second batch whatever the rows left unsettled by the
        # writes above (0 to 63: how many depends on when the last background checkpoint ran, so on the machine's
        # load). With batches of 40 a settle came every 80 rows when none were left: 3 in 300, and the test failed
        # 2 of 5 rounds with the CPU overcommitted.
        assert store.index.delete_rows(rows, BatchSizer(32, low=32, high=32)) == 300
        monkeypatch.undo()
        # 300 rows, settled every 64: 4 settles at least, each from between() (committed() would settle in a commit)
        assert len(called_from) >= 300 // checkpoints.settle_rows and set(called_from) == {"between"}, called_from
        assert store.list_entries() == []


def test_a_batched_job_checkpoints_the_log_after_its_last_transaction(tmp_path, monkeypatch):
    # a delete that frees a full disk leaves the log copied, so that the next commit starts it again instead of
    # growing it into the space freed: with no checkpoint at a job's end (too few rows for a background one), the log
    # grew to 1 MB of a 3 MiB disk and tests/test_full_disk.py's in-process recovery failed every time
    with ScratchStore(tmp_path) as store:
        scope = store.scope("run", "agent")
        wal = tmp_path / "index.sqlite-wal"
        for i in range(20):  # far fewer rows than a background checkpoint waits for
            scope.scratch_write(f"k{i}", os.urandom(64))
        rows = [(row[0], row[3]) for row in store.index.blob_rows()]
        ran = _where_checkpoints_ran(monkeypatch)
        assert store.index.delete_rows(rows) == 20
        assert ran == [threading.current_thread().name]  # the job's own, after its last transaction
        size = wal.stat().st_size
        for i in range(20):
            scope.scratch_write(f"k{i}", os.urandom(64))
        assert wal.stat().st_size == size  # the log started again from its beginning
        assert len(scope.scratch_list()) == 20


def test_close_waits_for_a_checkpoint_and_starts_no_more(tmp_path):
    started = threading.Event()
    release = threading.Event()
    done = []

    def connect():
        started.set()
        release.wait(10)
        conn = sqlite3.connect(tmp_path / "x.sqlite3")
        done.append(conn)
        return conn

    checkpoints = Checkpoints(connect, lambda seconds: None, rows=2)
    probe = sqlite3.connect(":memory:")
    checkpoints.committed(probe, 1)
    assert not checkpoints.running
    checkpoints.committed(probe, 1)
    assert started.wait(10) and checkpoints.running
    closer = threading.Thread(target=checkpoints.close)
    closer.start()
    time.sleep(0.05)
    assert closer.is_alive()  # waiting for the checkpoint under way
    release.set()
    closer.join(10)
    assert not closer.is_alive() and not checkpoints.running and len(done) == 1
    with pytest.raises(sqlite3.ProgrammingError):  # the thread closed its connection
        done[0].execute("SELECT 1")
    checkpoints.committed(probe, 10)  # closed: nothing starts
    assert not checkpoints.running and len(done) == 1
    probe.close()  # Python 3.13 warns of a connection left open (ResourceWarning: an error in a later test)


def test_a_failing_checkpoint_is_skipped(tmp_path):
    seen = []

    def connect():
        raise sqlite3.OperationalError("unable to open database file")

    checkpoints = Checkpoints(connect, seen.append, rows=1)
    probe = sqlite3.connect(":memory:")
    checkpoints.committed(probe, 1)
    checkpoints.close()
    probe.close()
    assert seen == []
    broken = sqlite3.connect(":memory:")
    broken.close()
    checkpoints = Checkpoints(lambda: broken, seen.append, rows=1)
    checkpoints.committed(broken, 1)  # the statement raises ProgrammingError on a closed connection: skipped
    checkpoints.close()
    assert seen == []


def test_a_fork_child_starts_its_own(monkeypatch):
    gate = threading.Event()
    ran = []

    def connect():
        gate.wait(10)
        ran.append(threading.current_thread().ident)
        return sqlite3.connect(":memory:")

    checkpoints = Checkpoints(connect, lambda seconds: None, rows=1)
    probe = sqlite3.connect(":memory:")
    checkpoints.committed(probe, 1)
    assert checkpoints.running
    monkeypatch.setattr(forks, "generation", forks.generation + 1)  # as in a fork() child: that thread is not ours
    assert not checkpoints.running
    checkpoints.committed(probe, 1)
    assert checkpoints.running
    gate.set()
    checkpoints.close()
    probe.close()
    monkeypatch.undo()
    deadline = time.monotonic() + 10
    while len(ran) < 2 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert len(set(ran)) == 2


def test_a_fork_waits_until_the_checkpoint_thread_is_out_of_sqlite():
    # a child forked while the checkpoint thread held one of SQLite's process-wide mutexes would hang at its first
    # SQLite call; so fork() waits for the thread to leave SQLite (here: its connect, held open by the test)
    inside, leave = threading.Event(), threading.Event()

    def connect():
        inside.set()
        leave.wait(10)
        return sqlite3.connect(":memory:")

    checkpoints = Checkpoints(connect, lambda seconds: None, rows=1)
    probe = sqlite3.connect(":memory:")
    checkpoints.committed(probe, 1)
    probe.close()
    assert inside.wait(10)
    forked_at: list[float] = []

    def fork() -> None:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        forked_at.append(time.monotonic())
        os.waitpid(pid, 0)

    forker = threading.Thread(target=fork)
    forker.start()
    time.sleep(0.3)
    assert not forked_at  # waiting for the checkpoint thread
    left = time.monotonic()
    leave.set()
    forker.join(10)
    checkpoints.close()
    assert forked_at and forked_at[0] >= left


def test_a_settle_that_could_not_restart_the_log_is_tried_again_at_the_next_commit(tmp_path, monkeypatch):
    """A settle whose RESTART checkpoint came back busy (a background checkpoint starved of CPU still under way:
    seen in CI, the log at 8.1 MB where the bound was 6.6) left the count of rows since a settle at 0, so the log grew
    by twice settle_rows more before the next try. Now it stays due: the next commit (with no background checkpoint
    under way) settles."""
    with _small_counts(tmp_path) as (store, checkpoints):
        store.scope("run", "agent").scratch_write("k", b"v")
        _wait_idle(store)
        conn = checkpoints._connect()
        try:
            real = checkpoints._checkpoint
            busy = lambda c, mode="PASSIVE": mode != "RESTART" and real(c, mode)  # noqa: E731 - a RESTART is busy
            monkeypatch.setattr(checkpoints, "_checkpoint", busy)
            checkpoints._unsettled = 0  # as _count leaves it for the settle it hands out
            checkpoints._settle(conn)
            assert checkpoints._overdue(False) and not checkpoints._overdue(True)  # due; after twice, while one runs
            monkeypatch.setattr(checkpoints, "_checkpoint", real)
            checkpoints._unsettled = 0
            checkpoints._settle(conn)
            assert checkpoints._unsettled == 0  # a settle that restarted the log leaves nothing due
        finally:
            conn.close()
