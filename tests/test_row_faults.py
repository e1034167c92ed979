"""Rows of a CSV table that cannot be read (a field past the ``csv`` module's field limit, a quote left open until
then), met by a read that follows next_call: the page that meets one passes over it, its note naming the row and
the byte read that shows it, and every next_call reads on (before: a page that ended right before a bad row gave a
next_call that raised). The answer is Python's: the ``csv`` module's reader, read on after each error."""

from __future__ import annotations

import ast
import csv
import functools
import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import BadRecord, InvalidArgument
from scratchfs.api.contract import ScratchTools, reply_text, to_json
from scratchfs.engine.structure import BytesSource, rows_page

_FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "query-packages-by-month.csv"
_LIMIT = 200  # the field limit the reads run with (the fixture's longest field is 160 characters)
_BAD = {
    "long field": b"x," + b"y" * (_LIMIT + 7) + b",z\r\n",
    "open quote": b'x,"open quote, never closed\r\n',  # (the rows after it make its field until the limit)
    "long quoted field over lines": b'x,"' + b"w" * 90 + b"\r\n" + b"w" * 90 + b"\r\n" + b"w" * 90 + b'"\r\n',
    "not UTF-8 (no fault: U+FFFD)": b"x,caf\xe9,\xff\xfe\r\n",
}


@functools.cache
def _fixture_rows() -> tuple[bytes, ...]:
    """The fixture's rows, each as the bytes of one CSV row (``\\r\\n`` line ends, as the fixture's)."""
    text = _FIXTURE.read_bytes().decode()
    rows = list(csv.reader(io.StringIO(text, newline="")))
    out = []
    for row in rows:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\r\n").writerow(row)
        out.append(buffer.getvalue().encode())
    return tuple(out)


def _python_reads(data: bytes) -> tuple[list[tuple[int, list[str]]], list[int]]:
    """``([(row number, cells)], [numbers of the rows that cannot be read])`` as Python's ``csv`` module reads
    ``data`` (text read as ``open(..., newline="")`` gives it, bytes that are no UTF-8 as U+FFFD), going on after
    each error as its reader does; the header is row 0, blank rows are none."""
    reader = csv.reader(io.StringIO(data.decode("utf-8", "replace"), newline=""))
    rows, bad, number = [], [], -1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return rows, bad
        except csv.Error:
            number += 1
            bad.append(number)
            continue
        if row:
            number += 1
            rows.append((number, row))


def _follow(tools: ScratchTools, call: dict, budget: int) -> tuple[list[dict], list[str]]:
    """The pages a read gives, following next_call (and, when the read's first row cannot be read, the read its
    error names), and the errors met; each reply within ``budget``."""
    pages, errors = [], []
    while call is not None:
        try:
            reply = tools.call("read_handle", {**call, "budget": budget})
        except BadRecord as exc:
            errors.append(str(exc))
            on = str(exc).split("read on after it: ")
            call = None if len(on) < 2 else _call_of(on[1])
            continue
        assert len(reply_text(reply).encode()) <= budget  # (the text a model reads: its calls beyond)
        pages.append(reply)
        call = _call_of(reply["next_call"]) if reply["next_call"] else None
        assert len(pages) < 2000
    return pages, errors


def _call_of(text: str) -> dict:
    node = ast.parse(text, mode="eval").body
    return {k.arg: ast.literal_eval(k.value) for k in node.keywords}


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


@pytest.fixture
def low_field_limit():
    """The ``csv`` module's field limit lowered to :data:`_LIMIT` for the reads (after the spill: its shape is
    told with the module's own); put back after."""
    before = csv.field_size_limit()
    yield lambda: csv.field_size_limit(_LIMIT)
    csv.field_size_limit(before)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=st.integers(1, 4300), count=st.integers(70, 180),
       bad=st.lists(st.tuples(st.integers(61, 180), st.sampled_from(sorted(_BAD))), max_size=14),
       start=st.integers(1, 60), rows=st.integers(1, 25), budget=st.sampled_from([2048, 3000, 8192]))
def test_following_next_call_past_rows_that_cannot_be_read_gives_what_pythons_csv_module_reads(
        tools, scratch_scope, low_field_limit, first, count, bad, start, rows, budget):
    table = list(_fixture_rows()[first : first + count])
    for at, kind in sorted(bad, reverse=True):  # (the same place twice: bad rows one after the other)
        table.insert(min(at, len(table)), _BAD[kind])
    data = _fixture_rows()[0] + b"".join(table)
    handle = scratch_scope.spill(data, source_tool="sql").handle
    low_field_limit()
    wanted, unreadable = _python_reads(data)
    pages, errors = _follow(tools, {"handle": handle, "row": start, "rows": rows}, budget)
    assert [row for page in pages for row in page["rows"]] == [row for n, row in wanted if n >= start]
    noted = [int(n) for page in pages for n in re.findall(r"row (\d+) \(bytes \d+ to \d+\) ", page.get("note", ""))]
    assert sorted(noted) == [n for n in unreadable if n > start or (n == start and not errors)]
    assert all(len(page["rows"]) <= rows for page in pages)
    for page in pages:  # each note names the byte read that shows its row
        for begin, _shown in re.findall(r"offset=(\d+), length=(\d+)", page.get("note", "")):
            assert data[int(begin) : int(begin) + 2] == b"x,"
    if errors:
        assert errors[0].startswith(f"row {start} (bytes ") and start in unreadable


def test_a_read_that_starts_at_a_row_that_cannot_be_read_names_the_read_on_after_it(tools, scratch_scope,
                                                                                   low_field_limit):
    data = b"".join(_fixture_rows()[:70]) + _BAD["long field"] + b"".join(_fixture_rows()[70:80])
    handle = scratch_scope.spill(data, source_tool="sql").handle
    low_field_limit()
    with pytest.raises(BadRecord, match=r"^row 70 \(bytes \d+ to \d+\) holds a field longer than 200 characters.*"
                                        r"read on after it: read_handle\(handle=\"h_\w+\", row=71, rows=5, "
                                        r"cursor=\"[\w.-]+\"\)$") as bad:
        tools.call("read_handle", {"handle": handle, "row": 70, "rows": 5})
    # the read on after it goes from the next row's byte (its cursor), not counting 70 rows again (advice4): the
    # same page as row=71 read without one
    [advised] = bad.value.advice.calls
    assert bad.value.cursor == advised.to_json()["arguments"]["cursor"]
    assert to_json(tools.call("read_handle", advised.to_json()["arguments"])) == to_json(
        tools.call("read_handle", {"handle": handle, "row": 71, "rows": 5}))
    page = tools.call("read_handle", {"handle": handle, "row": 60, "rows": 10})  # row 70 is the 11th: read ahead
    assert len(page["rows"]) == 10 and "row 70 (bytes" in page["note"] and page["next_call"].startswith(
        f'read_handle(handle="{handle}", row=71, rows=10, cursor=')


def test_rows_that_cannot_be_read_one_after_another_are_passed_over_by_every_page():
    """More bad rows in a run than a page passes over: its cursor stops at the next, which the next page passes
    over too -- no cursor is left that only fails."""
    before = csv.field_size_limit(_LIMIT)
    try:
        data = b"a,b\n1,2\n" + _BAD["long field"] * 25 + b"3,4\n"
        page, got, noted = rows_page(BytesSource(data), 1, 50), [], 0
        while True:
            got += page.items
            noted += len(page.passed or [])
            if page.cursor is None:
                break
            page = rows_page(BytesSource(data), cursor=page.cursor)
        assert (got, noted) == ([["1", "2"], ["3", "4"]], 25)
    finally:
        csv.field_size_limit(before)


# -- slurp=true: the whole table at once -----------------------------------------------------------------------------


def _slurp_all(tools: ScratchTools, handle: str, jq: str, budget: int) -> tuple[list, list[str]]:
    """The results of a slurp read, following next_call, and the notes of its pages; each reply within ``budget``."""
    call, results, notes = {"handle": handle, "jq": jq, "slurp": True}, [], []
    while call is not None:
        reply = tools.call("read_handle", {**call, "budget": budget})
        assert len(reply_text(reply).encode()) <= budget  # (the text a model reads: its calls beyond)
        results += reply["results"]
        notes.append(reply.get("note", ""))
        call = _call_of(reply["next_call"]) if reply["next_call"] else None
    return results, notes


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=st.integers(1, 4300), count=st.integers(70, 150),
       bad=st.lists(st.tuples(st.integers(61, 150), st.sampled_from(sorted(_BAD))), max_size=14),
       budget=st.sampled_from([2048, 3000, 8192]))
def test_a_slurp_read_passes_over_rows_that_cannot_be_read_as_pages_of_rows_do(tools, scratch_scope, low_field_limit,
                                                                             first, count, bad, budget):
    """slurp=true failed at the first row that cannot be read (a bare "the row at byte N ..." error), where the
    paged reads pass over it: jq gets the rows the pages give, and the note names the rows passed over."""
    table = list(_fixture_rows()[first : first + count])
    for at, kind in sorted(bad, reverse=True):
        table.insert(min(at, len(table)), _BAD[kind])
    data = _fixture_rows()[0] + b"".join(table)
    handle = scratch_scope.spill(data, source_tool="sql").handle
    low_field_limit()
    wanted, unreadable = _python_reads(data)
    results, notes = _slurp_all(tools, handle, ".[] | [.name, .version, .month, .summary] + (._extra // [])", budget)
    header = wanted[0][1]
    assert header == ["name", "version", "month", "summary"]
    assert results == [row + [None] * (4 - len(row)) for _, row in wanted[1:]]
    said = notes[0]
    named = [int(n) for n in re.findall(r"row (\d+) \(bytes \d+ to \d+\) ", said)]
    assert named == unreadable[: len(named)] and (named or not unreadable), said
    if unreadable:
        assert f"{len(unreadable)} row{'s' if len(unreadable) > 1 else ''} " in said, said
        for begin, _shown in re.findall(r"offset=(\d+), length=(\d+)", said):
            assert data[int(begin) : int(begin) + 2] == b"x,"


def test_a_slurp_read_counts_the_rows_it_read_and_names_those_it_passed_over(tools, scratch_scope, low_field_limit):
    data = b"".join(_fixture_rows()[:70]) + _BAD["long field"] + b"".join(_fixture_rows()[70:80])
    handle = scratch_scope.spill(data, source_tool="sql").handle
    low_field_limit()
    reply = tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})
    assert reply["results"] == [79], reply
    assert re.search(r"^1 row could not be read and is not in the array jq was given: row 70 \(bytes \d+ to \d+\) "
                     r"holds a field longer than 200 characters.* -- its bytes: read_handle\(handle=\"h_\w+\", "
                     r"offset=\d+, length=\d+\)", reply["note"]), reply["note"]


def test_many_rows_that_cannot_be_read_are_counted_and_the_first_named_within_the_smallest_budget(
        tools, scratch_scope, low_field_limit):
    data = b"a,b\n1,2\n" + (b"x," + b"y" * (_LIMIT + 7) + b"\n5,6\n") * 40 + b"3,4\n"
    handle = scratch_scope.spill(data, source_tool="sql").handle
    low_field_limit()
    reply = tools.call("read_handle", {"handle": handle, "jq": "map(.a) | join(\"\")", "slurp": True,
                                       "budget": 2048})
    assert len(reply_text(reply).encode()) <= 2048
    assert reply["results"] == ["1" + "5" * 40 + "3"], reply
    note = reply["note"]
    assert note.startswith("40 rows could not be read and are not in the array jq was given: row 2 (bytes "), note
    assert re.search(r"; and \d+ more \(rows \d+, \d+, .*\): a rows read \(row=N\) names each$", note), note


def test_a_slurp_read_of_a_table_whose_header_cannot_be_read_is_refused_naming_it(tools, scratch_scope,
                                                                                 low_field_limit):
    data = b"name,version,month,summary" + b"h" * (_LIMIT + 50) + b"\r\n" + b"".join(_fixture_rows()[1:40])
    handle = scratch_scope.spill(data, source_tool="sql").handle
    low_field_limit()
    with pytest.raises(InvalidArgument, match=r"^the header \(bytes 0 to \d+\) holds a field longer than 200 "):
        tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})


@pytest.mark.parametrize("budget", [2048, 3000])
def test_a_page_passing_over_many_rows_at_the_table_end_fits_its_budget(tools, scratch_scope, low_field_limit,
                                                                       budget):
    """Five rows that cannot be read end the table: the last page shows 4 rows and passes over all 5, each named with
    the byte read that shows it, which the reply adds to the reader's note (about 95 bytes each): the reply was 2,054
    bytes of a 2,048 budget (the reply's fitting gave the page 38 bytes less room 4 times, and a page that fitted its
    own budget was read the same each time). Each page now fits, and every bad row is named once."""
    rows = _fixture_rows()
    data = rows[0] + b"".join(rows[1:127]) + _BAD["long field"] * 5
    handle = scratch_scope.spill(data, source_tool="sql").handle
    low_field_limit()
    pages, errors = _follow(tools, {"handle": handle, "row": 123, "rows": 10}, budget)
    noted = [int(n) for page in pages for n in re.findall(r"row (\d+) \(bytes \d+ to \d+\) ", page.get("note", ""))]
    assert not errors and sorted(noted) == [127, 128, 129, 130, 131]
    assert [row for page in pages for row in page["rows"]] == [r for n, r in _python_reads(data)[0] if n >= 123]
