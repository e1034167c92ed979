"""Early rejects and shortcuts of shape detection (issue 16, T1 "t1fast": a small spill's describe made cheaper with
the same answers), each against a copy of the code before it on generated inputs built to hit its boundary, and
``describe`` with the copies swapped in on the real outputs of ``fixtures/``.

- ``table_rows``: lines where no field opens with a quote (none at a line's start nor after the delimiter) are read
  as their lines split at the delimiter, not parsed by :mod:`csv`, with the same rejects at the first ragged row
  found among the rows' widths -- JSON's indented lines and HTML's attributes hold quotes inside fields only.
  Inputs: cells with quotes at their start, inside, doubled, after a space, quoted delimiters and line ends, NUL and
  carriage returns, empty lines.
- ``_may_be_ragged``: a delimiter and a space counted by a pattern's ``findall`` (a pair that cannot overlap itself).
- ``first_lines`` (the first lines of a table's head, of the lines after its first): CRLF text split at ``\\n`` with
  each line's ``\\r`` taken off, not by the line-end pattern. Inputs: ``\\r\\n``, lone ``\\r`` and ``\\n``,
  ``\\r\\r\\n``, a ``\\r`` at the end, around the count of lines asked for.
"""

from __future__ import annotations

import contextlib
import csv
import io
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scratchfs.api import shape, shape_table
from scratchfs.engine.structure import row_lines
from scratchfs.engine.structure.row_lines import LINE_END_TEXT, first_lines

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REAL = sorted(p for p in [*FIXTURES.iterdir(), *(FIXTURES / "tools").iterdir()]
              if p.suffix in (".txt", ".csv", ".tsv", ".json", ".html", ".xml"))


# -- the full paths, as they were before -----------------------------------------------------------------------------

def full_may_be_ragged(text: str, delimiter: str, first: list[str], lines: int) -> bool:
    """``shape_table._may_be_ragged`` as it was: ``str.count`` of the delimiter and a space."""
    if lines < 5 or any(cell.startswith(" ") for cell in first[1:]):
        return False
    return 2 * text.count(delimiter + " ") <= text.count(delimiter)


def full_table_rows(lines: list[str], delimiter: str) -> shape_table.TableRows | None:
    """:func:`~scratchfs.api.shape_table.table_rows` as it was: every text with a quote read by csv."""
    text = "\n".join(lines)
    if '"' in text or "\r" in text or "\x00" in text or len(text) > csv.field_size_limit():
        rows: list[list[str]] = []
        starts: list[int] = []
        try:
            reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)  # (lines as a rows read's)
            line = 0
            ragged = False  # (the rest of a ragged table's tests, _ragged_table's, once all rows are read)
            for row in reader:
                if row:
                    if not ragged and len(rows) >= 2 and len(rows[-1]) != len(rows[0]):  # (a ragged row, not the
                        ragged = True  # last: the first tests of a ragged table, or no table)
                        if not full_may_be_ragged(text, delimiter, rows[0], len(lines)) or all(
                                len(under) > len(rows[0]) and under[-1] for under in (rows[1], row)):
                            return None  # (2 rows under it wider, cells past it filled: a record cut at its start)
                    rows.append(row)
                    starts.append(line)
                line = reader.line_num  # (the line the next record starts on)
        except csv.Error:
            return None
        if len(rows) > 2 and shape_table._open_quote("\n".join(lines[starts[-1] :]), delimiter):
            del rows[-1], starts[-1]  # (a record cut: its quoted field open at the lines' end)
    else:  # without quotes a row is a non-empty line cut at the delimiter: most text fails on its counts alone
        starts = [at for at, line in enumerate(lines) if line]
        present = [lines[at] for at in starts]
        if len(present) > 2 and any(line.count(delimiter) != present[0].count(delimiter) for line in present[1:-1]) \
                and not (5 * sum(delimiter in line for line in present[1:]) >= 4 * (len(present) - 1) and
                         full_may_be_ragged(text, delimiter, present[0].split(delimiter), len(present))):
            return None  # (a table with ragged rows has the delimiter in 4 of 5 of its lines)
        rows = [line.split(delimiter) for line in present]
    if len(rows) < 2 or len(rows[0]) < 2:
        return None
    if any(len(row) != len(rows[0]) for row in rows[1:-1]) and not shape_table._ragged_table(rows):
        return None
    return shape_table.TableRows(rows, starts)



@contextlib.contextmanager
def full_paths():
    """``describe`` with every shortcut of this file swapped for its full path."""
    swaps = [(shape, "table_rows", full_table_rows)]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in swaps]
    try:
        for owner, name, full in swaps:
            setattr(owner, name, full)
        yield
    finally:
        for owner, name, fast in saved:
            setattr(owner, name, fast)


# -- generated inputs -----------------------------------------------------------------------------------------------

DELIMITERS = st.sampled_from([",", ";", "\t", "|"])
CELLS = st.one_of(
    st.sampled_from(["", "a", "1", "2.5", "x y", ' "q"', '"q"', 'a"b', '""', '"a,b"', '"a\nb"', '"a', 'b"', "\"",
                     '"a""b"', "\x00", "\r", "name", "id", "2026-10", " ", "{", '"k":"v"', "<a href=\"x\">"]),
    st.text(alphabet=' ",;\t|ab1\r\n', max_size=8),
)


@st.composite
def table_lines(draw):
    """Lines of cells joined by a delimiter (the one asked for, or another), a few quotes at field starts or not."""
    delimiter = draw(DELIMITERS)
    width = draw(st.integers(1, 5))
    lines = []
    for _ in range(draw(st.integers(0, 55))):
        cells = draw(st.lists(CELLS, min_size=max(0, width - 1), max_size=width + 1))
        lines.append(draw(st.sampled_from([delimiter, delimiter, ",", " "])).join(cells))
    if draw(st.booleans()):  # (most lines quote-free: the shortcut's side of the boundary)
        lines = [line.replace('"', "") if at % 7 else line for at, line in enumerate(lines)]
    return [line.replace("\n", " ") for line in lines], delimiter


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=' ,;\t|ab"\n', max_size=300), DELIMITERS, st.sampled_from(["", "-", "  "]))
def test_may_be_ragged_counts_as_str_count(text, delimiter, odd):
    for used in (delimiter, delimiter + odd):  # (a delimiter of ours: its pattern; any other: str.count)
        first = text.split("\n", 1)[0].split(used)
        assert shape_table._may_be_ragged(text, used, first, 9) == full_may_be_ragged(text, used, first, 9)


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(["a", "b,c", "\r", "\n", "\r\n", "\r\r\n", "\n\r", ""]), max_size=60),
       st.integers(1, 55))
@example(["a", "\r\n", "b"], 1)
@example(["a", "\r"], 1)
def test_first_lines_as_the_line_end_pattern_splits(parts, count):
    text = "".join(parts)
    assert first_lines(text, count) == LINE_END_TEXT.split(text, count)[:count]
    old = (text.split("\n", count) if "\r" not in text else LINE_END_TEXT.split(text, count))[:-1][:count - 1]
    assert first_lines(text, count)[:-1][: count - 1] == old  # (detect_delimiter's lines after the first)


def as_compared(found: shape_table.TableRows | None) -> tuple | None:
    return None if found is None else (found.rows, found.starts)


@settings(max_examples=1500, deadline=None)
@given(table_lines())
@example((['  "name":"x",', '  "http":{', '    "a":"b",', '    "c":"d"', "  },", '  "x":"y",'], ","))
@example((['a,b', 'c,"d', 'e",f', 'g,h'], ","))  # (a quoted field over lines: csv reads it)
@example((['"a",b', 'c,d', 'e,f'], ","))  # (a quote at a line's start)
@example((['a, "b"', 'c, "d"', 'e, "f"'], ","))  # (after a space: no quoted field, split)
@example((['a,b"', 'c,d"', 'e\x00,f"'], ","))  # (a NUL: csv's answer)
@example((['a,b x"', 'c,d,e', 'f,g,h', 'i,j'], ","))  # (two rows under it wider, their last cells filled: a cut)
@example((['id,name"', 'c,d', 'e', 'f,g', 'h,i', 'j,k', 'l,m'], ","))  # (ragged, then a ragged table's tests)
def test_table_rows_against_its_full_path(case):
    lines, delimiter = case
    assert as_compared(shape_table.table_rows(lines, delimiter)) == as_compared(full_table_rows(lines, delimiter))


@settings(max_examples=1500, deadline=None)
@given(table_lines())
def test_a_quote_free_text_is_what_csv_reads(case):
    lines, delimiter = case
    text = "\n".join(lines)
    if not shape_table._quote_free(text, delimiter):
        return
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    records = [(row, reader.line_num) for row in reader]
    pieces = text.split("\n")
    split = [(piece.split(delimiter) if piece else [], at) for at, piece in enumerate(pieces, 1)]
    assert records == split[: len(records)] and all(not row for row, _ in split[len(records) :])
    list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True))  # (no error, strict too)


def test_json_lines_are_not_parsed_by_csv(monkeypatch):
    lines = ['      "name":"AcceptAddressTransfer",', '      "http":{', '        "method":"POST",',
             '        "requestUri":"/"', "      },", '      "input":{"shape":"X"},', '      "output":{"shape":"Y"},']
    monkeypatch.setattr(shape_table.csv, "reader", None)  # (a call of csv.reader would fail)
    assert shape_table.table_rows(lines, ",") is None
    monkeypatch.undo()
    assert full_table_rows(lines, ",") is None


def test_crlf_lines_are_not_split_by_the_line_end_pattern(monkeypatch):
    for owner in (row_lines, shape_table):  # (a call of the pattern would fail)
        monkeypatch.setattr(owner, "LINE_END_TEXT", None, raising=False)
    assert shape_table.table_lines("id,name\r\n1,a\r\n\r\n2,b", 50) == ["id,name", "1,a", "", "2,b"]
    assert shape_table.table_lines("a\r\nb\r\nc", 2) == ["a", "b"]


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_describe_of_real_outputs_with_the_full_paths(path):
    data = path.read_bytes()
    pieces = [(data[start : start + size], size) for size in (1024, 4096, 16_384, 65_536)
              for start in range(0, max(1, len(data) - size), max(1, len(data) // 9))]
    for piece, _ in pieces:
        lines = piece.count(b"\n") + (piece[-1:] not in (b"", b"\n"))
        for size in (len(piece), len(piece) + 5000):
            fast = shape.describe(piece, size, lines)
            with full_paths():
                assert shape.describe(piece, size, lines) == fast, (path.name, len(piece), size)
