"""A row or record read that starts past the last one was refused with the count alone (a new user's trial:
``row 30000 is past the last row (25,000)``), where a line read past the end names the call that reads the last
lines: now it names the call reading the last page, with the read's other settings, and that call works."""

from __future__ import annotations

import csv
import io
import json

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
