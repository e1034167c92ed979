"""A row or record read that starts past the last one was refused with the count alone (a new user's trial:
``row 30000 is past the last row (25,000)``), where a line read past the end names the call that reads the last
lines: now it names the call reading the last page, with the read's other settings, and that call works."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from scratchfs import InvalidArgument
from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools


def _refused(tools: ScratchTools, arguments: dict) -> tuple[str, dict]:
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", arguments)
    message = str(refused.value)
    verb, call = parse_call(message[message.index("read_handle("):])
    assert verb == "read_handle"
    return message, call


def test_a_row_read_past_the_last_row_names_the_read_of_the_last_rows(scratch_scope, fixture_data):
    text = fixture_data["query-packages-by-month.csv"].decode()
    rows = list(csv.reader(io.StringIO(text)))[1:]
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(text, source_tool="sql.query").handle
    message, call = _refused(tools, {"handle": handle, "row": len(rows) + 100})
    assert message.startswith(f"row {len(rows) + 100} is past the last row ({len(rows):,}): the last ones: ")
    assert call == {"handle": handle, "row": len(rows) - 49, "rows": 50}
    message, call = _refused(tools, {"handle": handle, "row": 10**6, "rows": 3, "columns": ["name"]})
    assert call == {"handle": handle, "row": len(rows) - 2, "rows": 3, "columns": ["name"]}
    page = tools.call("read_handle", call)
    assert page["rows"] == [[r[0]] for r in rows[-3:]] and page["next_call"] is None


def test_a_record_read_past_the_last_record_names_the_read_of_the_last_records(scratch_scope):
    records = [{"n": i, "name": f"pkg-{i}"} for i in range(1, 1001)]
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill("".join(json.dumps(r) + "\n" for r in records), source_tool="q").handle
    message, call = _refused(tools, {"handle": handle, "record": 5000, "records": 1, "jq": ".name"})
    assert message.startswith("record 5000 is past the last record (1,000): the last one: "), message
    assert call == {"handle": handle, "record": 1000, "records": 1, "jq": ".name"}
    assert tools.call("read_handle", call)["results"] == ["pkg-1000"]
    message, call = _refused(tools, {"handle": handle, "record": 1001})
    assert call == {"handle": handle, "record": 951, "records": 50}
    assert tools.call("read_handle", {**call, "budget": 65536})["records"] == records[-50:]


@pytest.mark.parametrize(("text", "last"), [
    ("a,b\n" + "".join(f"{i},x{i}\n" for i in range(1, 11)), 10),  # (CSV: the rows before it counted at C speed)
    ("a,b\n1,x\n2,y\n\n\n", 2),  # (blank lines after the last row are no row)
    ("a\tb\n1\tx\n2\ty", 2),  # (TSV, no line end after its last row)
])
def test_one_past_the_last_row_is_refused_naming_the_last_rows(scratch_scope, text, last):
    """``row=`` one past the last row came back as an empty page with no note (helper replies6): it is past the
    last row as those further on are, and names the read of the last ones, which reads them."""
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(text, source_tool="sql.query").handle
    message, call = _refused(tools, {"handle": handle, "row": last + 1, "rows": 2})
    assert message.startswith(f"row {last + 1} is past the last row ({last}): the last ones: "), message
    assert call == {"handle": handle, "row": last - 1, "rows": 2}
    assert tools.call("read_handle", call)["rows"] == [r.split(text[1]) for r in text.split("\n")[1:] if r][-2:]


def test_one_past_the_last_row_of_an_aligned_table_is_refused(scratch_scope):
    """A table aligned by spaces (its rows read one by one, not counted at C speed) likewise."""
    text = "NAME      VERSION   SIZE\n" + "".join(f"pkg-{i:<5} 1.{i:<6} {i * 100}\n" for i in range(1, 9))
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(text, source_tool="pip").handle
    assert tools.call("read_handle", {"handle": handle, "row": 8, "rows": 1})["rows"] == [["pkg-8", "1.8", "800"]]
    message, call = _refused(tools, {"handle": handle, "row": 9, "rows": 1})
    assert message.startswith("row 9 is past the last row (8): the last one: "), message
    assert call == {"handle": handle, "row": 8, "rows": 1}


_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def test_a_row_counted_from_the_end_names_the_read_of_the_last_rows(scratch_scope):
    """helper modeltask2, acting as the model over a CSV of ``dpkg-query`` descriptions (quoted newlines): it asked
    for the last row as it asks for the last line, ``row=-1``, and was told only ``row: -1 is less than the minimum
    of 1`` -- no call to go on by, where a row past the last names the last ones. Now the refusal names the read of
    what ``row=-N`` meant (the last N rows, the read's other settings kept), and that call reads them."""
    data = (_TOOLS / "dpkg-query-descr.csv").read_bytes()
    rows = list(csv.reader(io.StringIO(data.decode(), newline="")))[1:]
    assert len(rows) == 40 and any("\n" in r[4] for r in rows)  # (rows over several lines: no line count serves)
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="dpkg-query").handle
    message, call = _refused(tools, {"handle": handle, "row": -1})
    assert message.startswith("read_handle: row: -1 is less than the minimum of 1 (rows count from 1, not from the "
                              "end as line=-N does); the last: "), message
    assert call == {"handle": handle, "row": 40, "rows": 1}
    assert tools.call("read_handle", call)["rows"] == [rows[-1]]
    message, call = _refused(tools, {"handle": handle, "row": -3, "columns": ["name", "kib"], "budget": 4096})
    assert "; the last 3 rows: " in message
    assert call == {"handle": handle, "row": 38, "rows": 3, "columns": ["name", "kib"], "budget": 4096}
    page = tools.call("read_handle", call)
    assert page["rows"] == [[r[0], r[2]] for r in rows[-3:]] and page["next_call"] is None
    _, call = _refused(tools, {"handle": handle, "row": -10, "rows": 2})  # (as line=-10, lines=2 reads)
    assert call == {"handle": handle, "row": 31, "rows": 2}
    message, call = _refused(tools, {"handle": handle, "row": -100})  # (more than there are: all of them)
    assert "; all 40 rows: " in message and call == {"handle": handle, "row": 1, "rows": 40}
    message, call = _refused(tools, {"handle": handle, "row": 0, "rows": 5})
    assert "; the first: " in message and call == {"handle": handle, "row": 1, "rows": 5}


def test_a_record_counted_from_the_end_names_the_read_of_the_last_records(scratch_scope):
    """The same for JSON lines (``dpkg-query`` rows made objects by ``jq``): ``record=-2`` names the read of the
    last two records, its ``jq`` kept."""
    data = (_TOOLS / "dpkg-query-jq.jsonl").read_bytes()
    records = [json.loads(line) for line in data.splitlines()]
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="dpkg-query | jq").handle
    message, call = _refused(tools, {"handle": handle, "record": -2, "jq": ".package"})
    assert "(records count from 1, not from the end as line=-N does); the last 2 records: " in message
    assert call == {"handle": handle, "record": 59, "records": 2, "jq": ".package"}
    assert tools.call("read_handle", call)["results"] == [r["package"] for r in records[-2:]]


@pytest.mark.parametrize(("arguments", "said"), [
    ({"row": -1, "rows": 0}, "read_handle: rows: 0 is less than the minimum of 1"),  # (another fault: told alone)
    ({"row": -1, "budget": 100}, "read_handle: row: -1 is less than the minimum of 1"),  # (two: no call named)
    ({"row": -1, "handle": "h_aaaaaaaaaaaaaaaaaaaaaaaa"}, "read_handle: row: -1 is less than the minimum of 1"),
])
def test_a_row_from_the_end_with_no_read_to_name_is_refused_as_before(scratch_scope, arguments, said):
    """A row below 1 whose read cannot be named -- another argument wrong, a handle that holds nothing -- is
    refused in the schema's words alone, no call named."""
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill((_TOOLS / "dpkg-query-descr.csv").read_bytes(), source_tool="q").handle
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": handle, **arguments})
    assert str(refused.value) == said and not refused.value.calls


def test_a_row_from_the_end_of_text_that_is_no_table_is_refused_as_before(scratch_scope):
    """Text that is no table: no row read, so none named (a line read from the end reads it)."""
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill((_TOOLS / "man-ls-overstrike.txt").read_bytes(), source_tool="man").handle
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": handle, "row": -1})
    assert str(refused.value) == "read_handle: row: -1 is less than the minimum of 1"


@pytest.mark.parametrize("back", [1, 2, 5])
def test_the_last_records_of_json_lines_cut_short_name_the_last_json_ones(scratch_scope, back):
    """hostile32: record=-1 of JSON lines whose last line is cut (a stream cut short: the stub says '100 records,
    the last line cut') named record=101, a read refused ('it is the last record: the content ends with it'), and
    record=-2 named a read giving 1 record: the last records are the stub's, the cut line counted out."""
    data = "\n".join(json.dumps({"i": i}) for i in range(100)) + '\n{"i": 100, "cu'
    tools = ScratchTools(scratch_scope)
    stub = tools.scope.spill(data.encode(), source_tool="t").to_dict()
    assert "100 records, the last line cut" in stub["shape"]
    _, call = _refused(tools, {"handle": stub["handle"], "record": -back})
    assert call["record"] == 101 - back
    assert [r["i"] for r in tools.call("read_handle", call)["records"]] == list(range(100 - back, 100))
