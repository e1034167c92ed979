"""Streaming substring search over a seekable blob, frame by frame, with context windows.

Matches are non-overlapping, found left to right the way ``bytes.count`` counts them (the search resumes after each
match), wherever they fall -- across frame boundaries included, because the tail of one frame is searched together
with the next. Memory stays at about one frame plus the context and the needle, whatever the blob's size.
"""

from __future__ import annotations

from dataclasses import dataclass

from .seekable import SeekableReader


@dataclass(frozen=True, slots=True)
class Window:
    """The bytes around one match.

    Attributes:
        match_offset: byte offset of the match in the content.
        offset: byte offset of the window's first byte (``match_offset - context``, clipped at 0).
        data: the window's bytes: up to ``context`` bytes, the match, up to ``context`` bytes.
    """

    match_offset: int
    offset: int
    data: bytes

    @property
    def length(self) -> int:
        """Length of the window in bytes."""
        return len(self.data)


def find_windows(
    reader: SeekableReader, needle: bytes, start: int, context: int, max_matches: int, budget: int
) -> tuple[list[Window], int | None]:
    """Find matches of ``needle`` at or after byte ``start`` and cut a window around each.

    Stops after ``max_matches`` windows or when the next window would take the total of window bytes past
    ``budget``. Returns ``(windows, next_offset)``: ``next_offset`` is the offset of the first match not returned (pass
    it as the next search's ``start``), or ``None`` when no match is left. Requires ``2 * context + len(needle) <=
    budget``, so at least one window always fits.

    Raises:
        FormatError: from the reader, on damaged frames.
    """
    table = reader.table
    size = table.size
    width = len(needle)
    if start >= size or width == 0:
        return [], None
    first = table.frame_at(max(0, start - context))
    buf = bytearray()
    buf_start = table.d_offsets[first]
    pos = start  # absolute offset where the search resumes
    pending: list[int] = []  # matches found whose right context is not read yet
    windows: list[Window] = []
    used = 0
    for _frame_start, data in reader.iter_frames(first):
        buf += data
        buf_end = buf_start + len(buf)
        at_end = buf_end >= size
        while True:
            i = buf.find(needle, pos - buf_start)
            if i < 0:
                break
            pending.append(buf_start + i)
            pos = buf_start + i + width
        # no match starts before buf_end - width + 1 in what was searched; a later one may run into the next frame
        pos = max(pos, buf_end - width + 1)
        ready = 0
        for match in pending:
            hi = min(size, match + width + context)
            if hi > buf_end and not at_end:
                break
            if len(windows) == max_matches:
                return windows, match
            lo = max(0, match - context)
            window = bytes(buf[lo - buf_start : hi - buf_start])
            if used + len(window) > budget:
                return windows, match
            used += len(window)
            windows.append(Window(match, lo, window))
            ready += 1
        del pending[:ready]
        # keep what later windows and matches still need: the context before the earliest open match or the
        # resume position (which holds the bytes that may start a match continuing in the next frame)
        keep_from = max(buf_start, min([pos, *pending[:1]]) - context)
        if keep_from > buf_start:
            del buf[: keep_from - buf_start]
            buf_start = keep_from
    return windows, None
