"""CSV and TSV: row ranges that always carry the header, and column selection (checked against the header by
:mod:`~scratchfs.engine.structure.table_columns`), streaming with the ``csv`` module.

Rows are numbered from 1 after the header (the first record; a UTF-8 byte order mark before it is not part of its
first name, as ``encoding="utf-8-sig"`` reads it); a quoted field spanning several lines is part of one
row (the ``csv`` module's reading of RFC 4180); a line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r``, as
``open(path, newline="")`` reads a file for the module (:mod:`~scratchfs.engine.structure.row_lines`: ``\\r`` and
``\\n\\r`` line ends read as rows); blank lines are not rows; a first line ``sep=;`` names the delimiter
and is no part of the table (:func:`named_separator`). A field may hold up to
:data:`FIELD_LIMIT_CHARS` characters (an embedded base64 blob, a long text) and a line up to 16 MiB; a row holding a
longer one cannot be read (below). The delimiter is a tab when the header line
has at least as many tabs as commas, else a semicolon when it has more semicolons than commas, else a comma
(:func:`detect_delimiter`, which the lines after it may overrule). A page is read by streaming from the cursor's
byte offset (the offset where its first row starts), so it costs the bytes it shows -- and no more than
:data:`~.table_reader.FAR_LINES` lines that are no rows in a row (blank lines, rules), where it stops, its cursor
reading on; the first read of row N passes over the rows before it, counting the lines of stretches with no quote
(:mod:`~.row_jump`), parsing the rest.

A row that cannot be read -- a field or line past the bound, CSV the ``csv`` module refuses -- keeps its row number
(the rows after it are numbered as if it were read); its bytes are the row's to the end of the line its reader
stopped in, and the rows after it are read from the next line, as the ``csv`` module's reader reads on after an
error. A page passes over it, naming it (:func:`rows_page`).
The standard library's reader is the reference here and costs no dependency.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from itertools import chain
from typing import Any

from scratchfs.engine.structure.aligned import Layout
from scratchfs.engine.structure.paging import (
    STOP,
    ContentSource,
    CursorKey,
    ItemPage,
    check_budget,
    decode_cursor,
    encode_cursor,
    fill_items,
    json_bytes,
)
from scratchfs.engine.structure.row_jump import skip_rows
from scratchfs.engine.structure.row_lines import LINE_END, row_line_start
from scratchfs.engine.structure.row_marks import RowMarks
from scratchfs.engine.structure.row_parts import keeper, kept_piece
from scratchfs.engine.structure.stray_quotes import REAL, RealCells, cell_lines, runaway_said, stray_cell
from scratchfs.engine.structure.table_columns import header_shown, select_columns
from scratchfs.engine.structure.table_reader import BY_RANGE, FIELD_LIMIT_CHARS, UNSPLIT_KEY, Far, RowError, rows_from
from scratchfs.engine.structure.table_start import (
    COMMENT_HEAD_CHARS,
    UTF8_BOM,
    detect_delimiter,
    leading_comments,
    named_separator,
)
from scratchfs.foundation.checks import check_int
from scratchfs.foundation.errors import BadCursor, BadRecord, InvalidArgument, PastLast
from scratchfs.foundation.text import plural

__all__ = ["FIELD_LIMIT_CHARS", "MAX_ROWS", "UNSPLIT_KEY", "CutSource", "iter_rows", "rows_at", "rows_page"]

MAX_ROWS = 10_000
"""Most rows a page asks for."""


def iter_rows(source: ContentSource, delimiter: str | None = None, *, layout: Layout | None = None,
              passed: list[BadRecord] | None = None, headed: bool = True) -> Iterator[tuple[int, list[str]]]:
    """Every record of a CSV/TSV content from its start, the header first, as :func:`rows_page` reads them:
    ``(byte offset where the record starts, cells)``, blank lines skipped, a quoted multi-line field part of one
    record. ``delimiter``: ``","``, ``"\\t"``, ``";"`` or ``"|"``; ``None`` detects it from the header line
    (:func:`detect_delimiter`). ``layout``: the content is a table aligned by spaces or drawn with pipes
    (:mod:`~scratchfs.engine.structure.aligned`), each line split by it (``delimiter`` ignored; the header's cells
    are its names; a line of a rule is no record; a blank line ends them, or the line :meth:`~.aligned.Layout.ends`
    them at). ``passed``: when given, a row after the
    header that cannot be read is passed over, as a rows read's pages pass over it, and put in it (a BadRecord
    numbered as a rows read numbers it, from 1 after the header; the rows after it keep their numbers); else it is
    raised. ``headed=False``: a table with no header line (its first record is a row, numbered 1, and may be passed
    over as the others).

    Raises:
        InvalidArgument: a bad delimiter; while iterating, a malformed table (the ``csv`` module's message and the
            byte offset), a field longer than :data:`FIELD_LIMIT_CHARS` (the byte range read that shows it) -- with
            ``passed``, only a header that cannot be read (its bytes and what is wrong with it).
    """
    if layout is not None:  # (from its header: past a preamble)
        return _raising(rows_from(source, layout.start, "", layout=layout), passed, headed and layout.headed)
    delimiter, start = _delimiter(source, delimiter)
    return _raising(rows_from(source, start, delimiter), passed, headed)


def rows_at(source: ContentSource, offsets: list[int], headed: bool = True,
            marks: RowMarks | None = None) -> list[int | None]:
    """For each of ``offsets`` (byte offsets into a CSV/TSV content, in order), the number of the row holding it,
    as a rows read numbers rows (``row=N``: from 1 after the header, a quoted multi-line cell part of one row, a
    row that cannot be read counted; ``headed=False``: the first record is row 1): ``0`` for the header, ``None``
    before the table (a ``sep=`` line, comment lines). A byte on a blank line is the row's before it. Reads the
    content up to the last offset a few times (each row holding an offset up to three times more, not once for each
    of its offsets: 1,000 matches in a cell of 1.9 MB took 12 s), quote-free stretches at C speed
    (:func:`skip_rows`). ``marks``: rows of this content counted before (numbered the same way), the count starting
    from the nearest before each offset, and noted there where it stops. Raises what ``source``'s reads raise."""
    delimiter, start = _delimiter(source, None)
    number, out, following = (0 if headed else 1), [], -1  # (following: where the row after row number starts)

    def rows(near: ContentSource, at: int) -> Iterator[tuple[int, Any]]:
        return rows_from(near, at, delimiter)

    for left, offset in enumerate(offsets, 1 - len(offsets)):
        if offset < start or offset >= source.size:
            out.append(None)
            continue
        if offset < following:  # (in the row of the offset before: a cell of many lines read again for each not)
            out.append(number)
            continue
        mark = None if marks is None else marks.before(offset)
        if mark is not None and mark[0] > start:  # (a row counted before: on from there)
            start, number = mark
        upto = CutSource(source, offset + 1)  # (the row holding the offset is the last one that starts in it)
        if offset < 3 and source.read(0, 3) == b"\xef\xbb\xbf":  # (a byte of the mark: the row after it, not -1)
            upto = CutSource(source, 4)
        passed = skip_rows(upto, start, upto.size, rows)[1]
        out.append(number + passed - 1)
        if left:  # (on from the start of that row: the next offset reads no row before it again)
            if passed > 1:
                start, number = skip_rows(upto, start, passed - 1, rows)[0], number + passed - 1
            following = skip_rows(CutSource(source, offsets[-1] + 1), start, 1, rows)[0]
    if marks is not None:
        marks.add(start, number)
    return out


class CutSource:
    """``source`` cut at byte ``size``: its reads end there (the rows up to an offset; a table read up to its
    footer, :func:`scratchfs.api.table_footer.footer_cut`)."""

    def __init__(self, source: ContentSource, size: int) -> None:
        self.source, self.size = source, size

    def read(self, offset: int, length: int) -> bytes:
        """Up to ``length`` bytes from ``offset``, none at or past :attr:`size`."""
        return self.source.read(offset, max(0, min(length, self.size - offset)))

    def iter_frames(self, first_frame: int = 0) -> Iterator[tuple[int, bytes]]:
        """``source``'s frames from ``first_frame``, cut at :attr:`size`."""
        for start, frame in self.source.iter_frames(first_frame):
            if start >= self.size:
                return
            yield start, frame[: self.size - start]


def _raising(rows: Iterator[tuple[int, Any]], passed: list[BadRecord] | None = None, headed: bool = True,
             ) -> Iterator[tuple[int, list[str]]]:
    """``rows``, a row that cannot be read raised (its RowError), or, with ``passed``, put in it (numbered: the
    header is row 0, raised; ``headed=False``: the first record is row 1)."""
    for number, (start, cells) in enumerate(rows, 0 if headed else 1):
        if isinstance(cells, RowError):
            if passed is None:
                raise cells
            if not number:
                raise InvalidArgument(f"the header (bytes {cells.offset} to {cells.offset + cells.length - 1}) "
                                      f"{cells.reason}: no row can be keyed by it; {BY_RANGE.format(cells.offset)}")
            passed.append(cells.numbered(number))
            continue
        yield start, cells


def _delimiter(source: ContentSource, delimiter: str | None) -> tuple[str, int]:
    """The delimiter (``delimiter``, or the header line's) and the byte offset where the table starts: past a first
    line ``sep=;`` (:func:`named_separator`), which names the delimiter when ``delimiter`` is ``None``, and past
    comment lines (:func:`leading_comments`)."""
    head = source.read(0, 65536)
    end = LINE_END.search(head)  # (a line ends at \n, \r\n or a lone \r: row_lines)
    first = head if end is None else head[: end.start()]
    named = named_separator(first)
    start = (len(head) if end is None else end.end()) if named else 0
    bom = len(UTF8_BOM) if not start and head.startswith(UTF8_BOM) else 0  # (no part of a comment line)
    skip = 0
    if head.startswith(b"#", start + bom):  # (comment lines only start with one: no 64 KiB decoded a page else)
        text = head[start + bom :].decode("utf-8", "surrogateescape")  # (as the shape reads it; each odd byte one
        skip, _ = leading_comments(text)  # character, so its characters encode back to its bytes)
    if skip:
        start += bom + len(text[:skip].encode("utf-8", "surrogateescape"))
        end = LINE_END.search(head, start)
        first = head[start : end.start() if end is not None else len(head)]
    if delimiter is None:  # (the lines after the header line tell it too, as the shape's)
        at = start + len(first)
        after = head[at : at + 4 * COMMENT_HEAD_CHARS].decode("utf-8", "surrogateescape")
        return (named or detect_delimiter(first, after[:COMMENT_HEAD_CHARS].lstrip("\r\n"))), start
    if delimiter not in (",", "\t", ";", "|"):
        raise InvalidArgument(f"delimiter must be one of ',', tab, ';', '|': {str(delimiter)[:10]!r}")
    return delimiter, start


_MOST_PASSED = 10
"""Most rows that cannot be read a page passes over (the next page passes over those after them)."""


def _items(body: Iterator[tuple[int, Any]], number: int, picked: list[int] | None, resumed: bool,
           passed: list[tuple[BadRecord, bool]], most: int = _MOST_PASSED, far: list[tuple[int, Far]] | None = None,
           ) -> Iterator[tuple[tuple[int, int], Any, bool]]:
    """The page's items from row ``number`` on: ``((row number, byte offset), cells, False)``, the ``picked``
    columns only. A row that cannot be read is passed over and put in ``passed`` (a BadRecord, and whether rows
    came before it on the page): after rows it ends them (``STOP`` at the next row that can be read: the page's
    cursor goes on after it), before any the page reads on after it; at most ``most`` a page (``STOP`` at the
    next). Row ``number`` is raised instead (BadRecord) when the read starts there (``row=``, not
    ``resumed`` at a cursor): the caller asked for that row. A :class:`Far` ends the page (``STOP``: the cursor
    goes on from the line after those it passed over, row ``at`` still to come), put in ``far`` with its offset."""
    given, ending = 0, False
    for at, (start, cells) in enumerate(body, number):
        if isinstance(cells, Far):
            if far is not None:
                far.append((start, cells))
            yield (at, start), STOP, False
            return
        if isinstance(cells, RowError):
            if at == number and not resumed:
                raise cells.numbered(at, raised=True)
            if len(passed) >= most:
                yield (at, start), STOP, False
                return
            passed.append((cells.numbered(at), given > 0))
            ending = given > 0
            continue
        if ending:
            yield (at, start), STOP, False
            return
        value = cells if picked is None or isinstance(cells, dict) else [  # (a row left whole: whole)
            cells[i] if i < len(cells) else None for i in picked]  # (short)
        yield (at, start), value, False
        given += 1


def _passed_note(page: ItemPage, passed: list[tuple[BadRecord, bool]], far: list[tuple[int, Far]]) -> ItemPage:
    """``page`` with ``passed`` (the rows it passed over, :func:`_items`) named in ``extra["note"]`` and put in its
    ``passed`` (a list of BadRecords), when there are any; and, when it ended past too many lines that are no rows
    (``far``: where, how many), saying so."""
    if far:
        offset, (lines, size) = far[0]
        page.extra["note"] = (f"the page stopped after {plural(lines, 'line')} ({plural(size, 'byte')}) that are no "
                              "rows (blank lines, rules, borders) with no row after them yet: its cursor reads on "
                              f"from byte {offset:,}; a byte read there (offset={offset}, length=4096) shows what "
                              "follows")
    if not passed:
        return page
    said = [page.extra.pop("note")] if far else []
    for bad, after_rows in passed:
        how = "the page reads on after it" if not after_rows else "the page ends before it and " + (
            "its cursor goes on after it" if page.cursor is not None else "no row follows it")
        said.append(f"{bad} -- passed over: {how}")
    page.extra["note"] = "; ".join(said)
    page.passed = [bad for bad, _ in passed]
    return page


def _header(source: ContentSource, delimiter: str | None, layout: Layout | None, bad: dict[int, tuple],
            headed: bool = True) -> tuple[str, Iterator[tuple[int, Any]], tuple[int, Any] | None, list[str]]:
    """``(the delimiter or the layout's key, the rows after the header, the header: (its start, cells) or None,
    the columns' names)`` of a rows read (:func:`rows_from`, ``bad`` given to it). ``headed=False``: a table with no
    header line -- the rows are all its records, the header ``None``, and the names the numbers of its first
    record's columns (``"0"``, ``"1"``, ...: :func:`~.table_columns.select_columns` takes numbers only). Raises
    InvalidArgument: a header that cannot be read."""
    delimiter, start = _delimiter(source, delimiter) if layout is None else (f"aligned:{layout.key}", layout.start)
    header_rows = rows_from(source, start, delimiter, bad, layout)
    first = next(header_rows, None)
    if not headed:
        width = len(first[1]) if first is not None and isinstance(first[1], list) else 0
        return delimiter, header_rows if first is None else chain([first], header_rows), None, list(
            map(str, range(width)))
    if first is not None and isinstance(first[1], RowError):
        raise first[1]
    return delimiter, header_rows, first, first[1] if first else []


def _page_start(source: ContentSource, header_rows: Iterator[tuple[int, Any]], first: tuple[int, Any] | None,
                row: object, cursor: str | None, key: CursorKey, delimiter: str) -> tuple[int, int, int]:
    """``(row number, its byte offset, characters into it)`` where a page starts: at
    ``cursor`` (checked: made with ``key``, at a row start after the header ``first``) or at row ``row``
    (``header_rows``, the rows after the header, read up to it, those that cannot be read too; or, of CSV -- a
    ``delimiter`` of one character, not a layout's key --, :func:`skip_rows`: its offset may be of blank lines)."""
    if cursor is not None:
        number, offset, chars = decode_cursor(cursor, 3, key)
        if number < 1 or (first is not None and offset <= first[0]):
            raise BadCursor(f"cursor {cursor[:40]!r} names no row of this read: start it again without one")
        if not row_line_start(source, offset):
            raise BadCursor(f"cursor points at byte {offset}, which is not a row start of this entry: start the "
                            "read again without a cursor")
        return number, offset, chars
    row, at = check_int(row, "row", 1), next(header_rows, None)
    if row > 1 and at is not None and len(delimiter) == 1:  # (the rows before it counted at C speed: row_jump)
        offset, passed = skip_rows(source, at[0], row - 1, lambda near, start: rows_from(near, start, delimiter))
        if passed < row - 1 or next(rows_from(source, offset, delimiter), None) is None:  # (row= one past the last)
            raise PastLast("row", row, passed)
        return row, offset, 0
    for skipped in range(row):  # (row= one past the last too: refused as the rows further on are)
        if at is None and row > 1:
            raise PastLast("row", row, skipped)
        at = next(header_rows, None) if skipped < row - 1 else at
    return row, source.size if at is None else at[0], 0


def rows_page(source: ContentSource, row: int = 1, rows: int = 50, *, columns: list[str | int] | None = None,
              cursor: str | None = None, budget_bytes: int = 8192, delimiter: str | None = None,
              entry: str | None = None, layout: Layout | None = None, headed: bool = True) -> ItemPage:
    """Read a page of the rows of a CSV/TSV content from ``row`` (at most ``rows``, fewer when the budget fills
    first: ``cursor`` goes on from the first row not shown), with the header, optionally some columns only.
    Args:
        source: the content (UTF-8; invalid bytes read as U+FFFD).
        row, rows: the first row, from 1 after the header (ignored with ``cursor``); most rows, 1 to :data:`MAX_ROWS`.
        columns: column names or 0-based numbers to keep, in the order given (``None``: all). cursor: ``page.cursor``
            of the previous page of the same read. budget_bytes: most bytes of the page's compact JSON (256-65536).
        delimiter: ``","``, ``"\\t"``, ``";"`` or ``"|"``; ``None``: :func:`detect_delimiter` of the header.
        entry: the entry's identity its cursors are bound to (:class:`~scratchfs.engine.structure.paging.CursorKey`;
            with ``columns``, the delimiter or ``layout``, and the size): a cursor of another entry or read is refused.
        layout: a table aligned by spaces or drawn with pipes, read as :func:`iter_rows` reads it. headed:
            ``False``: a table with no header line (its first record is row 1; ``columns`` numbers only).

    Returns:
        an :class:`ItemPage` named ``rows`` (cells; ``None`` for a selected column a row is too short for),
        ``extra["header"]`` the (selected) header (if ``headed``), ``extra["replaced"]`` (not when 0) the bytes of
        header and rows (every column) shown as U+FFFD; ``first``: the first row shown. A row larger than the page
        comes as ``part`` pieces of its JSON, each counting the replaced bytes it shows (the first also the
        unselected columns'), the row read once (:mod:`~scratchfs.engine.structure.row_parts`).

    A row that cannot be read is passed over (:func:`_items`): ``extra["note"]`` names it, ``passed`` lists it
    (BadRecords); a page of rows before it ends there, its cursor going on after it.
    Raises:
        BadRecord (an InvalidArgument): row ``row``, where a read without ``cursor`` starts, cannot be read (its
            number, bytes, what is wrong, the byte range read that shows it; its ``cursor`` the next row's).
        InvalidArgument: an unknown column (listing them), a column neither text nor an integer (``1.0``), a row
            past the last; a header that cannot be read or that takes over half the budget (WideHeader: the columns
            that fit; after the first page, all but 128 bytes of it); a bad cursor, count or budget.
    """
    budget = check_budget(budget_bytes)
    rows = check_int(rows, "rows", 1, MAX_ROWS)
    bad: dict[int, tuple] = {}  # row start -> for each cell, the bytes each of its U+FFFD shows
    delimiter, header_rows, first, header = _header(source, delimiter, layout, bad, headed)
    picked = select_columns(header, columns, headed)
    key = CursorKey(f"rows\0{delimiter}\0{picked}" + ("" if headed else "\0no header"), source.size, entry)
    number, offset, chars = _page_start(source, header_rows, first, row, cursor, key, delimiter)  # (row= beside a
    shown = header_shown(header, picked, budget, cursor is None) if headed else []  # cursor: as records_page's)
    del header_rows  # (its reader's buffers, a row of megabytes among them, let go before the page reads it again)
    if (page := kept_piece(key, (number, offset, chars), budget, {"header": shown} if headed else {})) is not None:
        return page  # (a row cut on a page before: its next piece cut from its kept text, the row not read again)
    passed, far, stray = [], [], []  # (rows passed over, where it stopped: :func:`_items`; a quote: _watched)

    def fill(room: int, most: int = _MOST_PASSED) -> ItemPage:  # (again with less room, or fewer rows passed
        page, passed[:], far[:], stray[:] = ItemPage("rows", number), [], [], []  # (over, when the note on them
        if headed:  # does not fit)
            page.extra["header"] = shown
        body = _watched(source, (offset, delimiter, bad, layout), number, len(header), stray)
        items = _items(body, number, picked, cursor is not None, passed, most, far)
        return _runaway_note(source, delimiter, stray, _passed_note(_counted(page, lambda items: fill_items(
            page, items, chars, room, rows, lambda pos, skip: encode_cursor((pos[0], pos[1], skip), key),
            keeper(key, bad)), items, bad, first[0] if first else -1, picked, chars), passed, far))

    try:  # (row N unread: the read on after it goes from a cursor, not counting N rows again: advice4)
        return _fitted(fill, budget)
    except BadRecord as exc:
        raise BadRecord(exc.said(), exc.record, exc.offset, exc.length, encode_cursor((
            exc.record + 1, exc.offset + exc.length, 0), key), exc.not_json) from None


def _watched(source: ContentSource, read: tuple[int, str, dict | None, Layout | None], number: int, width: int,
             found: list[tuple[int, int, int]]) -> Iterator[tuple[int, Any]]:
    """The rows of ``source`` from row ``number`` on (``read``: :func:`rows_from`'s offset, delimiter, replaced and
    layout, a page's Fars too), the first row holding a cell of rows swallowed by
    a quote never closed (:func:`~.stray_quotes.stray_cell`, ``width`` cells a row) put in ``found``: ``(its
    number, its start, the lines of the cell)``."""
    delimiter, body = read[1], rows_from(source, *read, True)
    if len(delimiter) > 1:  # (a layout's key: no quotes)
        yield from body
        return
    real = RealCells()  # (rows whose cells only look swallowed: past MOST_REAL, only a far longer cell looked at)
    for at, (start, cells) in enumerate(body, number):
        if not found and isinstance(cells, list) and real.worth(cells):
            cell = stray_cell(source, start, cells, delimiter, width)
            if cell == REAL:
                real.saw(cells)
            elif cell is not None:
                found.append((at, start, cell_lines(cells[cell])))
        yield start, cells


def _runaway_note(source: ContentSource, delimiter: str, runaway: list[tuple[int, int, int]], page: ItemPage,
                  ) -> ItemPage:
    """``page`` with its note saying of the row in ``runaway`` (:func:`_watched`) where its quote opened (the byte
    of the quote in the row's first line, else the row's start) and the byte read that shows it."""
    if not runaway:
        return page
    row, start, lines = runaway[0]
    said = runaway_said(source, row, start, lines, delimiter)
    page.extra["note"] = "; ".join(n for n in (page.extra.get("note"), said) if n)
    return page


def _fitted(fill: Callable[..., ItemPage], budget: int) -> ItemPage:
    """``fill(room, most)`` within ``budget`` bytes of JSON: the note on the rows passed over takes room from the
    rows, and when it takes over half the budget the page passes over fewer rows (down to one, whose note is a few
    hundred bytes; the next page passes over the rest); the note of a page that stopped past too many lines that
    are no rows (:class:`~.table_reader.Far`) takes room from its rows alike."""
    page, room, most = fill(budget), budget, _MOST_PASSED
    for _ in range(8):  # (each try gives the rows less room or passes over fewer)
        if "note" not in page.extra or (size := json_bytes(page.to_dict())) <= budget:
            break
        if not page.passed:  # (a page that stopped past lines that are no rows: its note takes room from its rows)
            room = max(budget // 4, room - (size - budget) - 64)
            page = fill(room)
            continue
        note = json_bytes(page.extra["note"])
        if note > budget // 2 and len(page.passed) > 1:
            most = max(1, len(page.passed) * (budget // 4) // note)
        room = max(budget // 4, min(room, budget - note * min(most, len(page.passed)) // len(page.passed)) - 64)
        page = fill(room, most)
    return page


def _counted(page: ItemPage, fill: Callable[[Iterator], ItemPage], items: Iterator[tuple[tuple[int, int], Any, bool]],
             bad: dict[int, tuple], header_start: int, picked: list[int] | None, chars: int) -> ItemPage:
    """``fill(items)``, room kept for ``extra["replaced"]``: the bytes shown as U+FFFD (``bad``: by row start, per
    cell) of the header and the rows the page shows, left out when 0. A ``part`` counts those of the U+FFFD it shows
    (it starts ``chars`` characters into its row's JSON text); its first piece also those of the columns not
    selected, so that a row's pieces add up to what the whole row counts."""
    page.extra["replaced"] = 10**12  # room for the count, given once the page is filled
    starts: dict[int, int] = {}  # row number -> its start, of the rows the page was given
    values: dict[int, Any] = {}  # row number -> its cells as given, of a row with bytes shown as U+FFFD

    def numbered() -> Iterator[tuple[tuple[int, int], Any, bool]]:
        for item in items:
            starts[item[0][0]] = item[0][1]
            if item[0][1] in bad:
                values[item[0][0]] = item[1]
            yield item

    fill(numbered())
    whole = range(page.first + (page.part is not None), page.first + len(page.items) + (page.part is not None))
    replaced = sum(sum(map(sum, bad.get(starts.get(at, -1), ()))) for at in whole)
    replaced += sum(map(sum, bad.get(header_start, ())))
    cells = bad.get(starts.get(page.first, -1))
    if page.part is not None and cells is not None:
        chosen = list(range(len(cells))) if picked is None else picked
        marks: list[int] = []
        given: set[int] = set()
        for i in chosen:  # (a column selected twice shows its U+FFFD twice; its bytes count once)
            column = cells[i] if i < len(cells) else ()
            marks.extend([0] * len(column) if i in given else column)
            given.add(i)
        before = json.dumps(values[page.first], ensure_ascii=False, separators=(",", ":"))[:chars].count("\ufffd")
        replaced += sum(marks[before : before + page.part.count("\ufffd")])
        if not chars:
            replaced += sum(sum(column) for i, column in enumerate(cells) if i not in given)
    if replaced:
        page.extra["replaced"] = replaced
    else:
        del page.extra["replaced"]
    return page
