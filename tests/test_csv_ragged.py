"""A CSV or TSV with ragged rows among its first 50 lines -- a missing last cell (Debian's ``distro-info``
``ubuntu.csv``: 9 names, rows of 6 to 9 cells), a ``## section`` line (numpy's ``umath-validation-set-cos.csv``), a
trailing delimiter, a ``# total`` line -- is a table to its shape, which says how many rows are ragged and which is
the first, as the rows reads number them (``row=``) and as line reads find it (``line=``). Before, any row of another
width than the first in those lines made the shape "text" (rows reads of it still worked). Prose with commas and
lines of code ending in a comma stay text."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
RAGGED = re.compile(r"; ([\d,]+) ragged rows? \(not (\d+) cells\)(?: in the first ([\d,]+) lines)?, the first "
                    r"row=(\d+) \(line ([\d,]+)\)")


def shape_of(data: bytes):
    return describe(data, len(data), data.count(b"\n") + (not data.endswith(b"\n")))


def test_real_csvs_with_ragged_rows_are_tables_naming_the_first_ragged_row(tmp_path):
    cases = {"distro-info-ubuntu.csv": (9, 1, 2), "numpy-umath-cos-head.csv": (4, 1, 2)}
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        tools = ScratchTools(scope)
        for name, (width, row, line) in cases.items():
            data = (TOOLS / name).read_bytes()
            stub = scope.spill(data, source_tool="t")
            assert stub.content_type == "csv", (name, stub.shape)
            found = RAGGED.search(stub.shape)
            assert found is not None, stub.shape
            records = [r for r in csv.reader(io.StringIO(data.decode()[: data.decode().find("\n") + 1] + "".join(
                data.decode().splitlines(keepends=True)[1:50]))) if r]
            assert int(found.group(1).replace(",", "")) == sum(len(r) != width for r in records[1:])
            assert (int(found.group(2)), int(found.group(4)), int(found.group(5))) == (width, row, line)
            page = tools.read_handle(handle=stub.handle, row=row, rows=1)
            assert len(page["header"]) == width and len(page["rows"][0]) != width  # (the row the shape names)
            said = tools.read_handle(handle=stub.handle, line=line, lines=1)["data"]
            assert said.rstrip("\n").split(",") == page["rows"][0]


def test_a_trailing_comma_a_missing_cell_and_a_total_line_leave_a_table():
    rows = [f"{n},item {n},{n * 1.5}" for n in range(1, 40)]
    rows[9] = "10,item 10"  # a missing last cell
    rows[20] += ","  # a trailing delimiter
    data = ("id,name,price\n" + "\n".join(rows) + "\n# total,,\n").encode()
    found = shape_of(data)
    assert found.content_type == "csv", found.text
    assert found.text == ("CSV, 3 columns (id, name, price), 40 rows; 2 ragged rows (not 3 cells), the first row=10 "
                          "(line 11)")


NAMES = st.text(alphabet="abcdefgh_", min_size=1, max_size=8)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 6), st.lists(st.tuples(st.integers(0, 99), st.sampled_from(["", "short", "long", "note"])),
                                   min_size=8, max_size=70), st.data())
def test_ragged_rows_are_counted_as_the_csv_module_reads_them(width, body, data):
    names = data.draw(st.lists(NAMES, min_size=width, max_size=width, unique=True))
    lines = [",".join(names)]
    for number, kind in body:
        cells = [str(number + column) for column in range(width)]
        if kind == "short":
            cells = cells[:-1] if width > 2 else cells
        elif kind == "long":
            cells.append("")
        elif kind == "note":
            cells = cells[:2] if width > 3 else cells
        lines.append(",".join(cells))
    text = "\n".join(lines) + "\n"
    found = shape_of(text.encode())
    records = list(csv.reader(io.StringIO(text)))
    ragged = [at for at, row in enumerate(records[1:50], 1) if len(row) != width]
    if not ragged:
        assert found.content_type == "csv" and "ragged" not in found.text, found.text
        return
    share = sum(len(row) <= width + 1 for row in records[1:50]) / len(records[1:50])
    if share < 0.8:
        return  # (most rows wider than the header by more than one cell: no claim)
    assert found.content_type == "csv", found.text
    said = RAGGED.search(found.text)
    assert said is not None, found.text
    assert (int(said.group(1)), int(said.group(4)), int(said.group(5))) == (len(ragged), ragged[0], ragged[0] + 1)
    assert (said.group(3) is None) == (len(records) <= 50)


WORDS = st.text(alphabet="abcdefghijklmnop", min_size=1, max_size=9)
SENTENCE = st.lists(WORDS, min_size=1, max_size=7).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(SENTENCE, min_size=1, max_size=4).map(", ".join), min_size=5, max_size=60))
def test_prose_with_commas_is_no_table(paragraph):
    """(Lines all with as many commas as the first are a table, as before: no claim on them.)"""
    assume(any(line.count(",") != paragraph[0].count(",") for line in paragraph[1:-1]))
    text = "\n".join(paragraph) + "\n"
    assert shape_of(text.encode()).content_type != "csv"


def test_lines_of_code_ending_in_commas_are_no_table():
    """CPython's ``test_json/test_pass1.py``: a first line holding a comma, then JSON written one value a line,
    each ending in a comma -- one cell filled a line (a false table before the rule of 2 filled cells)."""
    text = ("from test.test_json import PyTest, CTest\n\n\n# from https://json.org/JSON_checker/test/pass1.json\n"
            "JSON = r'''\n[\n" + "".join(f'    "value {n}",\n    {n},\n    true,\n' for n in range(20)) + "]\n'''\n")
    assert shape_of(text.encode()).content_type == "text"
