"""Line-range reads over a seekable blob, at the cost of the frames they touch.

A line ends at ``\\n`` only, as ``grep -n``, ``sed`` and ``wc -l`` count: a ``\\r\\n`` line keeps its ``\\r`` and a
lone ``\\r`` (progress output) ends nothing; line ends are returned as they are. An output has as many lines as
``\\n`` bytes, plus one for an unterminated last line; lines are numbered from 1, as editors and ``sed -n`` number them.

At write time the writer counts the ``\\n`` of every frame (:attr:`scratchfs.seekable.SeekableWriter.frame_newlines`,
kept in the index); :class:`LineTable` sums them, so the frame that holds line N is found by bisection, with no scan
of earlier frames.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate

from scratchfs.engine.seekable import SeekableReader


class LineTable:
    """Cumulative newline counts per frame of one blob.

    Args:
        frame_newlines: the per-frame ``\\n`` counts as ``array('I')`` bytes (native byte order).
    """

    __slots__ = ("newlines_before",)

    def __init__(self, frame_newlines: bytes) -> None:
        counts = array("I")
        counts.frombytes(frame_newlines)
        self.newlines_before = array("Q", accumulate(counts, initial=0))

    def line_of_frame(self, frame: int) -> int:
        """1-based line number of the first byte of ``frame``."""
        return self.newlines_before[frame] + 1

    def frame_of_newline(self, k: int) -> int:
        """Index of the frame holding the ``k``-th ``\\n`` of the content (``k >= 1``)."""
        return bisect_left(self.newlines_before, k) - 1


def longest_line_bound(frame_newlines: bytes, size: int) -> int:
    """At least the bytes of the content's longest line (its ``\\n`` not counted), from the per-frame ``\\n`` counts
    the writer keeps (``array('I')`` bytes) and the content's ``size``: a line spans at most a run of frames with no
    ``\\n`` and the two frames around it. Every frame but the last holds the same bytes, at most
    ``ceil(size / (frames - 1))``; a content of one frame bounds its lines by its size."""
    counts = array("I")
    counts.frombytes(frame_newlines)
    if len(counts) < 2:
        return size
    run = longest = 0
    for count in counts:
        run = 0 if count else run + 1
        longest = max(longest, run)
    return min(size, (longest + 2) * -(-size // (len(counts) - 1)))


@dataclass(frozen=True, slots=True)
class LineRead:
    """What :func:`read_lines` read: ``data`` starting at byte ``offset`` (in the 1-based ``line``), holding
    ``newlines`` ``\\n`` bytes; ``cut`` when the read cap stopped it inside a line."""

    offset: int
    data: bytes
    newlines: int
    cut: bool
    line: int

    @property
    def lines(self) -> int:
        """Lines in ``data``, an unterminated (or cut) last one included."""
        return self.newlines + (1 if self.data and not self.data.endswith(b"\n") else 0)


_BLOCK = 8192  # bytes counted per C call while looking for the n-th newline


def _nth_newline(data: bytes, n: int, start: int = 0) -> tuple[int, int]:
    """Find the ``n``-th ``\\n`` of ``data[start:]`` (``n >= 1``): ``(its index, n)``, or ``(-1, newlines found)``
    if there are fewer. Counts a block at a time at C speed, then finds within the block that holds it."""
    found = 0
    pos = start
    end = len(data)
    while pos < end:
        stop = min(pos + _BLOCK, end)
        here = data.count(b"\n", pos, stop)
        if found + here >= n:
            at = pos - 1
            for _ in range(n - found):
                at = data.find(b"\n", at + 1, stop)
            return at, n
        found += here
        pos = stop
    return -1, found


def _start(reader: SeekableReader, table: LineTable, line: int, start: int | None) -> tuple[int, int, int, bytes]:
    """``(line, start byte, index of the frame decoded on the way or -1, its bytes)`` of a read from 1-based
    ``line``, or from content byte ``start`` (then ``line`` is the line that holds it, counted in its frame)."""
    seek = reader.table
    if start is not None:
        if start >= seek.size:
            return table.newlines_before[-1] + 1, start, -1, b""
        frame = seek.frame_at(start)
        data = reader.frame(frame)
        return table.line_of_frame(frame) + data.count(b"\n", 0, start - seek.d_offsets[frame]), start, frame, data
    if line == 1:
        return 1, 0, -1, b""
    frame = table.frame_of_newline(line - 1)
    data = reader.frame(frame)
    at, _ = _nth_newline(data, line - 1 - table.newlines_before[frame])
    return line, seek.d_offsets[frame] + at + 1, frame, data


def read_lines(reader: SeekableReader, table: LineTable, line: int, count: int, cap: int,
               start: int | None = None) -> LineRead:
    """Read ``count`` lines from 1-based ``line`` (the caller has checked it exists), at most ``cap`` bytes; or,
    with ``start`` (``0 <= start <= size``) instead, from content byte ``start``: the rest of the line it falls in
    is the first line read, and :attr:`LineRead.line` says which line that is (its frame is decoded once for both).

    Raises:
        FormatError: a damaged frame.
    """
    seek = reader.table
    size = seek.size
    line, start, cached_frame, cached = _start(reader, table, line, start)
    out = bytearray()
    found = 0
    cut = False
    if start < size:
        frame = seek.frame_at(start)
        while frame < seek.frames and found < count:
            data = cached if frame == cached_frame else reader.frame(frame)
            begin = start - seek.d_offsets[frame] if not out else 0
            at, here = _nth_newline(data, count - found, begin)
            stop = at + 1 if at >= 0 else len(data)
            found += here
            piece = memoryview(data)[begin:stop]
            if len(out) + len(piece) > cap:
                out += piece[: cap - len(out)]
                cut = not out.endswith(b"\n")
                break
            out += piece
            frame += 1
    data = bytes(out)
    return LineRead(start, data, data.count(b"\n"), cut, line)


__all__ = [
    "LineRead",
    "LineTable",
    "longest_line_bound",
    "read_lines",
]
