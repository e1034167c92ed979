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

Every step reaches files through directory descriptors and never follows a link (:mod:`scratchfs.engine.safe_fs`):
a link in the trash is removed itself, a ``runs/`` or ``trash/`` replaced by a link is never walked through.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from scratchfs.engine import safe_fs
from scratchfs.engine.local_blobs import BLOB_SUFFIX, Blobs
from scratchfs.engine.sqlite_index import Index
from scratchfs.foundation.errors import ScratchError, StoreClosed, storage_error

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
        lock_path: the sweep lock, a file in the root's ``locks/`` (only its name is used: it is opened from the
            root's descriptor, never through a link).
        now: the store clock's time, epoch seconds: rows with ``expires_at <= now`` are expired.
        grace: seconds a file with no row is left alone (by its modification time, on the file system's clock).
        wait: seconds to wait for another process's sweep to finish; ``None`` or 0 returns at once with
            ``skipped=True``.

    Raises:
        StoreBusy, StorageError: from the index; StorageError from the file system (a read-only store says so, a
            link where ``runs/`` or a lock file should be names what was found), with the cause's ``errno``.
    """
    try:
        with blobs.file_lock(os.path.basename(lock_path), wait or 0) as locked:
            if not locked:
                return SweepResult(skipped=True)
            return _sweep(index, blobs, now, grace)
    except ScratchError:
        raise
    except OSError as exc:  # anything the steps did not type: never a raw OSError
        raise storage_error(exc, "the sweep failed") from exc


def _sweep(index: Index, blobs: Blobs, now: float, grace: float) -> SweepResult:
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


def _drop_rows_without_files(index: Index, blobs: Blobs) -> int:
    """Rows whose file is missing. A file that cannot be reached because a link or other file is in the way is not
    counted missing (its row stays; fsck reports it)."""
    gone = []
    for row_id, run_id, agent_id, blob in index.blob_rows():
        try:
            if not blobs.exists(run_id, agent_id, blob):
                gone.append((row_id, blob))
        except ScratchError:
            continue
    return index.delete_rows(gone)


def _remove_orphans(index: Index, blobs: Blobs, grace: float) -> tuple[int, int]:
    cutoff = time.time() - grace  # file modification times are on the file system's clock
    candidates = blobs.blob_files()
    if not candidates:
        return 0, 0
    known = index.blobs()  # read after listing: a file written and committed meanwhile is in here
    removed = freed = 0
    for run, agent, _path, token in candidates:
        if token in known:
            continue
        size = check_orphan(index, blobs, (run, agent), token, cutoff, remove=True)
        if size is not None:
            removed += 1
            freed += size
    return removed, freed


def check_orphan(index: Index, blobs: Blobs, where: tuple[str, str], token: str, cutoff: float | None,
                 remove: bool) -> int | None:
    """If the blob file ``token`` in ``runs/<run dir>/<agent dir>`` (``where``, directory names) is an orphan -- a
    regular file, not locked by a writer, no row names it, and last modified before ``cutoff`` (epoch seconds,
    file-system clock; ``None``: any age) -- return its size in bytes, after removing it when ``remove``; else
    ``None``. The row check runs while holding the file's lock, so a write that commits meanwhile is never mistaken
    for an orphan. Never follows a link."""
    parts = ("runs", *where)
    try:
        dir_fd = safe_fs.walk(blobs.root_fd, parts)
    except (OSError, ScratchError):
        return None
    try:
        # a writer holds the directory shared from creating its file until it has locked it
        fcntl.flock(dir_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fd = safe_fs.open_file(dir_fd, token + BLOB_SUFFIX, os.O_RDONLY, "/".join((*parts, token + BLOB_SUFFIX)))
    except (OSError, ScratchError):
        os.close(dir_fd)
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
            try:
                os.unlink(token + BLOB_SUFFIX, dir_fd=dir_fd)
            except FileNotFoundError:
                return None
            except OSError as exc:
                log.warning("scratchfs: cannot remove the orphan %s (%s); a later sweep will", token,
                            exc.strerror or exc)
                return None
        return st.st_size
    except FileNotFoundError:
        return None
    finally:
        os.close(fd)
        os.close(dir_fd)


def _remove_leftovers(blobs: Blobs, grace: float) -> int:
    """Empty the trash (each entry removed without following links: a link is removed itself) and remove empty run
    and agent directories older than the grace period. A ``trash/`` that is a link is left alone (logged)."""
    removed = 0
    try:
        trash = blobs.list_parts(("trash",))
    except ScratchError as exc:
        log.warning("scratchfs: not emptying the trash: %s", exc)
        trash = []
    for name, _mode in trash:
        removed += blobs.remove_tree(name)
    cutoff = time.time() - grace
    for run, run_mode in blobs.list_parts(("runs",)):
        if not stat.S_ISDIR(run_mode):
            continue
        try:
            agents = blobs.list_parts(("runs", run))
        except ScratchError:
            continue
        for agent, agent_mode in agents:
            if stat.S_ISDIR(agent_mode):
                _rmdir_if_old_and_empty(blobs, ("runs", run), agent, cutoff)
        _rmdir_if_old_and_empty(blobs, ("runs",), run, cutoff)
    return removed


def _rmdir_if_old_and_empty(blobs: Blobs, parts: tuple[str, ...], name: str, cutoff: float) -> None:
    try:
        parent = safe_fs.walk(blobs.root_fd, parts)
    except (OSError, ScratchError):
        return
    try:
        fd = os.open(name, safe_fs.DIR_FLAGS, dir_fd=parent)
    except OSError:
        os.close(parent)
        return
    try:
        # a writer holds its directory's flock shared from before it creates its file until it has locked it
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if os.fstat(fd).st_mtime <= cutoff:
            os.rmdir(name, dir_fd=parent)  # fails harmlessly if anything is inside
    except OSError:
        pass
    finally:
        os.close(fd)
        os.close(parent)


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
