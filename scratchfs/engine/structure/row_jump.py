"""Passing over the rows of a CSV/TSV or the records of JSON lines before row N at C speed, exactly.

A first ``row=N`` (``record=N``) has no cursor: it must find where row N starts. Parsing every row before it with
the ``csv`` module costs about 2 to 4 us a row; here the stretches of lines that hold no quote character are
counted with ``bytes.count`` instead (in such a stretch every line that is not blank is one row, as the ``csv``
module reads it; a regular expression finds the blank lines), and only a stretch that may hold a quote (or a lone
``\\r``, or a line longer than the window holds) is handed to the rows reader itself (``rows_from``), which reads
on until it is past it and the next quote is at least :data:`QUOTE_GAP_BYTES` bytes on. So a table with a quote in
every row costs what parsing it costs, and one with few about what reading its bytes costs
(``python bench/row_seek.py``).

A JSON-lines record is a line that is not blank (whitespace only), every line counted the same way.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator
from typing import Any

from scratchfs.engine.structure.numbers import load_exact
from scratchfs.engine.structure.paging import ContentSource, iter_lines

__all__ = ["BACK_BYTES", "LONG_LINE_BYTES", "QUOTE_GAP_BYTES", "WINDOW_BYTES", "blank_after_line", "broken_start",
           "line_offset", "line_place", "newline_end", "record_at_line", "records_in_lines", "skip_lines", "skip_rows"]

WINDOW_BYTES = 1024 * 1024
"""Most bytes of the content held at a time while passing over rows (the first read is 256 KiB, a frame and the
rows reader's first chunk: row 1,000 reads what it read before)."""
_FIRST_BYTES = 256 * 1024
QUOTE_GAP_BYTES = 1024
"""The rows reader reads on while the next quote (or lone ``\\r``) is nearer than this."""
_NEAR_BYTES = 65536  # the most the rows reader reads at a time while passing over rows (from 512 bytes, doubled)
_LONE_CR = re.compile(rb"\r(?!\n)")
_ROW_BLANKS = (b"", b"\r")  # the lines (\n cut off) of a quote-free stretch the csv module reads as no row
_BLANK_ROW = re.compile(rb"\n\r?\n")  # (a blank line after the first, of such a stretch)
_BLANK_RECORD = re.compile(rb"\n[ \t\r\x0b\x0c]*\n")  # (a line of whitespace after the first: no JSON-lines record)


class _Window:
    """Up to :data:`WINDOW_BYTES` of the content from ``start``, read again when an offset leaves less than half."""

    def __init__(self, source: ContentSource) -> None:
        self.source, self.start, self.data = source, 0, b""
        self.reach = 0  # (the bytes of the last read: the next reads twice as many, up to a window)

    def at(self, offset: int) -> int:
        """The index of byte ``offset`` into ``data`` (which holds over half the last read from it, or up to the
        end)."""
        end = self.start + len(self.data)
        if offset < self.start or (offset + self.reach // 2 >= end and end < self.source.size):
            self.reach = min(WINDOW_BYTES, max(_FIRST_BYTES, 2 * self.reach))
            self.start, self.data = offset, self.source.read(offset, self.reach)
        return offset - self.start

    def ends(self) -> bool:
        """Whether ``data`` runs to the end of the content."""
        return self.start + len(self.data) >= self.source.size


class _Near:
    """The content as the rows reader reads it while passing over rows: 512 bytes, then twice as many each read up
    to :data:`_NEAR_BYTES`, from the window (moved on when a read leaves it): the reader, made again at each quote,
    costs the rows it reads."""

    def __init__(self, window: _Window) -> None:
        self.window, self.size, self.reach = window, window.source.size, 512

    def read(self, offset: int, length: int) -> bytes:
        at = self.window.at(offset)
        length, self.reach = min(length, self.reach), min(_NEAR_BYTES, 2 * self.reach)
        return self.window.data[at : at + length]

    def iter_frames(self, first_frame: int = 0) -> Iterator[tuple[int, bytes]]:
        return self.window.source.iter_frames(first_frame)


def skip_rows(source: ContentSource, offset: int, count: int,
              rows_from: Callable[[ContentSource, int], Iterator[tuple[int, Any]]]) -> tuple[int, int]:
    """Pass over ``count`` rows from the start of a row ``offset`` (0 too: that line is no blank one, and a quote
    after a byte order mark there is read by the rows reader, which drops the mark):
    ``(a byte offset from which rows_from gives the next row, rows passed over)`` -- fewer than ``count`` when the
    content ends first. ``rows_from(source, offset)``: the rows of ``source`` (the content, read a little at a time)
    from a row start, ``(start, cells)`` each, as a rows read reads them (a row that cannot be read counts as one)."""
    window, left = _Window(source), count
    while left > 0 and offset < source.size:
        i = window.at(offset)
        data = window.data
        quote = data.find(b'"', i)
        stop = quote if quote >= 0 else len(data)
        if data.find(b"\r", i, stop) >= 0 and data.count(b"\r", i, stop) != data.count(b"\r\n", i, stop):
            lone = _LONE_CR.search(data, i, stop)
            stop = stop if lone is None else lone.start()
        cut = data.rfind(b"\n", i, stop) + 1
        if cut > i:  # (whole lines with no quote and no lone \r: each one not blank is a row)
            end, rows = _lines_passed(data, i, cut, left, _BLANK_ROW, data.startswith((b"\n", b"\r\n"), i),
                                      lambda line: line in _ROW_BLANKS)
            left, offset = left - rows, offset + end - i
            continue
        until = window.start + stop if stop < len(data) else offset  # (past a quote, or past a long or last line)
        offset, left = _parsed(window, offset, until, left, rows_from)
    return offset, count - left


def _parsed(window: _Window, offset: int, until: int, left: int,
            rows_from: Callable[[ContentSource, int], Iterator[tuple[int, Any]]]) -> tuple[int, int]:
    """Pass over rows with the rows reader from the row start ``offset`` (at most ``left``) until one starts past
    ``until`` and the next quote or lone ``\\r`` is :data:`QUOTE_GAP_BYTES` bytes on or more: ``(where the rows
    read on, rows left)``; ``(the content's size, rows left)`` when the content ends first."""
    for start, _ in rows_from(_Near(window), offset):
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
            until = start + QUOTE_GAP_BYTES  # (quotes near: the reader reads on a while before it looks again)
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
        if cut <= i:  # (a line longer than the window holds, or the last line)
            line = data[i:] if window.ends() else next(iter_lines(source, offset, max_line_bytes))[1]
            left -= not blank(line, offset)
            offset += len(line)
            continue
        end, records = _lines_passed(data, i, cut, left, _BLANK_RECORD, not data[i : data.find(b"\n", i)].strip(),
                                     lambda line: not line.strip())
        left, offset = left - records, offset + end - i
    return offset, count - left


def _lines_passed(data: bytes, i: int, cut: int, left: int, blank: re.Pattern[bytes], first_blank: bool,
                  is_blank: Callable[[bytes], bool]) -> tuple[int, int]:
    """Pass over at most ``left`` lines that are not blank of ``data[i:cut]`` (whole lines: it ends at a ``\\n``):
    ``(the index after them, how many)``. ``blank`` finds a blank line after the first (``first_blank``: the first
    is), ``is_blank`` tells one. With none, the lines are counted (``bytes.count``, C speed), else split."""
    if not first_blank and blank.search(data, i, cut) is None:
        lines = data.count(b"\n", i, cut)
        if lines <= left:
            return cut, lines
        wanted = left
        while (ahead := data.count(b"\n", i, min(cut, i + 8192))) < left:  # (8 KiB at a time, then line by line)
            i, left = i + 8192, left - ahead
        for _ in range(left):
            i = data.find(b"\n", i, cut) + 1
        return i, wanted
    passed = 0
    for line in data[i:cut].split(b"\n")[:-1]:
        if passed == left:
            break
        passed += not is_blank(line)
        i += len(line) + 1
    return i, passed


_LINE_MARKS = bytes(b if b == 0x0A else 0x78 for b in range(256))  # (every byte but \n as x)


def _blank_lines(part: bytes) -> int:
    """How many of the lines of ``part`` that end at a ``\\n`` are whitespace alone (no JSON-lines record): with
    the whitespace deleted and every other byte made ``x`` (one ``bytes.translate``, C speed), the newlines not after
    an ``x``; no object per line (a window of blank lines is a million lines)."""
    marks = part.translate(_LINE_MARKS, b" \t\r\x0b\x0c")
    return marks.count(b"\n") - marks.count(b"x\n")


def record_at_line(source: ContentSource, line: int) -> int:
    """The number (from 1) of the JSON-lines record on line ``line`` (from 1; lines end at ``\\n``, as jq numbers
    them in its parse errors): ``line`` less the blank lines before it (a line of whitespace, or of a byte order mark
    at the content's start, is no record). Reads the content up to that line, :data:`WINDOW_BYTES` at a time; a part
    of a line longer than that is no blank line."""
    return line_place(source, line)[0]


def line_place(source: ContentSource, line: int) -> tuple[int, int | None]:
    """``(record_at_line(source, line), line_offset(source, line))`` from one pass over the content up to line
    ``line``: the record on it, and its first byte (``None`` past the content's end)."""
    blank, after = _pass_lines(source, 0, line - 1)
    return line - blank, after


def records_in_lines(source: ContentSource, start: int, lines: int) -> int:
    """How many of the ``lines`` lines from byte ``start`` (a line's first byte) are JSON-lines records (not blank,
    as :func:`record_at_line` counts them): ``record_at_line(L) - records_in_lines(line_offset(L - n), n)`` is the
    record on line ``L - n``, with no pass from the content's start again."""
    return lines - _pass_lines(source, start, lines)[0]


def _pass_lines(source: ContentSource, offset: int, lines: int) -> tuple[int, int | None]:
    """Pass over ``lines`` lines from byte ``offset`` (a line's first byte): ``(the blank ones among them, the
    first byte of the line after them or None past the content's end)``, :data:`WINDOW_BYTES` at a time."""
    blank, seen, inside, line = 0, 1, False, lines + 1  # (inside: the window starts within a line)
    while seen < line and offset < source.size:
        data, start = source.read(offset, WINDOW_BYTES), 0
        if inside:
            start = data.find(b"\n") + 1
            if not start:  # (still inside the long line)
                offset += len(data)
                continue
            seen, inside = seen + 1, False
        ends = min(data.count(b"\n", start), line - seen)  # (the line ends passed in this window)
        if not ends:  # (a line longer than the window, or one the next window starts with)
            offset, inside = (offset + start, False) if start else (offset + len(data), True)
            continue
        part = data[start : newline_end(data, ends + data.count(b"\n", 0, start))]
        bom = offset + start == 0 and part.startswith(b"\xef\xbb\xbf")
        blank += _blank_lines(part[3:] if bom else part)
        seen, offset = seen + ends, offset + start + len(part)
    return blank, offset if seen >= line else None


def blank_after_line(source: ContentSource, offset: int) -> bool:
    """Whether only whitespace follows the line that holds byte ``offset`` (its ``\\n`` and past): that line is the
    content's last one that is not blank. Reads from ``offset`` :data:`WINDOW_BYTES` at a time, and stops at the
    first byte that is not whitespace after that line's end."""
    pos, ended = offset, False
    while pos < source.size:
        data = source.read(pos, WINDOW_BYTES)
        if not data:
            break
        pos += len(data)
        if not ended:
            end = data.find(b"\n")
            if end < 0:
                continue
            data, ended = data[end + 1:], True
        if data.strip(b" \t\r\n\f\v"):
            return False
    return True


BACK_BYTES = 64 * 1024
"""Most bytes before (and after) the line of a parse error that :func:`broken_start` reads (and the whole line
that these bytes begin in, up to :data:`LONG_LINE_BYTES`)."""
LONG_LINE_BYTES = 64 * 1024 * 1024
"""Most bytes of the line :data:`BACK_BYTES` before a parse error begins in that :func:`broken_start` reads back
over to its start (the longest record a records read holds, ``jsonl_records.MAX_RECORD_BYTES``): a long record cut
short."""


def line_offset(source: ContentSource, line: int) -> int | None:
    """The first byte of line ``line`` (from 1; lines end at ``\\n``, as jq numbers them), or ``None`` past the
    content's end. Counts newlines in C, :data:`WINDOW_BYTES` at a time."""
    offset, left = 0, line - 1
    while left > 0:
        data = source.read(offset, WINDOW_BYTES)
        if not data:
            return None
        count = data.count(b"\n")
        if count >= left:
            return offset + newline_end(data, left)
        left, offset = left - count, offset + len(data)
    return 0


def newline_end(data: bytes, count: int) -> int:
    """The byte of ``data`` just past its ``count``-th ``\\n`` (``count`` from 1): bisected with counts in C over
    the half left (about twice ``data`` read in all), no object made per line (a window of blank lines is a million
    lines). Raises ValueError when ``count`` is below 1 or above the newlines ``data`` holds."""
    low, high, before = 0, len(data), 0  # (before: the newlines of data[:low])
    if count < 1 or data.count(b"\n") < count:
        raise ValueError(f"{count} newlines asked of bytes that hold fewer")
    while low < high:  # (each count reads only the half left: about twice data's length read in all)
        middle = (low + high) // 2
        ahead = data.count(b"\n", low, middle)
        if before + ahead >= count:
            high = middle
        else:
            low, before = middle + 1, before + ahead + (data[middle] == 0x0A)
    return low


def _line_start(source: ContentSource, offset: int, most: int) -> int | None:
    """The first byte of the line that holds byte ``offset``, read back :data:`WINDOW_BYTES` at a time; ``None``
    when it begins more than ``most`` bytes before ``offset``."""
    pos = offset
    while pos > 0 and offset - pos < most:
        low = max(0, pos - WINDOW_BYTES, offset - most)
        found = source.read(low, pos - low).rfind(b"\n")
        if found >= 0:
            return low + found + 1
        pos = low
    return 0 if pos == 0 else None


def broken_start(source: ContentSource, offset: int) -> tuple[int, int]:
    """Where the broken record of JSON lines starts whose parse error (jq's) stopped at byte ``offset``: ``(lines
    before the line holding ``offset``, the byte where that record's line starts)``. jq reads a record cut inside a
    string or a bracket on into the lines after it (the open string takes the newline in), so its error names a
    later line: the record starts at the first of the lines not JSON by themselves that run up to that line (blank
    ones between them), or -- when that line is JSON by itself (read into an open string: a line with no quote) --
    up to the nearest line before it that is not. Looks back at most :data:`BACK_BYTES`, and over the whole line
    those bytes begin in (up to :data:`LONG_LINE_BYTES`: a long record cut short, where jq stops on the line after
    it); a line after it longer than :data:`BACK_BYTES` counts as not JSON; ``(0, the line's start)`` when the line
    before it is JSON, or none is in reach."""
    low = max(0, offset - BACK_BYTES)
    begun = low and _line_start(source, low, LONG_LINE_BYTES)  # (0: the content's start; None: out of reach)
    low = low if begun is None else begun
    data = source.read(low, offset - low + BACK_BYTES)
    at = offset - low
    head = data.rfind(b"\n", 0, at) + 1  # (the line's start, in data)
    end = data.find(b"\n", at)
    lines = data[:head].split(b"\n")[:-1]  # (whole lines before it; the first is cut unless data starts one)
    if begun is None and lines:  # (a line begun out of reach: not looked at)
        lines = lines[1:]
    lines.append(data[head:] if end < 0 else data[head:end])
    if end < 0 and low + len(data) < source.size:
        lines[-1] = b"\0"  # (longer than the reach: unknown, taken as not JSON)
    k = len(lines) - 1
    if _alone(lines[k]):  # (read into an open string: back to the nearest line that is not JSON)
        k = next((j for j in range(k - 1, -1, -1) if _alone(lines[j]) is False), -1)
        if k < 0:
            return 0, low + head
    for j in range(k - 1, -1, -1):
        said = _alone(lines[j])
        if said:
            break
        if said is False:
            k = j
    start = low + head - sum(len(line) + 1 for line in lines[k:-1])
    return len(lines) - 1 - k, start


def _alone(line: bytes) -> bool | None:
    """Whether ``line`` is JSON by itself, as a records read parses it (``None``: a blank line; a line nested
    deeper than the parser goes counts as JSON: jq reads it)."""
    if not line.strip():
        return None
    try:
        load_exact(line.removeprefix(codecs.BOM_UTF8).decode("utf-8", "replace"))
    except ValueError:
        return False
    except RecursionError:
        return True
    return True
