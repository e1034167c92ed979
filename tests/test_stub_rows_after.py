"""A table's stub named ``row=1`` (JSON lines': ``record=1``) though its preview already showed the first rows: the
next call read again what the model had (found in the closing note's open list). The note's rows or records read
starts at the first the preview does not show whole -- rows counted as the CSV reader counts them (a quoted field may
hold line ends), records as a ``record=`` read numbers them (blank lines are none) -- and a preview that shows every
row says so instead. Each test CALLS the read the note names and checks what it returns."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools


def _calls(note: str) -> list[dict]:
    """Each ``read_handle(...)`` the note names, as its keyword arguments (the adapter's parser of a call)."""
    return [parse_call(call)[1] for call in re.findall(r'read_handle\((?:[^()"]|"(?:[^"\\]|\\.)*")*\)', note)]


def _named(note: str, key: str) -> dict | None:
    named = [call for call in _calls(note) if key in call]
    assert len(named) <= 1, note
    return named[0] if named else None


def _covered(note: str) -> int:
    return int(re.search(r"the preview shows bytes 0-(\d+)", note).group(1))


def _table(rows: list[list[str]]) -> tuple[bytes, list[int]]:
    """A CSV's bytes (the first row its header) and the byte where each row's text ends (before its line end)."""
    out, ends = io.BytesIO(), []
    for row in rows:
        text = io.StringIO()
        csv.writer(text, lineterminator="\n").writerow(row)
        out.write(text.getvalue().encode()[:-1])
        ends.append(out.tell())
        out.write(b"\n")
    return out.getvalue(), ends


def _check_rows(scope, rows: list[list[str]], told=None) -> None:
    data, ends = _table(rows)
    stub = scope.spill(data, source_tool="sql.query")
    if told is not None:  # (generated tables: those stored as CSV, and not whole in the preview)
        told(stub.content_type == "csv" and "shows all of it" not in stub.note)
    assert stub.content_type == "csv", stub.shape
    covered = _covered(stub.note)
    unshown = next((n for n, end in enumerate(ends) if end > covered), None)  # (the header is row 0)
    named = _named(stub.note, "row")
    if unshown is None:
        assert named is None and "every row of it" in stub.note, stub.note
        return
    assert named is not None and named["row"] == max(1, unshown), stub.note
    reply = ScratchTools(scope).read_handle(**named)
    assert reply["first"] == max(1, unshown) and reply["rows"][0] == rows[max(1, unshown)], reply


def test_a_tables_note_reads_on_from_the_first_row_its_preview_does_not_show(scope):
    rows = [["id", "name"]] + [[str(i), f"name {i}"] for i in range(1, 1500)]
    stub = scope.spill(_table(rows)[0], source_tool="sql.query")
    assert 'row=1,' not in stub.note, stub.note  # (the preview shows rows 1 to about 80)
    _check_rows(scope, rows)


def test_rows_spanning_lines_are_counted_as_the_csv_reader_counts_them(scope):
    """Each row's quoted field holds two line ends: counting lines would name a row three times too far."""
    rows = [["id", "text"]] + [[str(i), f"first line {i}\nsecond\nthird"] for i in range(1, 800)]
    _check_rows(scope, rows)
    stub = scope.spill(_table(rows)[0], source_tool="sql.query")
    assert _named(stub.note, "row")["row"] < stub.preview.count("\n"), stub.note


def test_a_preview_cut_inside_a_row_names_that_row(scope):
    rows = [["id", "text"]] + [[str(i), "x" * 300] for i in range(1, 200)]
    _check_rows(scope, rows)


def test_a_table_whose_preview_shows_every_row_says_so(scope):
    """A short table followed by blank lines past the preview: every row is shown, no rows read is named."""
    data = b"id,name\n" + b"".join(b"%d,n%d\n" % (i, i) for i in range(1, 6)) + b"\n" * 12000
    stub = scope.spill(data, source_tool="sql.query")
    assert stub.content_type == "csv", stub.shape
    assert _named(stub.note, "row") is None and "every row of it" in stub.note, stub.note


def test_a_table_with_no_header_counts_its_first_line_as_row_1(scope):
    rows = [[str(i), str(i * 7), "2026-01-01"] for i in range(1, 1500)]
    data, ends = _table(rows)
    stub = scope.spill(data, source_tool="sqlite3")
    assert "no header" in stub.shape, stub.shape
    covered = _covered(stub.note)
    unshown = next(n for n, end in enumerate(ends) if end > covered) + 1  # (rows from 1: the first line)
    named = _named(stub.note, "row")
    assert named["row"] == unshown, stub.note
    reply = ScratchTools(scope).read_handle(**named)
    assert reply["first"] == unshown and reply["rows"][0] == rows[unshown - 1], reply


def _check_records(scope, records: list, blanks: list[int]) -> None:
    out, ends = io.BytesIO(), []
    for number, record in enumerate(records):
        out.write(b"\n" * blanks[number % len(blanks)])
        out.write(json.dumps(record).encode())
        ends.append(out.tell())
        out.write(b"\n")
    stub = scope.spill(out.getvalue(), source_tool="jq")
    assert stub.content_type == "jsonl", stub.shape
    covered = _covered(stub.note)
    unshown = next((n for n, end in enumerate(ends) if end > covered), None)
    named = _named(stub.note, "record")
    if unshown is None:
        assert named is None and "every record of it" in stub.note, stub.note
        return
    assert named is not None and named["record"] == unshown + 1, stub.note
    reply = ScratchTools(scope).read_handle(**named)
    assert reply["first"] == unshown + 1 and reply["records"][0] == records[unshown], reply


def test_json_lines_note_reads_on_from_the_first_record_not_shown(scope):
    records = [{"id": i, "name": f"item {i}"} for i in range(1, 1000)]
    stub = scope.spill("".join(json.dumps(r) + "\n" for r in records).encode(), source_tool="jq")
    assert "record=1," not in stub.note, stub.note
    _check_records(scope, records, [0])


def test_blank_lines_are_no_records(scope):
    _check_records(scope, [{"id": i, "tags": ["a"] * (i % 5)} for i in range(1, 800)], [0, 1, 3])


@given(cells=st.lists(st.lists(st.text(st.sampled_from('ab ,"\n'), max_size=30), min_size=2, max_size=2),
                      min_size=1, max_size=40),
       widths=st.integers(0, 400))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_table_note_names_the_first_row_not_shown(scope, cells, widths):
    """Rows of commas, quotes and line ends in their fields (quoted as csv writes them): the row the note names is
    the first whose text the preview does not show whole, and reading it returns it."""
    rows = [["key", "value"]] + [[f"k{n}" + "x" * (widths * (n % 3)), a + b] for n, (a, b) in enumerate(cells * 40)]
    _check_rows(scope, rows, assume)


def _aligned_rows_checked(scope, data: bytes) -> None:
    """A table aligned by spaces, its header (and any preamble before it) first, one row a line: the note's rows
    read is the first row line the preview does not show whole, and reading it returns that line's cells."""
    stub = scope.spill(data, source_tool="ps")
    assert stub.shape.startswith("table aligned by spaces"), stub.shape
    named = _named(stub.note, "row")
    lines = data.decode().split("\n")
    preamble = re.search(r"the header is line (\d+)", stub.shape)
    header = int(preamble.group(1)) - 1 if preamble else 0
    covered, number = _covered(stub.note), 0
    for at, line in enumerate(lines[header + 1 :], header + 1):
        if not re.search(r"\w", line):
            continue  # (a rule under the header, dpkg -l's +++-===: no row)
        number += 1
        if sum(len(text.encode()) + 1 for text in lines[:at]) + len(line.encode()) > covered:
            break
    assert named is not None and named["row"] == number, stub.note
    reply = ScratchTools(scope).read_handle(**named)
    assert reply["first"] == number and reply["rows"][0][:2] == line.split()[:2], reply


@pytest.mark.parametrize("name", ["ps-auxww.txt", "top-bn1.txt", "dpkg-l.txt"])
def test_a_table_aligned_by_spaces_reads_on_from_the_first_row_not_shown(scope, name):
    _aligned_rows_checked(scope, (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / name).read_bytes())


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
@pytest.mark.parametrize(("end", "blank"), [(b"\n", b"   \n"), (b"\r\n", b"\t\r\n"), (b"\n", b"\n")])
def test_records_after_white_space_lines_crlf_and_a_byte_order_mark(scope, bom, end, blank):
    """Lines of white space are blank (no record, as a record= read skips them), a CRLF line's record ends before
    its \\r, a byte order mark is no part of record 1: the read the note names is the first record not shown."""
    records = [{"id": i, "name": f"item {i}"} for i in range(1, 400)]
    out, ends = io.BytesIO(bom), []
    for number, record in enumerate(records):
        out.write(blank * (number % 3))
        out.write(json.dumps(record).encode())
        ends.append(out.tell())
        out.write(end)
    stub = scope.spill(out.getvalue(), source_tool="jq")
    assert stub.content_type == "jsonl", stub.shape
    covered = _covered(stub.note)
    unshown = next(n for n, at in enumerate(ends) if at > covered)
    named = _named(stub.note, "record")
    assert named["record"] == unshown + 1, stub.note
    reply = ScratchTools(scope).read_handle(**named)
    assert reply["first"] == unshown + 1 and reply["records"][0] == records[unshown], reply


def test_a_row_running_past_the_rows_reach_is_counted_where_it_starts(scope):
    """The note's rows are read in the table's first 17.5 KiB (``stub_reads._ROWS_REACH``): a row starting inside
    it but running far past it (a quoted field of 40,000 characters and line ends) is still that row, whether the
    preview ends before it or inside it."""
    for before in (2, 60, 90):  # (the preview's end inside the long row: 2, 60; in the rows before it: 90)
        rows = [["id", "text"]] + [[str(i), f"row {i}"] for i in range(1, before)]
        rows += [[str(before), "long\n" * 8000]] + [[str(i), f"row {i}"] for i in range(before + 1, before + 60)]
        data, ends = _table(rows)
        stub = scope.spill(data, source_tool="sql.query")
        unshown = next(n for n, end in enumerate(ends) if end > _covered(stub.note))
        assert (unshown == before) == (before < 90) and ends[before - 1] < 17 * 1024 < ends[before]
        named = _named(stub.note, "row")
        assert named["row"] == unshown, stub.note  # (the row is too long for a reply: the read names its bytes)
        reply = ScratchTools(scope).read_handle(**named)
        assert reply["first"] == unshown, reply


def test_a_table_whose_header_the_reader_refuses_names_row_1_for_every_preview():
    """A header whose quote is never closed (the rows read takes the rest as one field of it) gives row 1 for every
    preview size a stub tries, in any order: the walk over its rows, read once for all of them, holds none."""
    from scratchfs.api.stub_reads import RowsAfter

    head = b'id,"name\n' + b"".join(b"%d,n%d\n" % (i, i) for i in range(1, 300))
    rows = RowsAfter("csv", head, len(head) + 1, "CSV, 2 columns (id, name), ~300 rows")
    assert [rows.first_unshown(covered) for covered in (900, 500, 100, 900)] == [1, 1, 1, 1]


def test_an_aligned_tables_note_learns_no_layout(scope, monkeypatch):
    """Where its rows start is told from its lines alone: learning its layout (1-2 ms on ``ps aux``: the stub cost
    1.0-1.8 ms where it cost 50 us) is the rows read's work, not the note's."""
    from scratchfs.engine.structure import aligned

    data = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "ps-auxww.txt").read_bytes()
    shape = scope.spill(data, source_tool="ps").shape
    assert "aligned by spaces" in shape, shape

    def refused(*args, **kwargs):
        raise AssertionError("a layout was learned for a stub")

    monkeypatch.setattr(aligned, "learn_fit", refused)
    monkeypatch.setattr(aligned, "find_layout", refused)
    _aligned_rows_checked_with_layout = scope.spill(data, source_tool="ps")  # (describe finds a table's layout with
    assert "aligned by spaces" in _aligned_rows_checked_with_layout.shape  # find_table, which learns no fit)
