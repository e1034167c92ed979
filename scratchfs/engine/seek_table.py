"""The seek table of the Zstandard Seekable Format: encoding it, and finding, checking and parsing it at the end of
a blob (with the binding frame before it, if any).

Source: facebook/zstd, ``contrib/seekable_format/zstd_seekable_compression_format.md`` (version 0.1.0); the layout
is drawn in :mod:`scratchfs.engine.seekable`. The parser trusts nothing: magic numbers, reserved bits, the frame count
against the file size, the sum of compressed sizes against the file size, and every decompressed size against
:data:`MAX_FRAME_BYTES`; any mismatch is a :class:`~scratchfs.engine.binding.FormatError`.
"""

from __future__ import annotations

import struct
from array import array
from bisect import bisect_right
from dataclasses import dataclass

from scratchfs.engine.binding import FormatError, binding_limit, find_binding
from scratchfs.engine.sources import RangeSource, as_source

__all__ = [
    "CHECKSUM_FLAG",
    "ENTRY_SIZE",
    "FOOTER_SIZE",
    "MAX_FRAMES",
    "MAX_FRAME_BYTES",
    "SEEKABLE_MAGIC",
    "SKIPPABLE_MAGIC",
    "TAIL_READ_BYTES",
    "SeekTable",
    "encode_seek_table",
    "parse_seek_table",
    "read_seek_table",
    "seek_table_length",
]

SKIPPABLE_MAGIC = 0x184D2A5E
SEEKABLE_MAGIC = 0x8F92EAB1
FOOTER_SIZE = 9
ENTRY_SIZE = 12  # with the checksum flag set
CHECKSUM_FLAG = 0x80
RESERVED_BITS = 0x7C
MAX_FRAMES = 0x8000000  # the reference implementation's ZSTD_SEEKABLE_MAXFRAMES
MAX_FRAME_BYTES = 4 * 1024 * 1024
"""Largest decompressed frame the writer makes or the reader accepts, in bytes (bounds every allocation)."""
TAIL_READ_BYTES = 8 * 1024
"""Bytes read from the end of a blob at once to find the seek table and binding frame (one ``pread`` usually)."""

_FOOTER = struct.Struct("<IBI")
_HEADER = struct.Struct("<II")


@dataclass(frozen=True, slots=True)
class SeekTable:
    """A parsed seek table.

    Attributes:
        c_offsets: ``n + 1`` byte offsets in the file where each frame starts (the last is the seek table's offset).
        d_offsets: ``n + 1`` byte offsets in the decompressed content where each frame starts (the last is the size).
        checksums: ``n`` per-frame checksums (low 32 bits of XXH64 of the frame's decompressed bytes).
    """

    c_offsets: array
    d_offsets: array
    checksums: array
    binding: bytes | None = None
    """The binding frame's payload (see :mod:`scratchfs.engine.binding`), or ``None`` if the blob has none."""

    @property
    def frames(self) -> int:
        """Number of frames."""
        return len(self.checksums)

    @property
    def size(self) -> int:
        """Decompressed size of the whole content, in bytes."""
        return self.d_offsets[-1]

    def frame_at(self, offset: int) -> int:
        """Index of the frame holding decompressed byte ``offset`` (``0 <= offset < size``)."""
        return bisect_right(self.d_offsets, offset) - 1


def encode_seek_table(compressed: list[int], decompressed: list[int], checksums: list[int]) -> bytes:
    """Encode a seek table (with the checksum flag set) as a skippable frame, as the spec lays it out.

    Args:
        compressed: per-frame compressed sizes, in bytes.
        decompressed: per-frame decompressed sizes, in bytes.
        checksums: per-frame low 32 bits of XXH64 of the decompressed bytes.
    """
    n = len(compressed)
    if not (n == len(decompressed) == len(checksums)) or n > MAX_FRAMES:
        raise ValueError("seek table columns differ in length or exceed the frame limit")
    entries = array("I")
    for c, d, x in zip(compressed, decompressed, checksums, strict=False):
        entries.extend((c, d, x))
    if entries.itemsize != 4:  # pragma: no cover - every platform we run on has a 4-byte unsigned int
        raise RuntimeError("array('I') is not 32-bit here")
    if struct.pack("=I", 1) != struct.pack("<I", 1):  # pragma: no cover - big-endian hosts
        entries.byteswap()
    body = entries.tobytes() + _FOOTER.pack(n, CHECKSUM_FLAG, SEEKABLE_MAGIC)
    return _HEADER.pack(SKIPPABLE_MAGIC, len(body)) + body


def parse_seek_table(tail: bytes, file_size: int) -> SeekTable:
    """Parse and check the seek table (and binding frame, if any) at the end of a blob.

    Args:
        tail: the last bytes of the file; at least the whole seek table frame (see :func:`seek_table_length`) and,
            when the last listed frame is a binding frame, that frame too (:func:`read_seek_table` reads enough).
        file_size: the blob's size, in bytes.

    Raises:
        FormatError: any field that is not what this module writes, or sizes that do not add up to ``file_size``.
    """
    count = seek_table_length(tail[-FOOTER_SIZE:], file_size)
    table_len = count * ENTRY_SIZE + FOOTER_SIZE + _HEADER.size
    if len(tail) < table_len:
        raise FormatError("seek table shorter than its footer says")
    frame = tail[len(tail) - table_len :]
    magic, body_len = _HEADER.unpack_from(frame, 0)
    if magic != SKIPPABLE_MAGIC or body_len != table_len - _HEADER.size:
        raise FormatError("seek table frame header is damaged")
    entries = array("I")
    entries.frombytes(frame[_HEADER.size : _HEADER.size + count * ENTRY_SIZE])
    if struct.pack("=I", 1) != struct.pack("<I", 1):  # pragma: no cover - big-endian hosts
        entries.byteswap()
    compressed, decompressed, checksums = entries[0::3], entries[1::3], entries[2::3]
    binding = find_binding(tail, table_len, compressed, decompressed, checksums)
    if binding is not None:
        del compressed[-1], decompressed[-1], checksums[-1]
    c_offsets = array("Q", [0])
    d_offsets = array("Q", [0])
    c_total = d_total = 0
    for c, d in zip(compressed, decompressed, strict=False):
        if d > MAX_FRAME_BYTES:
            raise FormatError(f"a frame claims {d} decompressed bytes, more than the limit of {MAX_FRAME_BYTES}")
        if c == 0:
            raise FormatError("a frame claims 0 compressed bytes")
        c_total += c
        d_total += d
        c_offsets.append(c_total)
        d_offsets.append(d_total)
    binding_len = 0 if binding is None else len(binding) + _HEADER.size
    if c_total != file_size - table_len - binding_len:
        raise FormatError(
            f"frames add up to {c_total} bytes but {file_size - table_len - binding_len} precede the seek table "
            "(truncated, or bytes added)"
        )
    return SeekTable(c_offsets, d_offsets, checksums, binding)


def seek_table_length(footer: bytes, file_size: int) -> int:
    """Check a blob's 9-byte footer and return its number of frames.

    Raises:
        FormatError: the file is too short, the magic number is wrong, reserved bits are set, the checksum flag is
            clear, or the frame count cannot fit in the file.
    """
    if file_size < FOOTER_SIZE + _HEADER.size or len(footer) != FOOTER_SIZE:
        raise FormatError(f"file of {file_size} bytes is too short for a seek table")
    count, descriptor, magic = _FOOTER.unpack(footer)
    if magic != SEEKABLE_MAGIC:
        raise FormatError("no seek table at the end of the file (magic number mismatch)")
    if descriptor & RESERVED_BITS or not descriptor & CHECKSUM_FLAG:
        raise FormatError(f"seek table descriptor {descriptor:#04x} is not supported")
    if count > MAX_FRAMES or count * ENTRY_SIZE + FOOTER_SIZE + _HEADER.size > file_size:
        raise FormatError(f"seek table claims {count} frames, more than a file of {file_size} bytes can hold")
    return count


def read_seek_table(source: RangeSource | int, file_size: int) -> SeekTable:
    """Read and parse the seek table and binding frame of the blob of ``file_size`` bytes read from ``source`` (a
    :class:`~scratchfs.engine.sources.RangeSource` or a file descriptor): one read of the last
    :data:`TAIL_READ_BYTES` bytes, more only for a larger table or binding.

    Raises:
        FormatError: see :func:`parse_seek_table`.
    """
    source = as_source(source)
    want = min(file_size, TAIL_READ_BYTES)
    tail = source.pread(want, file_size - want)
    if len(tail) != want:
        raise FormatError("file is shorter than its size")
    count = seek_table_length(tail[-FOOTER_SIZE:], file_size)
    need = count * ENTRY_SIZE + FOOTER_SIZE + _HEADER.size
    if count >= 2:  # room for a binding frame; its size is in the last entry
        entry = tail[-FOOTER_SIZE - ENTRY_SIZE :] if need <= want else source.pread(
            ENTRY_SIZE, file_size - FOOTER_SIZE - ENTRY_SIZE)
        last_c, last_d, _ = struct.unpack("<III", entry[:ENTRY_SIZE])
        if last_d == 0 and last_c <= binding_limit():
            need = min(file_size, need + last_c)
    if need > want:
        tail = source.pread(need, file_size - need)
        if len(tail) != need:
            raise FormatError("file is shorter than its size")
    return parse_seek_table(tail, file_size)
