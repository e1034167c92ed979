"""The writer of segment files (:mod:`scratchfs.engine.segments`, whose docstring gives the format, concurrency and
crash safety): one active segment per agent directory per process, appended under a lock, held with an exclusive
``flock`` while it is active or a write into it is not yet committed (:class:`SegmentPending`), and rolled back by a
write whose row was not written (:meth:`SegmentWriter.roll_back`).
"""

from __future__ import annotations

import logging
import os
import struct
import threading
import time
from collections.abc import Callable

from scratchfs.engine import safe_fs
from scratchfs.engine.protocols import BlobInfo
from scratchfs.engine.segments import (
    DEAD_RECORD_MAGIC,
    RECORD_BYTES,
    SEGMENT_SUFFIX,
    is_location,
    location,
    parse_location,
    record_header,
)
from scratchfs.foundation import forks
from scratchfs.foundation.errors import StorageError, storage_error
from scratchfs.foundation.limits import SEGMENT_ACTIVE, SEGMENT_BYTES

log = logging.getLogger(__name__)

__all__ = ["SegmentPending", "SegmentWriter"]


class _Segment:
    """A segment this process appends to: its descriptor (holding the ``flock``), its directory's descriptor (held
    open, so that the directory's identity cannot be reused by another), place and end."""

    __slots__ = ("dir_fd", "dir_ident", "end", "fd", "ident", "name", "parts", "path", "refs", "retired")

    def __init__(self, fd: int, dir_fd: int, parts: tuple[str, ...], name: str) -> None:
        st, dir_st = os.fstat(fd), os.fstat(dir_fd)
        self.fd, self.dir_fd, self.parts, self.name = fd, dir_fd, parts, name
        self.path = "/".join((*parts, name))
        self.ident = (st.st_dev, st.st_ino)  # as safe_fs.identity
        self.dir_ident = (dir_st.st_dev, dir_st.st_ino)
        self.end = st.st_size
        self.refs = 0  # writes appended but not yet committed or discarded
        self.retired = False

    def in_place(self, root_fd: int, sole: bool = False) -> bool:
        """True while this very file is still at its path below the root (one ``lstat``: :func:`safe_fs.is_at`);
        with ``sole``, and it has no other name (a hard link, e.g. ``cp -al``: an append would go there too)."""
        return safe_fs.is_at(root_fd, self.path, self.ident, sole)

    def dir_in_place(self, root_fd: int) -> bool:
        """True while the directory the segment was created in is still at its path (a ``delete_run`` or
        ``delete_agent`` moves it to the trash; nothing else moves a directory)."""
        return safe_fs.is_at(root_fd, "/".join(self.parts), self.dir_ident)

    def close(self) -> None:
        """Close both descriptors (dropping the ``flock``); idempotent. A segment that holds no record (nothing was
        appended, or every append was rolled back) is unlinked first, while its lock is still held, if it is still at
        its place: it would otherwise wait for a sweep."""
        if self.end == 0 and self.fd >= 0 and self.dir_fd >= 0:
            try:
                st = os.stat(self.name, dir_fd=self.dir_fd, follow_symlinks=False)
                if (st.st_dev, st.st_ino) == self.ident and st.st_size == 0:
                    os.unlink(self.name, dir_fd=self.dir_fd)
            except OSError:
                pass  # (moved away with its directory, or already gone: the sweeper's, or nobody's)
        for attr in ("fd", "dir_fd"):
            fd = getattr(self, attr)
            if fd >= 0:
                setattr(self, attr, -1)
                os.close(fd)


class SegmentWriter:
    """The segments one :class:`~scratchfs.engine.local_blobs.Blobs` appends to, one per agent directory.

    Args:
        root_fd: the store root's descriptor.
        create_locked: ``create_locked(parts, name) -> (fd, dir_fd)``: create the file ``name`` in the directory
            ``parts`` (``O_EXCL``, mode 0600) and return it holding its exclusive ``flock``.
        new_token: ``new_token() -> str``, a fresh random token (a new segment's name).
        durable: ``fsync`` each append (and a new segment's directory) before returning.
    """

    def __init__(self, root_fd: int, create_locked: Callable[[tuple[str, ...], str], tuple[int, int]],
                 new_token: Callable[[], str], durable: bool) -> None:
        self._root_fd = root_fd
        self._create_locked = create_locked
        self._new_token = new_token
        self._durable = durable
        self._lock = threading.Lock()
        self._active: dict[tuple[str, ...], _Segment] = {}
        self._generation = forks.generation

    def append(self, parts: tuple[str, ...], token: str, blob: bytes | bytearray, info: BlobInfo) -> SegmentPending:
        """Append ``blob`` (a complete seekable blob of token ``token``) to the active segment of the directory
        ``parts`` and return it pending its row (``info.blob`` is its location).

        Raises:
            StorageError: the file system refused (disk full, a link or other file in the way); the bytes written, if
                any, are unreferenced and reclaimed with the segment.
        """
        if self._generation != forks.generation:  # a fork() child: the parent's segments are not ours
            self._after_fork()
        header, began = record_header(token, len(blob)), time.monotonic()  # (before the segment is looked up)
        with self._lock:
            seg = self._segment(parts)
            offset = seg.end
            try:
                written = os.pwritev(seg.fd, (header, blob), offset)  # (write_all's views for a short write only)
                if written != RECORD_BYTES + len(blob):
                    safe_fs.write_all(seg.fd, [(header + bytes(blob))[written:]], offset + written)
                if self._durable:
                    os.fsync(seg.fd)
            except OSError as exc:
                self._retire(seg)  # its tail may hold part of this record: start afresh
                raise storage_error(exc, "cannot write the blob") from exc
            seg.end = offset + RECORD_BYTES + len(blob)
            seg.refs += 1
            if seg.end >= SEGMENT_BYTES:
                self._retire(seg)
        where = location(token, seg.name[: -len(SEGMENT_SUFFIX)], offset + RECORD_BYTES, len(blob))
        return SegmentPending(self, seg, BlobInfo(info.size, len(blob), info.frames, info.frame_newlines, where), began)

    def _segment(self, parts: tuple[str, ...]) -> _Segment:
        """The active segment of ``parts`` (call with the lock held), a new one if there is none, it moved, or it has
        another name (a hard link: it is sealed as a full one is, never appended to through the other name)."""
        seg = self._active.get(parts)
        if seg is not None and seg.in_place(self._root_fd, sole=True):
            return seg
        if seg is not None:
            self._retire(seg)
        while len(self._active) >= SEGMENT_ACTIVE:
            self._retire(next(iter(self._active.values())))
        name = self._new_token() + SEGMENT_SUFFIX
        fd, dir_fd = self._create_locked(parts, name)
        try:
            if self._durable:
                os.fsync(dir_fd)
            seg = _Segment(fd, dir_fd, parts, name)
        except OSError as exc:
            os.close(fd)
            os.close(dir_fd)
            raise storage_error(exc, "cannot create the segment file") from exc
        self._active[parts] = seg
        return seg

    def _retire(self, seg: _Segment) -> None:
        """Take no new blob into ``seg``; close it (dropping its lock) once no write into it is pending."""
        if self._active.get(seg.parts) is seg:
            del self._active[seg.parts]
        seg.retired = True
        if seg.refs == 0:
            seg.close()

    def is_active(self, parts: tuple[str, ...], name: str) -> bool:
        """True if ``name`` is this process's active segment of ``parts`` (a hint: it may be retired meanwhile)."""
        seg = self._active.get(parts)
        return seg is not None and seg.name == name and self._generation == forks.generation

    def retire_idle(self, parts: tuple[str, ...], name: str) -> bool:
        """If the active segment of ``parts`` is ``name`` and no write into it is pending, retire it now (its lock is
        dropped) and return True; the next write there starts a new segment. For the sweeper, once it found no
        row naming a blob in it."""
        if self._generation != forks.generation:
            return False
        with self._lock:
            seg = self._active.get(parts)
            if seg is None or seg.name != name or seg.refs:
                return False
            self._retire(seg)
            return True

    def roll_back(self, seg: _Segment, start: int, end: int) -> None:
        """Mark the record at ``[start, end)`` of ``seg`` (a write whose row was not written) dead, and if it is still
        the segment's last record, cut it off (``ftruncate``): a refused write, retried, does not grow the segment.
        The mark comes first, so a crash between the two leaves a dead record, never a live one. A segment given
        another name meanwhile (a hard link) is neither marked nor cut -- that would change the file at the other
        name -- but sealed (an ``fstat``, on this failure path only).

        Raises:
            OSError: the mark or the cut failed (the bytes then stay, unreferenced, until the sweeper reclaims the
                segment).
            StorageError: the segment has other names (sealed).
        """
        with self._lock:
            if seg.fd < 0:
                return
            names = os.fstat(seg.fd).st_nlink
            if names > 1:
                self._retire(seg)
                raise StorageError(f"{seg.path} has {names} names (a hard link, e.g. cp -al): not written")
            os.pwrite(seg.fd, struct.pack("<I", DEAD_RECORD_MAGIC), start)
            if seg.end == end:
                os.ftruncate(seg.fd, start)
                seg.end = start

    def done(self, seg: _Segment, moved: bool = False) -> None:
        """A write into ``seg`` is committed or discarded; ``moved``: it was found away from its place."""
        with self._lock:
            seg.refs -= 1
            if moved or seg.retired:
                self._retire(seg)

    def check(self, seg: _Segment) -> bool:
        """True while ``seg`` (holding a write not yet committed) is still at its place; False if a ``delete_run``
        or ``delete_agent`` moved its directory away (the write is then ordered before that delete).

        Raises:
            StorageError: the segment left its place some other way (removed or renamed while its directory stayed,
                or this process no longer holds it): the write must fail, not be acknowledged without its row.
        """
        if seg.fd >= 0 and seg.in_place(self._root_fd):
            return True
        if seg.fd < 0 or seg.dir_in_place(self._root_fd):
            raise StorageError(f"the segment file {seg.path} left its place while a write into it was not yet "
                               "committed (not by a delete of its run or agent); nothing was stored")
        return False

    def _after_fork(self) -> None:
        """In a ``fork()`` child: forget the parent's segments (closing our copies of their descriptors leaves the
        parent's locks in place) and start afresh."""
        inherited = list(self._active.values())
        self._lock = threading.Lock()
        self._active = {}
        self._generation = forks.generation
        for seg in inherited:
            try:
                seg.close()
            except OSError:
                pass
            seg.retired = True

    def close(self) -> None:
        """Retire every active segment (each closes once its pending writes are done)."""
        if self._generation != forks.generation:
            self._after_fork()
            return
        with self._lock:
            for seg in list(self._active.values()):
                self._retire(seg)


class SegmentPending:
    """A blob appended to a segment but not yet named by a row (the :class:`PendingWrite` of a segment entry): its
    segment stays locked until :meth:`release` or :meth:`discard`. ``info.blob`` is the location the row names."""

    gone_means_deleted = True  # (PendingWrite's: exists() is False only when a delete moved the segment's directory)

    def __init__(self, writer: SegmentWriter, seg: _Segment, info: BlobInfo, began: float) -> None:
        self.info, self.began = info, began  # (began: time.monotonic() before the segment was looked up)
        self._writer: SegmentWriter | None = writer
        self._seg = seg
        self._moved = False

    @property
    def segment_path(self) -> str:
        """The segment file's path relative to the store root (``runs/<run dir>/<agent dir>/<token>.zseg``)."""
        return self._seg.path

    def exists(self, known: dict[str, bool] | None = None) -> bool:
        """True while the segment is still at its place below the root; False once a delete of its run or agent
        moved it away. ``known``: the answers found so far by the rows of ONE transaction that holds the shared
        delete lock (no delete moves a directory meanwhile), by segment path: one ``lstat`` per segment, not one per
        row (the rows written behind, :mod:`scratchfs.engine.write_behind`).

        Raises:
            StorageError: it left its place some other way (see :meth:`SegmentWriter.check`)."""
        if self._writer is None:
            return False
        ok = None if known is None else known.get(self._seg.path)
        if ok is None:
            try:
                ok = self._writer.check(self._seg)
            except StorageError:
                self._moved = True
                raise
            if known is not None:
                known[self._seg.path] = ok
        self._moved = not ok
        return ok

    def release(self) -> None:
        """The row is committed: let go of the segment (idempotent)."""
        if self._writer is not None:
            writer, self._writer = self._writer, None
            writer.done(self._seg, self._moved)

    def discard(self) -> None:
        """The row was not written (the write failed): the record is marked dead as :func:`forget` marks a deleted
        entry's (one 4-byte ``pwrite`` to its header, not ``fsync``-ed), so that neither the recovery of a
        write-behind journal naming this segment nor ``fsck --rebuild-index`` brings back a spill whose caller was
        told it failed; if it is still the segment's last record it is cut off (:meth:`SegmentWriter.roll_back`), so
        a refused write retried does not grow the segment; otherwise its bytes stay, unreferenced, until the sweeper
        reclaims the segment (idempotent; never raises: a failure is logged)."""
        if self._writer is not None and is_location(self.info.blob):
            try:  # (not forget(): it reads the header first, and the writer's descriptor is write-only)
                where = parse_location(self.info.blob)
                self._writer.roll_back(self._seg, where.offset - RECORD_BYTES, where.offset + where.length)
            except (OSError, ValueError) as exc:
                log.warning("scratchfs: cannot mark the failed write %s dead in its segment (%s)", self.info.blob, exc)
        self.release()
