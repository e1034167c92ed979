"""Sweeping: expired rows and their files go together; files with no row and rows with no file are reconciled.

One sweep, under a cross-process lock (only one runs at a time per root), in four steps:

1. Expired rows, in batches of :data:`BATCH_ROWS`: each batch is deleted in one short transaction, then its files are
   removed. A crash between the two leaves files with no row, which step 3 reclaims.
2. Rows whose blob file is gone (a sandbox removed a run directory from outside): deleted, each only if it still
   names the same file.
3. Orphans: blob files that no row names and that are older than the grace period (seconds). A file whose writer is
   still at work holds an exclusive ``flock`` and is never touched, however old; the row check is repeated while the
   sweeper holds the file's lock, so a write that commits meanwhile is never lost.
4. Leftovers: directories in ``trash/`` (a crashed delete), and empty run and agent directories older than the grace
   period.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from filelock import FileLock, Timeout

from scratchfs.engine.local_blobs import Blobs, list_dir
from scratchfs.engine.sqlite_index import Index
from scratchfs.foundation.errors import StoreClosed

log = logging.getLogger(__name__)

BATCH_ROWS = 256
"""Expired rows deleted per write transaction."""


@dataclass(frozen=True)
class SweepResult:
    """Counts of one sweep.

    Attributes:
        rows_deleted: expired rows removed, plus rows whose file was gone.
        files_deleted: blob files of expired rows removed.
        bytes_freed: bytes of files removed (expired and orphaned).
        orphans_removed: files with no row (and leftover trash) removed.
        missing_files: rows dropped because their file was gone (counted in ``rows_deleted`` too).
        skipped: True if another sweep held the lock and this one did nothing.
    """

    rows_deleted: int = 0
    files_deleted: int = 0
    bytes_freed: int = 0
    orphans_removed: int = 0
    missing_files: int = 0
    skipped: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


def sweep(index: Index, blobs: Blobs, lock_path: str, now: float, grace: float, wait: float | None) -> SweepResult:
    """Run one sweep (see the module docstring).

    Args:
        now: the store clock's time, epoch seconds: rows with ``expires_at <= now`` are expired.
        grace: seconds a file with no row is left alone (by its modification time, on the file system's clock).
        wait: seconds to wait for another process's sweep to finish; ``None`` or 0 returns at once with
            ``skipped=True``.

    Raises:
        StoreBusy, StorageError: from the index.
    """
    lock = FileLock(lock_path, timeout=wait if wait else 0)
    try:
        lock.acquire()
    except Timeout:
        return SweepResult(skipped=True)
    try:
        rows = files = freed = 0
        while True:
            batch = index.pop_expired(now, BATCH_ROWS)
            rows += len(batch)
            for gone in batch:
                size = blobs.unlink(gone.run_id, gone.agent_id, gone.blob)
                files += size > 0
                freed += size
            if len(batch) < BATCH_ROWS:
                break
        index.forget_tombstones(now)
        missing = _drop_rows_without_files(index, blobs)
        orphans, orphan_bytes = _remove_orphans(index, blobs, grace)
        orphans += _remove_leftovers(blobs, grace)
        return SweepResult(rows + missing, files, freed + orphan_bytes, orphans, missing)
    finally:
        lock.release()


def _drop_rows_without_files(index: Index, blobs: Blobs) -> int:
    gone = []
    for row_id, run_id, agent_id, blob in index.blob_rows():
        if not os.path.exists(blobs.path(run_id, agent_id, blob)):
            gone.append((row_id, blob))
    return index.delete_rows(gone)


def _remove_orphans(index: Index, blobs: Blobs, grace: float) -> tuple[int, int]:
    cutoff = time.time() - grace  # file modification times are on the file system's clock
    candidates = [(path, token) for _run, _agent, path, token in blobs.blob_files()]
    if not candidates:
        return 0, 0
    known = index.blobs()  # read after listing: a file written and committed meanwhile is in here
    removed = freed = 0
    for path, token in candidates:
        if token in known:
            continue
        size = check_orphan(index, path, token, cutoff, remove=True)
        if size is not None:
            removed += 1
            freed += size
    return removed, freed


def check_orphan(index: Index, path: str, token: str, cutoff: float | None, remove: bool) -> int | None:
    """If the blob file ``path`` (token ``token``) is an orphan -- not locked by a writer, no row names it, and last
    modified before ``cutoff`` (epoch seconds, file-system clock; ``None``: any age) -- return its size in bytes,
    after removing it when ``remove``; else ``None``. The row check runs while holding the file's lock, so a write
    that commits meanwhile is never mistaken for an orphan."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if cutoff is not None and st.st_mtime > cutoff:
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return None  # a writer is still at work on it
            raise
        if index.has_blob(token):  # committed after the caller listed: not an orphan
            return None
        if remove:
            os.unlink(path)
        return st.st_size
    except FileNotFoundError:
        return None
    finally:
        os.close(fd)


def _remove_leftovers(blobs: Blobs, grace: float) -> int:
    removed = 0
    for entry in list_dir(blobs.trash):
        blobs.remove_tree(entry.path)
        removed += 1
    cutoff = time.time() - grace
    for run_entry in list_dir(blobs.runs):
        for agent_entry in list_dir(run_entry.path):
            _rmdir_if_old_and_empty(agent_entry.path, cutoff)
        _rmdir_if_old_and_empty(run_entry.path, cutoff)
    return removed


def _rmdir_if_old_and_empty(path: str, cutoff: float) -> None:
    try:
        if os.stat(path).st_mtime <= cutoff:
            os.rmdir(path)  # fails harmlessly if anything is inside
    except OSError:
        pass


class Sweeper(threading.Thread):
    """A daemon thread that calls ``sweep_once()`` every ``interval`` seconds until :meth:`stop`.

    A sweep that fails is logged at ERROR level and retried at the next interval; it never stops the thread, except
    :class:`~scratchfs.foundation.errors.StoreClosed` (the store was closed under a sweep that outlived the join
    timeout of :meth:`stop`), which ends it quietly. ``on_exit()`` runs in the thread as it ends, to close what the
    thread opened (its index connection).
    """

    def __init__(self, sweep_once: Callable[[], object], interval: float,
                 on_exit: Callable[[], None] | None = None) -> None:
        super().__init__(name="scratchfs-sweeper", daemon=True)
        self._sweep_once = sweep_once
        self._interval = interval
        self._on_exit = on_exit
        self._stopped = threading.Event()

    def run(self) -> None:
        try:
            while not self._stopped.wait(self._interval):
                try:
                    self._sweep_once()
                except StoreClosed:
                    return
                except Exception:
                    if self._stopped.is_set():  # stopped mid-sweep (the store is closing): nothing to retry
                        return
                    log.exception("scratchfs background sweep failed; retrying in %.0f s", self._interval)
        finally:
            if self._on_exit is not None:
                self._on_exit()

    def stop(self, timeout: float | None = None) -> None:
        """Ask the thread to stop and wait up to ``timeout`` seconds for it."""
        self._stopped.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join(timeout)


__all__ = [
    "BATCH_ROWS",
    "SweepResult",
    "Sweeper",
    "check_orphan",
    "sweep",
]
