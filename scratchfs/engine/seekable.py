"""The Zstandard Seekable Format: a streaming writer and a verifying, frame-at-a-time reader.

Source: facebook/zstd, ``contrib/seekable_format/zstd_seekable_compression_format.md`` (version 0.1.0). A blob is a
sequence of independent zstd frames followed by one skippable frame holding the seek table::

    frame 0 | frame 1 | ... | frame n-1 | seek table

    seek table = Skippable_Magic_Number (u32 LE, 0x184D2A5E)
                 Frame_Size             (u32 LE, bytes after this field)
                 n x [Compressed_Size u32 | Decompressed_Size u32 | Checksum u32]
                 Number_Of_Frames       (u32 LE)
                 Seek_Table_Descriptor  (u8; bit 7 = Checksum_Flag, bits 6-2 reserved = 0)
                 Seekable_Magic_Number  (u32 LE, 0x8F92EAB1)

After the last content frame the writer may add one *binding* frame: a skippable frame (magic
:data:`BINDING_MAGIC`) listed in the seek table as a frame of 0 decompressed bytes, holding what the blob belongs to
(see :mod:`scratchfs.engine.binding`). Listed, it keeps the spec's sum of compressed sizes, so ``zstd -d``,
``pyzstd.SeekableZstdFile`` and ``indexed_zstd`` read the blob as before (tests/test_interop.py); this module hides it
from :class:`SeekTable` (``frames``, offsets) and hands its payload over as :attr:`SeekTable.binding`.

Every frame we write carries its content size and zstd's content checksum, and the seek table has the checksum flag
set. Its per-frame checksum is "the least significant 32 bits of the XXH64 digest of the uncompressed data" -- the
very value zstd stores as a frame's content checksum, so the writer copies the frame's last four bytes instead of
hashing the data twice. python-zstandard has no API for the skippable seek-table frame; :func:`encode_seek_table`
writes it from the spec.

The reader trusts nothing: :func:`parse_seek_table` checks the magic numbers, reserved bits, the frame count against
the file size, the sum of compressed sizes against the file size and every decompressed size against
:data:`MAX_FRAME_BYTES`; :meth:`SeekableReader.frame` checks each frame's header (content size, checksum flag, window)
against the seek table before it allocates anything, lets zstd verify the content checksum, and compares the
checksums in the frame and the seek table. Any mismatch raises :class:`FormatError`; no bytes that failed a check are
returned.

The seek table itself (encoding, parsing, reading) is :mod:`scratchfs.engine.seek_table`.

Compressor and decompressor objects are kept per thread (:mod:`scratchfs.engine.zstd_contexts`): a zstd context is
never shared between threads or processes.
"""

from __future__ import annotations

import struct
from array import array
from collections import deque
from collections.abc import Callable, Iterator
from hashlib import blake2b

import zstandard

from scratchfs.engine import safe_fs
from scratchfs.engine.binding import EMPTY_CHECKSUM, Binding, FormatError, encode_binding_frame, table_digest
from scratchfs.engine.caches import LRU
from scratchfs.engine.frame_pool import Call, FramePool, frame_pool
from scratchfs.engine.seek_table import (
    CHECKSUM_FLAG,
    ENTRY_SIZE,
    FOOTER_SIZE,
    MAX_FRAME_BYTES,
    SEEKABLE_MAGIC,
    SKIPPABLE_MAGIC,
    SeekTable,
    encode_seek_table,
    parse_seek_table,
    read_seek_table,
    seek_table_length,
)
from scratchfs.engine.segments import token_of
from scratchfs.engine.sources import RangeSource, as_source
from scratchfs.engine.zstd_contexts import MAX_WINDOW_BYTES, compress, decompressor, out_of_memory
from scratchfs.foundation import forks
from scratchfs.foundation.errors import StorageError
from scratchfs.foundation.limits import FRAME_BYTES, SEEK_TABLE_CACHE_ENTRIES, ZSTD_LEVEL

__all__ = [
    "CHECKSUM_FLAG",
    "DEFAULT_FRAME_BYTES",
    "DEFAULT_LEVEL",
    "ENTRY_SIZE",
    "FOOTER_SIZE",
    "MAX_FRAME_BYTES",
    "MAX_WINDOW_BYTES",
    "MIN_FRAME_BYTES",
    "SEEKABLE_MAGIC",
    "SKIPPABLE_MAGIC",
    "FormatError",
    "SeekTable",
    "SeekTableCache",
    "SeekableReader",
    "SeekableWriter",
    "encode_seek_table",
    "one_frame_blob",
    "parse_seek_table",
    "read_seek_table",
    "seek_table_length",
]

DEFAULT_FRAME_BYTES = FRAME_BYTES
"""Default decompressed size of a frame, in bytes (chosen by measurement: ``bench/README.md``)."""
MIN_FRAME_BYTES = 4 * 1024
DEFAULT_LEVEL = ZSTD_LEVEL

_INFLIGHT_PER_WORKER = 4  # frames in flight per worker thread of a large write (bounds its memory)
_AHEAD_MIN_FRAMES = 4  # frames a read must span for its frames to be decompressed ahead on the frame threads
_AHEAD_BYTES = 2 * 1024 * 1024  # most decompressed bytes of the frames a read decompresses ahead


# -- writing ------------------------------------------------------------------------------------------------------

def _write_all(fd: int | bytearray, buffers: list) -> None:
    """Write every buffer, in order (:func:`~scratchfs.engine.safe_fs.write_all`), or append them to ``fd`` when it is
    a ``bytearray``: a blob made in memory."""
    if isinstance(fd, bytearray):
        for b in buffers:
            fd += b
        return
    safe_fs.write_all(fd, buffers)


class SeekableWriter:
    """Compress a stream into a seekable blob on an open file descriptor, one frame per ``frame_bytes``.

    A content of one frame (every small spill) is compressed in the calling thread and written, seek table included,
    with one ``writev``. From the second full frame on, frames are compressed on the process's worker threads
    (:mod:`scratchfs.engine.frame_pool`: one per core, shared by all writes, ended when idle; zstd releases the GIL,
    and each thread keeps its own compressor) while the calling thread goes on reading the stream and writes finished
    frames, in order, with one ``writev`` per batch: compression overlaps writing, no frame is copied on the way (a
    worker compresses a ``memoryview`` of the caller's immutable chunk), and each frame is still one independent zstd
    frame. Memory stays bounded: at most :data:`_INFLIGHT_PER_WORKER` frames per worker are in flight (input and
    output), whatever the total size. A writer that fails or is dropped cancels its frames not yet started.

    A writer belongs to the process that made it: in a ``fork()`` child (a content stream that forks, then goes on in
    both processes) :meth:`write` and :meth:`close` raise :class:`StorageError` -- the child shares the parent's file
    offset, and its frames in flight were the parent's threads' -- and the caller leaves the file to the parent.

    Args:
        fd: a file descriptor open for writing, positioned at the start of an empty file, or an empty ``bytearray``
            that receives the blob's bytes (a small blob made in memory, :mod:`scratchfs.engine.segments`).
        frame_bytes: decompressed bytes per frame (:data:`MIN_FRAME_BYTES` to :data:`MAX_FRAME_BYTES`).
        level: zstd compression level.
        count_lines: also count ``b"\\n"`` per frame (:attr:`frame_newlines`).
        pool: the threads that compress the frames (default: the process's
            :data:`~scratchfs.engine.frame_pool.frame_pool`).

    After :meth:`close`: :attr:`size` (decompressed bytes), :attr:`stored_size` (bytes written, seek table included),
    :attr:`frame_newlines` (per-frame newline counts, or empty).

    Raises:
        OSError: from the file system (disk full, file-size limit); the caller removes the partial file.
    """

    def __init__(self, fd: int | bytearray, frame_bytes: int = DEFAULT_FRAME_BYTES, level: int = DEFAULT_LEVEL,
                 count_lines: bool = False, pool: FramePool | None = None) -> None:
        if not MIN_FRAME_BYTES <= frame_bytes <= MAX_FRAME_BYTES:
            raise ValueError(f"frame size {frame_bytes} is outside {MIN_FRAME_BYTES}..{MAX_FRAME_BYTES} bytes")
        self._fd = fd
        self._pool = frame_pool if pool is None else pool
        self._frame_bytes = frame_bytes
        self._level = level
        self._count_lines = count_lines
        self._buffer = bytearray()
        self._first: tuple | None = None  # the first full frame, held until a second shows the content is large
        self._inflight: deque = deque()  # (future of (compressed, newlines), decompressed size), in order
        self._large = False  # frames go to the workers
        self._limit = 0  # frames in flight before the oldest are written
        self._compressed: list[int] = []
        self._decompressed: list[int] = []
        self._checksums: list[int] = []
        self.frame_newlines = array("I")
        self.size = 0
        self.stored_size = 0
        self.closed = False
        self._failed: BaseException | None = None  # a frame that failed: the content can no longer be whole
        self._generation = forks.generation  # the process that writes (see forked)

    def write(self, data) -> None:
        """Append bytes (any bytes-like object) to the content.

        Raises:
            OSError: from the file system; or what compressing a frame raised -- and again on every later call, as a
                frame is then missing (the caller removes the partial file).
            StorageError: called in a ``fork()`` child of the writer's process (:attr:`forked`).
        """
        self._check_process()
        if self._failed is not None:
            raise self._failed
        if not isinstance(data, bytes):
            # one copy, so that frames can be counted and sliced without more; and frames wait for a worker after
            # this call returns, so only an immutable ``bytes`` may stay borrowed (a caller may refill a reused buffer)
            data = bytes(data)
        frame = self._frame_bytes
        start, end = 0, len(data)
        if self._buffer:
            take = min(end, frame - len(self._buffer))
            self._buffer += memoryview(data)[:take]
            start = take
            if len(self._buffer) == frame:
                full = bytes(self._buffer)
                self._buffer.clear()
                self._queue(full, 0, frame)
        while end - start >= frame:
            self._queue(data, start, start + frame)
            start += frame
        if start < end:
            self._buffer += memoryview(data)[start:]

    @property
    def forked(self) -> bool:
        """True in a ``fork()`` child of the process that made this writer: the file is the parent's to finish."""
        return self._generation != forks.generation

    def _check_process(self) -> None:
        if self.forked:
            raise StorageError("a write cannot go on in a fork() child of the process that started it")

    @property
    def frames(self) -> int:
        """Frames written so far."""
        return len(self._compressed)

    def _queue(self, data: bytes, start: int, end: int) -> None:
        """A full frame ``data[start:end]``: held while it may be the only one, then handed to the workers."""
        if self._first is None and not self._large:
            self._first = (data, start, end)
            return
        if not self._large:
            self._large = True
            self._limit = _INFLIGHT_PER_WORKER * self._pool.workers
            first, self._first = self._first, None
            self._submit(*first)
        self._submit(data, start, end)
        if len(self._inflight) >= self._limit:
            self._drain(self._limit // 2)

    def _submit(self, data: bytes, start: int, end: int) -> None:
        future = self._pool.submit(_compress_frame, self._level, self._frame_bytes, self._count_lines, data, start,
                                   end)
        self._inflight.append((future, end - start))

    def _drain(self, keep: int) -> None:
        """Write finished frames, in order, until at most ``keep`` are in flight (one ``writev``)."""
        outputs = []
        try:
            while len(self._inflight) > keep:
                future, raw_len = self._inflight.popleft()
                out, newlines = future.result()
                self._record(out, raw_len, newlines)
                outputs.append(out)
            _write_all(self._fd, outputs)
        except BaseException as exc:
            self._failed = exc
            self._cancel()
            raise

    def _cancel(self) -> None:
        """Cancel the frames in flight that no worker has started (the others finish unread)."""
        while self._inflight:
            self._inflight.popleft()[0].cancel()

    def __del__(self) -> None:
        if getattr(self, "_inflight", None):  # a writer dropped midway (its content stream failed)
            self._cancel()

    def _record(self, out: bytes, raw_len: int, newlines: int) -> None:
        self._compressed.append(len(out))
        self._decompressed.append(raw_len)
        self._checksums.append(int.from_bytes(out[-4:], "little"))  # zstd's checksum = XXH64 low 32 bits
        if self._count_lines:
            self.frame_newlines.append(newlines)
        self.size += raw_len
        self.stored_size += len(out)

    def _finish_frames(self) -> list:
        """Compress what is left (in this thread when nothing went to the workers), record every frame still
        unwritten, and return the outputs not yet written, in order."""
        tail = None
        if self._buffer or not (self._compressed or self._inflight or self._first):
            tail = bytes(self._buffer)
            self._buffer.clear()
        if self._large and tail is not None:
            self._submit(tail, 0, len(tail))
            tail = None
        outputs = []
        while self._inflight:
            future, raw_len = self._inflight[0]
            out, newlines = future.result()
            self._inflight.popleft()
            self._record(out, raw_len, newlines)
            outputs.append(out)
        for data, start, end in [x for x in (self._first, (tail, 0, len(tail)) if tail is not None else None)
                                 if x is not None]:
            out, newlines = _compress_frame(self._level, self._frame_bytes, self._count_lines, data, start, end)
            self._record(out, end - start, newlines)
            outputs.append(out)
        self._first = None
        return outputs

    def close(self, binding: Callable[[SeekableWriter], bytes] | None = None) -> None:
        """Compress what is left and write it with the seek table (one ``writev``). An empty content is stored as one
        empty frame.

        Args:
            binding: called once the content frames are known (:meth:`digest` works then); its bytes are written as
                the binding frame (at most :data:`MAX_BINDING_BYTES`) after the content, listed in the seek table.

        Raises:
            OSError: from the file system, or what compressing a frame raised.
            StorageError: called in a ``fork()`` child of the writer's process (:attr:`forked`).
        """
        if self.closed:
            return
        self._check_process()
        if self._failed is not None:
            raise self._failed
        try:
            outputs = self._finish_frames()
        except BaseException as exc:
            self._failed = exc
            self._cancel()
            raise
        tail = _tail(self._compressed, self._decompressed, self._checksums,
                     binding(self) if binding is not None else None)
        _write_all(self._fd, [*outputs, *tail])
        self.stored_size += sum(map(len, tail))
        self.closed = True

    def digest(self) -> str:
        """The content checksum of the frames written so far (:func:`table_digest`)."""
        return table_digest(self._compressed, self._decompressed, self._checksums)


def _compress_frame(level: int, frame_bytes: int, count_lines: bool, data: bytes, start: int, end: int
                    ) -> tuple[bytes, int]:
    """One zstd frame of ``data[start:end]`` (this thread's compressor for frames of ``frame_bytes``) and its number
    of ``b"\\n"``."""
    view = memoryview(data)[start:end] if start or end != len(data) else data
    newlines = data.count(b"\n", start, end) if count_lines else 0
    return compress(level, frame_bytes, view), newlines



_ENTRY = struct.Struct("<III")  # a seek table entry: compressed size, decompressed size, checksum
_ONE_FRAME_TABLE = struct.Struct("<II6IIBI")  # skippable header, two entries, footer (frames, flags, magic)


def one_frame_blob(data: bytes, level: int, frame_bytes: int, binding: Callable[[int, int, str], bytes]
                   ) -> tuple[bytes, int]:
    """A whole blob of a content that fits one frame (at most ``frame_bytes``, the frame size), made at once: the
    bytes :class:`SeekableWriter` writes for it with ``count_lines=True`` -- the content frame, the binding frame,
    the seek table -- without its buffering, and its ``b"\\n"`` count.

    Args:
        binding: called with ``(size, frames, digest)`` -- content bytes, 1, :func:`table_digest` of the frame --
            for the binding frame's payload (at most :data:`MAX_BINDING_BYTES`).
    """
    out = compress(level, frame_bytes, data)
    size, stored = len(data), len(out)
    checksum = int.from_bytes(out[-4:], "little")  # zstd's checksum = XXH64 low 32 bits
    digest = blake2b(_ENTRY.pack(stored, size, checksum), digest_size=16).hexdigest()  # table_digest of the frame
    frame = encode_binding_frame(binding(size, 1, digest))
    table = _ONE_FRAME_TABLE.pack(  # encode_seek_table of the frame and the binding frame (0 bytes, empty checksum)
        SKIPPABLE_MAGIC, 2 * ENTRY_SIZE + FOOTER_SIZE, stored, size, checksum, len(frame), 0, EMPTY_CHECKSUM, 2,
        CHECKSUM_FLAG, SEEKABLE_MAGIC)
    return b"".join((out, frame, table)), data.count(b"\n")


def _tail(compressed: list[int], decompressed: list[int], checksums: list[int], payload: bytes | None) -> list[bytes]:
    """What a blob ends with after its content frames (whose sizes, bytes, and checksums are given): the binding frame
    of ``payload`` when there is one (listed in the seek table as a frame of 0 bytes) and the seek table."""
    if payload is None:
        return [encode_seek_table(compressed, decompressed, checksums)]
    frame = encode_binding_frame(payload)
    return [frame, encode_seek_table([*compressed, len(frame)], [*decompressed, 0], [*checksums, EMPTY_CHECKSUM])]


# -- reading ------------------------------------------------------------------------------------------------------

class SeekableReader:
    """Read decompressed byte ranges and frames from a seekable blob.

    Args:
        source: a :class:`~scratchfs.engine.sources.RangeSource` (or an open file descriptor; the caller closes it).
        table: the blob's parsed :class:`SeekTable` (see :func:`read_seek_table`).

    Every method raises :class:`FormatError` on damaged data and ``OSError`` from the file system or object store.
    """

    __slots__ = ("_source", "table")

    def __init__(self, source: RangeSource | int, table: SeekTable) -> None:
        self._source = as_source(source)
        self.table = table

    def raw_frames(self, first: int, last: int) -> bytes:
        """The compressed bytes of frames ``first`` to ``last`` (inclusive), read with one ``pread``."""
        start = self.table.c_offsets[first]
        end = self.table.c_offsets[last + 1]
        data = self._source.pread(end - start, start)
        if len(data) != end - start:
            raise FormatError("file is shorter than its seek table says")
        return data

    def decode(self, index: int, raw) -> bytes:
        """Decompress frame ``index`` from its compressed bytes ``raw``, after checking its header against the seek
        table; zstd verifies the content checksum, so a frame is returned whole and verified or not at all."""
        table = self.table
        expected = table.d_offsets[index + 1] - table.d_offsets[index]
        try:
            params = zstandard.get_frame_parameters(raw)
        except zstandard.ZstdError as exc:
            raise FormatError(f"frame {index} header is damaged: {exc}") from None
        if params.content_size != expected:
            raise FormatError(f"frame {index} says {params.content_size} bytes, the seek table {expected}")
        if not params.has_checksum or params.window_size > MAX_WINDOW_BYTES:
            raise FormatError(f"frame {index} has no checksum or a window over the limit")
        if int.from_bytes(raw[-4:], "little") != table.checksums[index]:
            raise FormatError(f"frame {index} checksum differs from the seek table's")
        dctx = decompressor()
        try:
            data = dctx.decompress(raw)
        except zstandard.ZstdError as exc:
            if out_of_memory(exc):  # (a resource's failure, not a damaged frame)
                raise MemoryError(f"zstd: {exc}") from None
            raise FormatError(f"frame {index} does not decompress: {exc}") from None
        if len(data) != expected:
            raise FormatError(f"frame {index} decompressed to {len(data)} bytes, expected {expected}")
        return data

    def frame(self, index: int) -> bytes:
        """The decompressed bytes of frame ``index``, verified against its checksum."""
        return self.decode(index, self.raw_frames(index, index))

    def read(self, offset: int, length: int) -> bytes:
        """Decompressed bytes ``[offset, offset + length)``, clipped to the content; decompresses only the frames
        that cover the range. Raises ValueError for a negative ``offset`` or ``length`` (a caller's fault: no frame
        holds it, and it must never read as a damaged frame), FormatError and OSError for the blob."""
        if offset < 0 or length < 0:
            raise ValueError(f"a read of {length} bytes at byte {offset}: offsets and lengths are at least 0")
        table = self.table
        end = min(offset + length, table.size)
        if offset >= end:
            return b""
        first = table.frame_at(offset)
        last = table.frame_at(end - 1)
        if first == last:  # most reads: one frame, sliced once
            frame_start = table.d_offsets[first]
            return self.decode(first, self.raw_frames(first, first))[offset - frame_start : end - frame_start]
        raw = memoryview(self.raw_frames(first, last))
        base = table.c_offsets[first]
        parts = []
        for index in range(first, last + 1):
            chunk = raw[table.c_offsets[index] - base : table.c_offsets[index + 1] - base]
            frame_start = table.d_offsets[index]
            lo, hi = max(offset, frame_start) - frame_start, min(end, table.d_offsets[index + 1]) - frame_start
            parts.append(memoryview(self.decode(index, chunk))[lo:hi])
        return parts[0].tobytes() if len(parts) == 1 else b"".join(parts)

    def iter_frames(self, first: int = 0, batch_bytes: int = 4 * 1024 * 1024,
                    ahead: bool = False) -> Iterator[tuple[int, bytes]]:
        """Yield ``(decompressed offset, bytes)`` for each frame from ``first`` on, in order, reading about
        ``batch_bytes`` of compressed data per ``pread``.

        With ``ahead``, a read of :data:`_AHEAD_MIN_FRAMES` frames or more decompresses the frames after the one it
        yields ahead, on the process's frame threads (:mod:`scratchfs.engine.frame_pool`; zstd releases the GIL):
        two per thread and at most :data:`_AHEAD_BYTES`, so that decompressing overlaps what the caller does with
        each frame. It pays only for a caller that does little with each frame while holding the GIL (a whole read,
        a check): a caller that does (a search's ``bytes.find``, a parser) keeps the finished frames' threads
        waiting for the GIL, and reading ahead measured no faster or slower (``python bench/read_ahead.py``). A
        frame no thread has started when the caller wants it is decompressed in the caller's thread (so no caller
        ever waits for a queued frame, even on a frame thread); the frames left when the caller stops are
        cancelled; in a ``fork()`` child of the process that began the read, the frames are decompressed in the
        caller's thread."""
        table = self.table
        size = table.d_offsets[first + 1] - table.d_offsets[first] if first < table.frames else 0
        depth = 0 if not ahead or table.frames - first < _AHEAD_MIN_FRAMES else min(  # (none for frames > 2 MiB)
            2 * frame_pool.workers, _AHEAD_BYTES // max(1, size))  # frames decompressed ahead at most
        generation, pending = forks.generation, deque()  # (index, compressed bytes, future or None), in order
        try:
            for index, chunk in self._compressed(first, batch_bytes):
                pending.append((index, chunk, frame_pool.submit(self.decode, index, chunk) if depth else None))
                if len(pending) > depth:
                    yield self._taken(*pending.popleft(), generation)
            while pending:
                yield self._taken(*pending.popleft(), generation)
        finally:
            for _, _, future in pending:
                if future is not None:
                    future.cancel()

    def _compressed(self, first: int, batch_bytes: int) -> Iterator[tuple[int, bytes]]:
        """``(index, compressed bytes)`` of each frame from ``first`` on, about ``batch_bytes`` read per ``pread``."""
        table = self.table
        index = first
        while index < table.frames:
            last = index
            start = table.c_offsets[index]
            while last + 1 < table.frames and table.c_offsets[last + 2] - start <= batch_bytes:
                last += 1
            raw = self.raw_frames(index, last)
            for i in range(index, last + 1):
                yield i, raw[table.c_offsets[i] - start : table.c_offsets[i + 1] - start]
            index = last + 1

    def _taken(self, index: int, chunk: bytes, future: Call | None, generation: int) -> tuple[int, bytes]:
        """Frame ``index``: its future's result once a thread runs it, else decompressed here."""
        if future is None or generation != forks.generation or future.cancel():
            return self.table.d_offsets[index], self.decode(index, chunk)
        return self.table.d_offsets[index], future.result()


# -- seek table cache ---------------------------------------------------------------------------------------------

class SeekTableCache:
    """A bounded LRU cache of parsed seek tables, keyed by blob name and the source's identity.

    For a local file the identity is ``(st_dev, st_ino, st_size, st_mtime_ns)`` from ``fstat``, so a file replaced or
    changed under the same name is parsed again. The name matters: a new file may get a freed inode number with the
    same size and, on a file system with coarse timestamps, the same mtime. Thread-safe.
    """

    def __init__(self, capacity: int = SEEK_TABLE_CACHE_ENTRIES) -> None:
        self._tables: LRU[tuple, SeekTable] = LRU(capacity)

    def get(self, source: RangeSource | int, name: str = "") -> SeekTable:
        """The seek table of the blob ``name`` read from ``source``. A ``name`` (the blob token) must match the
        blob's binding frame (:meth:`Binding.of_table`, :meth:`Binding.mismatch`), checked once and cached with the
        table.

        Raises:
            FormatError: a damaged table, or (with ``name``) a missing or foreign binding.
            OSError: from the file system or object store.
        """
        source = as_source(source)
        key = (name, source.identity)
        table = self._tables.get(key)
        if table is None:
            table = read_seek_table(source, source.size)
            if name:
                problem = Binding.of_table(table).mismatch(token_of(name))  # a segment entry's location too
                if problem:
                    raise FormatError(problem)
            self._tables.put(key, table)
        return table
