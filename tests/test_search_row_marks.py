"""A search of a CSV entry gives each window's row (``api.search_rows``), counted from the table's start: every page
of the search parsed the table again from its first byte up to its matches (118 ms a page near 2 MiB of dpkg's
descriptions). Where the rows counted last start is now kept per entry (``engine.structure.row_marks``): the next
page counts on from the nearest row before its first match, and gives the rows a count from the start gives."""

from __future__ import annotations

from pathlib import Path

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools
from scratchfs.api.search_window import window_hits
from scratchfs.engine.structure import table
from scratchfs.engine.structure.paging import BytesSource
from scratchfs.engine.structure.table import rows_at

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def _pages(scratch_scope, raw: bytes, match: str, monkeypatch) -> list[tuple[list[tuple[int, int]], list[int]]]:
    """Each page of a search of ``raw`` spilled: its windows' (first match offset, row), and where the row counts
    of its numbering started (each ``skip_rows`` call's first byte)."""
    starts: list[int] = []
    skip = table.skip_rows

    def counting(source, offset, count, rows):
        starts.append(offset)
        return skip(source, offset, count, rows)

    monkeypatch.setattr(table, "skip_rows", counting)
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(raw, source_tool="dpkg-query").handle
    call: dict | None = {"handle": handle, "match": match, "max_matches": 3}
    pages = []
    while call is not None:
        starts.clear()
        reply = tools.call("read_handle", call)
        pages.append(([(window_hits(w)[0]["offset"], w["row"]) for w in reply["windows"]], list(starts)))
        call = parse_call(reply["next_call"])[1] if reply.get("next_call") else None
    return pages


def test_a_search_s_next_pages_count_rows_on_from_the_last_page_s(scratch_scope, monkeypatch):
    raw = (TOOLS / "dpkg-query-multiline.csv").read_bytes()
    pages = _pages(scratch_scope, raw, "GNU", monkeypatch)
    assert len(pages) >= 4
    found = [hit for windows, _ in pages for hit in windows]
    assert [row for _, row in found] == rows_at(BytesSource(raw), [at for at, _ in found])  # (counted from the start)
    counted = [min(starts) for _, starts in pages]
    assert counted[0] == 0 and all(counted[1:]), counted  # (only the first page counted from the table's start)
    assert counted == sorted(counted)
