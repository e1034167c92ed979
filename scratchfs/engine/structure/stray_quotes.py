"""A quote that opens a CSV field and never closes where it should (``5" floppy`` written ``"5 floppy``, a name
``"O"Brien``): the ``csv`` module, not strict, reads every line after it as that field's, to the next quote or to
the content's end -- 10,000 lines read as 2 rows, the second a cell of 176 KB. Told from the cell alone
(:func:`runaway_cell`): a cell of :data:`RUNAWAY_LINES` lines or more, 4 of 5 of its lines after the first holding
exactly as many delimiters as the table's rows (lines of rows swallowed), which a real multi-line cell -- a
package's description, prose -- does not hold (their lines' delimiters vary); nor one whose quote closes as a
quoted field's must, followed by a delimiter or a line end (:func:`closes`: a CSV, code or an address held in a
cell, each of its lines a row's delimiters, is no stray quote's). :func:`opening_quote` finds the quote in the row's
first line, so that a read can name its byte.
"""

from __future__ import annotations

import csv
import io
from collections import deque
from collections.abc import Iterable, Iterator

from scratchfs.engine.structure.paging import ContentSource
from scratchfs.engine.structure.row_lines import LINE_END
from scratchfs.foundation.csv_rows import csv_reader
from scratchfs.foundation.errors import ScratchError
from scratchfs.foundation.text import plural

__all__ = ["MOST_REAL", "REAL", "RUNAWAY_LINES", "RealCells", "cell_lines", "closes", "first_runaway",
           "lines_past_records", "opening_quote", "quote_at", "runaway_cell", "runaway_said", "stray_cell",
           "well_quoted"]

RUNAWAY_LINES = 10
"""Fewest lines of a cell that may be rows swallowed by a quote never closed."""


REAL = -1
"""What :func:`stray_cell` gives of a row whose cell looks like rows swallowed but whose quotes all close."""
MOST_REAL = 16
"""Rows :data:`REAL` a read tells before it looks only at rows with a cell over twice as long as any of theirs
(:class:`RealCells`: a table of such cells, a CSV held in each row's cell, each row read again to tell it -- 3,000
rows of 100 bytes took 0.35 s to slurp where 0.19 s without)."""


class RealCells:
    """The rows :data:`REAL` a read has told: after :data:`MOST_REAL` of them, a row is looked at (:meth:`worth`)
    only when a cell of it is over twice as long as the longest cell of those rows -- a quote that swallows the rest
    of a table of real multi-line cells is still told, each cell told no more than about log2 of its size times."""

    def __init__(self) -> None:
        self.count, self.longest = 0, 0

    def worth(self, cells: list[str]) -> bool:
        """Whether a read looks at the row of ``cells`` (:func:`stray_cell`)."""
        return self.count < MOST_REAL or max(map(len, cells), default=0) > 2 * self.longest

    def saw(self, cells: list[str]) -> None:
        """Count the row of ``cells`` as one :func:`stray_cell` told :data:`REAL`."""
        self.count, self.longest = self.count + 1, max(self.longest, max(map(len, cells), default=0))


def cell_lines(cell: str) -> int:
    """The lines of ``cell`` (a line ends at ``\\n``, ``\\r\\n`` or a lone ``\\r``, as a line read's; one that ends
    the cell starts no line)."""
    cell = cell.rstrip("\r\n")
    return cell.count("\n") + cell.count("\r") - cell.count("\r\n") + 1


def runaway_cell(cells: list[str], delimiter: str, width: int) -> int | None:
    """The index of the first of ``cells`` (a row as the ``csv`` module reads it, of a table whose rows have
    ``width`` cells split at ``delimiter``) that holds lines of rows a quote swallowed (the module docstring's
    rule), or ``None``. A lone ``\\r`` ends a line too. Never raises. A row of no cell that long (each line of the
    cell holds a delimiter a line: :data:`RUNAWAY_LINES` times ``width`` characters) is told at C speed."""
    if width < 2 or max(map(len, cells), default=0) < RUNAWAY_LINES * width:
        return None
    for at, cell in enumerate(cells):
        lines = cell_lines(cell)
        if lines < RUNAWAY_LINES or 5 * cell.count(delimiter) < 4 * (width - 1) * (lines - 1):
            continue  # (too few lines, or too few delimiters for 4 of 5 lines of rows: told at C speed)
        lines = cell.splitlines()[1:]
        like = sum(line.count(delimiter) == width - 1 for line in lines)
        if len(lines) >= RUNAWAY_LINES - 1 and 5 * like >= 4 * len(lines):
            return at
    return None


def closes(lines: Iterable[str], delimiter: str) -> bool:
    """Whether the first record of ``lines`` (a table's lines from a record's first, line ends kept) ends as the
    ``csv`` module, strict, reads it: each quoted field closed by a quote followed by a delimiter or a line end --
    a real multi-line cell's; a stray quote's field runs to the content's end, or to a quote followed by more of a
    cell. Reads no further than that record. Never raises."""
    try:
        next(csv_reader(iter(lines), delimiter=delimiter, strict=True), None)
    except csv.Error:
        return False
    return True


def stray_cell(source: ContentSource, start: int, cells: list[str], delimiter: str, width: int) -> int | None:
    """:func:`runaway_cell` of ``cells`` (a row starting at byte ``start`` of ``source``), :data:`REAL` when the
    row's quotes all close (:func:`closes`, its bytes read again from ``start``, as many as its cells can take).
    Never raises."""
    at = runaway_cell(cells, delimiter, width)
    if at is None:
        return None
    most = sum(len(cell.encode("utf-8", "surrogatepass")) + cell.count('"') + 3 for cell in cells) + 8  # (its bytes
    # at most: each cell quoted, its quotes doubled, a delimiter after it; a line end, a byte order mark)
    try:
        raw = source.read(start, most).decode("utf-8", "replace")
    except ScratchError:  # (the store out of reach: told by its cell, as before)
        return at
    return REAL if closes(io.StringIO(raw, newline=""), delimiter) else at


def first_runaway(text: str, delimiter: str, width: int) -> tuple[int, int, int] | None:
    """``(the record's index from 0 -- the first record, a header or not, is 0 --, the line it starts on from 0,
    the lines its runaway cell holds)`` of the first record of ``text`` (a table's lines, ``\\n`` between them)
    holding a cell :func:`runaway_cell` tells, its quote left open at the text's end or not; ``None`` when none
    does or the ``csv`` module refuses the text. A record read from fewer than :data:`RUNAWAY_LINES` lines holds no
    cell of that many (each line end in a cell is one the reader read through) and is passed over without a look at
    its cells (the first 4 KiB of the fixtures' package CSV, a long description a row: 127 against 24 us)."""
    if '"' not in text:  # (no quote, no stray one: most tables stop here)
        return None
    reader = csv_reader(io.StringIO(text, newline=""), delimiter=delimiter)
    records, line = 0, 0
    try:
        for cells in reader:
            if cells:
                at = runaway_cell(cells, delimiter, width) if reader.line_num - line >= RUNAWAY_LINES else None
                if at is not None and not closes(_lines_from(text, line), delimiter):
                    return records, line, cell_lines(cells[at])
                records += 1
            line = reader.line_num
    except csv.Error:  # (a field past the limit, a NUL: no rows told, nothing said)
        return None
    return None


def _lines_from(text: str, first: int) -> Iterator[str]:
    """The lines of ``text`` from its line ``first`` (from 0) on, as a ``csv`` reader's ``line_num`` counts them."""
    lines = io.StringIO(text, newline="")
    for _ in range(first):
        lines.readline()
    yield from lines


def well_quoted(text: str, delimiter: str) -> bool:
    """Whether the ``csv`` module, strict, reads all of ``text`` (a table's lines): every quoted field closed, and
    each closing quote followed by a delimiter or a line end -- where a stray quote's field is not (it runs to the
    end, or to another stray quote followed by more of a cell). At C speed: no row in Python."""
    try:
        deque(csv_reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True), maxlen=0)
    except csv.Error:
        return False
    return True


def lines_past_records(text: str, delimiter: str) -> int | None:
    """How many more lines than records (empty ones too) the ``csv`` module, strict, reads from all of ``text`` (a
    table's lines): the lines its quoted fields run past their record's first, summed -- ``None`` when it refuses the
    text (:func:`well_quoted` is false). Under ``RUNAWAY_LINES - 1`` no record of ``text`` spans
    :data:`RUNAWAY_LINES` lines, so :func:`first_runaway` finds none (strict reads the same rows as it, where it
    reads them at all): one pass at C speed, not a row at a time in Python."""
    reader = csv_reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        records = len(list(reader))
    except csv.Error:
        return None
    return reader.line_num - records


def opening_quote(line: bytes, delimiter: bytes) -> int:
    """The index in ``line`` (a row's first line, its end left out) of the quote that opens a field which the line
    leaves open (a doubled quote ``""`` inside a quoted field is one quote), or -1: none does."""
    at = 0
    while at <= len(line):
        if line[at : at + 1] == b'"':
            close = at + 1
            while True:
                close = line.find(b'"', close)
                if close < 0:
                    return at
                if line[close + 1 : close + 2] != b'"':
                    break
                close += 2
            at = close + 1
        following = line.find(delimiter, at)
        if following < 0:
            return -1
        at = following + len(delimiter)
    return -1


def runaway_said(source: ContentSource, row: int, start: int, lines: int, delimiter: str) -> str:
    """What a rows or slurp read says of row ``row`` (as a rows read numbers it), starting at byte ``start`` of
    ``source``, whose quote (:func:`quote_at`, split at ``delimiter``) swallowed ``lines`` lines (the quote's own
    counted): a quote never closed, and the byte read that shows its raw bytes (``offset=N, length=M``, at most
    4 KiB: the row's first line to 600 bytes past the quote). Raises what ``source``'s reads raise (CorruptBlob)."""
    quote = quote_at(source, start, delimiter)
    return (f"row {row:,} holds a quote opened at byte {quote:,} that runs over the {plural(lines - 1, 'line')} after "
            "it: those lines (rows, by their delimiters) are read as one cell of it -- a stray quote? its raw bytes: "
            f"offset={start}, length={min(4096, quote - start + 600)}")


def quote_at(source: ContentSource, start: int, delimiter: str) -> int:
    """The byte offset of the quote that opens a field left open in the first line of the row starting at byte
    ``start`` of ``source`` (:func:`opening_quote`; the row's start when none is found in its first 64 KiB)."""
    head = source.read(start, 65536)
    end = LINE_END.search(head)
    return start + max(0, opening_quote(head if end is None else head[: end.start()], delimiter.encode()))
