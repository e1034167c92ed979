"""A row read of text that holds no table names the line read of the same lines -- and of its last lines when the
row asked is past them: `row=30000` of a grep listing of 24,378 lines named `line=30000`, which is refused in turn
as past the end (helper newuser12: two calls where one does). Each named call, run as written, reads lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import InvalidArgument

GREP = (Path(__file__).resolve().parent.parent / "fixtures" / "workspace-grep-stdlib-defs.txt").read_bytes()


@pytest.mark.parametrize(("row", "rows", "first"), [(10, 50, 10), (99999, 50, 5760), (99999, 20, 5790)])
def test_the_named_line_read_reads_lines(scope, row, rows, first):
    tools = ScratchTools(scope)
    handle = scope.spill(GREP, source_tool="workspace.grep").handle
    total = GREP.count(b"\n") + (not GREP.endswith(b"\n"))
    assert total == 5809
    with pytest.raises(InvalidArgument) as refused:
        tools.read_handle(handle, row=row, rows=rows)
    said = str(refused.value)
    assert "not a table" in said
    name, args = parse_call(said.rsplit(": ", 1)[1])
    page = tools.call(name, args)
    assert page["first_line"] == first and page["total_lines"] == total
    if row > total:
        assert f"{total:,} lines" in said and page["next_line"] is None  # (the last lines: nothing after them)
