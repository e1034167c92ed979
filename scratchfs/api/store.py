"""The store: :class:`ScratchStore` holds the settings, the two storage backends and their life cycle, and the
operations on whole runs; :meth:`ScratchStore.scope` hands out :class:`~scratchfs.api.scope.Scope` objects for the
verbs of one ``(run_id, agent_id)``.

How the main paths flow (each module has one job)::

    spill        Scope.spill -> Entries.write: blob store writes frames + seek table (locked while in flight)
                              -> shape, stub (preview, note) -> index.put (one short transaction, delete lock shared)
                              (a small spill in a segment: its row queued, engine.write_behind, put_many behind)
    read_handle  Scope.read_* -> Entries.open: index lookup (scoped, live rows only) -> blob opened, checked
                              -> seekable reader (frames covering the range), lines, or search (frames streamed)
    delete_run   under the delete lock (exclusive): index.hide_scope (rows invisible, one short commit)
                              -> blobs.detach_scope (directory moved to trash); then blobs.purge (files first)
                              -> index.drain_scope (rows deleted in short batches)
    sweep        engine.sweeper.sweep (expired rows, then their files; orphans; leftovers)
"""

from __future__ import annotations

import logging
import os
import stat
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import platformdirs

from scratchfs.api.entries import Entries
from scratchfs.api.restore import adopt_blob, recover_journals
from scratchfs.api.results import Page, decode_cursor, listing_tag
from scratchfs.api.settings import Settings
from scratchfs.engine.backends import (
    ENV_BLOBS,
    ENV_INDEX,
    describe_url,
    local_blobs,
    local_index,
    missing_index,
    open_backends,
    sweep_backends,
    write_behind,
)
from scratchfs.engine.protocols import Entry
from scratchfs.engine.reserve import RESERVE_BYTES, Reserve
from scratchfs.engine.sweeper import Sweeper, SweepResult
from scratchfs.foundation import checks, forks
from scratchfs.foundation.errors import BadCursor, InvalidArgument, NotFound, ScratchError, StorageError, StoreBusy
from scratchfs.foundation.limits import BUSY_TIMEOUT, MAX_LIST_ENTRIES, MAX_SWEEP_INTERVAL, SWEEP_INTERVAL
from scratchfs.foundation.text import shorten

if TYPE_CHECKING:
    from scratchfs.api.scope import Scope

log = logging.getLogger(__name__)

ENV_ROOT = "SCRATCHFS_ROOT"
"""Environment variable naming the store root when none is given."""


def store_root(root: str | os.PathLike[str] | None) -> Path:
    """The absolute root directory of a store: ``root``; else ``$SCRATCHFS_ROOT``; else the user cache directory
    for ``scratchfs`` (``platformdirs``).

    Raises:
        InvalidArgument: ``root`` is an empty string (it would mean the current directory), or ``root`` is ``None``
            and ``$SCRATCHFS_ROOT`` is set to an empty string (read as unset, it opened the default root).
    """
    if root is not None and not os.fspath(root):
        raise InvalidArgument("the store root is an empty string: give a directory (a new or empty one, or a store)")
    if root is None:
        root = os.environ.get(ENV_ROOT)
        if root == "":
            raise InvalidArgument(f"${ENV_ROOT} is set to an empty string: unset it for the default root (the user "
                                  "cache directory), or name a directory")
        root = root or platformdirs.user_cache_dir("scratchfs")
    return Path(root).expanduser().absolute()


def existing_store(root: str | os.PathLike[str] | None, *, new_index_ok: bool = False,
                   busy_timeout: float = BUSY_TIMEOUT, index: str | None = None, blobs: str | None = None) -> Path:
    """:func:`store_root`, when it exists: what a command that only reads or removes opens, so that a mistyped root
    is told, not made into a new empty store (an index, a reserve file and three folders). With a PostgreSQL index
    (``$SCRATCHFS_INDEX``) the root holds only lock files and is not checked, but the index's schema must hold an
    index (a mistyped ``?schema=`` is told, not created empty; unless ``new_index_ok``: a rebuild of a lost one);
    nor is it with other than local blobs (``$SCRATCHFS_BLOBS``: the opening tells a configuration no store can
    have before it makes anything; the index is asked within about ``busy_timeout`` seconds). A directory that
    exists is opened as :class:`ScratchStore` opens it (a folder of other files is refused there). ``index`` and
    ``blobs``: the URLs, as :class:`ScratchStore` takes them (unset: the environment's).

    Raises:
        NotFound: nothing is at the root's path (``ENOENT``, looked up without following a link), or a link to where
            nothing is; or the PostgreSQL index's schema holds no index.
        StorageError: the PostgreSQL index's server did not answer within about ``busy_timeout``.
        InvalidArgument: as :func:`store_root`; a malformed index URL.
    """
    path = store_root(root)
    index = os.environ.get(ENV_INDEX) if index is None else index
    blobs = os.environ.get(ENV_BLOBS) if blobs is None else blobs
    if not (local_index(index) and local_blobs(blobs)):
        missing = None if new_index_ok else missing_index(index, busy_timeout)
        if missing:
            raise NotFound(missing)
        return path  # (a fleet's root holds only locks; blobs no store can have are told by the opening, first)
    try:
        found = os.lstat(path)
        why = (f" (a link to {os.readlink(path)}, where nothing is)" if stat.S_ISLNK(found.st_mode) and not
               os.path.exists(path) else None)
    except FileNotFoundError:
        why = ""
    except OSError:  # (a file on the way, no permission: told by the opening)
        why = None
    if why is not None:
        raise NotFound(f"no store at {path}{why}: a spill, scratch-write or load makes one there (check --root or "
                       f"${ENV_ROOT})")
    return path


class ScratchStore:
    """A scratch store at one root directory: a SQLite index beside per-run, per-agent blob directories.

    Args:
        root: the root directory; else ``$SCRATCHFS_ROOT``; else the user cache directory for ``scratchfs``
            (``platformdirs``). Created if missing (0700).
        settings: a :class:`~scratchfs.api.settings.Settings` record; or give its fields as keywords
            (``ScratchStore(root, default_ttl=600, run_quota_bytes=10**8)``), applied on top of ``settings``:
            ``default_ttl`` (seconds), ``spill_threshold_bytes``, ``preview_bytes``, ``frame_bytes``, ``level``,
            ``busy_timeout`` (seconds), ``orphan_grace`` (seconds), ``durable``, ``clock`` (epoch seconds),
            ``never_spill_tools``, ``spill_classes``, ``preview_mode``, ``preview_modes``, ``detect_shape``,
            ``refresh_on_read``, ``run_quota_bytes``, ``run_quota_entries``, ``pattern_timeout`` (seconds),
            ``sweep_interval`` (seconds), ``index_write_behind`` -- see :class:`~scratchfs.api.settings.Settings`.
        index: the index: unset for the embedded SQLite file under the root (else ``$SCRATCHFS_INDEX``), or a
            ``postgresql://`` URL (see :mod:`scratchfs.engine.backends`).
        blobs: the blob store: unset for files under the root (else ``$SCRATCHFS_BLOBS``), or ``s3://bucket/prefix``
            (needs a PostgreSQL index).

    Raises:
        InvalidArgument: a bad setting (or an unknown one, with the closest: "did you mean ...?"); an empty root
            string; a root that is an existing directory, not empty, and not a scratchfs store (nothing in it is
            changed); a PostgreSQL index and blobs that do not belong together (:mod:`scratchfs.engine.pairing`).
        StorageError: the root cannot be created or its index opened.
        StoreBusy: the index stayed locked past ``busy_timeout`` while opening.

    Threads may share a store; a ``fork()`` child may keep using the parent's store object (it opens its own
    connections) but should not share one across processes at once with its parent through threads.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None, *, settings: Settings | None = None,
                 index: str | None = None, blobs: str | None = None, **overrides: Any) -> None:
        checks.check_names(overrides, Settings.names() | {"settings", "index", "blobs"}, "store setting")
        self.settings = (settings or Settings()).with_changes(**overrides) if overrides else (settings or Settings())
        s = self.settings
        self.root = store_root(root)
        self._locks = self.root / "locks"
        self.index_url = os.environ.get(ENV_INDEX) if index is None else index
        self.blobs_url = os.environ.get(ENV_BLOBS) if blobs is None else blobs
        # released when a delete or sweep finds the disk full: room for the SQLite index's write-ahead log (none with
        # a PostgreSQL index, whose disk is the server's); and when the open itself does -- a disk something else
        # filled while no store had the index open, where SQLite cannot size its shared-memory file
        # (SQLITE_IOERR_SHMSIZE): every command, delete-run included, failed as it opened
        self.reserve = Reserve(self.root / "reserve", RESERVE_BYTES if local_index(self.index_url) else 0)
        self.index, self.blobs = self.reserve.run(lambda: open_backends(
            self.root, self.index_url, self.blobs_url, busy_timeout=s.busy_timeout, durable=s.durable,
            frame_bytes=s.frame_bytes, level=s.level, database_clock=s.clock is time.time,
            segment_entry_bytes=s.segment_entry_bytes))
        self.closed = False
        self.entries = Entries(s, self.index, self.blobs, lambda: self.closed)
        # a fork() child has neither the parent's sweeper thread nor these locks free (another thread may have held
        # one, or the sweeper's event): it starts with none and a new lock
        self._sweeper: Sweeper | None = forks.renewed_in_child(self, "_sweeper", lambda: None)
        self._sweeper_lock = forks.renewed_in_child(self, "_sweeper_lock", threading.Lock)
        self._start_write_behind()

    def _start_write_behind(self) -> None:
        """With the local SQLite index and local blobs, writable: queue small spills' rows
        (:mod:`scratchfs.engine.write_behind`, when ``index_write_behind``), and restore those a killed writer
        left (:func:`~scratchfs.api.restore.recover_journals`, now and before a handle is reported not found)."""
        if self.read_only or not self.embedded:
            return
        entries, s = self.entries, self.settings
        if s.index_write_behind:
            entries.behind = write_behind(self.index, self.blobs, durable=s.durable, busy_timeout=s.busy_timeout,
                                          delete_lock=lambda: entries.delete_lock(False))
        entries.recover = self._recover_for_read
        self.recover(quiet=True)

    def _recover_for_read(self) -> ScratchError | None:
        """:meth:`recover` before a handle is reported not found: the error that left a dead writer's journal
        unrecovered (logged), or None."""
        try:
            recover_journals(self)
        except ScratchError as exc:
            log.warning("scratchfs: cannot recover the write-behind journals (%s); the next sweep tries again", exc)
            return exc
        return None

    def recover(self, quiet: bool = False) -> int:
        """Restore the rows of spills a killed process acknowledged but never committed
        (:func:`~scratchfs.api.restore.recover_journals`); return the journals recovered. Never raises: a failure is
        logged (at INFO with ``quiet``, as when a store opens: a full disk or a busy index is told by the command
        itself), and the next open, sweep or lookup tries again."""
        try:
            return recover_journals(self)
        except ScratchError as exc:
            log.log(logging.INFO if quiet else logging.WARNING, "scratchfs: cannot recover the write-behind journals "
                    "(%s); the next sweep tries again", exc)
            return 0

    # -- settings read often --------------------------------------------------------------------------------------

    @property
    def clock(self):
        """The store's clock (a function returning epoch seconds)."""
        return self.settings.clock

    @property
    def default_ttl(self) -> float:
        """Seconds an entry lives when no TTL is given."""
        return self.settings.default_ttl

    @property
    def embedded(self) -> bool:
        """True when the index and the blobs are the ones under :attr:`root` (no ``postgresql://`` index, no
        ``s3://`` blobs): the root alone names the store."""
        return local_index(self.index_url) and local_blobs(self.blobs_url)

    # -- life cycle ---------------------------------------------------------------------------------------------

    def __enter__(self) -> ScratchStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the background sweeper (if any) and close this process's connections. Idempotent, and safe from any
        thread at any time: calls in flight finish or raise :class:`~scratchfs.foundation.errors.StoreClosed`, later
        calls raise it; a connection or lock descriptor in use is closed once its call is done with it."""
        if self.entries.behind is not None:  # the rows written behind, committed while the store is still open
            self.entries.behind.close()
        self.closed = True
        self.stop_sweeper()
        self.index.close()
        self.entries.close_blobs()

    def flush(self) -> None:
        """Commit the rows of this store's spills written behind (:mod:`scratchfs.engine.write_behind`) now; they
        are committed within milliseconds anyway, and before any other use of the index in this process. For another
        process to see them at once, and for benchmarks that must count their cost.

        Raises:
            StorageError, StoreBusy: the rows stay queued (and are retried). StoreClosed: the store is closed.
        """
        self.entries.check_open()
        if self.entries.behind is not None:
            self.entries.behind.flush()

    @property
    def read_only(self) -> str | None:
        """Why this store cannot be written (a read-only file system, no write permission), or ``None``. A
        read-only store serves reads, listings, ``stats`` and ``fsck`` without repair; every write raises
        :class:`~scratchfs.foundation.errors.StorageError` naming the cause."""
        return self.index.read_only

    @property
    def migrated_from(self) -> int | None:
        """The schema version of the index this store migrated in place as it opened it (a store made by an earlier
        scratchfs; a scratchfs of that version can no longer open it), or ``None``."""
        return self.index.migrated_from

    def __repr__(self) -> str:
        if not (self.index_url or self.blobs_url):
            return f"ScratchStore(root={str(self.root)!r})"
        return (f"ScratchStore(root={str(self.root)!r}, index={describe_url(self.index_url)!r}, "
                f"blobs={describe_url(self.blobs_url)!r})")

    # -- scopes ---------------------------------------------------------------------------------------------------

    def scope(self, run_id: str, agent_id: str) -> Scope:
        """The scope of one ``(run_id, agent_id)``; every read and write through it is limited to that pair.

        Raises:
            InvalidArgument: a bad run id or agent id (see :mod:`scratchfs.foundation.checks`).
        """
        from scratchfs.api.scope import Scope  # (the verbs' modules load when a scope is first used: not for ls)

        return Scope(self, checks.check_run_id(run_id), checks.check_agent_id(agent_id))

    def now(self) -> float:
        """The store clock's time, epoch seconds. Raises InvalidArgument: the clock gave no finite number."""
        return checks.clock_reading(self.settings.clock())

    # -- whole runs -----------------------------------------------------------------------------------------------

    def list_entries_for_run(self, run_id: str) -> list[Entry]:
        """Every live entry of every agent of a run, oldest first (no content).

        Raises:
            InvalidArgument: a bad run id. StoreBusy, StorageError, StoreClosed.
        """
        run_id = checks.check_run_id(run_id)
        self.entries.check_open()
        return self.index.list_scope(run_id, None, None, "", self.now())

    def list_page_for_run(self, run_id: str, *, limit: int = MAX_LIST_ENTRIES, cursor: str | None = None) -> Page:
        """One :class:`~scratchfs.api.results.Page` of :meth:`list_entries_for_run`: at most ``limit`` live entries
        of every agent of a run, oldest first, after ``cursor`` (a previous page's ``next_cursor``).

        Raises:
            InvalidArgument: a bad run id, limit or cursor. StoreBusy, StorageError, StoreClosed.
        """
        return self.page(checks.check_run_id(run_id), None, None, "", limit, cursor)

    def page(self, run_id: str, agent_id: str | None, kind: str | None, prefix: str, limit: int,
             cursor: str | None, *, newest_first: bool = False) -> Page:
        """A page of a run's live entries (of one agent and kind, keys starting with ``prefix``, when given), at
        most ``limit`` (1 to 1,000) after ``cursor``, oldest first (``newest_first``: newest first). The ids and
        prefix must be checked already.

        A cursor names a position in the listing's order, and any position is a place to resume; a cursor made by
        another listing (another run, agent, kind or key prefix: its tag, :func:`~scratchfs.api.results.listing_tag`),
        which would skip or repeat entries silently, is refused, as is one whose position this listing cannot hold.

        Raises:
            InvalidArgument: a bad limit; BadCursor (one too): a bad cursor, or a cursor of another listing.
                StoreBusy, StorageError, StoreClosed.
        """
        limit = checks.check_int(limit, "limit", 1, MAX_LIST_ENTRIES)
        listing = listing_tag(run_id, agent_id, kind, prefix, newest_first)
        after = decode_cursor(cursor, listing)
        if after is not None and ((agent_id is not None and after[1] != agent_id)
                                  or (kind is not None and after[2] != kind) or not after[3].startswith(prefix)):
            raise BadCursor(f"cursor {shorten(cursor)} is of another listing (another agent, kind or "
                            "prefix): pass the next_cursor this listing gave, or list again without a cursor")
        self.entries.check_open()
        rows = self.index.list_page(run_id, agent_id, kind, prefix, self.now(), after, limit + 1,
                                    **({"newest_first": True} if newest_first else {}))
        return Page(rows[:limit], len(rows) > limit, listing)

    def list_entries(self) -> list[Entry]:
        """Every live entry of every run, ordered by run, agent and age (no content).

        Raises:
            StoreBusy, StorageError, StoreClosed.
        """
        self.entries.check_open()
        return self.index.list_all(self.now())

    def delete_run(self, run_id: str) -> int:
        """Delete every entry of a run, with its blobs; return the number of rows deleted.

        Raises:
            InvalidArgument: a bad run id.
            StoreBusy: the index or the delete lock stayed busy; nothing was deleted.
            StorageError: the index failed (nothing was deleted, or the rows are hidden and the next sweep
                deletes them), or the blobs could not be moved or deleted after the rows were (its message says the
                delete stands: the sweep removes the blobs left as orphans; a delete again removes them too). A
                full disk is not an error: the store's reserve file is released to make room.
        """
        return self._delete_scope(checks.check_run_id(run_id), None)

    def delete_agent(self, run_id: str, agent_id: str) -> int:
        """Delete every entry of one agent of a run, with its blobs; return the number of rows deleted.

        Raises:
            InvalidArgument: a bad run id or agent id.
            StoreBusy, StorageError: as :meth:`delete_run`.
        """
        return self._delete_scope(checks.check_run_id(run_id), checks.check_agent_id(agent_id))

    def _delete_scope(self, run_id: str, agent_id: str | None) -> int:
        self.entries.check_open()
        self.index.check_writable("deleting entries")
        return self.reserve.run(lambda: self._delete_scope_once(run_id, agent_id))

    def _date_mark(self, run_id: str, agent_id: str | None) -> None:
        """Date a delete's mark after its objects were removed (the index's ``scope_detached``); the delete stands
        if that fails (its mark of the transaction remains: a write begun meanwhile then fails, StorageError)."""
        try:
            self.index.scope_detached(run_id, agent_id, self.now())
        except (StorageError, StoreBusy) as exc:
            log.warning("scratchfs: %s; the delete stands, marked as its transaction began", exc)

    def _delete_scope_once(self, run_id: str, agent_id: str | None) -> int:
        now = self.now()
        if not hasattr(self.index, "hide_scope"):  # an index without batched deletes: one transaction
            with self.entries.delete_lock(True):
                count = self.index.delete_scope(run_id, agent_id, now)
                try:
                    detached = self.blobs.detach_scope(run_id, agent_id)
                except StorageError as exc:  # (committed: the caller must not read the error as "nothing deleted")
                    raise _rows_deleted(exc, count, run_id, agent_id) from exc
                if hasattr(self.index, "scope_detached"):  # the delete's mark dated after its objects went
                    self._date_mark(run_id, agent_id)
            if detached is not None:
                self.blobs.purge(detached)
            return count
        failed = None
        with self.entries.delete_lock(True):  # no write commits between the two steps
            upto = self.index.hide_scope(run_id, agent_id, now)
            try:
                detached = self.blobs.detach_scope(run_id, agent_id)
            except StorageError as exc:  # (hidden, committed: the rows are deleted all the same, the error says so)
                detached, failed = None, exc
        if detached is not None:
            self.blobs.purge(detached)
        try:
            count = self.index.drain_scope(run_id, agent_id, upto, now)[0]
        except (StorageError, StoreBusy) as exc:  # hidden already: the delete stands, the next sweep finishes it
            log.warning("scratchfs: %s; the rows of the deleted scope are hidden and the next sweep deletes them", exc)
            count = 0
        if failed is not None:
            raise _rows_deleted(failed, count, run_id, agent_id) from failed
        return count

    # -- retention ------------------------------------------------------------------------------------------------

    def sweep(self, wait: float | None = None, full: bool = False) -> SweepResult:
        """Delete expired entries and their blobs, rows whose blob is gone, and orphan blobs older than the grace
        period (see :mod:`scratchfs.engine.sweeper`).

        Args:
            wait: seconds to wait if another process is sweeping (default: the busy timeout); 0 returns at once
                with ``skipped=True``.
            full: reconcile every row and file at once; by default a sweep checks the next bounded slice of them,
                so that a sweep with nothing to sweep stays cheap at any size (see :mod:`scratchfs.engine.sweeper`).

        Raises:
            StoreBusy, StorageError, StoreClosed: from the index; StorageError naming the cause on a read-only store.
        """
        self.entries.check_open()
        self.index.check_writable("sweeping")
        self.recover()  # a killed writer's rows first: its segments are then judged by them
        return self.reserve.run(lambda: sweep_backends(
            self.index, self.blobs, str(self._locks / "sweep.lock"), self.now, self.settings.orphan_grace,
            self.settings.busy_timeout if wait is None else wait, full,
            lambda found, committed_at: adopt_blob(self, found, committed_at)))

    def start_sweeper(self, interval: float = SWEEP_INTERVAL) -> None:
        """Sweep in a background daemon thread every ``interval`` seconds until :meth:`stop_sweeper` or
        :meth:`close`. Calling it again while it runs changes nothing.

        Raises:
            InvalidArgument: ``interval`` is not a positive, finite number of seconds.
        """
        interval = checks.check_seconds(interval, "interval", MAX_SWEEP_INTERVAL)
        with self._sweeper_lock:
            if self._sweeper is not None and self._sweeper.is_alive():
                return
            self._sweeper = Sweeper(lambda: self.sweep(wait=0), interval, on_exit=self.index.release_thread)
            self._sweeper.start()

    def stop_sweeper(self) -> None:
        """Stop the background sweeper, if one runs (waits up to the busy timeout for a sweep in progress)."""
        with self._sweeper_lock:
            sweeper, self._sweeper = self._sweeper, None
        if sweeper is not None:
            sweeper.stop(self.settings.busy_timeout)

    def integrity_check(self) -> str:
        """The index's own consistency check (``"ok"`` when sound)."""
        return self.index.integrity_check()


def _rows_deleted(exc: StorageError, count: int, run_id: str, agent_id: str | None) -> StorageError:
    """``exc`` (the blobs' failure after a delete of a run or agent committed its rows), saying that the delete
    stands: the CLI's exit code 4 and the bare S3 line read as "nothing deleted", and a retry said "no entries"."""
    scope = f"run {run_id!r}" if agent_id is None else f"agent {agent_id!r} of run {run_id!r}"
    entries = f"{count:,} {'entry' if count == 1 else 'entries'}"
    error = StorageError(f"{exc}; the {scope} is deleted all the same ({entries}, which now read as deleted), "
                         "but its blobs were not: the sweep removes them as orphans later")
    error.errno = exc.errno
    if getattr(exc, "unavailable", False):
        error.unavailable = True  # type: ignore[attr-defined]
    return error


__all__ = ["ENV_ROOT", "ScratchStore", "existing_store", "store_root"]
