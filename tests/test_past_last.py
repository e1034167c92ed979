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
