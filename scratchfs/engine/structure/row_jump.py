"""Passing over the rows of a CSV/TSV or the records of JSON lines before row N at C speed, exactly.

A first ``row=N`` (``record=N``) has no cursor: it must find where row N starts. Parsing every row before it with
the ``csv`` module costs about 4 us a row; here the stretches of lines that hold no quote character are counted
with ``bytes.split`` and ``list.count`` instead (in such a stretch every line that is not blank is one row, as the
``csv`` module reads it), and only a stretch that may hold a quote (or a lone ``\\r``, or a line longer than half a
window) is handed to the rows reader itself (``rows_from``), which reads on until it is past it and the next quote
is at least :data:`QUOTE_GAP_BYTES` bytes on. So a table with a quote in every row costs what parsing it costs,
and one with few costs about what reading its bytes costs (``python bench/row_seek.py``).

A JSON-lines record is a line that is not blank (whitespace only), every line counted the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from scratchfs.engine.structure.paging import ContentSource, iter_lines

__all__ = ["QUOTE_GAP_BYTES", "WINDOW_BYTES", "skip_lines", "skip_rows"]

WINDOW_BYTES = 1024 * 1024
"""Bytes of the content held at a time while passing over rows."""
QUOTE_GAP_BYTES = 16 * 1024
"""The rows reader reads on while the next quote (or lone ``\\r``) is nearer than this."""
_LONE_CR = re.compile(rb"\r(?!\n)")
_ROW_BLANKS = (b"", b"\r")  # the lines (\n cut off) of a quote-free stretch the csv module reads as no row


class _Window:
    """Up to :data:`WINDOW_BYTES` of the content from ``start``, read again when an offset leaves less than half."""

    def __init__(self, source: ContentSource) -> None:
        self.source, self.start, self.data = source, 0, b""

    def at(self, offset: int) -> int:
        """The index of byte ``offset`` into ``data`` (which holds half a window from it, or up to the end)."""
        end = self.start + len(self.data)
        if offset < self.start or (offset + WINDOW_BYTES // 2 > end and end < self.source.size):
            self.start, self.data = offset, self.source.read(offset, WINDOW_BYTES)
        return offset - self.start

    def ends(self) -> bool:
        """Whether ``data`` runs to the end of the content."""
        return self.start + len(self.data) >= self.source.size


def skip_rows(source: ContentSource, offset: int, count: int,
              rows_from: Callable[[int], Iterator[tuple[int, Any]]]) -> tuple[int, int]:
    """Pass over ``count`` rows from the row start ``offset`` (not 0: a byte order mark is no part of a row):
    ``(a byte offset from which rows_from gives the next row, rows passed over)`` -- fewer than ``count`` when the
    content ends first. ``rows_from(offset)``: the rows from a row start, ``(start, cells)`` each, as a rows read
    reads them (a row that cannot be read counts as one)."""
    window, left = _Window(source), count
    while left > 0 and offset < source.size:
        i = window.at(offset)
        data = window.data
        quote = data.find(b'"', i)
        stop = quote if quote >= 0 else len(data)
        lone = _LONE_CR.search(data, i, stop)
        stop = stop if lone is None else lone.start()
        cut = data.rfind(b"\n", i, stop) + 1
        if cut > i:  # (whole lines with no quote and no lone \r: each one not blank is a row)
            lines = data[i:cut].split(b"\n")
            lines.pop()
            rows = len(lines) - lines.count(b"") - lines.count(b"\r")
            if rows < left:
                left, offset = left - rows, offset + cut - i
                continue
            for line in lines:
                if line not in _ROW_BLANKS:
                    if not left:
                        break
                    left -= 1
                offset += len(line) + 1
            return offset, count
        until = window.start + stop if stop < len(data) else offset  # (past a quote, or past a long or last line)
        offset, left = _parsed(window, offset, until, left, rows_from)
    return offset, count - left


def _parsed(window: _Window, offset: int, until: int, left: int,
            rows_from: Callable[[int], Iterator[tuple[int, Any]]]) -> tuple[int, int]:
    """Pass over rows with the rows reader from the row start ``offset`` (at most ``left``) until one starts past
    ``until`` and the next quote or lone ``\\r`` is :data:`QUOTE_GAP_BYTES` bytes on or more: ``(where the rows
    read on, rows left)``; ``(the content's size, rows left)`` when the content ends first."""
    for start, _ in rows_from(offset):
        if start > until:
            if not left:
                return start, 0
            i = window.at(start)
            data = window.data
            near = data.find(b'"', i, i + QUOTE_GAP_BYTES)
            lone = _LONE_CR.search(data, i, i + QUOTE_GAP_BYTES if near < 0 else near)
            near = near if lone is None else lone.start()
            if near < 0 and i + QUOTE_GAP_BYTES <= len(data):
                return start, left
            until = start + max(0, near - i)
        if not left:
            return start, 0
        left -= 1
    return window.source.size, left


def skip_lines(source: ContentSource, offset: int, count: int, blank: Callable[[bytes, int], bool],
               max_line_bytes: int) -> tuple[int, int]:
    """Pass over ``count`` lines that are not blank (lines end at ``\\n``; ``blank(line, start)`` tells one that is
    whitespace only, no JSON-lines record) from the line start ``offset`` (not 0): ``(the byte offset after them,
    lines passed over)`` -- fewer than ``count`` when the content ends first.

    Raises:
        InvalidArgument: a line before them is longer than ``max_line_bytes`` (:func:`iter_lines`).
    """
    window, left = _Window(source), count
    while left > 0 and offset < source.size:
        i = window.at(offset)
        data = window.data
        cut = data.rfind(b"\n", i) + 1
        if cut <= i:  # (a line longer than half a window, or the last line)
            line = data[i:] if window.ends() else next(iter_lines(source, offset, max_line_bytes))[1]
            left -= not blank(line, offset)
            offset += len(line)
            continue
        lines = data[i:cut].split(b"\n")
        lines.pop()
        records = len(lines) - lines.count(b"") - sum(map(bytes.isspace, lines))
        if records <= left:
            left, offset = left - records, offset + cut - i
            continue
        for line in lines:
            if not left:
                break
            left -= bool(line.strip())
            offset += len(line) + 1
        return offset, count
    return offset, count - left
