"""CSV whose lines end in ``\\r\\n``, ``\\n\\r`` or a lone ``\\r`` (classic Mac OS, some exports) is told a table and
read as Python's ``csv`` module reads it from ``open(path, newline="")`` (the way its documentation asks files
opened): before, ``\\n\\r`` and ``\\r`` line ends were told text ("not a table": no row read), and a lone ``\\r`` in a
row could not be read. Real rows from the fixture, written with each line end; following next_call from any row
gives the module's rows once each."""

from __future__ import annotations

import ast
import csv
import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools, to_json
from scratchfs.engine.structure import BytesSource, rows_page
from scratchfs.engine.structure.row_lines import iter_row_lines, row_line_start

_FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "query-packages-by-month.csv"
_ENDS = ["\n", "\r\n", "\n\r", "\r"]


def _table(first: int, count: int, end: str, odd: bool) -> bytes:
    """The fixture's header and ``count`` rows from row ``first``, lines ending in ``end``; ``odd``: a field over two
    lines every 7 rows, every field quoted. (A quoted field holding a lone ``\\r`` is told terminal
    output -- a redraw -- by the stub, with any line end: left to shape detection.)"""
    rows = list(csv.reader(io.StringIO(_FIXTURE.read_bytes().decode(), newline="")))
    body = rows[first : first + count]
    if odd:
        body = [[*row[:-1], row[-1] + "\n(a second line)"] if n % 7 == 3 else row for n, row in enumerate(body)]
    out = io.StringIO()
    quoting = csv.QUOTE_ALL if odd else csv.QUOTE_MINIMAL  # (a writer ending lines in \r alone leaves \n unquoted)
    csv.writer(out, lineterminator=end, quoting=quoting).writerows([rows[0], *body])
    return out.getvalue().encode()


def _python_rows(data: bytes) -> list[list[str]]:
    return [row for row in csv.reader(io.StringIO(data.decode(), newline="")) if row]


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


# (15 examples by default, 30 before: each spills to a store; their cases are drawn anew each run;
# SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(end=st.sampled_from(_ENDS), first=st.integers(1, 4000), count=st.integers(20, 300), odd=st.booleans(),
       start=st.integers(1, 20), rows=st.integers(1, 40))
def test_a_table_of_any_line_end_is_told_a_table_and_read_as_pythons_csv_module_reads_it(
        tools, scratch_scope, end, first, count, odd, start, rows):
    data = _table(first, count, end, odd)
    wanted = _python_rows(data)
    stub = scratch_scope.spill(data, source_tool="sql")
    assert stub.content_type == "csv" and stub.shape.startswith("CSV, 4 columns (name, version, month, summary), ")
    assert f", {len(wanted) - 1:,} rows" in stub.shape, stub.shape
    call: dict | None = {"handle": stub.handle, "row": start, "rows": rows, "budget": 4096}
    got = []
    while call is not None:
        reply = tools.call("read_handle", call)
        assert len(to_json(reply).encode()) <= 4096 and reply["header"] == wanted[0] and "note" not in reply
        got += reply["rows"]
        node = ast.parse(reply["next_call"], mode="eval").body if reply["next_call"] else None
        call = None if node is None else {**{k.arg: ast.literal_eval(k.value) for k in node.keywords}, "budget": 4096}
    assert got == wanted[start:]


@pytest.mark.parametrize("end", _ENDS)
def test_a_page_resumes_at_its_cursor_and_a_row_starts_after_a_line_end_not_inside_one(end):
    data = _table(1, 30, end, False)
    page = rows_page(BytesSource(data), 1, 5)
    assert page.cursor is not None
    assert rows_page(BytesSource(data), 1, 5, cursor=page.cursor).items == _python_rows(data)[6:11]
    starts = [at for at in range(len(data) + 1) if row_line_start(BytesSource(data), at)]
    assert starts == [0] + [at for at in range(1, len(data) + 1) if data[at - 1 : at] == b"\n" or (
        data[at - 1 : at] == b"\r" and data[at : at + 1] != b"\n")]


def test_lines_are_cut_at_each_line_end_in_any_chunk(monkeypatch):
    """A ``\\r\\n`` whose ``\\r`` ends one chunk and whose ``\\n`` starts the next is one line end."""
    from scratchfs.engine.structure import row_lines

    data = b"a,b\r\n" * 3 + b"c\rd\n\re\r\r\n\n"
    for size in range(1, 12):
        monkeypatch.setattr(row_lines, "iter_chunks", lambda source, offset, n=size: (
            source.read(at, n) for at in range(offset, source.size, n)))
        lines = list(iter_row_lines(BytesSource(data)))
        assert [line.decode() for _, line in lines] == data.decode().splitlines(keepends=True)
        assert [at for at, _ in lines] == [sum(len(x) for _, x in lines[:i]) for i in range(len(lines))]
