"""A thread's SQLite connection is closed when the thread ends: once, under the connections' lock, never at the same
time as ``store.close()`` or a discard (Python 3.13 warns of a connection dropped unclosed: ``ResourceWarning:
unclosed database``; an earlier ``Connection.__del__`` raced ``close()`` and crashed 3.10 with SIGBUS)."""

from __future__ import annotations

import gc
import random
import sqlite3
import threading
import time
import warnings
import weakref

import pytest

from scratchfs import ScratchStore, StorageError, StoreClosed
from scratchfs.engine import sqlite_connections
from scratchfs.engine.sqlite_connections import Connections, Hold


def _is_closed(conn: sqlite3.Connection) -> bool:
    try:
        conn.execute("SELECT 1")
    except sqlite3.ProgrammingError:
        return True
    return False


class CloseLog:
    """Every close of a connection through the module, and whether two threads were ever closing one at once."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.closes: dict[int, int] = {}
        self.conns: list[sqlite3.Connection] = []
        self.overlaps = 0
        self._closing: set[int] = set()
        self._lock = threading.Lock()
        real = sqlite_connections._close_quietly

        def close(conn: sqlite3.Connection | None) -> None:
            if conn is None:
                return
            key = id(conn)
            with self._lock:
                if key not in self.closes:
                    self.conns.append(conn)  # kept alive, so that ids are not reused
                self.closes[key] = self.closes.get(key, 0) + 1
                self.overlaps += key in self._closing
                self._closing.add(key)
            try:
                time.sleep(0.0005)  # widen the window a second closer would need
                real(conn)
            finally:
                with self._lock:
                    self._closing.discard(key)

        monkeypatch.setattr(sqlite_connections, "_close_quietly", close)


def test_a_thread_that_used_the_store_leaves_no_connection_open(tmp_path):
    with ScratchStore(tmp_path / "s") as store:
        scope = store.scope("run", "agent")
        handle = scope.spill(b"x\n" * 9000, source_tool="t").handle
        connections = store.index.connections
        seen: list[sqlite3.Connection] = []

        def reader() -> None:
            assert scope.read_handle(handle, offset=0, length=10).data == b"x\n" * 5
            seen.append(connections.local.conn)

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ResourceWarning)
            thread = threading.Thread(target=reader)
            thread.start()
            thread.join(30)
            gc.collect()
        assert seen, "the reader failed"
        assert _is_closed(seen[0])  # closed as the thread ended, while the store stays open
        assert seen[0] not in connections._open
        assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
        assert scope.read_handle(handle, offset=0, length=4).data == b"x\nx\n"  # this thread's own goes on
        assert not _is_closed(connections.local.conn)


def test_a_discarded_connection_is_closed_once_and_its_hold_does_not_close_it_again(tmp_path, monkeypatch):
    log = CloseLog(monkeypatch)
    with ScratchStore(tmp_path / "s") as store:
        scope = store.scope("run", "agent")
        scope.scratch_write("k", b"v")
        connections = store.index.connections
        conn = connections.local.conn
        connections.discard(conn)  # also lets its hold go: that finaliser finds it taken out
        gc.collect()
        assert log.closes.get(id(conn)) == 1
        assert connections.local.conn is None and connections.local.hold is None
        assert scope.scratch_read("k") == b"v"  # a new connection
        assert connections.local.conn is not conn


def test_a_hold_let_go_by_a_thread_that_holds_the_lock_closes_its_connection(tmp_path):
    # a finaliser runs in whatever thread drops the last reference, perhaps one inside the connections' lock: the
    # lock is re-entrant (with a plain Lock this test would hang)
    with ScratchStore(tmp_path / "s") as store:
        store.scope("run", "agent").scratch_write("k", b"v")
        connections = store.index.connections
        conn = connections.connect()
        with connections._guard():
            connections._open.add(conn)
        hold = Hold(connections, conn)
        with connections._guard():
            del hold
            assert conn not in connections._open
        assert _is_closed(conn)


def test_a_hold_does_not_keep_its_connections_alive(tmp_path):
    # a thread that lives on does not keep a store dropped unclosed (its connection is then its own finaliser's)
    connections = Connections(tmp_path / "index.db", 5.0, "NORMAL")
    conn = connections.connect()
    connections._open.add(conn)
    hold = Hold(connections, conn)
    gone = weakref.ref(connections)
    del connections
    gc.collect()
    assert gone() is None
    del hold
    assert not _is_closed(conn)
    conn.close()


def test_an_index_refused_at_open_leaves_no_connection_open(tmp_path, monkeypatch):
    log = CloseLog(monkeypatch)
    opened: list[sqlite3.Connection] = []
    real_connect = Connections.connect
    monkeypatch.setattr(Connections, "connect", lambda self, *a: opened.append(real_connect(self, *a)) or opened[-1])
    theirs = sqlite3.connect(tmp_path / "index.sqlite")  # another application's database
    theirs.execute("CREATE TABLE notes (body TEXT)")
    theirs.commit()
    theirs.close()
    with pytest.raises(StorageError, match="not a scratchfs index"):
        ScratchStore(tmp_path)
    assert opened and all(_is_closed(conn) for conn in opened)
    assert {log.closes.get(id(conn)) for conn in opened} == {1}


def test_many_short_threads_racing_close_close_each_connection_exactly_once(tmp_path, monkeypatch):
    log = CloseLog(monkeypatch)
    opened: list[sqlite3.Connection] = []
    real_connect = Connections.connect

    def connect(self: Connections, doing: str = "opening the index") -> sqlite3.Connection:
        conn = real_connect(self, doing)
        opened.append(conn)
        return conn

    monkeypatch.setattr(Connections, "connect", connect)
    rng = random.Random(9)
    failures: list[BaseException] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        for attempt in range(12):
            store = ScratchStore(tmp_path / f"s{attempt}")
            scope = store.scope("run", "agent")
            handle = scope.spill(b"line\n" * 5000, source_tool="t").handle

            def reader(scope=scope, handle=handle) -> None:
                try:
                    for _ in range(3):
                        assert scope.read_handle(handle, offset=0, length=5).data == b"line\n"
                except StoreClosed:
                    pass
                except BaseException as exc:
                    failures.append(exc)

            threads = [threading.Thread(target=reader) for _ in range(24)]
            for thread in threads:
                thread.start()
            time.sleep(rng.uniform(0, 0.02))
            store.close()  # while threads read, end and let their connections go
            for thread in threads:
                thread.join(30)
            assert not any(thread.is_alive() for thread in threads)
            del store, scope
        gc.collect()
    assert failures == []
    assert log.overlaps == 0
    assert opened and all(_is_closed(conn) for conn in opened)
    assert {log.closes.get(id(conn)) for conn in opened} == {1}  # each once, whoever closed it
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


@pytest.mark.parametrize(("message", "name", "kind"), [
    ("database or disk is full", "SQLITE_FULL", "the disk or the file-size limit is full"),
    ("file is not a database", "SQLITE_NOTADB", "the file is not a SQLite database"),
    ("disk I/O error", "SQLITE_IOERR", "an I/O error"),
    ("database is locked", None, None),
    ("no such table: entries", None, "no such table: entries"),
])
def test_an_error_without_sqlite_codes_is_named_from_its_message(message, name, kind):
    # Python 3.10's sqlite3 errors carry no sqlite_errorcode or sqlite_errorname (3.11 added them): the primary code
    # and its name come from SQLite's message, so the typed error says the same on every Python
    from scratchfs import StoreBusy
    from scratchfs.engine.sqlite_errors import index_error

    err = index_error(sqlite3.OperationalError(message), "writing an entry")
    if kind is None:
        assert isinstance(err, StoreBusy)
        return
    assert isinstance(err, StorageError) and kind in str(err)
    assert (name in str(err)) if name else "SQLITE_" not in str(err)
