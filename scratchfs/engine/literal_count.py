"""Counting a substring's matches at C speed: ``bytes.count`` over each frame, the seams between frames counted
apart, and the lines holding them one step a line.

:func:`count_literal` answers what :func:`scratchfs.engine.search.count` answers for a
:class:`~scratchfs.engine.search.LiteralMatcher` -- the non-overlapping occurrences a ``bytes.find`` loop reports
(the search resuming after each), and the lines they start in (as ``grep -c`` counts lines) -- for a needle that
:func:`counts_fast`: one that cannot overlap itself (no proper prefix of it is also its suffix, so that every
occurrence is a match and the occurrences of each frame and those across each seam add up to the count) and holds
no ``\\n`` (so that a line holds a match when it holds the needle). The search's own loop takes a Python step per
match, about a microsecond: ``match="e"`` over 68 MiB of text (~7 million matches) stopped at the 4 s bound; here a
frame costs one ``bytes.count`` and one ``find`` step per line that holds a match (``python bench/dense_text.py
count``).
"""

from __future__ import annotations

import time

from scratchfs.engine.seekable import SeekableReader

__all__ = ["count_literal", "counts_fast"]


def counts_fast(needle: bytes) -> bool:
    """Whether :func:`count_literal` counts ``needle`` (non-empty): it holds no ``\\n`` and no proper prefix of it
    is also its suffix (``e``, ``error``, ``def ``; not ``aa`` nor ``abab``, whose occurrences may overlap)."""
    return bool(needle) and b"\n" not in needle and not any(needle[:k] == needle[-k:] for k in range(1, len(needle)))


def count_literal(reader: SeekableReader, needle: bytes, start: int, deadline: float, end: int | None = None
                  ) -> tuple[int, int, int | None]:
    """Count the occurrences of ``needle`` (:func:`counts_fast`) starting at or after content byte ``start`` and the
    lines they start in, frame by frame, until the content ends (at byte ``end``, when given: occurrences wholly
    before it) or ``deadline`` (:func:`time.monotonic`) passes before a frame (the first is always counted).

    Returns:
        ``(matches, lines, next_offset)`` as :func:`scratchfs.engine.search.count` returns them: ``next_offset`` is
        the first byte whose matches were not counted (the last ``len(needle) - 1`` bytes of the last frame counted,
        whose occurrences cross into the next), ``None`` when the count reached the end. A line holding matches on
        both sides of ``next_offset`` is counted by both counts.

    Raises:
        FormatError: a damaged frame.
    """
    table = reader.table
    size = table.size if end is None else min(end, table.size)
    if start >= size:
        return 0, 0, None
    width = len(needle)
    matches = lines = 0
    tail = b""  # the last bytes (at most width - 1, from start on) of the frame before: a seam's first half
    open_line = False  # the line running at the end of what was counted holds a counted match
    first = table.frame_at(start)
    for frame in range(first, table.frames):
        frame_start = table.d_offsets[frame]
        if frame_start >= size:
            break
        if frame > first and frame_start - len(tail) > start and time.monotonic() > deadline:
            return matches, lines, frame_start - len(tail)
        data = reader.frame(frame)
        if frame_start + len(data) > size:  # (cut at end)
            data = data[: size - frame_start]
        begin = max(0, start - frame_start)
        if tail and (seam := (tail + data[: width - 1]).count(needle)):
            matches += seam  # (one at most: two would overlap)
            lines += not open_line  # it starts in the line running at the seam
            open_line = True
        matches += data.count(needle, begin)
        counted, open_line = _lines_holding(data, needle, begin, open_line)
        lines += counted
        if width > 1:  # (a frame shorter than that, the first from start: with the tail before it)
            whole = len(data) - begin >= width - 1
            tail = data[len(data) - width + 1 :] if whole else (tail + data[begin:])[1 - width :]
    return matches, lines, None


def _lines_holding(data: bytes, needle: bytes, begin: int, open_line: bool) -> tuple[int, bool]:
    """``(lines of data[begin:] holding needle, whether its last line, not ended, holds it)``; ``open_line``: the
    line running into ``data`` (ending at its first ``\\n``) holds a match already counted, so is not counted again."""
    pos, lines = begin, 0
    if open_line:
        end = data.find(b"\n", begin)
        if end < 0:
            return 0, True
        pos = end + 1
    find = data.find
    while (hit := find(needle, pos)) >= 0:
        lines += 1
        end = find(b"\n", hit + len(needle))
        if end < 0:
            return lines, True
        pos = end + 1
    return lines, False
