"""Replies that spent bytes for nothing (helper replies4, 2026-12-05, from a new user's trial over MCP): a
``read_handle(row=1)`` of ``strace`` output gave 4.7 KB of its lines split at commas; an empty argument
(``match=""``, ``jq=""``, ``key=""`` ...) was refused as ``match: '' should be non-empty``, naming nothing to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools, error_text
from scratchfs.foundation.errors import InvalidArgument

STRACE = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "strace-f-ls-usr.txt").read_bytes()


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def test_rows_of_strace_output_are_refused_cheaply_naming_the_line_read_of_the_same_lines(tools, scratch_scope):
    """``strace -f ls /usr`` (fixtures/tools/strace-f-ls-usr.txt): its lines hold 1 to 6 cells parted by commas,
    more than its first line's 4 here and there; row=1 read them as a table, 4,731 bytes of cells."""
    stub = scratch_scope.spill(STRACE, source_tool="strace")
    assert stub.content_type == "text"
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": stub.handle, "row": 3, "rows": 20, "budget": 6000})
    text = error_text(refused.value)
    assert "not a table" in text and len(text.encode()) < 400
    call = {"tool": "read_handle", "arguments": {"handle": stub.handle, "line": 3, "lines": 20, "budget": 6000}}
    assert [c.to_json() for c in refused.value.calls] == [call]
    page = tools.call(call["tool"], call["arguments"])  # the call named works: the lines asked for, as lines
    assert page["data"] == b"".join(STRACE.splitlines(keepends=True)[2:22]).decode()


@pytest.mark.parametrize("data", [
    b"".join(b"%d,name%d,%d.5\n" % (i, i, i) for i in range(400)),  # no header line, numbers: still rows
    b"id,name,note,extra\n" + b"".join(b"%d,n%d\n" % (i, i) if i % 3 else b"%d,n%d,x,y\n" % (i, i)
                                       for i in range(400)),  # ragged: short rows
])
def test_a_table_the_sniffer_may_miss_still_reads_as_rows(tools, scratch_scope, data):
    stub = scratch_scope.spill(data, source_tool="t")
    page = tools.call("read_handle", {"handle": stub.handle, "row": 1, "rows": 2})
    assert len(page["rows"]) == 2 and "data" not in page
