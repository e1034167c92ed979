"""The rows of a table's first lines, for :mod:`scratchfs.api.shape` (split from
:mod:`~scratchfs.api.shape_table` by job): as the :mod:`csv` module reads them, whether they make a table (rows all
as wide as the first, or a ragged table as real exports write one), and what a shape says of its ragged rows.
Everything here runs over at most 50 lines of a sample's head, at C speed where it can."""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass
from itertools import compress, repeat

from scratchfs.api.shape_words import plural
from scratchfs.foundation.csv_rows import csv_reader

__all__ = ["TableRows", "ragged_said", "table_rows"]


@dataclass(slots=True)
class TableRows:
    """The non-empty rows of a table's first lines as :mod:`csv` reads them (``rows``, the first the header or a
    first row of data) and the line (from 0, in those lines) each starts on (``starts``)."""

    rows: list[list[str]]
    starts: list[int]

    def ragged(self) -> list[int]:
        """The rows (their indexes in :attr:`rows`, from 1: the first row under the first line is 1) that are not as
        wide as the first: a missing last cell, a trailing delimiter, a ``# total`` line."""
        width = len(self.rows[0])
        return [at for at, row in enumerate(self.rows[1:], 1) if len(row) != width]


def table_rows(lines: list[str], delimiter: str) -> TableRows | None:
    """The non-empty rows of the first lines of a text (at most 50, no newlines) as :mod:`csv` reads them -- but a
    last one whose quoted field the lines leave open (a record cut: a quoted ``\\n`` or ``\\r`` is a line end to
    them) --, if they make a table, else ``None``: 2 rows or more, 2 columns or more, and every row but the last as
    wide as the first
    -- or, ragged (:func:`_ragged_table`), 4 rows or more under a first line of names, 4 of 5 of them with 2
    cells filled or more and at most one more than it, most cells after a delimiter not starting with a space (prose's
    do)."""
    text = "\n".join(lines)
    if '"' in text or "\r" in text or "\x00" in text or len(text) > csv.field_size_limit():
        rows: list[list[str]] = []
        starts: list[int] = []
        try:
            reader = csv_reader(io.StringIO(text, newline=""), delimiter=delimiter)  # (lines as a rows read's)
            line = 0
            ragged = False  # (the rest of a ragged table's tests, _ragged_table's, once all rows are read)
            unlike = after = 0  # (once ragged: the rows under the first unlike _ragged_table's 4 of 5; the row after
            # the ragged one: 2 rows from it on keep the ragged one from being the last, its record cut or not)
            for row in reader:
                if row:
                    if not ragged and len(rows) >= 2 and len(rows[-1]) != len(rows[0]):  # (a ragged row, not the
                        ragged = True  # last: the first tests of a ragged table, or no table)
                        if not _may_be_ragged(text, delimiter, rows[0], len(lines)) or all(
                                len(under) > len(rows[0]) and under[-1] for under in (rows[1], row)):
                            return None  # (2 rows under it wider, cells past it filled: a record cut at its start)
                        unlike, after = sum(not _like(under, len(rows[0])) for under in rows[1:]), len(rows)
                    rows.append(row)
                    starts.append(line)
                    unlike += ragged and not _like(row, len(rows[0]))
                    if 5 * (unlike - 1) > len(lines) - 1 and len(rows) > after + 1:  # (more than 1 in 5 of the
                        return None  # most rows the lines hold, the last aside: _ragged_table says no, read or not)
                line = reader.line_num  # (the line the next record starts on)
        except csv.Error:
            return None
        if len(rows) > 2 and _open_quote("\n".join(lines[starts[-1] :]), delimiter):
            del rows[-1], starts[-1]  # (a record cut: its quoted field open at the lines' end)
    else:  # without quotes a row is a non-empty line cut at the delimiter: most text fails on its counts alone
        starts = list(compress(range(len(lines)), lines))  # (each line's counts and cells at C speed: no step a line)
        present = list(filter(None, lines))
        counts = list(map(str.count, present, repeat(delimiter, len(present))))
        if len(present) > 2 and counts[1:-1].count(counts[0]) != len(present) - 2 and not (
                5 * (len(present) - 1 - counts[1:].count(0)) >= 4 * (len(present) - 1) and
                _may_be_ragged(text, delimiter, present[0].split(delimiter), len(present))):
            return None  # (a table with ragged rows has the delimiter in 4 of 5 of its lines)
        rows = list(map(str.split, present, repeat(delimiter, len(present))))
    if len(rows) < 2 or len(rows[0]) < 2:
        return None
    if any(len(row) != len(rows[0]) for row in rows[1:-1]) and not _ragged_table(rows):
        return None
    return TableRows(rows, starts)


def _open_quote(record: str, delimiter: str) -> bool:
    """Whether the text of a table's last record leaves a quoted field open (or breaks the quoting rules) where
    :mod:`csv`, strict, reads it: the lines it was read from cut it."""
    try:
        list(csv_reader(io.StringIO(record, newline=""), delimiter=delimiter, strict=True))
    except csv.Error:
        return True
    return False


def _may_be_ragged(text: str, delimiter: str, first: list[str], lines: int) -> bool:
    """The first tests of :func:`_ragged_table`, at C speed on ``text`` (its ``lines`` lines) and on its first row
    of cells ``first``, before its other rows are read: 5 lines or more, at most half its delimiters followed by a
    space (prose's are), no cell of ``first`` after its first opened by one."""
    if lines < 5 or any(cell.startswith(" ") for cell in first[1:]):
        return False
    return 2 * text.count(delimiter + " ") <= text.count(delimiter)


def _like(row: list[str], width: int) -> bool:
    """Whether ``row``, under a first row of ``width`` cells, is as 4 of 5 of a ragged table's rows are: at most one
    cell wider, 2 of its cells filled or more (:func:`_ragged_table`)."""
    return len(row) <= width + 1 and sum(map(bool, row)) >= 2


_HEADER_NAME_CHARS = 40  # a ragged table's header names are short ...
_HEADER_NAME_SPACES = 3  # ... of at most 4 words


def _ragged_table(rows: list[list[str]]) -> bool:
    """Whether ``rows`` (2 cells or more in the first), not all as wide as the first, are a table with ragged rows
    as real exports write them (a missing last cell, a trailing delimiter, a ``# total`` or ``## section`` line):
    4 rows or more under the first; 4 of 5 of them at most one cell wider than the first, 2 of their cells filled
    or more (lines of code ending in a comma fill one); the first's cells names (at most
    :data:`_HEADER_NAME_CHARS` characters and 4 words each) -- or, a first row of data, as wide as most --; at
    most half the cells after a delimiter starting with a space, where prose's words after a comma do; and none of
    the first's (but its first) starting with one unless most of the rows' do (a quoted field cut at its start:
    ``System. Identity, delegation, governance`` over rows of a CSV); and, when no row is as wide as the first, no
    cell past its width filled (``1.0.2,2026-10,Contacts tool`` over rows of a name, a version, a month and a
    summary: a record cut at its start; a trailing delimiter on every row leaves a table)."""
    first, body = rows[0], rows[1:]
    width = len(first)
    if len(body) < 4 or 5 * sum(_like(row, width) for row in body) < 4 * len(body):
        return False
    named = all(len(cell) <= _HEADER_NAME_CHARS and cell.count(" ") <= _HEADER_NAME_SPACES for cell in first)
    if not named and Counter(map(len, body)).most_common(1)[0][0] != width:
        return False
    if all(len(row) != width for row in body) and any(len(row) > width and row[-1] for row in body):
        return False  # (no row as wide as the first, cells past it filled: the end of a record cut at its start)
    later = [cell for row in body for cell in row[1:] if cell]
    opened = 2 * sum(cell.startswith(" ") for cell in later)
    return opened <= len(later) and not (opened < len(later) and any(cell.startswith(" ") for cell in first[1:]))


def ragged_said(table: TableRows, before: int, headed: bool, whole: bool) -> str:
    """What a table's shape says of its ragged rows (:meth:`TableRows.ragged`; ``""``: none): how many, and the
    first as a rows read numbers it (``row=``: from 1 under the header, or from the first line when ``headed`` is
    false) and the line it starts on (``before``: the lines before the table's first, a ``sep=`` line and comment
    lines); ``whole``: ``table`` holds every line of the content, else the lines it was told from are named."""
    ragged = table.ragged()
    if not ragged:
        return ""
    first = ragged[0]
    looked = "" if whole else f" in the first {plural(before + table.starts[-1] + 1, 'line')}"
    return (f"; {plural(len(ragged), 'ragged row')} (not {plural(len(table.rows[0]), 'cell')}){looked}, the first "
            f"row={first + (not headed)} (line {before + table.starts[first] + 1:,})")
