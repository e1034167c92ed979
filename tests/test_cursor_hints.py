"""A cursor of another kind of read given to a row or record read is refused as such, not told to go on at its first
number: a jq read's cursor ``115.0.TAG`` given with ``record=1`` was refused with "it goes on at record 115; pass it
with record=115", and the call it named was refused again ("not made by this read"). A reader's own cursor beside
another ``row=``/``record=`` still names where it goes on. Found by the hostile helper (2026-12-04) passing cursors
across reads."""

from __future__ import annotations

import json

import pytest

from scratchfs import ScratchStore
from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import InvalidArgument


@pytest.fixture(scope="module")
def reads(tmp_path_factory):
    with ScratchStore(tmp_path_factory.mktemp("hints") / "root") as store:
        scope = store.scope("r", "a")
        doc = scope.spill(json.dumps({"items": [{"id": i, "s": "x" * 50} for i in range(3000)]}), source_tool="t")
        lines = scope.spill("".join(json.dumps({"id": i}) + "\n" for i in range(3000)), source_tool="t")
        table = scope.spill("id,s\n" + "".join(f"{i},{'z' * 50}\n" for i in range(3000)), source_tool="t")
        yield ScratchTools(scope), doc.handle, lines.handle, table.handle


def cursor_of(tools: ScratchTools, **call) -> str:
    return parse_call(tools.read_handle(**call)["next_call"])[1]["cursor"]


def test_a_cursor_of_another_read_is_not_told_to_go_on_at_its_first_number(reads):
    tools, doc, lines, table = reads
    jq = cursor_of(tools, handle=doc, jq=".items[]")
    rows = cursor_of(tools, handle=table, row=1, rows=500)
    for call in ({"handle": lines, "record": 1, "cursor": jq}, {"handle": table, "row": 1, "cursor": jq},
                 {"handle": lines, "record": 1, "cursor": rows}):
        with pytest.raises(InvalidArgument) as refused:
            tools.read_handle(**call)
        assert "goes on at" not in str(refused.value) and "not made by this read" in str(refused.value)


def test_a_readers_own_cursor_beside_another_position_still_names_where_it_goes_on(reads):
    tools, _, lines, table = reads
    records = cursor_of(tools, handle=lines, record=1, records=500)
    position = int(records.split(".")[0])
    with pytest.raises(InvalidArgument, match=f"goes on at record {position}; pass it with record={position}"):
        tools.read_handle(lines, record=1, records=500, cursor=records)
    assert tools.read_handle(lines, record=position, records=500, cursor=records)["first"] == position
    rows = cursor_of(tools, handle=table, row=1, rows=500)
    at = int(rows.split(".")[0])
    with pytest.raises(InvalidArgument, match=f"goes on at row {at}"):
        tools.read_handle(table, row=2, rows=500, cursor=rows)
