"""The rows of a CSV/TSV content, or of a table aligned by spaces or drawn with pipes, read from a byte offset, for
:mod:`~scratchfs.engine.structure.table` (which pages them): each ``(byte offset where the row starts, cells)``,
blank lines skipped; a row that cannot be read -- a field longer than :data:`FIELD_LIMIT_CHARS` characters, a line
longer than 16 MiB, CSV the ``csv`` module refuses -- as ``(its start, RowError)``, the rows after it read from the
next line; the bytes each U+FFFD of a row stands for, per cell (:func:`rows_from`'s ``replaced``); and, for a page,
a :class:`Far` past :data:`FAR_LINES` lines that are no rows in a row, where the page stops.
"""

from __future__ import annotations

import codecs
import csv
import re
import threading
from collections.abc import Generator, Iterator
from itertools import islice
from typing import NamedTuple

from scratchfs.engine.structure.aligned import Layout
from scratchfs.engine.structure.aligned_lines import is_total
from scratchfs.engine.structure.paging import ContentSource, iter_lines
from scratchfs.engine.structure.row_lines import iter_row_lines, line_end_after
from scratchfs.engine.structure.table_start import UTF8_BOM
from scratchfs.foundation.csv_rows import csv_reader
from scratchfs.foundation.errors import BadRecord, InvalidArgument

__all__ = ["BY_RANGE", "FAR_BYTES", "FAR_LINES", "FIELD_LIMIT_CHARS", "UNSPLIT_KEY", "Far", "RowError", "rows_from"]

UNSPLIT_KEY = "unsplit"
"""The key of a row of a table aligned by spaces or drawn with pipes given whole, ``{"unsplit": its line}``: its cells
cannot be told for certain (:meth:`~scratchfs.engine.structure.aligned.Layout.cells`)."""

_MAX_LINE_BYTES = 16 * 1024 * 1024
FIELD_LIMIT_CHARS = 16 * 1024 * 1024
"""Longest field (characters) a row read holds: the ``csv`` module's field limit (131,072 by default, a process-wide
setting) is raised to it when this module is imported -- never lowered, should the host have set it higher. A longer
field is refused with InvalidArgument; its bytes are read by range (``offset=``, ``length=``)."""
BY_RANGE = "read its bytes by range instead (offset={}, length=4096; next_offset goes on)"
if csv.field_size_limit() < FIELD_LIMIT_CHARS:
    csv.field_size_limit(FIELD_LIMIT_CHARS)


FAR_LINES = 65_536  # (about 0.1 s of blank CSV lines, read at ~1.5 us each)
FAR_BYTES = 8 * 1024 * 1024
"""Most lines that are no rows (blank lines of CSV; rules, borders of a table aligned or drawn), and most of their
bytes, a page reads in a row after its first row, or before it, without reaching a row: a page that reaches either
ends there, its cursor going on from the next line (:class:`Far`)."""


class Far(NamedTuple):
    """Where a page's reader stopped: past ``lines`` lines (``size`` bytes) that are no rows, none after a row."""

    lines: int
    size: int


class _Marks(threading.local):
    spans: list[tuple[int, int]]


_MARKS = _Marks()
_OWN = re.compile(b"\xef\xbf\xbd")  # a U+FFFD of the content's own (a lead byte: never inside another sequence)


def _mark(exc: UnicodeDecodeError) -> tuple[str, int]:
    """``"replace"``, noting ``(byte offset, bytes)`` of the sequence each U+FFFD stands for."""
    _MARKS.spans.append((exc.start, exc.end - exc.start))
    return "\ufffd", exc.end


codecs.register_error("scratchfs-csv-marks", _mark)


class _Lines:
    """Decoded lines for ``csv.reader`` from a byte offset, counting the bytes handed out. A UTF-8 byte order mark
    at the start of the content is dropped (as ``encoding="utf-8-sig"`` drops it), not made part of the first
    column's name; the bytes handed out still count it, so row offsets stay offsets into the content."""

    def __init__(self, source: ContentSource, offset: int, csv_lines: bool = True) -> None:
        self.consumed = offset
        self.replaced = 0  # bytes handed out as U+FFFD (not part of a valid UTF-8 character), so far
        self.marks: list[int] = []  # for each U+FFFD handed out since last emptied, in order: the bytes it shows
        self._lines = (iter_row_lines if csv_lines else iter_lines)(source, offset, _MAX_LINE_BYTES)
        self._peeked: list[tuple[int, bytes]] = []  # (the next line, read by :meth:`last`, not handed out yet)

    def last(self) -> bool:
        """Whether the line handed out last is the last before a blank line (spaces only) or the end: the next
        line is read, not handed out (nor counted) until the iteration reaches it."""
        if not self._peeked:
            self._peeked.extend(islice(self._lines, 1))
        return not self._peeked or not self._peeked[0][1].strip(b" \r\n")

    def _raw(self) -> Iterator[tuple[int, bytes]]:
        while True:
            if self._peeked:
                yield self._peeked.pop()
                continue
            found = next(self._lines, None)
            if found is None:
                return
            yield found

    def __iter__(self) -> Iterator[str]:
        for start, line in self._raw():
            self.consumed += len(line)
            if start == 0 and line.startswith(UTF8_BOM):
                line = line[3:]
            _MARKS.spans = []
            text = line.decode("utf-8", "scratchfs-csv-marks")
            if "\ufffd" in text:  # (a U+FFFD of the content's own is a valid character: 0 bytes replaced)
                events = sorted(_MARKS.spans + [(m.start(), 0) for m in _OWN.finditer(line)])
                self.marks.extend(n for _, n in events)
                self.replaced += sum(n for _, n in _MARKS.spans)
            yield text


class RowError(InvalidArgument):
    """A row that cannot be read (malformed, or a field or line past the bound): ``length`` bytes from byte
    ``offset`` (to the end of the line its reader stopped in), ``reason`` what is wrong with it."""

    def __init__(self, reason: str, offset: int, length: int) -> None:
        super().__init__(f"the row at byte {offset} {reason}: {BY_RANGE.format(offset)}")
        self.reason, self.offset, self.length = reason, offset, length

    def __reduce__(self) -> tuple:
        return (type(self), (self.reason, self.offset, self.length))

    def numbered(self, number: int, raised: bool = False) -> BadRecord:
        """This row as row ``number`` of a read: a BadRecord whose message names it, its bytes and what is wrong
        (``raised``: and the byte read that shows it, for the read that starts at it)."""
        return BadRecord(f"row {number} (bytes {self.offset} to {self.offset + self.length - 1}) {self.reason}"
                         + (f": {BY_RANGE.format(self.offset)}" if raised else ""), number, self.offset, self.length)


def _per_cell(cells: list[str], marks: list[int]) -> tuple[tuple[int, ...], ...]:
    """``marks`` (the bytes each U+FFFD of the row shows, in order) split by the cell each U+FFFD is in."""
    out, at = [], 0
    for cell in cells:
        count = cell.count("\ufffd")
        out.append(tuple(marks[at : at + count]))
        at += count
    return tuple(out)


def _aligned(lines: _Lines, layout: Layout, header: bool) -> Iterator[list[str] | dict[str, str]]:
    """The cells of each line of a table aligned by spaces or drawn with pipes (``[]`` for a line that is no row)
    up to the line that ends them (:meth:`Layout.ends`: a blank one; a box's border right under a border; of a
    table aligned by spaces, a rule of dashes after a row -- any, when the lines start past the header -- or a last
    line of totals: :func:`~scratchfs.engine.structure.aligned_lines.rows_end`'s footer, no row),
    ``{"unsplit": line}`` for a row whose cells cannot be told for certain (:meth:`Layout.cells`); the first row is
    the header, its cells the layout's names, when ``header`` (the lines start at the header's), and the line under
    it no row when it is a table's rule (:attr:`Layout.piped`); ``()`` instead of ``[]`` for a box's border, after
    which a read may not stop (:class:`Far`)."""
    ruled = bordered = False  # (bordered: the line before was a box's border)
    seen = not header  # (a row came before: a rule of dashes ends the rows)
    for line in iter(lines):
        body = line.rstrip("\n")
        if ruled:  # (the rule under a header drawn with pipes: whatever it looks like)
            ruled, bordered = False, layout.border(body)
            yield () if bordered else []
        elif layout.ends(body) or (bordered and layout.border(body)):  # (a box's bottom border over another's top)
            return
        elif not layout.is_row(body):
            if seen and not layout.piped:  # (a rule after rows: theirs closing, a footer after it)
                return
            bordered = layout.border(body)
            yield () if bordered else []  # (no page ends after a border: the next line's meaning depends on it)
        elif header:
            header, ruled, bordered = False, layout.piped, False
            yield list(layout.names)
        elif not layout.piped and is_total(body) and lines.last():  # (a last line of totals: a footer)
            return
        else:
            bordered, seen = False, True
            cells = layout.cells(line.rstrip("\n"))
            yield {UNSPLIT_KEY: line.strip(" \r\n")} if cells is None else cells


def rows_from(source: ContentSource, offset: int, delimiter: str, replaced: dict[int, tuple] | None = None,
            layout: Layout | None = None, far: bool = False,
            ) -> Iterator[tuple[int, list[str] | dict[str, str] | RowError | Far]]:
    """Rows from ``offset``: ``(byte offset where the row starts, cells)``, blank lines skipped; a row that cannot
    be read as ``(its start, RowError)``, the rows after it read on from the line after the one its reader stopped
    in (as the ``csv`` module's reader reads on after an error). ``replaced``, when given, gets ``{row start: for
    each cell, the bytes each of its U+FFFD shows (0: the content's own)}`` for each row that shows any byte as
    U+FFFD. ``layout``: a table aligned by spaces or drawn with pipes, its lines split by it (not CSV). ``far``:
    past :data:`FAR_LINES` lines (or :data:`FAR_BYTES`) that are no rows in a row, ``(the next line's start,
    Far)`` (a page ends there)."""
    while offset < source.size or offset == 0:
        lines = _Lines(source, offset, layout is None)
        reader = csv_reader(iter(lines), delimiter=delimiter) if layout is None else _aligned(
            lines, layout, offset == layout.start and layout.headed)
        bad = yield from _rows_until_bad(source, lines, reader, replaced, far)
        if bad is None:
            return
        yield bad.offset, bad
        offset = bad.offset + bad.length


def _rows_until_bad(source: ContentSource, lines: _Lines, reader: Iterator, replaced: dict[int, tuple] | None,
                    far: bool = False) -> Generator[tuple[int, list[str] | Far], None, RowError | None]:
    """The rows ``reader`` reads from ``lines`` (see :func:`rows_from`; ``far``: and a :class:`Far` past too many
    lines that are no rows) up to the first it cannot read, which it returns (``None`` at the end)."""
    start = skipped_from = lines.consumed
    skipped = 0
    while True:
        before = lines.replaced
        try:
            row = next(reader)
        except StopIteration:
            return None
        except csv.Error as exc:
            if "field larger than field limit" in str(exc):
                reason = (f"holds a field longer than {csv.field_size_limit():,} characters, the most a row read "
                          "holds")
            else:
                reason = f"is not valid CSV: {exc}"
            return RowError(reason, start, max(1, lines.consumed - start))
        except InvalidArgument as exc:  # a line longer than the line bound (iter_lines)
            del exc  # (it names the line's start; the row's is named)
            return RowError(f"holds a line longer than {_MAX_LINE_BYTES:,} bytes, the most a row read holds", start,
                             line_end_after(source, lines.consumed) - start)
        marks, lines.marks = lines.marks, []
        if row:
            if replaced is not None and lines.replaced > before:
                replaced[start] = _per_cell(list(row.values()) if isinstance(row, dict) else row, marks)
            yield start, row
            skipped, skipped_from = 0, lines.consumed
        elif far and ((skipped := skipped + 1) >= FAR_LINES or lines.consumed - skipped_from >= FAR_BYTES) and (
                row == []):  # (not after a box's border: `()`)
            yield lines.consumed, Far(skipped, lines.consumed - skipped_from)
            skipped, skipped_from = 0, lines.consumed
        start = lines.consumed
