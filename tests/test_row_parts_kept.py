"""A row larger than a page comes in ``part`` pieces, and each page read the whole row again from its start: a row of
5 MB (a quoted field over 1.6 million lines) cost about 1 s a page, so reading it to its end took pages times its
size -- double the row, four times the time (found timing the pages of hostile rows, hostile6). The rest of a row cut
on a page is now kept (by read and row start), and the next pages cut their piece from it: the row is read once. Each
test reads the row to its end by following next_call and checks the pieces against the row's JSON text."""

from __future__ import annotations

import json

import pytest

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure import table


def _read_row(tools, handle, budget=8192) -> tuple[str, int]:
    """The row's pieces joined, and the pages they took (following next_call while the page is a part)."""
    reply = tools.read_handle(handle, row=1, rows=5, budget=budget)
    pieces, pages = [reply["part"]], 1
    while reply.get("part") is not None and reply["next_call"] and reply["first"] == 1:
        reply = tools.read_handle(**parse_call(reply["next_call"])[1])
        pages += 1
        if reply.get("part") is not None and reply["first"] == 1:
            pieces.append(reply["part"])
    return "".join(pieces), pages


@pytest.mark.parametrize("field", ["y,\n" * 100_000, "x" * 400_000, "é\u202e\x01" * 60_000])
def test_a_row_larger_than_a_page_is_read_once(scratch_scope, monkeypatch, field):
    cells = ["1", "2", field]
    quoted = '"' + field.replace('"', '""') + '"'
    handle = scratch_scope.spill(f"a,b,c\n1,2,{quoted}\n3,4,5\n".encode(), source_tool="sql").handle
    tools = ScratchTools(scratch_scope)
    reads = []
    real = table.rows_from
    monkeypatch.setattr(table, "rows_from", lambda source, offset, *rest: reads.append(offset) or real(
        source, offset, *rest))
    text, pages = _read_row(tools, handle)
    assert text == json.dumps(cells, ensure_ascii=False, separators=(",", ":"))
    assert pages > 20
    assert reads.count(reads[-1] if reads else 0) <= 3, (len(reads), pages)  # (its first page and its last read it)


def test_a_kept_row_is_of_its_read_alone(scratch_scope):
    """Two reads of one row, of other columns: each gets its own row's pieces."""
    field = "z" * 100_000
    handle = scratch_scope.spill(f'a,b,c\n1,"{field}",{field.upper()}\n'.encode(), source_tool="sql").handle
    tools = ScratchTools(scratch_scope)
    first = tools.read_handle(handle, row=1, rows=1, columns=["b"])
    other = tools.read_handle(handle, row=1, rows=1, columns=["c"])
    again = tools.read_handle(**parse_call(first["next_call"])[1])
    later = tools.read_handle(**parse_call(other["next_call"])[1])
    assert set(again["part"]) == {"z"} and set(later["part"]) == {"Z"}
