"""The SQLite connections of one index file: opened per thread, checked out for each use, closed safely; the file's
identity; typed errors.

With :mod:`scratchfs.engine.sqlite_index` (the schema and the queries), the only module that speaks SQL; it uses the
standard library's :mod:`sqlite3` (no other driver is needed: the index is one local file).

**Connections.** One per thread and per process (a ``fork()`` child opens its own and never touches its parent's),
opened with a ``file:`` URI (SQLite's URI filenames, https://sqlite.org/uri.html): ``mode=rwc`` only while the index
is first created, ``mode=rw`` afterwards (so a new thread never creates an empty file where the index was deleted),
``mode=ro`` on a read-only store, and ``mode=ro&immutable=1`` when even the ``-shm`` file of the WAL cannot be
created (https://sqlite.org/wal.html#readonly: a read-only WAL database needs its ``-shm`` and ``-wal`` files to
exist or to be creatable). Every use of a connection is a checkout (:meth:`Connections.use`), counted under a lock:
:meth:`Connections.close` closes idle connections at once and leaves busy ones to the thread that holds them, which
closes its connection when its statement is done. So no connection is ever closed under a running statement, and a
call that starts after ``close()`` raises :class:`~scratchfs.foundation.errors.StoreClosed`.

**Ending threads.** A thread's connection is registered (held strongly) by the :class:`Connections` and held in the
thread's :class:`Local` by a :class:`Hold`; when the thread ends, its thread-local state goes and the hold's finaliser
closes the connection. Whoever takes a connection out of the registry -- under the lock: :meth:`Connections.close`,
:meth:`Connections.discard`, or that finaliser -- is the one that closes it (or, when it is checked out, marks it so
that its last checkout closes it), so each connection is closed exactly once and never by two threads at once. (An
earlier ``Connection.__del__`` ran while the connection was still registered, and ``close()`` in another thread could
close it at the same moment: SIGBUS on Python 3.10.) The lock is re-entrant, since a finaliser can run in whatever
thread drops the last reference, one that may hold the lock already.

**Identity.** A scratchfs index carries ``PRAGMA application_id`` = :data:`APPLICATION_ID` and its schema version in
``PRAGMA user_version`` (https://sqlite.org/fileformat.html#application_id). The device and inode of the file are
recorded when the store opens it; each new connection and each write, before its ``COMMIT``, checks that the path
still names that file, so a write into an index deleted or replaced under an open store is never acknowledged.

**Errors.** Every :class:`sqlite3.Error` becomes a typed error
(:func:`~scratchfs.engine.sqlite_errors.index_error`)."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import urllib.parse
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from scratchfs.engine import fork_gate
from scratchfs.engine.batches import TxnLog
from scratchfs.engine.root import index_names
from scratchfs.engine.sqlite_errors import index_error
from scratchfs.foundation import forks
from scratchfs.foundation.errors import StorageError, StoreClosed

APPLICATION_ID = 0x53435246
"""``PRAGMA application_id`` of a scratchfs index: the bytes ``SCRF``."""

class Connection(sqlite3.Connection):
    """A connection that records the process that opened it, how many uses hold it (``busy``), and whether it was
    taken out of its :class:`Connections` while checked out (``dropped``: its last checkout closes it)."""

    owner = 0
    busy = 0
    dropped = False
    wal: tuple[int, int] | None = None  # the -wal file's device and inode at its first commit (check_identity)
    versions: sqlite3.Cursor | None = None  # the cursor of the index's PRAGMA data_version reads (its thread's)


class Hold:
    """A thread's hold on its connection, kept in the thread's :class:`Local`: when the thread ends (or a fork()
    child's copy of another thread's state is cleared), the finaliser hands the connection to
    :meth:`Connections.drop`, which closes it only if it is still registered, under the lock. The connections are
    referenced weakly, so that a thread that lives on does not keep a store dropped unclosed alive (its connections
    are then left to their own finaliser, which closes them -- with a ResourceWarning on Python 3.13: the store was
    not closed)."""

    __slots__ = ("conn", "connections")

    def __init__(self, connections: Connections, conn: Connection) -> None:
        self.connections = weakref.ref(connections)
        self.conn = conn

    def __del__(self) -> None:
        connections = self.connections()
        if connections is not None:
            connections.drop(self.conn)


class Local(threading.local):
    """One thread's state: its connection and the :class:`Hold` that closes it when the thread ends, the fork
    generation it was opened in, and the index's lookup cache with the ``PRAGMA data_version`` it was filled at (kept
    here so that both die with the thread)."""

    conn: Connection | None = None
    hold: Hold | None = None
    generation = -1
    version: int | None = None
    cache: dict = {}  # noqa: RUF012 - replaced per thread when its connection opens


class Connections:
    """The connections of one index file (see the module docstring).

    Args:
        path: the SQLite file.
        busy_timeout: seconds a statement waits for a lock.
        synchronous: ``"NORMAL"`` or ``"FULL"``.
        on_connect: called with each new connection before its first use (a hook for fault injection in tests).
    """

    def __init__(self, path: Path, busy_timeout: float, synchronous: str,
                 on_connect: Callable[[sqlite3.Connection], None] | None = None) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self.synchronous = synchronous
        self.on_connect = on_connect
        self.local = Local()
        self.read_only: str | None = None
        """Why the store is read-only (a sentence), or ``None`` when it can be written."""
        self.immutable = False
        self.identity: tuple[int, int] | None = None
        self._mode = "rwc"
        self._open: set[Connection] = set()  # registered: taken out only under the lock, by the one that closes it
        self._inherited: list[object] = []  # a fork() parent's connections and holds: kept, never used or closed here
        self._lock = threading.RLock()
        self._lock_generation = forks.generation
        self._closed = False
        self._broken: str | None = None

    # -- opening --------------------------------------------------------------------------------------------------

    def connect(self, doing: str = "opening the index") -> Connection:
        """A new connection in the current mode (not registered for this thread). Raises StorageError, StoreBusy."""
        query = f"mode={self._mode}" + ("&immutable=1" if self.immutable else "")
        uri = f"file:{urllib.parse.quote(os.fsencode(self.path))}?{query}"  # the name's bytes, UTF-8 or not
        conn = None
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=self.busy_timeout, isolation_level=None,
                                   check_same_thread=False, factory=Connection)
            conn.owner = os.getpid()
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
            if self._mode != "ro":
                conn.execute(f"PRAGMA synchronous = {self.synchronous}")
                conn.execute("PRAGMA wal_autocheckpoint = 0")  # checkpoints run off the writers' path (Checkpoints)
            if self.on_connect is not None:
                self.on_connect(conn)
            if self.identity is not None:
                self._check_new(conn)
        except sqlite3.Error as exc:
            _close_quietly(conn)
            raise index_error(exc, doing, self.path) from exc
        except BaseException:
            _close_quietly(conn)
            raise
        return conn

    def opened(self, mode: str, immutable: bool) -> None:
        """Record how the store opened the index (``"rw"`` or ``"ro"``), and the file's device and inode, which
        every later connection and write is checked against. Raises StorageError when the file is gone."""
        self._mode, self.immutable = mode, immutable
        try:
            st = os.stat(self.path)
        except OSError as exc:
            raise StorageError(f"the index {self.path} vanished while it was being opened: {exc.strerror}") from None
        self.identity = (st.st_dev, st.st_ino)

    def open_read_only(self) -> tuple[int, int]:
        """Open a read-only index: with ``mode=ro``; when SQLite cannot open the WAL's ``-shm`` there, with
        ``immutable=1`` too, which is exact only when no ``-wal`` file holds frames (a cleanly closed store has
        none). Return ``(application_id, user_version)``. Raises StorageError."""
        self.opened("ro", False)
        self.identity = None  # checked against the file once it is open
        conn = None
        try:
            with fork_gate.outside_use():  # (opening, in no use: a fork waits for it)
                conn = self.connect()
                self.identity_of(conn, "reading the schema version")
        except StorageError:
            _close_quietly(conn)
            wal = Path(f"{self.path}-wal")
            if wal.exists() and wal.stat().st_size > 0:
                raise StorageError(f"cannot read the read-only index {self.path}: its write-ahead log {wal} holds "
                                   f"changes and SQLite cannot create {self.path}-shm ({self.read_only})") from None
            self.opened("ro", True)
            self.identity = None
            with fork_gate.outside_use():
                conn = self.connect()
        try:
            with fork_gate.outside_use():
                found = self.identity_of(conn, "reading the schema version")
        finally:
            _close_quietly(conn)
        self.opened("ro", self.immutable)
        return found

    def identity_of(self, conn: sqlite3.Connection, doing: str) -> tuple[int, int]:
        """``(application_id, user_version)`` of the database. Raises StorageError, StoreBusy."""
        try:
            return (conn.execute("PRAGMA application_id").fetchone()[0],
                    conn.execute("PRAGMA user_version").fetchone()[0])
        except sqlite3.Error as exc:
            raise index_error(exc, doing, self.path) from exc

    def _check_new(self, conn: sqlite3.Connection) -> None:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        if app_id != APPLICATION_ID:
            self._break(f"the index {self.path} was replaced by another file while the store was open")
        self.check_identity()

    def check_identity(self, conn: Connection | None = None) -> None:
        """Check before each commit that the index path names the file the store opened, and ``conn``'s ``-wal`` the
        file of its first commit (SQLite removes none under an open connection: an outsider's removal takes what it
        held when the process dies, atk28), each with no other name (a hard link made while the store was open, e.g.
        ``cp -al``: a commit would change the file at the other name too). Raises StorageError (and every later call
        does) when either is gone or has another name."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._break(f"the index {self.path} was deleted while the store was open")
        except OSError as exc:
            raise StorageError(f"cannot check the index {self.path}: {exc.strerror or exc}") from None
        if (st.st_dev, st.st_ino) != self.identity:
            self._break(f"the index {self.path} was replaced by another file while the store was open")
        if st.st_nlink > 1:  # (the stat made anyway: no extra system call on a commit)
            self._break(index_names(self.path, st.st_nlink))
        if conn is not None:
            self._check_wal(conn)

    def _check_wal(self, conn: Connection) -> None:
        try:
            st = os.stat(f"{self.path}-wal")
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise StorageError(f"cannot check the index's write-ahead log {self.path}-wal: {exc.strerror}") from None
        found = None if st is None else (st.st_dev, st.st_ino)
        if st is not None and st.st_nlink > 1:
            self._break(index_names(f"{self.path}-wal", st.st_nlink))
        if conn.wal is None:
            conn.wal = found  # (none: not in WAL mode, nothing to watch)
        elif found != conn.wal:
            self._break(f"the index's write-ahead log {self.path}-wal was {'replaced' if found else 'deleted'} while "
                        "the store was open (closing the store writes what that log held to the index)")

    def _guard(self) -> threading.RLock:
        """The lock of the counts and the registry, new in a ``fork()`` child (a parent's thread may have held it at
        the fork); re-entrant, as a :class:`Hold`'s finaliser may run in a thread that holds it."""
        if self._lock_generation != forks.generation:
            self._lock, self._lock_generation = threading.RLock(), forks.generation
        return self._lock

    def _break(self, why: str) -> None:
        with self._guard():
            self._broken = f"{why}; nothing more is written to it: close the store and open it again"
        raise StorageError(self._broken)

    # -- checkout -------------------------------------------------------------------------------------------------

    def thread_connection(self) -> Connection:
        """This thread's connection in this process (opened on first use; a ``fork()`` child opens its own). Not
        checked out: use :meth:`use` around statements.

        Raises:
            StoreClosed: the store is closed.
            StorageError, StoreBusy: the index cannot be opened.
        """
        local = self.local
        conn = local.conn
        if conn is not None and local.generation == forks.generation:
            return conn
        self.check_open()
        if conn is not None:  # opened by the parent of this fork() child: neither use nor close it
            self._inherited.append(local.hold)
            local.conn = local.hold = None
        with fork_gate.outside_use():  # (not within a use when the store opens: a fork waits for it)
            conn = self.connect()
        with self._guard():
            closed = self._closed
            if not closed:
                self._open.add(conn)
        if closed:
            _close_quietly(conn)
            raise StoreClosed("the store is closed")
        local.hold = Hold(self, conn)
        local.conn, local.generation, local.version, local.cache = conn, forks.generation, None, {}
        return conn

    @contextmanager
    def use(self) -> Iterator[Connection]:
        """Check out this thread's connection for the statements of one operation (:meth:`acquire`, then
        :meth:`release`).

        Raises:
            StoreClosed: the store is closed (before the checkout; a checkout held across ``close()`` finishes).
            StorageError: the index was deleted or replaced, or cannot be opened. StoreBusy: from opening.
        """
        conn = self.acquire()
        try:
            yield conn
        finally:
            self.release(conn)

    before_use: Callable[[], None] | None = None
    """Called before each outermost checkout of a thread's connection (not inside a transaction or statement of
    that thread): :class:`~scratchfs.engine.write_behind.HookedConnections`' hook, checked here in the one call
    (a subclass's ``acquire`` calling this one read the thread's state twice: every read of the index goes here)."""

    def acquire(self) -> Connection:
        """Check out this thread's connection; pair with :meth:`release` (in a ``finally``). A ``fork()`` waits for
        the checkouts in flight, and none starts while it waits (:mod:`scratchfs.engine.fork_gate`). Raises as
        :meth:`use`, and what :attr:`before_use` raises."""
        local = self.local
        generation = forks.generation
        hook = self.before_use
        if hook is not None:
            conn = local.conn
            if conn is None or conn.busy == 0 or local.generation != generation:
                hook()
        fork_gate.enter()
        try:
            conn = local.conn
            if conn is None or local.generation != generation:
                conn = self.thread_connection()
            with self._lock if self._lock_generation == generation else self._guard():
                if self._closed:
                    raise StoreClosed("the store is closed")
                if self._broken:
                    raise StorageError(self._broken)
                conn.busy += 1
        except BaseException:
            fork_gate.leave()
            raise
        return conn

    def release(self, conn: Connection) -> None:
        """End a checkout; the last one of a connection closed or dropped meanwhile closes it."""
        try:
            with self._lock if self._lock_generation == forks.generation else self._guard():
                conn.busy -= 1
                close_now = (self._closed or conn.dropped) and conn.busy == 0
            if close_now and conn.owner == os.getpid():
                _close_quietly(conn)
        finally:
            fork_gate.leave()

    def check_open(self) -> None:
        """Raise StoreClosed when the store is closed, StorageError when its index was deleted or replaced."""
        if self._closed:
            raise StoreClosed("the store is closed")
        if self._broken:
            raise StorageError(self._broken)

    def check_writable(self, doing: str) -> None:
        """Raise StoreClosed when closed, StorageError when the index is gone or the store is read-only; ``doing``
        is a gerund phrase ("writing an entry")."""
        self.check_open()
        if self.read_only:
            raise StorageError(f"refused {doing}: the store is read-only ({self.read_only})")

    def discard(self, conn: Connection) -> None:
        """Forget this thread's connection (after a failure that may have left it mid-transaction); it is closed
        now or, when checked out, as its last checkout ends, and the thread opens a new one on its next use."""
        self.drop(conn)
        local = self.local
        if local.conn is conn:
            local.conn = local.hold = None  # the hold's finaliser finds it taken out already

    def drop(self, conn: Connection) -> None:
        """Take ``conn`` out of the registry and close it (when checked out: mark it, and its last checkout closes
        it), if it is still registered: otherwise :meth:`close` or :meth:`discard` took it, and closes it. So a
        connection is closed once, whichever thread (a :class:`Hold`'s finaliser may run in any) calls this. A
        ``fork()`` parent's connection is kept, untouched, and the lock not taken (a parent's thread may have held
        it at the fork: the child clears the other threads' states before it runs its at-fork hooks)."""
        if conn.owner != os.getpid():
            self._inherited.append(conn)
            return
        with self._guard():
            if conn not in self._open:
                return
            self._open.discard(conn)
            conn.dropped = True
            close_now = conn.busy == 0
        if close_now:
            _close_quietly(conn)

    def rollback(self, conn: Connection) -> None:
        """Roll back an open transaction of ``conn``; a failed rollback (I/O error) leaves the connection unusable,
        so it is discarded (:meth:`discard`) and the thread opens a new one."""
        try:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
        except sqlite3.Error:
            self.discard(conn)

    def release_thread(self) -> None:
        """Close this thread's connection now (a thread about to end, such as the sweeper's)."""
        conn = self.local.conn
        if conn is not None and self.local.generation == forks.generation:
            self.discard(conn)

    def close(self) -> None:
        """Refuse new checkouts; close idle connections of this process now and busy ones when their checkout ends
        (a forked child leaves its parent's alone). Idempotent, safe from any thread at any time."""
        pid = os.getpid()
        with self._guard():
            self._closed = True
            conns, self._open = self._open, set()  # swapped, not copied: a finaliser running in here finds none
            idle = [conn for conn in conns if conn.busy == 0 and conn.owner == pid]
            self._inherited.extend(conn for conn in conns if conn.owner != pid)
        for conn in idle:
            _close_quietly(conn)

    @property
    def closed(self) -> bool:
        """True once :meth:`close` was called."""
        return self._closed


def _close_quietly(conn: sqlite3.Connection | None) -> None:
    if conn is not None:
        try:
            with fork_gate.outside_use():  # (a thread's end closes its connection in no use: a fork waits for it)
                conn.close()
        except sqlite3.Error:  # pragma: no cover - closing an idle connection does not fail in practice
            pass


class Transaction:
    """One ``BEGIN IMMEDIATE`` transaction of this thread's connection, as a context manager giving it: committed on
    leaving without an exception (after :meth:`Connections.check_identity`; then ``on_commit(connection, rows
    changed)`` is called, which must not raise), rolled back on any; every
    :class:`sqlite3.Error` of the begin, the body or the commit raised as :func:`index_error` gives it. A committed one
    is recorded in ``log`` (:meth:`TxnLog.record`: seconds, rows changed, doing, and the thread's CPU seconds in it,
    read at the end only for a transaction longer than the longest so far, the one whose CPU the log keeps: a
    ``thread_time`` is a system call). (A class, not a generator: every spill commits through one.)"""

    __slots__ = ("began", "changes", "conn", "connections", "cpu", "doing", "log", "on_commit")

    def __init__(self, connections: Connections, doing: str, log: TxnLog,
                 on_commit: Callable[[Connection, int], None] | None = None) -> None:
        self.connections, self.doing, self.log, self.on_commit = connections, doing, log, on_commit

    def __enter__(self) -> Connection:
        connections = self.connections
        connections.check_writable(self.doing)
        self.conn = conn = connections.acquire()
        try:
            if conn.in_transaction:  # left open by a failure that could not roll back
                conn.execute("ROLLBACK")
            conn.execute("BEGIN IMMEDIATE")
            self.began, self.cpu, self.changes = time.perf_counter(), time.thread_time(), conn.total_changes
        except BaseException as exc:
            if isinstance(exc, sqlite3.Error):
                connections.rollback(conn)  # an interrupted BEGIN may have begun
            connections.release(conn)
            if isinstance(exc, sqlite3.Error):
                raise index_error(exc, self.doing, connections.path) from exc
            raise
        return conn  # the lock held from here

    def __exit__(self, kind: type | None, exc: BaseException | None, trace: object) -> None:
        connections, conn = self.connections, self.conn
        try:
            if kind is None:
                if not conn.in_transaction:  # the body rolled back on purpose (Index.put when its check fails)
                    return
                try:
                    connections.check_identity(conn)
                    conn.execute("COMMIT")
                except BaseException as failed:
                    connections.rollback(conn)
                    if isinstance(failed, sqlite3.Error):
                        raise index_error(failed, self.doing, connections.path) from failed
                    raise
                log, seconds, rows = self.log, time.perf_counter() - self.began, conn.total_changes - self.changes
                log.record(seconds, rows, self.doing, time.thread_time() - self.cpu if seconds > log.longest else 0.0)
                if self.on_commit is not None:
                    self.on_commit(conn, rows)
                return
            connections.rollback(conn)
            if issubclass(kind, sqlite3.Error):
                raise index_error(exc, self.doing, connections.path) from exc
        finally:
            connections.local.cache.clear()  # this connection's own commits do not change its data_version
            connections.release(conn)


__all__ = [
    "APPLICATION_ID",
    "Connection",
    "Connections",
    "Hold",
    "Local",
    "Transaction",
]
