"""Segment files: small blobs appended to one file per writing process per agent directory (issue 16).

Creating a file costs ~600 us on ext4, appending to an open one a few. So a blob whose content is at most
:data:`~scratchfs.foundation.limits.SEGMENT_ENTRY_BYTES` is made in memory (the same seekable bytes a blob file would
hold: frames, binding frame, seek table) and appended to its writer's *segment*::

    runs/<run>/<agent>/<segment token>.zseg   [record header][blob][record header][blob]...

Each blob is preceded by a *record header*, a Zstandard skippable frame (magic :data:`RECORD_MAGIC`) holding the
blob's token and length, so a segment can be scanned forward (fsck, ``fsck --rebuild-index``) and the whole segment
stays one valid zstd stream (``zstd -d`` prints the contents of its blobs, one after the other).

The index row of such an entry names a *location* instead of a bare token: ``<token>:<segment token>:<offset>:
<length>`` (:func:`location`, :func:`parse_location`), the blob's byte slice in the segment. A reader opens the
segment and reads only that slice (:class:`~scratchfs.engine.sources.SliceRange`); the slice's binding frame names
the token, so a location pointing at another entry's bytes is refused like a blob file copied over another.

Concurrency and crash safety: each process appends only to segments it created (``O_CREAT|O_EXCL``), one active
segment per agent directory, held with an exclusive ``flock`` while it is active and while any write into it is not
yet committed (so a sweep, which only judges unlocked segments, never removes one in use). Threads of one process
serialise on a lock; a segment is left for a new one at :data:`~scratchfs.foundation.limits.SEGMENT_BYTES`, after
``fork()`` (the child starts its own), and as soon as it is no longer at its place (a ``delete_run`` moved its
directory to the trash). The bytes are written (and ``fsync``-ed when the store is durable) before the row naming
them commits; a crash leaves only bytes no row names at a segment's tail, which the sweeper reclaims with the
segment once no live row names any of its blobs.
"""

from __future__ import annotations

import functools
import logging
import os
import re
import stat
import struct
from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from scratchfs.engine.sources import OwnsFd, SliceRange
from scratchfs.foundation.checks import TOKEN_RE
from scratchfs.foundation.errors import ScratchError
from scratchfs.foundation.text import is_digits

log = logging.getLogger(__name__)

__all__ = [
    "DEAD_RECORD_MAGIC",
    "RECORD_BYTES",
    "RECORD_MAGIC",
    "SEGMENT_NAME_RE",
    "SEGMENT_SUFFIX",
    "Location",
    "Record",
    "SegmentSource",
    "buffer_head",
    "file_path",
    "forget",
    "forget_at",
    "is_location",
    "location",
    "locations",
    "parse_location",
    "record_header",
    "record_path",
    "scan",
    "slice_fits",
    "token_of",
]

SEGMENT_SUFFIX = ".zseg"
SEGMENT_NAME_RE = re.compile(r"([a-z2-7]{24})\.zseg\Z")
RECORD_MAGIC = 0x184D2A5D
"""Magic number of a record header (a skippable frame; the binding frame uses 0x184D2A5C, the seek table 0x184D2A5E)."""
_RECORD = struct.Struct("<II24sQ")  # magic, payload length (32), blob token (ASCII), blob length
RECORD_BYTES = _RECORD.size
"""Bytes of a record header (40)."""
DEAD_RECORD_MAGIC = 0x184D2A5B
"""Magic number of the header of a record whose entry was deleted (:func:`forget`): still a skippable frame of the
same length, so the segment stays a valid zstd stream and :func:`scan` steps over it without restoring it."""
_MAX_BLOB = 1 << 40


class Location(NamedTuple):
    """Where a segment entry's blob is: its ``token``, the segment's file ``name``, and the slice (``offset``,
    ``length``, bytes)."""

    token: str
    name: str
    offset: int
    length: int


class Record(NamedTuple):
    """A blob found by :func:`scan`: its ``token`` and its slice (``offset``, ``length``, bytes) in the segment."""

    token: str
    offset: int
    length: int


def is_location(blob: str) -> bool:
    """True if a row's ``blob`` names a slice of a segment rather than a blob file of its own."""
    return ":" in blob


def location(token: str, segment: str, offset: int, length: int) -> str:
    """The ``blob`` value of a row whose blob is ``length`` bytes at ``offset`` in the segment ``segment`` (its
    token, without the suffix)."""
    return f"{token}:{segment}:{offset}:{length}"


def locations(name: str, records: Iterable[Record]) -> dict[str, Record]:
    """The :func:`location` of each of ``records`` (found by :func:`scan` in the segment file ``name``, suffix
    included) and the record, in scan order."""
    segment = name[: -len(SEGMENT_SUFFIX)]
    return {location(r.token, segment, r.offset, r.length): r for r in records}


def record_path(path: str, offset: int, length: int) -> str:
    """How a report names the record of ``length`` bytes at byte ``offset`` of the segment file at ``path``: ``<path>
    (bytes <offset>+<length>)`` (:func:`file_path` reads it back)."""
    return f"{path} (bytes {offset}+{length})"


def file_path(place: str) -> str:
    """The file of a path :func:`record_path` wrote (its segment's path); any other path as it is."""
    return _RECORD_PATH_RE.sub("", place)


_RECORD_PATH_RE = re.compile(r" \(bytes [0-9]+\+[0-9]+\)\Z")


def token_of(blob: str) -> str:
    """The blob token a row's ``blob`` value names (a token, or a location's first part)."""
    return blob.partition(":")[0]


@functools.lru_cache(maxsize=8192)  # every cached read checks its entry's place: parse each location once
def parse_location(blob: str) -> Location:
    """Parse a location written by :func:`location` (cached).

    Raises:
        ValueError: not a well-formed location (a row written by something else).
    """
    parts = blob.split(":")
    if (len(parts) != 4 or not TOKEN_RE.match(parts[0]) or not TOKEN_RE.match(parts[1])
            or not is_digits(parts[2]) or not is_digits(parts[3])):
        raise ValueError(f"not a segment location: {blob!r}")
    offset, length = int(parts[2]), int(parts[3])
    if offset < RECORD_BYTES or not 0 < length < _MAX_BLOB:
        raise ValueError(f"not a segment location: {blob!r}")
    return Location(parts[0], parts[1] + SEGMENT_SUFFIX, offset, length)


def slice_fits(st: os.stat_result, blob: str) -> bool:
    """True unless ``blob`` is a location past the end of the segment whose ``stat`` is ``st``, a regular file. What
    is no regular file (a link, FIFO, socket, directory: never opened, its reader raises CorruptBlob) has no length
    to judge by: True, as at a blob file's name, so the sweep keeps the row (a segment moved away and linked back
    reads again once put back) and fsck reports it, whatever ``st_size`` a link or directory happens to have."""
    if not is_location(blob) or not stat.S_ISREG(st.st_mode):
        return True
    where = parse_location(blob)
    return st.st_size >= where.offset + where.length


def buffer_head(chunks: Iterable, limit: int) -> tuple[list, Iterator | None]:
    """The first chunks of a stream, copied, while they add up to at most ``limit`` bytes: ``(chunks, None)`` if
    the stream ended there, else ``(chunks so far, the rest of the stream)``."""
    head, total, it = [], 0, iter(chunks)
    for chunk in it:
        data = chunk if isinstance(chunk, bytes) else bytes(chunk)  # a caller may refill a reused buffer
        head.append(data)
        total += len(data)
        if total > limit:
            return head, it
    return head, None


def record_header(token: str, length: int) -> bytes:
    """The record header written before a blob of ``length`` bytes with token ``token``."""
    return _RECORD.pack(RECORD_MAGIC, RECORD_BYTES - 8, token.encode("ascii"), length)


def scan(pread: Callable[[int, int], bytes], size: int) -> tuple[list[Record], int, str | None]:
    """Read a segment's record headers forward from its start; past a damaged header or a record cut short, go on
    from the next place a sound record header starts (:func:`_resync`), so that damage in place (a header
    overwritten) hides no record after it -- a sweep judging the segment by its records would otherwise take it for
    dead and remove the live entries after the damage.

    Args:
        pread: ``pread(length, offset)`` of the segment file. size: its size, bytes.

    Returns:
        ``(records, end, problem)``: the records whose header and bytes are complete, the offset where the scan
        first stopped (``size`` for a sound segment), and ``None`` or what first stopped it (a damaged header, or a
        record cut short: the tail of a write that crashed, after which no sound header is found).

    Raises:
        OSError: from ``pread``.
    """
    records: list[Record] = []
    end: int | None = None
    problem: str | None = None
    start = 0
    while True:
        found, stop, why = _scan_from(pread, size, start)
        records += found
        if why is None:
            if end is None:
                end = size if not records else records[-1].offset + records[-1].length
            return records, end, problem
        if end is None:
            end, problem = stop, why
        start = _resync(pread, size, stop + 1)
        if start is None:
            return records, end, problem


def _scan_from(pread: Callable[[int, int], bytes], size: int, start: int) -> tuple[list[Record], int, str | None]:
    """:func:`scan` from ``start`` (a record header) up to the first problem: ``(records, stop, problem)``."""
    records: list[Record] = []
    for pos, header in _headers(pread, size, start):
        why = _bad_header(header, pos, size)
        if why is not None:
            return records, pos, why
        magic, _payload, raw, length = _RECORD.unpack(header)
        if magic == RECORD_MAGIC:
            records.append(Record(raw.decode("ascii"), pos + RECORD_BYTES, length))
        # (a dead record, a deleted entry's: stepped over, never restored)
    return records, size, None


def _bad_header(header: bytes, pos: int, size: int) -> str | None:
    """Why ``header`` (read at ``pos`` of a segment of ``size`` bytes) is no sound record header, or None."""
    if len(header) < RECORD_BYTES:
        return f"a record header is cut short at byte {pos}"
    magic, payload, raw, length = _RECORD.unpack(header)
    if (magic not in (RECORD_MAGIC, DEAD_RECORD_MAGIC) or payload != RECORD_BYTES - 8 or length <= 0
            or (magic == RECORD_MAGIC and not TOKEN_RE.match(raw.decode("ascii", "replace")))):
        return f"no record header at byte {pos}"
    if pos + RECORD_BYTES + length > size:
        return f"the record at byte {pos} is cut short"
    return None


_MAGICS = (struct.pack("<I", RECORD_MAGIC), struct.pack("<I", DEAD_RECORD_MAGIC))


def _resync(pread: Callable[[int, int], bytes], size: int, pos: int) -> int | None:
    """The first offset at or after ``pos`` where a sound record header starts (a live record's with a token, or a
    dead one's, whose record fits in the file), or None: the rest of the segment is read once, in chunks."""
    while pos + RECORD_BYTES <= size:
        chunk = pread(min(1 << 20, size - pos), pos)
        if len(chunk) < RECORD_BYTES:
            return None
        hits = [at for at in (chunk.find(magic) for magic in _MAGICS) if at >= 0]
        if not hits:
            pos += len(chunk) - 3  # (a magic number split by the chunk's end is found by the next chunk)
            continue
        at = pos + min(hits)
        if _bad_header(pread(RECORD_BYTES, at), at, size) is None:
            return at
        pos = at + 1
    return None


def forget(fd: int, blob: str) -> bool:
    """Mark the record of the segment entry at location ``blob`` dead, in the segment open read-write at ``fd``:
    its header's magic becomes :data:`DEAD_RECORD_MAGIC` (one 4-byte ``pwrite``), only if the header there is this
    entry's (token and length), so that ``fsck --rebuild-index`` does not bring a deleted entry back. The blob's bytes
    stay until the segment is reclaimed. Returns whether it was marked.

    Raises:
        OSError: from ``pread``/``pwrite``. ValueError: ``blob`` is not a location.
    """
    where = parse_location(blob)
    at = where.offset - RECORD_BYTES
    header = os.pread(fd, RECORD_BYTES, at)
    if len(header) < RECORD_BYTES or header != record_header(where.token, where.length):
        return False
    os.pwrite(fd, struct.pack("<I", DEAD_RECORD_MAGIC), at)
    return True


def forget_at(open_rw: Callable[[], int], blob: str) -> None:
    """:func:`forget` the entry at ``blob`` (a no-op for a blob token) in the segment ``open_rw()`` opens read-write
    (closed after). Never raises: a failure is logged (the entry stays deleted in the index; only a rebuild of a lost
    index could restore it). A segment gone (its directory moved away by a ``delete_run`` or ``delete_agent`` that
    overtook the delete, or the segment reclaimed) is no failure: nothing is left that a rebuild could restore."""
    if not is_location(blob):
        return
    try:
        fd = open_rw()
        try:
            forget(fd, blob)
        finally:
            os.close(fd)
    except FileNotFoundError:
        return
    except (OSError, ValueError, ScratchError) as exc:
        log.warning("scratchfs: cannot mark the deleted entry %s dead in its segment (%s)", blob, exc)


def _headers(pread: Callable[[int, int], bytes], size: int, pos: int = 0) -> Iterator[tuple[int, bytes]]:
    """``(offset, header bytes)`` of each record in turn from ``pos``; the caller validates each before the next is
    read (the next offset comes from the header's length field, read through the generator's state)."""
    chunk, chunk_at = b"", 0
    while pos < size:
        if not chunk_at <= pos <= pos + RECORD_BYTES <= chunk_at + len(chunk):
            chunk, chunk_at = pread(min(1 << 20, size - pos), pos), pos
        header = chunk[pos - chunk_at: pos - chunk_at + RECORD_BYTES]
        yield pos, header
        if len(header) < RECORD_BYTES:
            return
        pos += RECORD_BYTES + _RECORD.unpack(header)[3]


class SegmentSource(SliceRange, OwnsFd):
    """One blob's slice of a segment file, open for reading; owns its descriptor."""

    __slots__ = ()
