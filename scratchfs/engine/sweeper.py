"""Sweeping: expired rows and their files go together; files with no row and rows with no file are reconciled.

One sweep, under a cross-process lock (only one runs at a time per root), in four steps, after two quick ones: entries
born in the future (the clock stepped back) get ``expires_at`` capped at ``now + ttl``, and a ``delete_run`` that
crashed half-way is finished (see :mod:`scratchfs.engine.sqlite_scale`):

1. Expired rows, in batches of :data:`BATCH_ROWS`: files first, then rows. Each batch of expired rows is read, its
   files are removed, then its rows are deleted in one short transaction (each only if it still names the same file
   and is still expired). Removing files first frees space before the index needs any: a sweep can recover a full
   disk. A crash between the two leaves expired rows with no file, which the next sweep deletes.
2. Rows whose blob file is gone (a sandbox removed a run directory from outside): deleted, each only if it still
   names the same file.
3. Orphans: blob files that no row names and that are older than the grace period (seconds). A file whose writer is
   still at work holds an exclusive ``flock`` and is never touched, however old; the row check is repeated while the
   sweeper holds the file's lock, so a write that commits meanwhile is never lost.
4. Leftovers: directories in ``trash/`` (a crashed delete), and empty run and agent directories older than the grace
   period.

Steps 2 to 4 are incremental, so that a sweep with nothing to sweep costs little however large the store: each sweep
checks a bounded slice -- up to :data:`SLICE_ROWS` rows (by id) and :data:`SLICE_FILES` directory entries (by run and
agent directory, in name order) -- and goes on where the last one stopped (a cursor in ``locks/sweep.cursor``), so
that successive sweeps cover the whole store in turn. ``full=True`` checks everything at once (as ``fsck`` does).
"""

from __future__ import annotations

import bisect
import errno
import fcntl
import json
import logging
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass

from filelock import FileLock, Timeout

from scratchfs.engine.local_blobs import BLOB_NAME_RE, Blobs, list_dir
from scratchfs.engine.sqlite_index import Index

log = logging.getLogger(__name__)

BATCH_ROWS = 256
"""Expired rows deleted per write transaction."""

SLICE_ROWS = 2048
"""Most rows one sweep checks for a missing file (one ``stat`` each)."""

SLICE_FILES = 4096
"""Most directory entries (blob files and agent directories) one sweep looks at for orphans."""

SLICE_SECONDS = 0.008
"""Each of the two slices also stops after this many seconds (checked between batches), once it has checked at
least :data:`SLICE_MIN` (so a busy machine slows the round but never stops it)."""

SLICE_MIN = 512
"""Rows, and directory entries, each sweep checks whatever the time it takes."""


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


def sweep(index: Index, blobs: Blobs, lock_path: str, now: float, grace: float, wait: float | None,
          full: bool = False) -> SweepResult:
    """Run one sweep (see the module docstring).

    Args:
        now: the store clock's time, epoch seconds: rows with ``expires_at <= now`` are expired.
        grace: seconds a file with no row is left alone (by its modification time, on the file system's clock).
        wait: seconds to wait for another process's sweep to finish; ``None`` or 0 returns at once with
            ``skipped=True``.
        full: check every row and every file for steps 2 to 4, instead of the next slice.

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
        index.cap_future(now)  # entries born in the future (the clock stepped back): expiry at most now + ttl
        for run_id, agent_id, upto, _at in index.pending_deletes():  # a delete that crashed half-way
            rows += index.drain_scope(run_id, agent_id, upto, now)[0]
        while True:
            batch = index.expired_batch(now, BATCH_ROWS)
            for gone in batch:  # files first: space is freed before the index is asked for any
                size = blobs.unlink(gone.run_id, gone.agent_id, gone.blob)
                files += size > 0
                freed += size
            rows += index.delete_expired(batch, now)
            if len(batch) < BATCH_ROWS:
                break
        index.forget_tombstones(now)
        cursor_path = os.path.join(os.path.dirname(lock_path), "sweep.cursor")
        cursor = _Cursor.load(cursor_path) if not full else _Cursor()
        missing = _drop_rows_without_files(index, blobs, cursor, None if full else SLICE_ROWS)
        orphans, orphan_bytes = _remove_orphans(index, blobs, grace, cursor, None if full else SLICE_FILES)
        orphans += _remove_trash(blobs)
        if not full:
            cursor.save(cursor_path)
        return SweepResult(rows + missing, files, freed + orphan_bytes, orphans, missing)
    finally:
        lock.release()


_CURSOR_BYTES = 4096


class _Cursor:
    """Where the last sweep's slices stopped: the last row id checked, and the last ``(run, agent)`` directory."""

    def __init__(self, row: int = 0, run: str = "", agent: str = "") -> None:
        self.row, self.run, self.agent = row, run, agent

    @classmethod
    def load(cls, path: str) -> _Cursor:
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
            return cls(int(data["row"]), str(data["run"]), str(data["agent"]))
        except (OSError, ValueError, KeyError, TypeError):
            return cls()  # no cursor yet (or unreadable): start from the beginning

    def save(self, path: str) -> None:
        """Overwrite the cursor in place, padded to a fixed size: no truncation, which on ext4 would flush the file
        (``auto_da_alloc``) and cost a sweep milliseconds. Errors are ignored (a full disk: the next sweep starts
        over, no harm done)."""
        text = json.dumps({"row": self.row, "run": self.run, "agent": self.agent}).encode()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0),
                         0o600)
            try:
                os.pwrite(fd, text.ljust(max(_CURSOR_BYTES, len(text))), 0)
            finally:
                os.close(fd)
        except OSError:
            pass


def _drop_rows_without_files(index: Index, blobs: Blobs, cursor: _Cursor, limit: int | None) -> int:
    """Check rows from the cursor on (wrapping around once), up to ``limit`` rows (``None``: all); delete those whose
    file is gone."""
    gone, checked, start, wrapped = [], 0, cursor.row, False
    after = start
    deadline = time.perf_counter() + SLICE_SECONDS
    while True:
        want = 1024 if limit is None else min(512, limit - checked)
        if want <= 0 or (limit is not None and checked >= SLICE_MIN and time.perf_counter() > deadline):
            break
        batch = index.blob_rows_after(after, want)
        if wrapped:
            batch = [row for row in batch if row[0] <= start]
        for row_id, run_id, agent_id, blob in batch:
            if not os.path.exists(blobs.path(run_id, agent_id, blob)):
                gone.append((row_id, blob))
        checked += len(batch)
        if batch:
            after = batch[-1][0]
        if len(batch) < want:  # the end of the table (or of the part before the start, once wrapped)
            if wrapped or start == 0:
                after = 0  # a whole round: the next sweep starts from the beginning
                break
            wrapped, after = True, 0
    cursor.row = after
    return index.delete_rows(gone)


def _agent_dirs(blobs: Blobs, cursor: _Cursor) -> Iterator[tuple[os.DirEntry, os.DirEntry | None]]:
    """``(run directory, agent directory)`` in name order, starting after the cursor and wrapping around once; each
    run directory also once with ``None`` after its agents (for removing it when empty)."""
    runs = list_dir(blobs.runs)
    names = [r.name for r in runs]
    start = bisect.bisect_left(names, cursor.run) if cursor.run else 0
    for i in list(range(start, len(runs))) + list(range(start)):
        run = runs[i]
        for agent in list_dir(run.path):
            if i == start and cursor.run == run.name and agent.name <= cursor.agent and cursor.agent:
                continue
            yield run, agent
        yield run, None
    if start < len(runs) and cursor.agent:  # the agents of the cursor's own run before the cursor, last
        for agent in list_dir(runs[start].path):
            if agent.name <= cursor.agent:
                yield runs[start], agent


def _remove_orphans(index: Index, blobs: Blobs, grace: float, cursor: _Cursor,
                    limit: int | None) -> tuple[int, int]:
    """Look at agent directories from the cursor on, up to ``limit`` directory entries (``None``: all): remove
    orphan files older than the grace period, and empty directories older than it."""
    cutoff = time.time() - grace  # file modification times are on the file system's clock
    removed = freed = seen = 0
    deadline = time.perf_counter() + SLICE_SECONDS
    for run, agent in _agent_dirs(blobs, cursor):
        if agent is None:
            _rmdir_if_old_and_empty(run.path, cutoff)
            continue
        entries = list_dir(agent.path)
        seen += len(entries) + 1
        files = [(e, m.group(1)) for e in entries if (m := BLOB_NAME_RE.match(e.name))]
        known = index.known_blobs([token for _, token in files])  # listed first: a file committed meanwhile is here
        for entry, token in files:
            if token in known or not entry.is_file(follow_symlinks=False):
                continue
            size = check_orphan(index, entry.path, token, cutoff, remove=True)
            if size is not None:
                removed += 1
                freed += size
        if not entries:
            _rmdir_if_old_and_empty(agent.path, cutoff)
        cursor.run, cursor.agent = run.name, agent.name
        if limit is not None and (seen >= limit or (seen >= SLICE_MIN and time.perf_counter() > deadline)):
            break
    else:
        cursor.run = cursor.agent = ""  # went all the way round: the next sweep starts from the beginning
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


def _remove_trash(blobs: Blobs) -> int:
    removed = 0
    for entry in list_dir(blobs.trash):
        blobs.remove_tree(entry.path)
        removed += 1
    return removed


def _rmdir_if_old_and_empty(path: str, cutoff: float) -> None:
    try:
        if os.stat(path).st_mtime <= cutoff:
            os.rmdir(path)  # fails harmlessly if anything is inside
    except OSError:
        pass


class Sweeper(threading.Thread):
    """A daemon thread that calls ``sweep_once()`` every ``interval`` seconds until :meth:`stop`.

    A sweep that fails is logged at ERROR level and retried at the next interval; it never stops the thread.
    """

    def __init__(self, sweep_once, interval: float) -> None:
        super().__init__(name="scratchfs-sweeper", daemon=True)
        self._sweep_once = sweep_once
        self._interval = interval
        self._stopped = threading.Event()

    def run(self) -> None:
        while not self._stopped.wait(self._interval):
            try:
                self._sweep_once()
            except Exception:
                log.exception("scratchfs background sweep failed; retrying in %.0f s", self._interval)

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
