"""CSV whose rows end in a lone ``\\r`` (classic Mac OS line ends, ``sqlite3 -csv -newline $'\\r'``, some Windows
exports) where the whole-content rule of :mod:`scratchfs.api.shape_terminal` does not hold -- its last row not ended
by a ``\\r``, or a quoted field holding a ``\\n`` (a package's description over several lines) -- was "terminal
output, N overwritten lines": rows of dates and numbers agree as a counter's redraws do, and the stub's way on,
``view="text"``, drew every row over the last. Now a header line (no ``\\r`` before it, no newline in it) whose
records, as the csv module reads them, are as wide as it, and whose first record is no redraw of it, is a table; its
rows read gives the csv module's rows once each. Progress output with a comma in each state stays terminal output."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def _rows_read(scratch_scope, data: bytes, source_tool: str) -> tuple[object, list]:
    stub = scratch_scope.spill(data, source_tool=source_tool)
    tools, seen = ScratchTools(scratch_scope), []
    call: dict | None = {"handle": stub.handle, "row": 1, "rows": 25}
    while call is not None:
        reply = tools.read_handle(**call)
        seen += [list(row.values()) if isinstance(row, dict) else row for row in reply["rows"]]
        call = parse_call(reply["next_call"])[1] if reply["next_call"] else None
    return stub, seen


def _python_rows(data: bytes) -> list[list[str]]:
    return [row for row in csv.reader(io.StringIO(data.decode(), newline="")) if row]


@pytest.mark.parametrize(("name", "shape"), [
    ("sqlite-csv-cr-descr.csv", "CSV, 4 columns (name, version, size, descr), 40 rows"),
    ("find-csv-cr.csv", "CSV, 4 columns (date, time, bytes, name), 120 rows"),
])
def test_a_real_table_whose_rows_end_in_a_lone_cr_is_a_table_read_whole_by_rows(scratch_scope, name, shape):
    """sqlite3's rows with descriptions over several lines (more \\n than \\r), and find's rows of dates and sizes
    with no \\r after the last: tables (before: terminal output), their rows read the csv module's rows."""
    data = (_TOOLS / name).read_bytes()
    stub, seen = _rows_read(scratch_scope, data, "sqlite3")
    assert stub.content_type == "csv" and stub.shape.startswith(shape), stub.shape
    assert seen == _python_rows(data)[1:]


def _dated(count: int, end: str = "\r", quoted: bool = False) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=end, quoting=csv.QUOTE_NONNUMERIC if quoted else csv.QUOTE_MINIMAL)
    writer.writerow(["date", "region", "sales", "note"])
    for i in range(count):
        writer.writerow([f"2020-{i // 28 % 12 + 1:02d}-{i % 28 + 1:02d}", ("north", "south")[i % 2], 100 + i * 7 % 89,
                         "two\nlines" if quoted and i % 5 == 0 else "ok"])
    return out.getvalue().encode()


@pytest.mark.parametrize("cut", [0, 1])
@pytest.mark.parametrize("quoted", [False, True])
def test_rows_of_dates_ending_in_a_lone_cr_are_a_table_however_the_content_ends(cut, quoted):
    """With or without a \\r after the last row, with quoted \\n in some fields: a table of 300 rows; and a content
    larger than the sample is estimated from the \\r-ended rows (before: its quoted \\n counted as the lines)."""
    data = _dated(300, quoted=quoted)
    data = data[: len(data) - cut]
    shape = describe(data, len(data), data.count(b"\n") + 1)
    assert shape.content_type == "csv" and shape.text.startswith("CSV, 4 columns (date, region, sales, note), 300 rows")
    big = _dated(40_000, quoted=quoted)
    shape = describe(big[: 512 * 1024], len(big), big.count(b"\n") + 1)
    assert shape.content_type == "csv", shape
    estimated = int(shape.text.split("~", 1)[1].split(" ", 1)[0].replace(",", ""))
    assert 36_000 <= estimated <= 44_000, shape.text


def test_progress_with_a_comma_in_each_state_stays_terminal_output():
    """A redraw's states written with the \\r after each (no newline) and one comma in each: the first state is the
    second's redraw, so no header: terminal output, as a tqdm bar (\\r before each state) is."""
    states = b"".join(b"Processed %d of 500, %d errors\r" % (i * 10, i // 7) for i in range(50)) + b"done\n"
    tqdm = b"".join(b"\r%3d%%|%s| %d/100 [00:%02d<00:10,  9.80it/s]" % (p, b"#" * (p // 10), p, p % 60)
                    for p in range(101)) + b"\n"
    for data in (states, tqdm):
        shape = describe(data, len(data), data.count(b"\n") + 1)
        assert shape.text.startswith("terminal output") and "overwritten lines" in shape.text, shape


_QUERY = Path(__file__).resolve().parent.parent / "fixtures" / "query-packages-by-month.csv"


def _written(count: int, end: str, header: bool, second_line: str) -> bytes:
    """The first ``count`` rows of the query's result (fixtures/), as ``csv.writer`` writes them with ``end`` after
    each, with its header line or not; ``second_line``: what ends each summary's first sentence (a field of two
    lines)."""
    rows = list(csv.reader(io.StringIO(_QUERY.read_text(), newline="")))[: count + 1]
    rows = [[*row[:3], row[3].replace(". ", "." + second_line, 1)] for row in rows]
    out = io.StringIO()
    csv.writer(out, lineterminator=end).writerows(rows if header else rows[1:])
    return out.getvalue().encode()


@pytest.mark.parametrize("last_cr", [True, False])
@pytest.mark.parametrize("quoted", [False, True])
def test_a_headerless_csv_whose_rows_end_in_a_lone_cr_is_a_table(scratch_scope, last_cr, quoted):
    """Rows of dates, regions and sales with no header line, classic Mac OS line ends (a \r after the last or not;
    quoted, some notes of two lines): a headerless CSV read as the csv module reads it (before, but for the rows
    each ended by a \r and unquoted: terminal output, its rows taken for a counter's redraws)."""
    data = _dated(300, quoted=quoted)
    data = data[data.index(b"\r") + 1 : len(data) - (not last_cr)]  # (the header line left out)
    stub, seen = _rows_read(scratch_scope, data, "sqlite3")
    assert stub.content_type == "csv" and stub.shape == "CSV, 4 columns, no header, 300 rows", stub.shape
    assert seen == _python_rows(data)


def test_progress_with_commas_and_no_newline_stays_terminal_output():
    """A redraw's states with a comma each, the \r after each and none after the last: no table with no header
    (each state's words open its fields with a space)."""
    data = b"\r".join(b"Processed %d of 500, %d errors" % (i * 10, i // 7) for i in range(50))
    shape = describe(data, len(data), 1)
    assert shape.text.startswith("terminal output") and "overwritten lines" in shape.text, shape


@pytest.mark.parametrize("header", [True, False])
def test_a_crlf_csv_with_a_lone_cr_in_a_quoted_field_is_a_table(scratch_scope, header):
    """A Windows export (CRLF rows) whose summaries' second lines follow a lone \\r, inside their quoted fields (cells
    typed on a Mac): a CSV (before: terminal output, each such \\r an overwrite), its rows the csv module's."""
    data = _written(300, "\r\n", header=header, second_line="\r")
    assert data.count(b"\r") - data.count(b"\r\n") >= 10
    stub, seen = _rows_read(scratch_scope, data, "sqlite3")
    named = " (name, version, month, summary)" if header else ", no header"
    assert stub.content_type == "csv" and stub.shape == f"CSV, 4 columns{named}, 300 rows", stub.shape
    assert seen == _python_rows(data)[header:]


def test_a_csv_whose_quoted_fields_hold_lines_claims_no_ragged_row_where_its_first_lines_cut_one():
    """A CSV of 60 rows, each summary two lines (a quoted \\n) before the month: its first 50 lines end inside a
    record, which is no ragged row (before: "1 ragged row (not 4 cells) in the first 50 lines")."""
    rows = list(csv.reader(io.StringIO(_QUERY.read_text(), newline="")))[1:61]
    data = "".join(f'{n},{v},"{s}\n({n} {v})",{m}\n' for n, v, m, s in rows).encode()
    data = b"name,version,summary,month\n" + data
    shape = describe(data, len(data), data.count(b"\n"))
    assert shape.content_type == "csv" and shape.text == "CSV, 4 columns (name, version, summary, month), 60 rows"
