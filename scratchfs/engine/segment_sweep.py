"""Reclaiming segment files (:mod:`scratchfs.engine.segments`): removing a segment no live row names, and compacting
one that is mostly dead bytes.

A segment is judged only while the judge holds its exclusive ``flock`` (taken without waiting): its writer holds that
lock from creating it until no write into it is pending any more, and a writer never appends to a segment it did not
create, so once the lock is ours no row can come to name a blob in it except by a compaction (which only moves rows
*away*) or ``fsck --rebuild-index``. The directory's ``flock`` is taken exclusively first, as for a blob file: a
writer holds it shared from before it creates its segment until it has locked it.

* **Dead segment**: no row names any of its blobs -- removed (when older than the grace period, or at once after the
  sweep deleted the expired rows that named it).
* **Compaction** (when :data:`~scratchfs.foundation.limits.SEGMENT_COMPACTION` is on; off by default): a segment
  older than the grace period whose live blobs take less than
  :data:`~scratchfs.foundation.limits.SEGMENT_COMPACT_FRACTION` of it: each live blob is copied, byte for byte, to
  the sweeping process's own segment of that directory, then the rows are moved in one index transaction, each only
  if it still names the old location (a concurrent overwrite or delete wins; its copy is then dead bytes), under the
  shared delete lock and only if the new segment is still in place (a ``delete_run`` meanwhile wins). The old segment
  is removed once no row names it.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import stat
import time
from dataclasses import dataclass

from scratchfs.engine import safe_fs, segments
from scratchfs.engine.binding import Binding, FormatError
from scratchfs.engine.file_names import name_kind
from scratchfs.engine.journal import journaled
from scratchfs.engine.pairing import LOCAL_LOCATION
from scratchfs.engine.protocols import BlobFile, BlobInfo
from scratchfs.engine.runs_listing import RunsListing
from scratchfs.engine.seek_table import read_seek_table
from scratchfs.engine.sources import SliceRange
from scratchfs.engine.takeover import KEEP, REMOVE, Adopt, OrphanRule, adopt_named
from scratchfs.foundation import checks
from scratchfs.foundation.errors import ScratchError, StorageError
from scratchfs.foundation.limits import BUSY_TIMEOUT, SEGMENT_COMPACT_FRACTION

__all__ = ["SegmentCheck", "SegmentUsage", "check_segment", "known_locations", "segment_usage"]

log = logging.getLogger(__name__)


@dataclass
class SegmentCheck:
    """What :func:`check_segment` found and did: ``size`` (bytes of the segment), ``live`` (bytes of blobs a row
    names), ``records`` and ``named`` (blobs in it, and of those named by a row), ``removed`` (it was removed),
    ``moved`` (rows moved to a new segment by compaction), ``problem`` (a damaged header or cut-short record found by
    the scan, else ``None``)."""

    size: int = 0
    live: int = 0
    records: int = 0
    named: int = 0
    removed: bool = False
    moved: int = 0
    problem: str | None = None

    @property
    def dead(self) -> int:
        """Bytes no live row needs (record headers, unnamed blobs, a torn tail)."""
        return self.size - self.live


def known_locations(index, locations: list[str], where: tuple[str, ...] | None = None) -> set[str]:
    """Those of ``locations`` (blob tokens or segment locations) that a row names (``known_blobs`` when the index has
    it, else ``has_blob`` each). With ``where``, the encoded ``(run, agent)`` directory names the file was found in,
    only those named by a row of that very scope (:func:`~scratchfs.foundation.checks.path_part` of its run and agent
    ids; ``blob_scopes``): a copy of a live blob or segment in another scope's directory is no row's file, an orphan.
    Raises what the index raises (StoreBusy, StorageError)."""
    if where is not None and hasattr(index, "blob_scopes"):
        return {blob for blob, (run_id, agent_id) in index.blob_scopes(list(locations)).items()
                if (checks.path_part(run_id), checks.path_part(agent_id)) == tuple(where)}
    if hasattr(index, "known_blobs"):
        return index.known_blobs(locations)
    return {where for where in locations if index.has_blob(where)}


def check_segment(index, blobs, where: tuple[str, str], name: str, rule: OrphanRule, remove: bool,
                  compact: bool = False, dying: frozenset[str] = frozenset(), now: float | None = None,
                  adopt: Adopt | None = None) -> SegmentCheck | None:
    """Judge the segment ``name`` in ``runs/<run dir>/<agent dir>`` (``where``): how much of it is live, and with
    ``remove`` remove it if nothing is and ``rule`` (:class:`~scratchfs.engine.takeover.OrphanRule`; grace ``-inf``:
    any age) says to remove a blob of its age (its modification time, file system's clock), with ``compact`` compact
    it if it is mostly dead and that old. ``dying``: locations whose rows the caller is about to delete (expired
    rows: their blobs go first, so that a sweep frees space before the index needs any); named by no row here.
    ``adopt``: a PostgreSQL index's sweep restores the row of a blob no row names that a previous owner's row names
    (:func:`scratchfs.engine.takeover.adopt_named`) once ``rule`` says it is due, judged as named then.

    Returns ``None`` when it is not judged: ``rule`` says to keep a blob of its age and, with ``adopt``, that its
    records are not due for adoption yet (tested first, as for a blob file: such a segment is neither removed nor
    compacted, so it is not scanned and the index is not asked), locked (in use by a writer, whose records are
    judged for adoption alone: :func:`_adopt_held`), gone, or not a regular file reached without a link; nor is it
    with ``remove`` or ``compact`` while another process's write-behind journal names it
    (:func:`~scratchfs.engine.journal.journaled`, asked once its lock is held: its writer may have died before
    committing its rows). When the journals cannot be read (``journal/`` is a link, a file, a FIFO, or unreadable:
    no dead writer's journal can be told), it is not compacted, and removed only if no blob in it that no row names
    is one a recovery would restore (:func:`_restorable`: a bound handle not expired at ``now``, epoch seconds on
    the store's clock, ``None``: ``time.time()``); such a segment is kept for ``fsck --rebuild-index``, which
    ``fsck`` (reporting the journal directory) points to. Never raises for the file system (logged); raises what
    the index raises (StoreBusy, StorageError)."""
    parts = ("runs", *where)
    try:
        dir_fd = safe_fs.walk(blobs.root_fd, parts)
    except (OSError, ScratchError):
        return None
    fd = -1
    try:
        fcntl.flock(dir_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fd = safe_fs.open_file(dir_fd, name, os.O_RDONLY, "/".join((*parts, name)))
        if rule.judge(age := time.time() - os.fstat(fd).st_mtime) == KEEP and not (adopt and rule.due(age)):
            return _closed(fd, dir_fd)  # too young to remove, compact or adopt: neither scanned nor asked about
        held = not _try_lock(fd) and not (remove and _retire_own(index, blobs, parts, name, fd, dying)
                                          and _try_lock(fd))
    except OSError as exc:
        if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES, errno.ENOENT):
            log.warning("scratchfs: cannot check the segment %s (%s)", "/".join((*parts, name)), exc)
        return _closed(fd, dir_fd)
    except ScratchError:
        return _closed(fd, dir_fd)
    if held:  # (outside the handlers above: it closes both itself, and the index's errors are raised)
        return _adopt_held(index, (parts, name), (fd, dir_fd), (adopt, rule, age))
    try:
        guard = None  # the time a blob no row names is judged restorable at, when no journal can be read
        if remove or compact:
            try:
                if "/".join((*parts, name)) in journaled(blobs.root_fd):
                    return None  # its writer may have died before committing rows: recovered first (closed below)
            except StorageError as exc:  # journal/ not a directory (or unreadable): whose rows are lost is unknown
                _tell_unreadable(exc)
                guard, compact = time.time() if now is None else now, False
        fcntl.flock(dir_fd, fcntl.LOCK_UN)  # a compaction may create this process's own segment in the directory
        return _judge(index, blobs, parts, name, (fd, dir_fd), rule, (remove, compact, dying, guard, adopt))
    except OSError as exc:
        log.warning("scratchfs: cannot check the segment %s (%s); a later sweep will", name, exc)
        return None
    finally:
        _closed(fd, dir_fd)


def _adopt_held(index, where: tuple[tuple[str, ...], str], fds: tuple[int, int],
                given: tuple[Adopt | None, OrphanRule, float]) -> None:
    """Adopt the blobs of the segment ``where`` (``(parts, name)``), open at ``fds`` and held by another process,
    that no row names and a previous owner's row does (``given``: ``adopt``, none when ``None``, the rule and the
    segment's age in seconds), then close both: an old host that goes on running after a takeover holds its segment
    until it stops, and its writes in it must be adopted within the hour (else stale:
    :class:`~scratchfs.engine.takeover.OrphanRule`). Their records are complete (a row commits after its record);
    nothing is removed (the segment is judged whole once let go)."""
    (parts, name), (fd, dir_fd), (adopt, rule, age) = where, fds, given
    try:
        if adopt is not None and rule.due(age):
            fcntl.flock(dir_fd, fcntl.LOCK_UN)  # (writers of the directory are not held up by the adoption)
            located = segments.locations(name, segments.scan(lambda n, at: os.pread(fd, n, at),
                                                             os.fstat(fd).st_size)[0])
            named = known_locations(index, list(located), parts[1:])
            adopt_named(index, LOCAL_LOCATION, [(BlobFile(*parts[1:], f"{'/'.join(parts)}/{name}", loc), age)
                                                for loc in located if loc not in named], adopt, rule)
    finally:
        _closed(fd, dir_fd)


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError as exc:
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise


def _retire_own(index, blobs, parts: tuple[str, ...], name: str, fd: int, dying: frozenset[str]) -> bool:
    """A segment locked by a writer: if it is this process's own active segment, with no write pending, and no row
    (but ``dying`` ones) names a blob in it, have the writer take no more blobs into it and let it go (True), so a
    long-lived process's sweep reclaims its own dead segments too."""
    if not blobs.segments.is_active(parts, name):  # another process's: not scanned at all
        return False
    records = segments.scan(lambda n, at: os.pread(fd, n, at), os.fstat(fd).st_size)[0]
    if known_locations(index, list(segments.locations(name, records)), parts[1:]) - dying:
        return False
    return blobs.segments.retire_idle(parts, name)


def _closed(fd: int, dir_fd: int) -> None:
    if fd >= 0:
        os.close(fd)
    os.close(dir_fd)


def _judge(index, blobs, parts: tuple[str, ...], name: str, fds: tuple[int, int], rule: OrphanRule,
           what: tuple[bool, bool, frozenset[str], float | None, Adopt | None]) -> SegmentCheck:
    fd, dir_fd = fds
    remove, compact, dying, guard, adopt = what
    st = os.fstat(fd)
    age = time.time() - st.st_mtime  # (the file system's clock)
    records, _end, problem = segments.scan(lambda n, at: os.pread(fd, n, at), st.st_size)
    located = segments.locations(name, records)
    named = known_locations(index, list(located), parts[1:])
    if adopt is not None and (unnamed := [where for where in located if where not in named]) and rule.due(age):
        found = [(BlobFile(*parts[1:], f"{'/'.join(parts)}/{name}", where), age) for where in unnamed]
        named |= {f.token for f in adopt_named(index, LOCAL_LOCATION, found, adopt, rule)}
    known = named - dying
    check = SegmentCheck(st.st_size, sum(located[k].length for k in known), len(records), len(known),
                         problem=problem)
    old = rule.judge(age) == REMOVE
    if compact and known and old and check.live < SEGMENT_COMPACT_FRACTION * st.st_size:
        check.moved = _compact(index, blobs, parts, name, fd, [(k, located[k]) for k in sorted(known)])
        known = known_locations(index, list(known), parts[1:])
    if remove and not known and (old or check.moved) and (
            guard is None or not _restorable(fd, st, [r for k, r in located.items() if k not in named], guard)):
        try:  # (a restorable blob, its journal unreadable: perhaps a dead writer's spill, kept for a rebuild)
            os.unlink(name, dir_fd=dir_fd)
            check.removed = True
        except FileNotFoundError:
            pass
    return check


_TOLD_EVERY = 60.0  # seconds between two warnings that the journals cannot be read
_told = [0.0]


def _tell_unreadable(exc: StorageError) -> None:
    """Warn (at most once a minute) that segments are judged without the write-behind journals."""
    if time.monotonic() - _told[0] >= _TOLD_EVERY:
        _told[0] = time.monotonic()
        log.warning("scratchfs: the write-behind journals cannot be read (%s): segments holding a live spill no row "
                    "names are kept (fsck reports it; fsck --rebuild-index restores such spills)", exc)


def _restorable(fd: int, st: os.stat_result, records: list, now: float) -> bool:
    """Whether one of ``records`` (blobs of the segment open at ``fd`` that no row names) is what a journal's
    recovery would restore: a sound, bound handle not expired at ``now`` (epoch seconds). Raises OSError."""
    for record in records:
        try:
            b = Binding.of_table(read_seek_table(SliceRange(fd, record.offset, record.length, st), record.length))
        except FormatError:
            continue  # unbound or damaged: no recovery restores it
        if b.kind == "handle" and b.created_at + b.ttl > now:
            return True
    return False


def _compact(index, blobs, parts: tuple[str, ...], name: str, fd: int, live: list) -> int:
    """Copy the live blobs ``[(location, record)]`` of the segment open at ``fd`` to this process's own segment of
    the directory, then move their rows (each only if it still names the old location). Returns rows moved."""
    if not hasattr(index, "relocate"):
        return 0
    pending, moves = [], []
    try:
        for old, record in live:
            data = os.pread(fd, record.length, record.offset)
            if len(data) != record.length:
                return 0
            copy = blobs.segments.append(parts, record.token, data, BlobInfo(0, len(data), 0, b""))
            pending.append(copy)
            moves.append((old, copy.info.blob))
        with blobs.delete_lock(False, BUSY_TIMEOUT):  # no delete moves either directory meanwhile
            if (not safe_fs.is_at(blobs.root_fd, "/".join((*parts, name)), safe_fs.identity(fd))
                    or not all(copy.exists() for copy in pending)):
                return 0  # a delete moved the old segment (its rows are hidden) or the copies away
            return index.relocate(moves)
    except ScratchError as exc:
        log.warning("scratchfs: cannot compact a segment in %s (%s); a later sweep will", "/".join(parts), exc)
        return 0
    finally:
        for copy in pending:
            copy.release()


@dataclass
class SegmentUsage:
    """Segment files of a store (:func:`segment_usage`): ``segments`` (how many), ``bytes`` (their size),
    ``live_bytes`` (blobs a row names, with their record headers), ``dead_segments`` (segments no row names: the
    sweeper removes them once their writer let go and the grace period passed), ``dead_dated_ahead`` (of those, the
    ones whose modification time is more than the grace ahead: the sweeper leaves them until that date),
    ``damaged`` (``[path, problem]`` of segments whose scan stopped early: a torn tail left by a killed writer, or
    garbage)."""

    segments: int = 0
    bytes: int = 0
    live_bytes: int = 0
    dead_segments: int = 0
    damaged: list[list[str]] | None = None
    dead_dated_ahead: int = 0

    @property
    def dead_bytes(self) -> int:
        """Bytes of segments that no live row needs (reclaimed by removal or compaction)."""
        return self.bytes - self.live_bytes

    def to_dict(self) -> dict:
        """``{segments, bytes, live_bytes, dead_bytes, dead_segments, dead_dated_ahead, damaged}`` (counts and
        bytes), for fsck's JSON."""
        return {"segments": self.segments, "bytes": self.bytes, "live_bytes": self.live_bytes,
                "dead_bytes": self.dead_bytes, "dead_segments": self.dead_segments,
                "dead_dated_ahead": self.dead_dated_ahead, "damaged": self.damaged or []}


def segment_usage(index, blobs, listing: RunsListing, grace: float = float("inf")) -> SegmentUsage:
    """Scan every segment file in ``listing`` (fsck's walk of ``runs/`` of ``blobs``; without locking: a writer may
    be appending; a scan the blob walk kept in ``listing.scans`` is read, not made again) and count its live and
    dead bytes, and the dead segments dated more than ``grace`` seconds ahead
    (file-system clock), which the sweep leaves until that date. Directories that are links or not directories are
    skipped (fsck reports them).

    Raises:
        StoreBusy, StorageError: from the index.
    """
    usage = SegmentUsage(damaged=[])
    for run, agent, name, mtime in _segment_names(listing):
        kept = listing.scans.get(("runs", run, agent, name))
        records, size, problem = blobs.scan_segment(("runs", run, agent), name) if kept is None else kept
        located = segments.locations(name, records)
        live = sum(located[k].length + segments.RECORD_BYTES  # a live blob's record header is live too
                   for k in known_locations(index, list(located), (run, agent)))
        usage.segments += 1
        usage.bytes += size
        usage.live_bytes += live
        usage.dead_segments += live == 0
        usage.dead_dated_ahead += live == 0 and mtime > time.time() + grace
        if problem is not None:
            usage.damaged.append([f"runs/{run}/{agent}/{name}", problem])
    return usage


def _segment_names(listing: RunsListing) -> list[tuple[str, str, str, float]]:
    """``(run dir, agent dir, segment name, modification time)`` of every segment file in ``listing``."""
    return [(run, agent, name, st.st_mtime) for run, agent, names in listing.agent_dirs() for name, st in names
            if stat.S_ISREG(st.st_mode) and name_kind(name) == "segment"]
