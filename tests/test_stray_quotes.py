"""structnotes1 (hostile31's finding 1): a quote that opens a CSV field and never closes (``5" floppy`` written
``"5 floppy``) makes the ``csv`` module read every line after it as that field's: a 10,000-line CSV read as 2 rows,
row 2 a cell of 176 KB, with no word of it. Now the stub's shape, a rows page that reaches the row and a slurp read
name the row, where the quote opened and a read of its raw bytes; real multi-line quoted cells (dpkg's descriptions)
are told nothing. Each test here failed before its fix."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure.stray_quotes import opening_quote

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def _table(stray: str, at: int = 2, count: int = 10_000) -> bytes:
    lines = ["id,name,size"] + [f"{i},item {i},{i * 3}" for i in range(1, count)]
    lines[at] = stray
    return ("\n".join(lines) + "\n").encode()


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _stub(tools: ScratchTools, data: bytes) -> dict:
    return tools.scope.spill(data, source_tool="t").to_dict()


@pytest.mark.parametrize(("at", "stray"), [(2, '2,"5 floppy,6'), (45, '45,"O Brien,7'), (3000, '3000,x,"9')])
def test_the_stub_names_the_row_and_line_a_stray_quote_opens_on(tools, at, stray):
    data = _table(stray, at)
    stub = _stub(tools, data)
    said = re.search(r"; row=(\d+) \(line ([\d,]+)\) opens a quote that runs over the ([\d,]+) lines after it",
                     stub["shape"])
    assert said is not None, stub["shape"]
    numbers = [int(said.group(n).replace(",", "")) for n in (1, 2, 3)]
    assert numbers == [at, at + 1, 9_999 - at]
    raw = tools.read_handle(handle=stub["handle"], line=at + 1, lines=1)["data"]
    assert raw.rstrip("\n") == stray  # (the line the shape names holds the quote)


def test_a_rows_page_reaching_the_row_names_the_quote_byte_and_a_read_of_it(tools):
    data = _table('2,"5 floppy,6')
    handle = _stub(tools, data)["handle"]
    for page in (tools.read_handle(handle=handle, row=1, rows=5), tools.read_handle(handle=handle, row=2, rows=5)):
        said = re.search(r"row 2 holds a quote opened at byte (\d+) that runs over the ([\d,]+) lines after it.*"
                         r"offset=(\d+), length=(\d+)", page["note"])
        assert said is not None, page
        quote, start, length = int(said.group(1)), int(said.group(3)), int(said.group(4))
        assert data[quote : quote + 1] == b'"' and data.index(b'"') == quote and said.group(2) == "9,997"
        shown = tools.read_handle(handle=handle, offset=start, length=length)["data"]
        assert shown.startswith('2,"5 floppy,6\n3,item 3,9') and len(json.dumps(page, separators=(",", ":"))) < 8192


def test_a_slurp_read_names_the_row(tools):
    handle = _stub(tools, _table('2,"5 floppy,6'))["handle"]
    page = tools.call("read_handle", {"handle": handle, "jq": "length", "slurp": True})
    assert page["results"] == [2]
    assert page["note"].startswith("row 2 holds a quote opened at byte 26 that runs over the 9,997 lines after it")


def test_real_multi_line_cells_are_told_nothing(tools):
    data = (TOOLS / "dpkg-query-descr.csv").read_bytes()
    stub = _stub(tools, data)
    assert stub["content_type"] == "csv" and "quote" not in stub["shape"], stub["shape"]
    page = tools.read_handle(handle=stub["handle"], row=1, rows=50, budget=65536)
    assert any("\n" in cell for row in page["rows"] for cell in row) and "quote" not in page.get("note", "")
    slurp = tools.call("read_handle", {"handle": stub["handle"], "jq": "length", "slurp": True})
    assert "note" not in slurp


@pytest.mark.parametrize(("line", "at"), [(b'1,"5 floppy,6', 2), (b'1,"a ""b"",c",d,"open', 16), (b'"x",y', -1),
                                          (b'a,b"c,d', -1), (b'"open', 0)])
def test_the_opening_quote_is_the_one_its_line_leaves_open(line, at):
    assert opening_quote(line, b",") == at


def _quoted_table(cell: str, delimiter: str = ",", count: int = 30, alone: bool = False) -> bytes:
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(["id", "payload", "n"])
    writer.writerows([[str(i), "short" if alone else cell, str(i)] for i in range(1, count)])
    writer.writerow([str(count), cell, "0"])
    return out.getvalue().encode()


_CSV_CELL = "\n".join(f"{i},x{i},{i * 2}" for i in range(12))  # (a CSV held in a cell: each line a row's commas)
_CODE_CELL = "\n".join(f'    f(a, b, "c{i}")' for i in range(12))  # (code, its quotes doubled: 2 commas a line)


@pytest.mark.parametrize(("cell", "delimiter", "alone"), [(_CSV_CELL, ",", False), (_CSV_CELL, ",", True),
                                                          (_CODE_CELL, ",", False),
                                                          (_CSV_CELL.replace(",", "\t"), "\t", False),
                                                          (_CSV_CELL.replace(",", ";"), ";", True)],
                         ids=["csv-in-csv", "csv-in-csv-alone", "code", "tsv", "semicolons-alone"])
def test_a_real_multi_line_cell_holding_rows_delimiters_is_no_stray_quote(tools, cell, delimiter, alone):
    """hostile32: a quoted cell holding a CSV (or code) whose every line holds a row's delimiters, closed as a quoted
    field closes, was told 'a stray quote?' by rows pages and slurp reads (and the stub's shape, when the cell is
    the table's only one): its quote closes, followed by a delimiter -- a real cell."""
    data = _quoted_table(cell, delimiter, alone=alone)
    stub = _stub(tools, data)
    assert "stray quote" not in stub["shape"] and stub["shape"].endswith("30 rows"), stub["shape"]
    handle = stub["handle"]
    for reply in (tools.read_handle(handle=handle, row=1, rows=3), tools.read_handle(handle=handle, row=30, rows=3),
                  tools.read_handle(handle=handle, slurp=True, jq=".[-1].payload")):
        assert "stray quote" not in json.dumps(reply), reply
    assert tools.read_handle(handle=handle, slurp=True, jq=".[-1].payload")["results"] == [cell]


def test_a_stray_quote_closed_by_a_quote_inside_a_later_cell_is_still_told(tools):
    """The quote of row 2 runs on to the quote of a later row's quoted field, which is followed by more of a cell
    (strict CSV refuses it): still a stray quote, as before the check of quotes that close."""
    lines = ["id,name,size"] + [f"{i},item {i},{i * 3}" for i in range(1, 40)]
    lines[2], lines[30] = '2,"5 floppy,6', '30,"item, 30",90'
    handle = _stub(tools, ("\n".join(lines) + "\n").encode())["handle"]
    note = tools.read_handle(handle=handle, row=1, rows=5)["note"]
    assert re.search(r"row 2 holds a quote opened at byte \d+ that runs over the 28 lines after it", note), note
