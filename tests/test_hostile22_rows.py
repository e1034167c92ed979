"""Hostile tables drawn with pipes (helper hostile22): whatever lines follow a header and its rule -- cells holding
pipes, tabs, NUL bytes, bytes not UTF-8, zero-width and wide characters, CR-only line ends, borders that never
close, a header repeated -- the count of rows the shape says is the count a rows read gives, page after page."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape_pipes import is_piped
from tests.test_structure_reads import follow

_HEADS = [b"| a | b |\n|---|---|\n", b" a | b \n---+---\n", b"+---+---+\n| a | b |\n+---+---+\n",
          "┌───┬───┐\n│ a │ b │\n├───┼───┤\n".encode(), "┌───┬───┐\n│ a │ b │\n│ i │ j │\n├───┼───┤\n".encode(),
          " a │ b \n───┼───\n".encode(), b"\xef\xbb\xbf| a | b |\n|---|---|\n", b"text before\n| a | b |\n| - | - |\n"]
_PIECES = [b"|", b"\\|", b" ", b"\t", b"\x00", b"\xff", b"\xc3", b"\xe2\x80\x8b", "日".encode(), b"\r", b"a", b"1",
           b"-", b"+", b"+---+---+", "│".encode(), "·".encode(), "├───┼───┤".encode(), "└───┴───┘".encode(), b":",
           "║".encode(), b"(3 rows)", b"2 rows in set", b"\xef\xbb\xbf", b"| a | b |", b"|---|---|", b"\n", b"\n",
           b"\r\n"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(head=st.sampled_from(_HEADS), parts=st.lists(st.sampled_from(_PIECES), max_size=80))
def test_the_rows_the_shape_counts_are_the_rows_the_reads_page(scratch_scope, head, parts):
    data = head + b"".join(parts)
    stub = scratch_scope.spill(data, source_tool="t")
    if not is_piped(stub.content_type, stub.shape):
        return
    said = re.search(r"\), (\d[\d,]*) rows?\b", stub.shape)
    assert said is not None, stub.shape
    pages = follow(ScratchTools(scratch_scope), {"handle": stub.handle, "row": 1, "rows": 3}, 4096)
    read = [row for page in pages for row in page["rows"]]
    assert len(read) == int(said.group(1).replace(",", "")), (stub.shape, data, read)
