"""The SQLite index's write-ahead log checkpoints, run on a short-lived thread of their own instead of inside a
writer's ``COMMIT``.

**Why.** In WAL mode SQLite copies the log back into the database file once it holds
``wal_autocheckpoint`` pages (1,000 by default), inside the ``COMMIT`` that crossed the mark
(https://sqlite.org/wal.html#automatic_checkpoint). With ``synchronous=NORMAL`` that checkpoint is the only
``fsync`` a writer ever waits for -- two of them, the log's and the database file's
(https://sqlite.org/pragma.html#pragma_synchronous) -- so every 100-odd spills one spill paid for all of them:
about 40 µs a spill on average on this machine (``python bench/checkpoint_costs.py``: a 4 KiB spill loop with the
automatic checkpoint against without any).

**How.** Every connection that writes has ``PRAGMA wal_autocheckpoint = 0``; :meth:`Checkpoints.committed`, called
after each commit with the rows it changed, starts one thread (``scratchfs-checkpoint``) once
:data:`CHECKPOINT_ROWS` rows were committed since the last start. The thread opens a connection of its own, runs
``PRAGMA wal_checkpoint(PASSIVE)`` (it waits for no reader or writer: it copies what it can, and makes the
``fsync`` calls), closes it and ends: no thread is left in an idle process, and a start every
:data:`CHECKPOINT_ROWS` rows costs less than a µs a row. At most one runs at a time per index; rows committed
meanwhile count towards the next.

**Settling.** The log starts again from its beginning only when a writer finds it copied whole
(https://sqlite.org/wal.html#avoiding_excessively_large_wal_files). A process with pauses between its writes (an
agent's) has it copied whole by the background checkpoints, and its next commit starts it again: no writer waits for
an ``fsync``. One that writes without a pause (a bulk load, a benchmark loop) adds pages while the background
checkpoint copies, and its log would grow without end; so once :data:`SETTLE_ROWS` rows were committed since a
background checkpoint last copied the whole log with no commit of this process meanwhile, the committing connection
runs the checkpoint itself: the background ones have copied most pages by then, it copies the rest, and its two
``fsync`` calls let the next commit start the log again. It is a ``RESTART`` checkpoint, waiting at most 250 ms for
the other writers and readers: a log copied whole starts again only for a write transaction that began reading it
after the copy (https://sqlite.org/c3ref/wal_checkpoint_v2.html), and with several threads writing without a pause
another one always had (``python bench/checkpoint_hazards.py threads 4 6``: 4 threads grew the log file to
388.5 MiB in 6 s with a ``PASSIVE`` settle, 21.2 MiB with ``RESTART``). Such a
process waits for a checkpoint once every :data:`SETTLE_ROWS` rows instead of every :data:`CHECKPOINT_ROWS`, and its
log holds about :data:`SETTLE_ROWS` rows of pages at most (16 MiB at 4 KiB pages) -- twice that while a background
checkpoint starved of CPU is still under way: then the committing connection waits for it (at most 250 ms) and
settles anyway (``python bench/checkpoint_hazards.py starved [--no-overdue]``: 4.0 MiB of log at most, 15.4 MiB
without). A thread that cannot be started
(the process is out of threads) also leaves the checkpoint to the committing connection. Other processes count their
own rows and run their own checkpoints; closing the last connection to the database checkpoints it as before.

**Batched jobs** (a delete's or a sweep's transactions of many rows, :meth:`ScaleQueries.in_batches
<scratchfs.engine.sqlite_scale.ScaleQueries.in_batches>`) count their rows and start background checkpoints like any
writer, but never settle inside a commit: the job sizes its batches by how long they take, and a checkpoint's
``fsync`` calls timed as a batch's would shrink the next ones for nothing. The job settles the log between its
transactions instead, when a commit would have (:meth:`Checkpoints.between`), and checkpoints it after its last.

The count is of rows, not log pages (SQLite does not report a transaction's pages): a spill changes one row and
writes 7 to 9 pages (the table and its 6 indexes, ``strace -c``), so :data:`CHECKPOINT_ROWS` rows are about SQLite's
own 1,000 pages; a batch of deletes writes fewer pages a row, so it checkpoints a little more often than needed.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable

from scratchfs.foundation import forks

__all__ = ["CHECKPOINT_ROWS", "SETTLE_ROWS", "Checkpoints"]

CHECKPOINT_ROWS = 128
"""Rows committed by this process between two checkpoint threads (about SQLite's default 1,000 log pages)."""

SETTLE_ROWS = 4 * CHECKPOINT_ROWS
"""Rows committed by this process between two checkpoints run in a committing connection (what lets the log start
again from its beginning while the process writes without a pause; see the module docstring)."""

_JOIN_SECONDS = 10.0
"""Longest :meth:`Checkpoints.close` waits for a checkpoint under way (it waits for no lock: only for its I/O)."""


_IN_SQLITE = threading.Lock()
"""Held by a checkpoint thread while it is inside SQLite, and by ``fork()`` (``os.register_at_fork``) from before it
until after it in both processes: a child forked while that thread held one of SQLite's process-wide mutexes (its
allocator's) would wait for it forever at its first SQLite call (``python bench/checkpoint_hazards.py fork 150``: 7
of 150 children hung without this lock, 0 with it; gdb showed them in ``sqlite3Malloc``). A
fork waits for one checkpoint at most; for the checkouts of the index's connections in other threads (a commit's
locks) it waits too, by :mod:`scratchfs.engine.fork_gate`."""

if hasattr(os, "register_at_fork"):  # pragma: no branch - POSIX
    os.register_at_fork(before=_IN_SQLITE.acquire, after_in_parent=_IN_SQLITE.release,
                        after_in_child=_IN_SQLITE.release)

_SETTLE_WAIT_MS = 250
"""Longest a settling checkpoint waits (milliseconds) for the writers and readers to let it restart the log."""


class Checkpoints:
    """Starts the ``PASSIVE`` checkpoints of one SQLite index in the background, and runs one in a committing
    connection every :attr:`settle_rows` rows (see the module docstring).

    Args:
        connect: opens a new connection to the index (closed by the checkpoint thread when done); raises
            ``sqlite3.Error`` or the store's errors, which only skip that checkpoint.
        checkpointed: called with the seconds each checkpoint took (wall time), e.g. ``TxnLog.checkpointed``.
        rows: rows committed between two background checkpoints.
        settle_rows: rows committed between two checkpoints run by a committing connection (a multiple of
            ``rows``).

    Thread-safe. A checkpoint that fails (the index closed or replaced meanwhile, an I/O error, another checkpoint
    under way) is skipped; the next one copies what it did not, and SQLite reads the log until then: nothing is lost,
    the log is only longer.
    """

    def __init__(self, connect: Callable[[], sqlite3.Connection], checkpointed: Callable[[float], None],
                 rows: int = CHECKPOINT_ROWS, settle_rows: int = SETTLE_ROWS) -> None:
        self._connect = connect
        self._checkpointed = checkpointed
        self.rows = rows
        self.settle_rows = settle_rows
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pending = 0  # rows committed since the last background checkpoint started
        self._unsettled = 0  # rows committed since the log was last known to start again
        self._during = 0  # rows committed while the background checkpoint ran
        self._closed = False
        self._generation = forks.generation

    @property
    def running(self) -> bool:
        """A checkpoint thread of this process is under way."""
        thread = self._thread
        return thread is not None and thread.is_alive() and self._generation == forks.generation

    def committed(self, conn: sqlite3.Connection, rows: int) -> None:
        """Count ``rows`` committed by ``conn`` (which holds no transaction now); start a background checkpoint when
        :attr:`rows` were since the last one, and checkpoint in ``conn`` when :attr:`settle_rows` were and none runs
        -- or twice as many were, after waiting (at most 250 ms) for the one that runs -- or when no thread can be
        started. Raises nothing."""
        settle, running = self._count(rows, inline=True)
        if settle:
            self._settle(conn, running)

    def counted(self, conn: sqlite3.Connection, rows: int) -> None:
        """:meth:`committed` for a transaction of a batched job: the rows count and start background checkpoints,
        but no checkpoint runs in ``conn`` -- it would be timed as the batch's, and the job settles the log between
        its transactions instead (:meth:`between`). Raises nothing."""
        self._count(rows, inline=False)

    def between(self, conn: sqlite3.Connection, last: bool = False) -> None:
        """A batched job's turn between two of its transactions (``conn`` holds none): the checkpoint that
        :meth:`committed` would have run inside a commit, if it is due (see the module docstring). After the job's
        ``last`` transaction, when none is due and none runs, a ``PASSIVE`` one (timed as no batch's): a job that
        freed space -- a delete on a full disk -- leaves the log copied, so that the next commit starts it again
        instead of growing it into the space freed. Raises nothing."""
        with self._lock:
            running = self._thread if self.running else None
            settle = self._overdue(running is not None)
            if settle:
                self._unsettled = 0
        if settle:
            self._settle(conn, running)
        elif last and running is None:
            self._checkpoint(conn)

    def _count(self, rows: int, inline: bool) -> tuple[bool, threading.Thread | None]:
        """Count ``rows``, start the background checkpoint when due; whether the caller is to settle the log (only
        when ``inline``), and the background checkpoint it is to wait for first, if one runs."""
        with self._lock:
            if self._generation != forks.generation:  # a fork() child: the parent's thread is not ours
                self._thread, self._generation = None, forks.generation
            rows, running = max(rows, 1), self.running
            self._pending += rows
            self._unsettled += rows
            self._during += rows if running else 0
            settle = inline and self._overdue(running)
            if not settle and (self._pending < self.rows or self._closed or running):
                return False, None
            self._pending = 0
            if not settle:
                settle = not self._start() and inline
            if settle:
                self._unsettled = 0
            return settle, self._thread if settle and running else None

    def _overdue(self, running: bool) -> bool:
        """The log is to be settled now (the lock held): :attr:`settle_rows` rows went by and no background
        checkpoint runs -- or twice as many did, whatever runs (a background thread starved of CPU would let the
        log grow without a bound meanwhile)."""
        return self._unsettled >= (2 if running else 1) * self.settle_rows

    def _start(self) -> bool:
        """Start the checkpoint thread (the lock held); False when it cannot be started."""
        thread = threading.Thread(target=self._run, name="scratchfs-checkpoint", daemon=True)
        try:
            thread.start()
        except RuntimeError:  # out of threads: the committing connection checkpoints, as SQLite would have
            return False
        self._thread, self._during = thread, 0
        return True

    def _run(self) -> None:
        with _IN_SQLITE:  # a fork() waits until this thread is out of SQLite (see _IN_SQLITE)
            try:
                conn = self._connect()
            except Exception:  # the index closed or unreadable: skip it; the next checkpoint copies what it would
                return
            try:
                if self._checkpoint(conn):
                    with self._lock:
                        if not self._during:  # copied whole with no commit of ours meanwhile: the next one restarts
                            self._unsettled = 0
            finally:
                try:
                    conn.close()
                except sqlite3.Error:  # pragma: no cover - closing an idle connection does not fail in practice
                    pass

    def _settle(self, conn: sqlite3.Connection, running: threading.Thread | None = None) -> None:
        """Run a ``RESTART`` checkpoint in the committing ``conn``, waiting at most :data:`_SETTLE_WAIT_MS` for
        this process's other writers and readers (see the module docstring: a ``PASSIVE`` one copies the whole log
        but leaves it growing while another thread writes) -- and first as long for the background checkpoint
        ``running``, if any (two checkpoints cannot run at once). One that does not restart the log leaves it due:
        a commit's count of rows since a settle was reset for it, and a missed settle (a loaded machine, the
        background checkpoint slower than the wait) let the log grow by twice :attr:`settle_rows` more each time."""
        if running is not None and running is not threading.current_thread():
            running.join(_SETTLE_WAIT_MS / 1000)
        try:
            (wait,) = conn.execute("PRAGMA busy_timeout").fetchone()
            conn.execute(f"PRAGMA busy_timeout = {min(wait, _SETTLE_WAIT_MS)}")
        except sqlite3.Error:  # pragma: no cover - a pragma of an open connection
            return
        try:
            if not self._checkpoint(conn, "RESTART"):  # busy (a checkpoint still under way, a reader): the log is
                with self._lock:  # still due, so the next commit tries again (after twice the rows while one runs)
                    self._unsettled = max(self._unsettled, self.settle_rows)
        finally:
            try:
                conn.execute(f"PRAGMA busy_timeout = {wait}")
            except sqlite3.Error:  # pragma: no cover - a pragma of an open connection
                pass

    def _checkpoint(self, conn: sqlite3.Connection, mode: str = "PASSIVE") -> bool:
        """Run a checkpoint (``PASSIVE`` or ``RESTART``) in ``conn``; True when it copied the whole log."""
        started = time.perf_counter()
        try:
            busy, log, copied = conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
        except sqlite3.Error:  # failing: the log stays longer until the next one
            return False
        if busy:
            return False
        self._checkpointed(time.perf_counter() - started)
        return log == copied

    def close(self) -> None:
        """Start no more checkpoints and wait (at most 10 s) for one under way. Raises nothing."""
        with self._lock:
            self._closed = True
            thread = self._thread if self._generation == forks.generation else None
            self._thread = None
        if thread is not None and thread is not threading.current_thread():
            thread.join(_JOIN_SECONDS)
