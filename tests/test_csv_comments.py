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
from scratchfs.api.shape_words import column_names
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


_COMMENT = st.text("abc :/.-", max_size=40).map(lambda t: "#" + t)
_CELL = st.text("abcxyz019 .-", min_size=1, max_size=8).map(str.strip).filter(bool)


# (25 examples by default, 60 before: each spills to a store; their cases are drawn anew each run;
# SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=25, deadline=None)
@given(st.lists(_COMMENT, max_size=5), st.integers(2, 5), st.lists(st.lists(_CELL, min_size=5, max_size=5),
                                                                      min_size=2, max_size=40))
def test_rows_after_any_comment_lines_are_the_csv_modules(tmp_path_factory, comments, width, cells):
    """Comment lines that split as no row does (no comma) are passed over, whatever the rows hold; a comment line
    that splits as the rows do is told apart from a header by test_a_hash_header_stays_the_header_..."""
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
    headless = "no header" in stub.shape  # (col0 over cells such as a0: data like the rows, to the stub)
    assert got == ((None, table) if headless else (header, table[1:])), stub.shape
    assert (f"after {len(comments)} comment line" in stub.shape) == bool(comments), stub.shape
    assert json.dumps(got)  # (every cell a string)



@settings(max_examples=60, deadline=None)
@given(st.lists(st.text("abcxyz ", min_size=1, max_size=8), min_size=2, max_size=5), st.booleans())
def test_a_comment_holding_as_many_commas_as_the_header_is_a_comment(names, numbers):
    """A comment line that splits as the header does (``# prices, daily, USD`` before ``Date,IBM,AAPL``) is a
    comment when that header is a line of names: before, it was taken for the header (as VCF's ``#CHROM``), and the
    real header read as the first row. When the line after it is data -- a cell a number, as ``numpy.savetxt``
    writes its ``# a,b`` header over rows of numbers -- the comment is the header, as before."""
    names = [f"{name.strip() or 'n'}_{'abcde'[n]}" for n, name in enumerate(names)]  # (names of letters: a name
    # ending in a digit, as 'a0' over a first column 'v0', 'v1'..., reads as data like the rows under it)
    width = len(names)
    comment = "# " + ", ".join(f"note {n}" for n in range(width))
    if numbers:  # numpy.savetxt(header=...): the commented line is the header
        data = "\n".join([comment.replace(" ", ""), *[",".join(str(r * width + c) for c in range(width))
                                                      for r in range(40)]]) + "\n"
        expected = (comment.replace(" ", "").split(","), 40)
    else:
        data = "\n".join([comment, ",".join(names), *[",".join([f"v{r}", *[str(r)] * (width - 1)])
                                                       for r in range(40)]]) + "\n"
        expected = (names, 40)
    with ScratchStore() as store:
        scope = store.scope("r", "a")
        stub = scope.spill(data.encode(), source_tool="t")
        header, rows = all_rows(ScratchTools(scope), stub.handle)
    assert stub.content_type == "csv", stub.shape
    assert (header, len(rows)) == expected, (stub.shape, header)
    assert f"{len(rows):,} rows" in stub.shape


_NAME = st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)
_WORDY_COMMENT = st.lists(st.text("abc :/.-", max_size=12), min_size=1, max_size=5).map(lambda t: "#" + ",".join(t))
_TYPED = st.sampled_from([lambda n: str(n * 37), lambda n: f"2026-12-{n % 28 + 1:02d}", lambda n: f"{n}.{n % 7}5",
                          lambda n: f"{n % 9 + 1}.{n % 4}K"])


# (30 examples by default, 80 before: each spills to a store; their cases are drawn anew each run;
# SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=30, deadline=None)
@given(st.lists(_WORDY_COMMENT, max_size=4), st.lists(_NAME, min_size=2, max_size=5), st.data(), st.integers(0, 4),
       st.booleans(), st.sampled_from([",", "\t"]))
def test_a_hash_header_stays_the_header_and_comments_before_it_are_passed_over(
        tmp_path_factory, comments, names, data, short, hashed, delimiter):
    """A CSV whose header starts with '#' (``#id,name,value``) and whose first row is ragged (fewer cells: an
    export that drops trailing empty fields) was read from the line after that header, which was taken for a
    comment: the '#' line counted as the header only when it split as the line right after it did. Now the '#' line
    is the header when it splits as most of the lines after it do and the line after it is no header of its own
    (ragged, or data like the rows under it); a comment line before a header of names over typed rows -- even one
    holding as many delimiters as the rows -- is still passed over. Against the csv module: the header the file
    holds and the rows under it, whichever way the header is written."""
    kinds = [data.draw(_TYPED) for _ in names]
    rows = [[kind(n) for kind in kinds] for n in range(1, 41)]
    rows[0] = rows[0][: max(1, len(names) - short)]  # (a ragged first row when short > 0)
    comments = [c.replace(",", delimiter) for c in comments]
    header = ("#" if hashed else "") + delimiter.join(names)
    text = "".join(line + "\n" for line in [*comments, header, *(delimiter.join(r) for r in rows)])
    expected = list(csv.reader(io.StringIO(text.split("\n", len(comments))[-1], newline=""), delimiter=delimiter))
    with ScratchStore(tmp_path_factory.mktemp("s")) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(text.encode(), source_tool="t")
        got = all_rows(ScratchTools(scope), stub.handle)
    assert got == (expected[0], expected[1:]), (stub.shape, text[:300])
    if stub.content_type == "csv":  # (a ragged row among the first 50 lines: stored as text, read as a table)
        assert (f"after {len(comments)} comment line" in stub.shape) == bool(comments), stub.shape
        assert ", ".join(column_names(expected[0], 3)) in stub.shape and "40 rows" in stub.shape, stub.shape


def test_comment_lines_after_a_byte_order_mark_are_passed_over_by_the_reads_as_by_the_shape(tmp_path):
    """An Excel export with a byte order mark before its comment lines: the shape passed over them ('the header is
    line 3'), but every rows read looked for them after no mark (bytes, decoded as Latin-1: 'ï»¿#') and took the first
    comment for the header."""
    body = "Date,IBM,AAPL\n" + "".join(f"2014-10-{d:02d},{180 + d},{100 + d}\n" for d in range(1, 31))
    data = "\ufeff# Data source: stocks, daily\n# retrieved 2014-11-03\n".encode() + body.encode()
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(data, source_tool="t")
        assert stub.shape.startswith("CSV, 3 columns (Date, IBM, AAPL), 30 rows; the header is line 3"), stub.shape
        expected = list(csv.reader(io.StringIO(body)))
        assert all_rows(ScratchTools(scope), stub.handle) == (expected[0], expected[1:])
        slurped = ScratchTools(scope).read_handle(handle=stub.handle, jq="[length, .[0].IBM]", slurp=True)
        assert slurped["results"] == [[30, 181]]


def test_a_table_with_no_header_after_comments_says_where_its_rows_start(tmp_path):
    """tzdata's ``iso3166.tab`` (comments, then ``AD<TAB>Andorra`` rows with no header line) was told "no header,
    249 rows; the header is line 31" (helper modeltrial): a shape that contradicts itself. It now says where the rows
    start, and row=1 is that line."""
    comments = ["# ISO 3166 alpha-2 country codes", "#", "# This file is in the public domain.", "#country-",
                "#code\tname of country, territory, area, or subdivision"]
    rows = [f"{a}{b}\t{'Land ' * (1 + (ord(a) + ord(b)) % 3)}{a}{b}".rstrip() for a in "ABCDEFG" for b in "ADEGIL"]
    data = ("\n".join(comments + rows) + "\n").encode()
    with ScratchStore(tmp_path) as store:
        scope = store.scope("r", "a")
        stub = scope.spill(data, source_tool="cat")
        assert stub.content_type == "csv" and "no header" in stub.shape, stub.shape
        assert "42 rows; the rows start at line 6, after 5 comment lines" in stub.shape, stub.shape
        assert "the header is" not in stub.shape
        header, got = all_rows(ScratchTools(scope), stub.handle)
        assert header is None and got == [row.split("\t") for row in rows]
