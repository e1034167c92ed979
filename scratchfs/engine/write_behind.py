"""Index rows written behind (issue 16): a small spill's row is committed with others in one transaction, off the
caller's path; its segment record is the durable record meanwhile.

A spill whose blob went to a segment file (:mod:`scratchfs.engine.segments`) is acknowledged once its record is
appended (and ``fsync``-ed when the store is durable): that record is a complete blob whose binding frame names
everything its row needs that the content cannot tell, as ``fsck --rebuild-index`` uses it. Its row (the
:class:`~scratchfs.engine.protocols.Entry` and the per-frame newline counts) is queued here, and the segment stays
locked (its :class:`~scratchfs.engine.segment_writer.SegmentPending` is not released) until the row is committed or
dropped, so no sweep judges the segment meanwhile. Before the first such spill into a segment, the segment's path is
written to the process's journal (:mod:`scratchfs.engine.journal`), from which a later open or sweep restores the
rows of a writer killed before it committed them.

* **Flusher**: one daemon thread per store object (started with the first row, ending after a second idle) commits
  every queued row in ONE transaction (``put_many``: one ``BEGIN IMMEDIATE``, many upserts) under the shared delete
  lock, each row only if its segment is still at its place (``pending.exists()``: a row whose directory a delete
  moved away is dropped -- the write is ordered before that delete, as a synchronous write is), then releases the
  segments. It runs when :data:`BATCH_ROWS` rows are queued or the oldest has waited :data:`FLUSH_DELAY` seconds.
* **Read your writes**: every use of the index by any store object over the same index file in this process first
  commits what every write-behind queue of that file holds (:func:`reader_hook`, called by the SQLite index at each
  outermost checkout of a connection): a read, listing, delete, ``stats``, sweep or ``fsck`` sees every spill
  acknowledged before it. Another process sees a row once the flusher commits it (within milliseconds), or, after
  the writer was killed, once its journal is recovered (at the next open of a store, at a sweep, at a lookup of a
  handle not found).
* **Backpressure**: at most :data:`MAX_QUEUED` rows wait; a spill finding the queue full commits it itself.
* **Errors**: a flush that fails (StorageError, StoreBusy) keeps its rows queued and is retried with a bounded
  backoff (one warning per run of failures); meanwhile a spill commits its own row (and fails as it would without
  write-behind), and a use of the index that finds the queue cannot be committed goes on without it. A row whose
  segment left its place some other way (``pending.exists`` raises) is logged as an error and dropped, as the
  synchronous path would fail that write. :meth:`WriteBehind.close` tries a final flush; rows it could not commit
  are left to recovery (the journal stays).
* **fork()**: a child starts with an empty queue and no journal (the parent's rows are the parent's).
"""

from __future__ import annotations

import atexit
import functools
import logging
import sys
import threading
import time
import weakref
from collections.abc import Callable
from contextlib import AbstractContextManager

from scratchfs.engine.journal import Journal
from scratchfs.engine.protocols import Entry
from scratchfs.engine.sqlite_connections import Connections
from scratchfs.foundation import forks
from scratchfs.foundation.errors import StorageError, StoreBusy, StoreClosed

__all__ = ["BATCH_ROWS", "FLUSH_DELAY", "MAX_QUEUED", "WARN_SECONDS", "HookedConnections", "WriteBehind", "flush_all",
           "reader_hook"]

log = logging.getLogger(__name__)

WARN_SECONDS = 60.0
"""Seconds between two warnings that the journal cannot be written (each spill meanwhile commits its own row)."""

BATCH_ROWS = 64
"""Queued rows that start a flush at once."""
FLUSH_DELAY = 0.005
"""Seconds the oldest queued row waits at most before the flusher commits (a module setting: tests raise it)."""
MAX_QUEUED = 256
"""Most rows one store object queues; a spill finding it full commits the queue itself."""
_IDLE_SECONDS = 1.0  # a flusher with nothing queued this long ends (started again by the next row)
_MAX_BACKOFF = 1.0  # seconds between retries of a failing flush, at most


class _Local(threading.local):
    flushing = False


_LOCAL = _Local()  # True in a thread committing a queue: its own use of the index must not flush again


class _Group:
    """The write-behind queues of one index file in this process."""

    __slots__ = ("__weakref__", "lock", "members", "pending")

    def __init__(self) -> None:
        self.members: weakref.WeakSet[WriteBehind] = weakref.WeakSet()
        self.lock = forks.renewed_in_child(self, "lock", threading.Lock)  # (a fork() child: a new one, and 0 rows:
        self.pending = forks.renewed_in_child(self, "pending", int)  # none the parent queued is the child's to commit)
        """Rows the members hold queued, or more (counted up after a row is queued, down after it left the queue):
        a use of the index with none queued pays one attribute test, not a walk of the members."""

    def count(self, rows: int) -> None:
        """Add ``rows`` (negative: rows that left a queue) to :attr:`pending`."""
        with self.lock:
            self.pending += rows

    def flush(self) -> None:
        """Commit every member's queue; one that cannot be committed now stays queued (its flusher retries, and
        warns). Never raises StorageError or StoreBusy."""
        for member in list(self.members):
            if member.queued:
                try:
                    member.flush()
                except (StorageError, StoreBusy) as exc:
                    log.debug("scratchfs: the write-behind rows stay queued: %s", exc)


_GROUPS: weakref.WeakValueDictionary[tuple[int, int], _Group] = weakref.WeakValueDictionary()
_GROUPS_LOCK = forks.renewed_in_child(sys.modules[__name__], "_GROUPS_LOCK", threading.Lock)


def _group(identity: tuple[int, int]) -> _Group:
    with _GROUPS_LOCK:
        group = _GROUPS.get(identity)
        if group is None:
            group = _GROUPS[identity] = _Group()
        return group


def reader_hook(identity: tuple[int, int]) -> Callable[[], None]:
    """The hook a SQLite index over the file of ``identity`` (``(st_dev, st_ino)``) calls before each outermost
    use of a connection: it commits what every write-behind queue of that file in this process holds. A queue that
    cannot be committed now (a full disk, an index locked past the busy timeout) stays queued and the use goes on:
    reads of every other entry keep working while the index cannot be written, as they did before rows were written
    behind, and no further spill is queued meanwhile (:meth:`WriteBehind.accept`). Raises StoreClosed only."""
    group = _group(identity)

    def before_use() -> None:
        if group.pending and not _LOCAL.flushing:
            group.flush()

    return before_use


class HookedConnections(Connections):
    """The SQLite index's connections, calling :attr:`before_use` (:func:`reader_hook`, once the file is open)
    before each outermost checkout of a thread's connection: not inside a transaction or statement of that thread,
    nor in the thread committing a queue."""

    before_use: Callable[[], None] | None = None  # (called by Connections.acquire itself: one read of the state)


class WriteBehind:
    """The queue of rows one store object writes behind, its flusher thread and its journal.

    Args:
        index: the SQLite index (``put_many``, and ``connections.identity`` naming its file).
        journal: this store object's journal (:class:`~scratchfs.engine.journal.Journal`).
        delete_lock: ``delete_lock()``, a context manager holding the store's delete lock shared.
        held_here: ``held_here()``, True while the calling thread holds that delete lock already.
        busy_timeout: seconds :meth:`close` waits for the flusher.
    """

    def __init__(self, index, journal: Journal, delete_lock: Callable[[], AbstractContextManager],
                 held_here: Callable[[], bool], busy_timeout: float) -> None:
        self._index = index
        self.journal = journal
        self._delete_lock = delete_lock
        self._held_here = held_here
        self._busy_timeout = busy_timeout
        self._group = _group(index.connections.identity)
        self._group.members.add(self)
        self._told = -WARN_SECONDS  # time.monotonic() of the last warning that the journal cannot be written
        self._reset()

    def _reset(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._flush_lock = threading.Lock()
        self._queue: list[tuple[Entry, object]] = []
        self._oldest = 0.0  # time.monotonic() when the oldest queued row was queued
        self._thread: threading.Thread | None = None
        self._closed = False
        self._failing = False
        self._noting = 0  # spills between their journal note and their queueing
        self._generation = forks.generation

    @property
    def queued(self) -> int:
        """Rows queued and not yet committed (0 in a ``fork()`` child until it queues its own)."""
        return len(self._queue) if self._generation == forks.generation else 0

    def check_not_queued(self, run_id: str, agent_id: str, kind: str, key: str) -> None:
        """Raise if the spill ``key`` of this scope waits in the queue: acknowledged, its row not committed because
        the index cannot be written now (a use of the index commits the queue first, so a row still queued then is
        one whose commit failed). Its content is safe in its segment record; only its row waits.

        Raises:
            StorageError: it waits (the message says why a read finds no row, and to read again once there is room).
        """
        if not self.queued:
            return
        with self._cond:
            waiting = any(entry.key == key and entry.run_id == run_id and entry.agent_id == agent_id
                          and entry.kind == kind for entry, _ in self._queue)
        if waiting:
            raise StorageError(f"{'handle' if kind == 'handle' else 'key'} {key!r} is stored, but its row could not be "
                               "written to the index yet (the disk is full, or the index locked): read it again once "
                               "space is freed (a sweep, delete-run); it is written then, nothing is lost")

    def accept(self, entry: Entry, pending) -> bool:
        """Queue the row of a spill whose blob is the segment record ``pending`` (a ``SegmentPending``): True once
        it is queued (the spill may be acknowledged); False if the journal cannot be written, or while the last
        commit of the queue failed (the caller commits the row itself, synchronously: a spill the index cannot take
        fails as it did before rows were written behind, and the adapter passes the result through).

        Raises:
            StoreClosed: this queue (or its journal) was closed. StorageError, StoreBusy: the queue was full and
                committing it failed (the row is not queued; the queued ones stay).
        """
        if self._generation != forks.generation:
            self._reset()  # a fork() child: the parent's rows are the parent's
        if self._failing:
            return False
        with self._cond:
            self._noting += 1  # the journal is not emptied between this note and the queueing (_commit)
        try:
            try:
                self.journal.note(pending.segment_path)
            except StoreClosed:
                raise  # closed meanwhile (by another thread): no journal is made again
            except StorageError as exc:  # (journal/ a file or a link: every spill would say so)
                if time.monotonic() - self._told >= WARN_SECONDS:
                    self._told = time.monotonic()
                    log.warning("scratchfs: %s; the row is committed at once (each spill's, while this lasts: told "
                                "once a minute)", exc)
                return False
            return self._enqueue(entry, pending)
        finally:
            with self._cond:
                self._noting -= 1

    def _enqueue(self, entry: Entry, pending) -> bool:
        while True:
            with self._cond:
                if self._closed:
                    raise StoreClosed("the store is closed")
                if len(self._queue) < MAX_QUEUED:
                    if not self._queue:
                        self._oldest = time.monotonic()
                    self._queue.append((entry, pending))
                    self._group.count(1)
                    if self._thread is None:
                        self._thread = threading.Thread(target=self._run, name="scratchfs-write-behind", daemon=True)
                        self._thread.start()
                    elif len(self._queue) >= BATCH_ROWS:
                        self._cond.notify_all()
                    return True
            self.flush()  # backpressure: the caller commits the full queue

    def flush(self) -> None:
        """Commit every row queued now, in one transaction, under the shared delete lock (unless the calling thread
        holds it already).

        Raises:
            StorageError, StoreBusy: the rows stay queued. StoreClosed: the store was closed.
        """
        if not self.queued:
            return
        try:
            if self._held_here():
                self._commit()
            else:
                with self._delete_lock():
                    self._commit()
        except (StorageError, StoreBusy):
            self._failing = True
            raise
        self._failing = False

    def _commit(self) -> None:
        with self._flush_lock:
            with self._cond:
                batch = list(self._queue)
            if not batch:
                return
            _LOCAL.flushing = True
            try:
                known: dict[str, bool] = {}  # each segment looked up once: the delete lock is held (flush)
                outcomes = self._index.put_many([(e, p.info.frame_newlines, functools.partial(p.exists, known))
                                                 for e, p in batch])
            finally:
                _LOCAL.flushing = False
            with self._cond:
                del self._queue[: len(batch)]
                self._group.count(-len(batch))
                self._oldest = time.monotonic()
                self._cond.notify_all()
                if not self._queue and not self._noting:
                    self.journal.reset()  # every noted row is committed: the journal names no segment any more
        for (entry, pending), outcome in zip(batch, outcomes, strict=True):
            if isinstance(outcome, BaseException):
                log.error("scratchfs: the row of the spill %s of run %r, agent %r was dropped: %s", entry.key,
                          entry.run_id, entry.agent_id, outcome)
            pending.release()

    def _run(self) -> None:
        """The flusher thread: commit when :data:`BATCH_ROWS` rows wait or the oldest waited :data:`FLUSH_DELAY`."""
        backoff, warned = 0.0, False
        try:
            while True:
                with self._cond:
                    if not self._wait_for_rows():
                        self._thread = None
                        return
                try:
                    self.flush()
                    if warned:
                        log.warning("scratchfs: the write-behind rows are committed again")
                    backoff, warned = 0.0, False
                except (StorageError, StoreBusy) as exc:
                    if not warned:
                        log.warning("scratchfs: cannot commit the write-behind rows (%s); they stay queued and are "
                                    "retried, and new spills commit their own rows meanwhile", exc)
                    warned = True
                    backoff = min(_MAX_BACKOFF, max(0.01, backoff * 2))
                    time.sleep(backoff)
                except StoreClosed:
                    with self._cond:
                        self._thread = None
                    return
        finally:
            self._index.release_thread()

    def _wait_for_rows(self) -> bool:
        """Wait (holding the condition) until a flush is due; False when the thread should end (closed, or idle)."""
        idle_until = time.monotonic() + _IDLE_SECONDS
        while not self._queue:
            if self._closed or time.monotonic() >= idle_until or self._generation != forks.generation:
                return False
            self._cond.wait(max(0.0, idle_until - time.monotonic()))
        while len(self._queue) < BATCH_ROWS and not self._closed:
            left = self._oldest + FLUSH_DELAY - time.monotonic()
            if left <= 0:
                break
            self._cond.wait(left)
        return not self._closed

    def close(self) -> bool:
        """Stop taking rows, commit what is queued, stop the flusher and unlink the journal; True when every row
        was committed. Rows that could not be (logged) are left to recovery: the journal stays, unlocked. Never
        raises."""
        if self._generation != forks.generation:
            self._reset()
        with self._cond:
            self._closed = True
            thread = self._thread
            self._cond.notify_all()
        if thread is not None and thread is not threading.current_thread():
            thread.join(self._busy_timeout + 1.0)
        try:
            self.flush()
            done = not self._queue
        except (StorageError, StoreBusy, StoreClosed) as exc:
            log.warning("scratchfs: cannot commit the last write-behind rows (%s); the next open or sweep restores "
                        "them from the journal", exc)
            done = False
        with self._cond:
            left, self._queue = self._queue, []
            self._group.count(-len(left))
        for _entry, pending in left:
            pending.release()  # the segment's lock goes; the journal (kept) keeps it from the sweeper
        self.journal.close(remove=done)
        self._group.members.discard(self)
        return done


def flush_all() -> None:
    """At interpreter exit: close every write-behind queue of this process that its store left open (its rows
    committed, its journal unlinked, :meth:`WriteBehind.close`: a script that exits without ``close()`` leaves
    nothing to recover). Never raises; a queue that cannot be committed is logged by ``close`` and left to
    recovery."""
    for behind in [member for group in list(_GROUPS.values()) for member in list(group.members)]:
        try:
            behind.close()
        except Exception as exc:  # (close never raises; a last guard at exit)
            log.warning("scratchfs: cannot commit the write-behind rows at exit (%s); the next open or sweep "
                        "restores them", exc)


atexit.register(flush_all)
