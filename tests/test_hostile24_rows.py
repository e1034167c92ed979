"""Rows far apart, paged (helper hostile24): a CSV whose rows stand between runs of lines that are no rows -- blank
lines (LF and CRLF), lines of spaces, rows whose quoted cells hold blank lines -- read page after page, the pages
stopping after ``FAR_LINES`` such lines (lowered here so that runs of a few lines cross it): every row reached once,
in order, numbered as ``csv`` numbers them, from ``row=1`` and from each ``row=N``."""

from __future__ import annotations

import csv
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.engine.structure import BytesSource, table_reader
from scratchfs.engine.structure.table import rows_page

_PIECES = [b"\n", b"\r\n", b"x,1\n", b'"q\n\n\nz",2\n', b"  \n", b",\n", b"\n" * 9, b"y,\"a\r\nb\"\r\n"]


def _rows(data: bytes) -> list[list[str]]:
    return [row for row in csv.reader(io.StringIO(data.decode(), newline="")) if row][1:]


def _follow(source: BytesSource, page, budget: int) -> list[tuple[int, list[str]]]:
    got = []
    for _ in range(1000):
        got += [(page.first + i, row) for i, row in enumerate(page.items)]
        if page.cursor is None:
            return got
        page = rows_page(source, cursor=page.cursor, budget_bytes=budget)
    pytest.fail("no end after 1,000 pages")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(st.sampled_from(_PIECES), max_size=40), far=st.integers(1, 6), rows=st.integers(1, 4),
       budget=st.sampled_from([1024, 8192]))
def test_every_row_far_apart_is_reached_once_numbered_as_csv_numbers_it(monkeypatch, parts, far, rows, budget):
    monkeypatch.setattr(table_reader, "FAR_LINES", far)
    data = b"a,b\n" + b"".join(parts)
    want = _rows(data)
    if not want:
        return
    source = BytesSource(data)
    got = _follow(source, rows_page(source, 1, rows, budget_bytes=budget), budget)
    assert got == list(enumerate(want, 1)), data
    for number in range(1, len(want) + 1):
        first = _follow(source, rows_page(source, number, 1, budget_bytes=budget), budget)
        assert first[0] == (number, want[number - 1]), (data, number)
