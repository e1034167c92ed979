"""Tables printed as ``ps`` prints them: each column its width, numbers right-aligned, text left-aligned, and a value
wider than its column pushing the cells after it right, one space after it. ``ps -eo pid,rss,vsz,comm
--sort=-rss`` on a machine with processes of 6-digit ``RSS`` and 7-digit ``VSZ`` (fixtures/tools/, fixtures/README.md)
leaves no gutter between the columns in its first lines: such a table is told at spill time and every row read back as
its cells (the plain answer: the line split at runs of spaces, the last column the rest), never given whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_aligned import ALIGNED_SHAPE
from scratchfs.engine.structure.aligned import RUNS, find_layout
from tests.test_structure_reads import follow

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"

# fixture: its header's names (every row's cells: the line split at runs of spaces, the last column the rest)
_REAL = {
    "ps-eo-sort-rss.txt": ["PID", "RSS", "VSZ", "COMMAND"],
    "ps-eo-rss-first.txt": ["RSS", "VSZ", "PID", "COMMAND"],
    "ps-eo-user-sort-vsz.txt": ["PID", "PPID", "USER", "RSS", "VSZ", "ELAPSED", "COMMAND"],
    "ps-aux-sort-rss.txt": ["USER", "PID", "%CPU", "%MEM", "VSZ", "RSS", "TTY", "STAT", "START", "TIME", "COMMAND"],
    "ps-auxww-wide-values.txt": ["USER", "PID", "%CPU", "%MEM", "VSZ", "RSS", "TTY", "STAT", "START", "TIME",
                                 "COMMAND"],
    "ps-eo-args-sort-vsz.txt": ["PID", "USER", "RSS", "VSZ", "ELAPSED", "COMMAND"],
    "free-w.txt": ["", "total", "used", "free", "shared", "buffers", "cache", "available"],
    "df-i.txt": ["Filesystem", "Inodes", "IUsed", "IFree", "IUse%", "Mounted on"],
}


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _plain(text: str, columns: int) -> list[list[str]]:
    """The plain Python answer: each line after the header split at runs of spaces, the last column the rest,
    cells missing at the end empty."""
    rows = []
    for line in text.split("\n")[1:]:
        if line.strip():
            cells = line.rstrip().split(None, columns - 1)
            rows.append(cells + [""] * (columns - len(cells)))
    return rows


def _read(tools, scratch_scope, data: bytes) -> tuple[str, list[dict]]:
    stub = scratch_scope.spill(data, source_tool="ps")
    return stub.shape, follow(tools, {"handle": stub.handle, "row": 1, "rows": 25}, 8192)


@pytest.mark.parametrize("name", sorted(_REAL))
def test_real_tables_whose_wide_values_push_their_cells_read_as_their_cells(tools, scratch_scope, name):
    data = (_TOOLS / name).read_bytes()
    names = _REAL[name]
    want = _plain(data.decode(), len(names))
    shape, pages = _read(tools, scratch_scope, data)
    assert shape.startswith(f"{ALIGNED_SHAPE}, {len(names)} columns: ") and f", {len(want)} rows; " in shape
    assert "split at runs of spaces" in shape
    assert all(page["header"] == names for page in pages)
    assert [row for page in pages for row in page["rows"]] == want  # (no row given whole: no {"unsplit": ...})
    assert "aligned by spaces" in pages[0]["note"] and all("note" not in page for page in pages[1:])  # (said once)


def test_a_number_wider_than_the_rest_below_the_first_row_moves_its_column_start_left():
    """``ps -eo pid,rss,vsz,comm``: PID 1's 5-digit RSS under ``  RSS`` over kernel threads' ``0``: its column
    starts where it does, so the positions cut every row as runs of spaces do (the shape says so)."""
    lines = (_TOOLS / "ps-eo-sort-rss.txt").read_text().split("\n")
    rows = [f"{n:5}     0      0 kworker/{n}" for n in range(2, 14)]
    text = "\n".join([lines[0], "    1 13832  54280 process", *rows])
    layout = find_layout(text.split("\n"))
    assert layout is not None and layout.rule == RUNS and layout.starts == (0, 6, 13, 19)
    assert [layout.cells(line) for line in text.split("\n")[1:3]] == [["1", "13832", "54280", "process"],
                                                                       ["2", "0", "0", "kworker/2"]]


def test_one_row_whose_numbers_run_across_a_gutter_leaves_the_table_split_at_runs_of_spaces(tools, scratch_scope):
    """``ps -eo pid,rss,vsz,comm`` by PID: one process's 6-digit ``RSS`` and 7-digit ``VSZ`` among kernel threads'
    ``0``, its ``VSZ`` pushed across the gutter every other row leaves before ``COMMAND``: the columns' positions
    would cut ``1896688`` in two; every row reads as its line split at runs of spaces (Hypothesis drew the kind:
    the shape said "cells at the header's column positions")."""
    rows = ["    1 13832 169284 systemd", *(f"{n:5}     0      0 kworker/{n}" for n in range(2, 12)),
            " 5150 704520 1896688 python", " 5151 13020 233956 node"]
    text = "\n".join(["  PID   RSS    VSZ COMMAND", *rows]) + "\n"
    layout = find_layout(text.split("\n"))
    assert layout is not None and layout.rule == RUNS and layout.starts == (0, 6, 12, 19)
    assert layout.cells(rows[11]) == ["5150", "704520", "1896688", "python"]
    shape, pages = _read(tools, scratch_scope, text.encode())
    assert shape.startswith(f"{ALIGNED_SHAPE}, 4 columns: ") and shape.endswith("split at runs of spaces")
    assert [row for page in pages for row in page["rows"]] == _plain(text, 4)


_NAME = st.from_regex(r"[A-Z][A-Z_%]{0,7}", fullmatch=True)
_WORD = st.from_regex(r"[a-z][a-z0-9./:-]{0,8}", fullmatch=True)


@st.composite
def _printed(draw):
    """A table printed as ``ps`` prints it: each column a width (its name's or more), numbers of any width
    right-aligned (their names too), words left-aligned and cut to their column's width (``ps`` cuts ``USER``), the
    last column words and spaces; a cell that does not fit its place (a number wider than its column, or pushed by
    one) starts one space after the cell before."""
    count = draw(st.integers(2, 7))
    names = draw(st.lists(_NAME, min_size=count, max_size=count, unique=True))
    numeric = [draw(st.booleans()) for _ in names[:-1]] + [False]
    widths = [len(name) + draw(st.integers(0 if numeric[c] else 1, 4)) for c, name in enumerate(names)]  # (a
    # word's column wider than its name, as ps's USER: names one space apart over no gutter are one, CONTAINER ID)
    digits = st.integers(1, 12).flatmap(lambda n: st.integers(10 ** (n - 1) if n > 1 else 0, 10**n - 1))
    last = st.lists(_WORD, min_size=1, max_size=3).map(" ".join)
    rows = [[str(draw(digits)) if numeric[c] else draw(last) if c == count - 1 else draw(_WORD)[: widths[c]]
             for c in range(count)] for _ in range(draw(st.integers(2, 60)))]

    def line(cells: list[str]) -> str:
        out, end, place = "", -1, 0
        for c, cell in enumerate(cells):
            want = place + widths[c] - len(cell) if numeric[c] else place
            at = max(want, end + 1 if end >= 0 else 0)
            out = out.ljust(at) + cell
            end, place = len(out), place + widths[c] + 1
        return out

    header = line(names)
    assume("  " in header.strip())  # (a header with no run of 2 spaces is no table's: a number's column wider
    return names, rows, "".join(line(cells) + "\n" for cells in [names, *rows])  # than its name makes one)


# (20 examples by default, 50 before: their cases are drawn anew each run; SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_printed())
def test_a_table_printed_as_ps_prints_it_reads_back_as_its_cells(tools, scratch_scope, table):
    names, rows, text = table
    data = text.encode()
    assert describe(data, len(data), text.count("\n")).text.startswith(ALIGNED_SHAPE)
    shape, pages = _read(tools, scratch_scope, data)
    assert pages[0]["header"] == names and shape.endswith("split at runs of spaces")
    assert [row for page in pages for row in page["rows"]] == _plain(text, len(names)) == rows
