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
   sweeper holds the file's lock, so a write that commits meanwhile is never lost. A link, FIFO or other entry that is
   no regular file at a blob's or segment's name is left alone without a word (``fsck`` reports it, ``fsck
   --repair`` removes the name).
4. Leftovers: directories in ``trash/`` (a crashed delete), and empty run and agent directories older than the grace
   period.

Steps 2 to 4 are incremental, so that a sweep with nothing to sweep costs little however large the store: each sweep
checks a bounded slice -- up to :data:`SLICE_ROWS` rows (by id) and :data:`SLICE_FILES` directory entries (by run and
agent directory, in name order), each also bounded by :data:`SLICE_SECONDS` once :data:`SLICE_MIN` are checked -- and
goes on where the last one stopped (a cursor in ``locks/sweep.cursor``: :mod:`scratchfs.engine.sweep_cursor`), so
that successive sweeps cover the whole store in turn. ``full=True`` checks everything at once (as ``fsck`` does).

Every step reaches files through directory descriptors and never follows a link (:mod:`scratchfs.engine.safe_fs`):
a link in the trash is removed itself, a ``runs/`` or ``trash/`` replaced by a link is never walked through.
"""

from __future__ import annotations

import bisect
import errno
import fcntl
import logging
import math
import os
import stat
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass

from scratchfs.engine import safe_fs, segments
from scratchfs.engine.batches import BatchSizer
from scratchfs.engine.file_names import BLOB_SUFFIX, blob_token, name_kind
from scratchfs.engine.local_blobs import Blobs
from scratchfs.engine.pairing import LOCAL_LOCATION
from scratchfs.engine.protocols import SWEPT_MISSING
from scratchfs.engine.segment_sweep import check_segment, known_locations
from scratchfs.engine.sqlite_index import Index
from scratchfs.engine.sweep_cursor import SweepCursor
from scratchfs.engine.takeover import REMOVE, Adopt, OrphanRule, adopt_files, since_pairing
from scratchfs.foundation import limits
from scratchfs.foundation.errors import ScratchError, StoreClosed, storage_error
from scratchfs.foundation.text import one_line

log = logging.getLogger(__name__)

BATCH_ROWS = 256
"""Expired rows deleted by the first write transaction of a sweep (then adapted to time, see
:mod:`scratchfs.engine.batches`)."""

SLICE_ROWS = 2048
"""Most rows one sweep checks for a missing file."""

SLICE_FILES = 4096
"""Most directory entries (blob files and agent directories) one sweep looks at for orphans."""

SLICE_SECONDS = 0.008
"""Each of the two slices also stops after this many seconds (checked between batches), once it has checked at
least :data:`SLICE_MIN` (so a busy machine slows the round but never stops it)."""

SLICE_MIN = 64
"""Rows, and directory entries, each sweep checks whatever the time it takes (small, so that on a loaded machine
the time bound decides: a round then takes more sweeps, each still short)."""

@dataclass(frozen=True)
class SweepResult:
    """Counts of one sweep.

    Attributes:
        rows_deleted: expired rows removed, plus rows whose file was gone.
        files_deleted: blob files of expired rows removed.
        bytes_freed: bytes of files removed (expired and orphaned), whole: a segment's header with its entries' spans,
            and a segment only once none of its entries is live (an expired entry beside a live one frees 0 bytes
            now), so not the sum of the entries' ``stored_size`` that ``stats`` shows as ``expired_bytes``.
        orphans_removed: files with no row (and leftover trash) removed.
        missing_files: rows dropped because their file was gone (counted in ``rows_deleted`` too).
        delete_failures: objects the object store did not confirm deleted (fleet sweep), and entries of ``trash/``
            that could not be removed whole (everything in them that could be was; logged); left for the next sweep
            and counted nowhere else.
        skipped: True if another sweep held the lock and this one did nothing.
        unread_objects: objects under an S3 store's prefix that are not its blob objects (a local store's ``.zseg``
            segment files copied there): left alone, counted here and logged (fleet sweep).
        uploads_aborted: incomplete multipart uploads of blob keys under an S3 store's prefix begun over the grace
            period ago (a writer killed mid-upload) that the fleet sweep aborted.
        upload_failures: such uploads the object store did not abort (it refused or did not answer), plus 1 when
            their listing failed (no ``s3:ListBucketMultipartUploads``): logged, left for the next sweep (fleet
            sweep).
    """

    rows_deleted: int = 0
    files_deleted: int = 0
    bytes_freed: int = 0
    orphans_removed: int = 0
    missing_files: int = 0
    delete_failures: int = 0
    skipped: bool = False
    unread_objects: int = 0
    uploads_aborted: int = 0
    upload_failures: int = 0

    def to_dict(self) -> dict:
        return asdict(self)


def sweep(index: Index, blobs: Blobs, lock_path: str, now: float | Callable[[], float], grace: float,
          wait: float | None, full: bool = False, adopt: Adopt | None = None) -> SweepResult:
    """Run one sweep (see the module docstring).

    Args:
        lock_path: the sweep lock, a file in the root's ``locks/`` (only its name is used: it is opened from the
            root's descriptor, never through a link).
        now: the store clock (or its time, epoch seconds), read once the sweep lock is held: rows with
            ``expires_at <= now`` are expired, rows born after ``now`` are capped at ``now + ttl``. A time read
            before waiting for another process's sweep would take every entry written during the wait for one born
            in the future, and cut its life short by the wait.
        grace: seconds a file with no row is left alone (by its modification time, on the file system's clock).
        wait: seconds to wait for another process's sweep to finish; ``None`` or 0 returns at once with
            ``skipped=True``.
        full: check every row and every file for steps 2 to 4, instead of the next slice.
        adopt: a PostgreSQL index's: restores the row of an orphan file a previous owner's row names, True if it
            did (an old host's write after a takeover: :mod:`scratchfs.engine.takeover`); ``None``: none adopted.

    Raises:
        StoreBusy, StorageError: from the index; StorageError from the file system (a read-only store says so, a
            link where ``runs/`` or a lock file should be names what was found), with the cause's ``errno``.
    """
    try:
        with blobs.file_lock(os.path.basename(lock_path), wait or 0) as locked:
            if not locked:
                return SweepResult(skipped=True)
            return _sweep(index, blobs, now() if callable(now) else now, grace, full, adopt)
    except ScratchError:
        raise
    except OSError as exc:  # anything the steps did not type: never a raw OSError
        raise storage_error(exc, "the sweep failed") from exc


def _sweep(index: Index, blobs: Blobs, now: float, grace: float, full: bool,
           adopt: Adopt | None) -> SweepResult:
    scaled = hasattr(index, "expired_batch")  # else an index of IndexBackend only: whole rounds, rows first
    rows = files = freed = 0
    if scaled or hasattr(index, "cap_future"):
        # entries born in the future (the clock stepped back): expiry at most now + ttl; not those born within the
        # slack after now, written since the clock was read (capping them would cut their life short)
        index.cap_future(now, slack=limits.CLOCK_SLACK_SECONDS)
    if scaled:
        for run_id, agent_id, upto, _at in index.pending_deletes():  # a delete that crashed half-way
            rows += index.drain_scope(run_id, agent_id, upto, now)[0]
    sizer = BatchSizer(BATCH_ROWS)  # rows per transaction, adapted to how long the last one took
    touched: set[tuple[str, str, str]] = set()  # segments that named expired rows
    since = math.inf if adopt is None else (lambda: since_pairing(index, LOCAL_LOCATION))  # (asked once due)
    at_once = OrphanRule(-math.inf, since, now)  # (a segment its expired rows name: judged whatever its age)
    while True:
        want = sizer.size
        batch = index.expired_batch(now, want) if scaled else index.pop_expired(now, want)
        for gone in batch:  # files first: space is freed before the index is asked for any
            size = blobs.unlink(gone.run_id, gone.agent_id, gone.blob)
            files += size > 0
            freed += size
        named = {(r.run_id, r.agent_id, segments.parse_location(r.blob).name) for r in batch
                 if segments.is_location(r.blob)}
        # segments too, each judged the first time a batch names it (judging scans it: not once per batch)
        files, freed = _add(_drop_dead_segments(index, blobs, named - touched, batch, at_once, adopt), files, freed)
        touched |= named
        rows += index.delete_expired(batch, now, sizer) if scaled else len(batch)
        if len(batch) < want:
            break
    files, freed = _add(_drop_dead_segments(index, blobs, touched, [], at_once, adopt), files, freed)  # (rows gone)
    index.forget_tombstones(now)
    full = full or not scaled
    cursor = SweepCursor() if full else SweepCursor.load(blobs)
    missing = _drop_rows_without_files(index, blobs, cursor, None if full else SLICE_ROWS, now)
    rule = OrphanRule(grace, since() if callable(since) else since, now)  # (asked once a sweep, as before)
    orphans, orphan_bytes = _remove_orphans(index, blobs, rule, cursor, None if full else SLICE_FILES, adopt)
    trashed, stuck = empty_trash(blobs)
    if not full:
        cursor.save(blobs)
    return SweepResult(rows + missing, files, freed + orphan_bytes, orphans + trashed, missing, len(stuck))


def _add(found: tuple[int, int], files: int, freed: int) -> tuple[int, int]:
    return files + found[0], freed + found[1]


def _drop_dead_segments(index: Index, blobs: Blobs, touched: set[tuple[str, str, str]],
                        batch: list, rule: OrphanRule, adopt: Adopt | None) -> tuple[int, int]:
    """Remove the segments ``touched`` (``(run_id, agent_id, segment name)``) that name no row's blob but those of
    ``batch``, expired rows about to be deleted (unless a writer still holds them); return how many and their bytes.
    A judgement scans its segment, so a sweep judges each segment its expired rows name at most twice: before the
    first batch naming it is deleted (on a full disk, space before the index needs any) and after the last. ``rule``
    judges them whatever their age (its ``now``, epoch seconds on the store's clock: for restorable blobs);
    ``adopt``: as :func:`_remove_orphans`' (a segment of an old host's holds its writes after a takeover)."""
    dying = frozenset(r.blob for r in batch if segments.is_location(r.blob))
    removed = freed = 0
    for run_id, agent_id, name in sorted(touched):
        found = check_segment(index, blobs, blobs.segment_dir(run_id, agent_id), name, rule, remove=True,
                              dying=dying, now=rule.now, adopt=adopt)
        if found is not None and found.removed:
            removed += 1
            freed += found.size
    return removed, freed


def _drop_rows_without_files(index: Index, blobs: Blobs, cursor: SweepCursor, limit: int | None, now: float) -> int:
    """Check rows from the cursor on (wrapping around once), up to ``limit`` rows (``None``: all); delete those whose
    file is missing (a live one's read then says so: :data:`~scratchfs.engine.protocols.SWEPT_MISSING`). A file
    that cannot be reached because a link or other file is in the way is not counted missing (its row stays; fsck
    reports it)."""
    gone, checked, start, wrapped = [], 0, cursor.row, False
    after = start
    deadline = time.perf_counter() + SLICE_SECONDS
    while True:
        want = 1024 if limit is None else min(128, limit - checked)  # the deadline is checked per batch
        if want <= 0 or (limit is not None and checked >= SLICE_MIN and time.perf_counter() > deadline):
            break
        batch = (index.blob_rows_after(after, want) if hasattr(index, "blob_rows_after")
                 else [row for row in index.blob_rows() if row[0] > after] if after == 0 else [])
        if wrapped:
            batch = [row for row in batch if row[0] <= start]
        for row_id, run_id, agent_id, blob in batch:
            try:
                if not blobs.exists(run_id, agent_id, blob):
                    gone.append((row_id, blob))
            except ScratchError:
                continue
        checked += len(batch)
        if batch:
            after = batch[-1][0]
        if len(batch) < want:  # the end of the table (or of the part before the start, once wrapped)
            if wrapped or start == 0:
                after = 0  # a whole round: the next sweep starts from the beginning
                break
            wrapped, after = True, 0
    cursor.row = after
    return index.delete_rows(gone, reason=SWEPT_MISSING, now=now)


def _agent_dirs(blobs: Blobs, cursor: SweepCursor) -> Iterator[tuple[str, str | None]]:
    """``(run directory, agent directory)`` names in name order, starting after the cursor and wrapping around once;
    each run directory also once with ``None`` after its agents (for removing it when empty). Links and files are
    skipped; a directory that cannot be listed is skipped. The cursor is read once, at the start: the caller moves
    it as it goes (a cursor read at the end named the last directory given, whose run's agents came twice)."""
    after_run, after_agent = cursor.run, cursor.agent

    def agents(run: str) -> list[str]:
        try:
            return [name for name, mode in blobs.list_parts(("runs", run)) if stat.S_ISDIR(mode)]
        except ScratchError:
            return []

    runs = [name for name, mode in blobs.list_parts(("runs",)) if stat.S_ISDIR(mode)]
    start = bisect.bisect_left(runs, after_run) if after_run else 0
    for i in list(range(start, len(runs))) + list(range(start)):
        run = runs[i]
        for agent in agents(run):
            if i == start and after_agent and run == after_run and agent <= after_agent:
                continue
            yield run, agent
        yield run, None
    if start < len(runs) and after_agent and runs[start] == after_run:  # the cursor run's first agents, last
        for agent in agents(runs[start]):
            if agent <= after_agent:
                yield runs[start], agent


def _remove_orphans(index: Index, blobs: Blobs, rule: OrphanRule, cursor: SweepCursor,
                    limit: int | None, adopt: Adopt | None) -> tuple[int, int]:
    """Look at agent directories from the cursor on, up to ``limit`` directory entries (``None``: all): remove
    orphan files and segments as ``rule`` says (:class:`~scratchfs.engine.takeover.OrphanRule`: its grace, and its
    ``now``, the store clock's time, for :func:`check_segment`; after ``adopt``:
    :func:`~scratchfs.engine.takeover.adopt_files`), and empty directories older than the grace."""
    cutoff = time.time() - rule.grace  # file modification times are on the file system's clock
    removed = freed = seen = 0
    deadline = time.perf_counter() + SLICE_SECONDS
    for run, agent in _agent_dirs(blobs, cursor):
        if agent is None:
            _rmdir_if_old_and_empty(blobs, ("runs",), run, cutoff)
            continue
        try:
            listed = blobs.list_stats(("runs", run, agent))
        except ScratchError:
            listed = []
        entries = [(name, st.st_mode) for name, st in listed]
        seen += len(entries) + 1
        modified = {t: st.st_mtime for name, st in listed if stat.S_ISREG(st.st_mode) and (t := blob_token(name))}
        files = list(modified)
        for name, mode in entries:  # (a link or FIFO at a segment's name is fsck's to report, not checked here)
            found = (check_segment(index, blobs, (run, agent), name, rule, remove=True,
                                   compact=limits.SEGMENT_COMPACTION, now=rule.now, adopt=adopt)
                     if name_kind(name) == "segment" and stat.S_ISREG(mode) else None)
            if found is not None and found.removed:
                removed += 1
                freed += found.size
        known = known_locations(index, files, (run, agent))  # read after listing: one committed meanwhile is in
        known |= adopt_files(index, blobs, (run, agent), {t: m for t, m in modified.items() if t not in known},
                             (adopt, rule))
        for token in files:
            if token in known:
                continue
            size = check_orphan(index, blobs, (run, agent), token, rule, remove=True)
            if size is not None:
                removed += 1
                freed += size
        if not entries:
            _rmdir_if_old_and_empty(blobs, ("runs", run), agent, cutoff)
        cursor.run, cursor.agent = run, agent
        if limit is not None and (seen >= limit or (seen >= SLICE_MIN and time.perf_counter() > deadline)):
            break
    else:
        cursor.run = cursor.agent = ""  # went all the way round: the next sweep starts from the beginning
    return removed, freed


def check_orphan(index: Index, blobs: Blobs, where: tuple[str, str], token: str, rule: OrphanRule | None,
                 remove: bool) -> int | None:
    """If the blob file ``token`` in ``runs/<run dir>/<agent dir>`` (``where``, directory names) is an orphan -- a
    regular file, not locked by a writer, no row of that scope names it (a copy of another scope's live blob is an
    orphan: :func:`~scratchfs.engine.segment_sweep.known_locations`), and of an age (by its modification time, on the
    file system's clock) that ``rule`` says to remove (:class:`~scratchfs.engine.takeover.OrphanRule`; ``None``: any
    age) -- return its size in bytes, after removing it when ``remove``; else ``None``. The row check runs while
    holding the file's lock, so a write that commits meanwhile is never mistaken for an orphan. Never follows a
    link."""
    if segments.is_location(token):  # a blob in a segment: reclaimed with its segment (check_segment)
        return None
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
        if rule is not None and rule.judge(time.time() - st.st_mtime) != REMOVE:  # (file system's clock)
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return None  # a writer is still at work on it
            raise
        if known_locations(index, [token], where):  # committed after the caller listed: not an orphan
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


def empty_trash(blobs: Blobs) -> tuple[int, list[str]]:
    """Empty the trash: each entry removed without following links (a link is removed itself), as much of it as can
    be -- an entry that cannot be removed whole (logged) is left for the next sweep, never a reason to stop. Returns
    how many entries went and the names of those left. A ``trash/`` that is a link is left alone (logged)."""
    removed, left = 0, []
    try:
        trash = blobs.list_parts(("trash",))
    except ScratchError as exc:
        log.warning("scratchfs: not emptying the trash: %s", exc)
        trash = []
    for name, _mode in trash:
        if blobs.remove_tree(name):
            removed += 1
        else:
            left.append(name)
    return removed, left


def trash_left(blobs: Blobs, older_than: float) -> list[str]:
    """Names of the entries of ``trash/`` moved there (``st_ctime``, the file system's clock) before ``older_than``
    (epoch seconds): what a sweep or a repair could not remove, not a delete in progress. Links are not followed.

    Raises:
        StorageError: ``trash/`` (or the root) is a link or not a directory, or cannot be read.
    """
    return [name for name, st in blobs.list_stats(("trash",)) if st.st_ctime < older_than]


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
                except Exception as exc:
                    if self._stopped.is_set():  # stopped mid-sweep (the store is closing): nothing to retry
                        return
                    if isinstance(exc, ScratchError):  # expected (a busy index, a full disk): one line
                        log.error("scratchfs background sweep failed (%s: %s); retrying in %.0f s", exc.kind,
                                  one_line(str(exc)), self._interval)
                    else:  # a bug: with its traceback
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
    "SLICE_FILES",
    "SLICE_MIN",
    "SLICE_ROWS",
    "SLICE_SECONDS",
    "SweepResult",
    "Sweeper",
    "check_orphan",
    "empty_trash",
    "sweep",
    "trash_left",
]
