"""A CSV or TSV whose first lines are ``#`` comments (matplotlib's ``Stocks.csv`` opens with ``# Data source: ...``,
tzdata's ``zone1970.tab`` with its licence): its shape names the header past them and every rows read -- pages,
``columns=``, ``slurp=true`` -- starts there, against the ``csv`` module's reading of the lines after the comments;
a ``#`` line that splits like the rows after it is the header itself (VCF's ``#CHROM``). Before, such a table was
"text" and every rows read refused it."""

from __future__ import annotations

import csv
import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from tests.test_budgets import call_args


def all_rows(tools: ScratchTools, handle: str) -> tuple[list[str] | None, list[list[str]]]:
    """The header (``None``: a table with no header line) and every row, following next_call page by page."""
    call: dict | None = {"handle": handle, "row": 1, "rows": 200}
    header, rows = None, []
    while call is not None:
        page = tools.read_handle(**call)
        header = header or page.get("header")
        rows += page["rows"]
        call = call_args(page["next_call"])[1] if page["next_call"] else None
    return header, rows


def test_stocks_csv_with_a_data_source_comment_is_a_table_from_its_header(tmp_path):
    body = "Date,IBM,AAPL\n" + "".join(f"2014-10-{d:02d},{180 + d},{100 + d}\n" for d in range(1, 31)) * 20
    data = ("# Data source: https://www.stockdata.example, retrieved 2014-11-03\n# prices, daily\n" + body).encode()
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        tools = ScratchTools(scope)
        stub = scope.spill(data, source_tool="t")
        assert stub.content_type == "csv" and "3 columns (Date, IBM, AAPL), 600 rows" in stub.shape, stub.shape
        assert "the header is line 3, after 2 comment lines (line=1, lines=2 reads them)" in stub.shape
        expected = list(csv.reader(io.StringIO(body)))
        assert all_rows(tools, stub.handle) == (expected[0], expected[1:])
        assert tools.read_handle(handle=stub.handle, jq="length", slurp=True)["results"] == [600]
        picked = tools.read_handle(handle=stub.handle, row=1, rows=2, columns=["IBM"])
        assert picked["rows"] == [["181"], ["182"]]
        said = tools.read_handle(handle=stub.handle, line=1, lines=2)
        assert said["data"].startswith("# Data source") and said["data"].count("\n") <= 2


def test_a_vcf_header_starting_with_a_hash_is_the_header_and_its_meta_lines_comments(tmp_path):
    data = ("##fileformat=VCFv4.2\n##source=test\n#CHROM\tPOS\tID\tREF\tALT\n"
            + "".join(f"chr1\t{i}\t.\tA\tG\n" for i in range(1000))).encode()
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(data, source_tool="t")
        header, rows = all_rows(ScratchTools(scope), stub.handle)
    assert stub.shape.startswith("TSV, 5 columns (#CHROM, POS, ID, REF, ALT), 1,000 rows"), stub.shape
    assert header == ["#CHROM", "POS", "ID", "REF", "ALT"] and rows[999] == ["chr1", "999", ".", "A", "G"]


_COMMENT = st.text("abc ,:/.-", max_size=40).map(lambda t: "#" + t)
_CELL = st.text("abcxyz019 .-", min_size=1, max_size=8).map(str.strip).filter(bool)


@settings(max_examples=60, deadline=None)
@given(st.lists(_COMMENT, max_size=5), st.integers(2, 5), st.lists(st.lists(_CELL, min_size=5, max_size=5),
                                                                      min_size=2, max_size=40))
def test_rows_after_any_comment_lines_are_the_csv_modules(tmp_path_factory, comments, width, cells):
    header = [f"col{n}" for n in range(width)]
    table = [header] + [row[:width] for row in cells] * 30
    body = io.StringIO()
    csv.writer(body, lineterminator="\n").writerows(table)
    data = ("".join(line + "\n" for line in comments) + body.getvalue()).encode()
    with ScratchStore(tmp_path_factory.mktemp("s")) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(data, source_tool="t")
        assert stub.content_type == "csv", (stub.shape, data[:200])
        got = all_rows(ScratchTools(scope), stub.handle)
    own = bool(comments) and comments[-1].count(",") == width - 1  # (the last splits as the rows do: the header)
    first, below = (next(csv.reader([comments[-1]])), table) if own else (header, table[1:])
    if "no header" in stub.shape:  # (a header line with an empty name, '#,,': its first line is row 1, as counted)
        assert got == (None, [first, *below]) and f" {len(below) + 1:,} rows" in stub.shape, stub.shape
    else:
        assert got == (first, below), stub.shape
    skipped = len(comments) - own
    assert (f"after {skipped} comment line" in stub.shape) == (skipped > 0), stub.shape
    assert json.dumps(got)  # (every cell a string)
