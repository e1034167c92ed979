"""A CSV/TSV table's last line of totals is its footer, no row (helper leftovers3): ``du -c``'s ``1128<TAB>total``
(no header line) and ``size -t``'s ``... (TOTALS)`` (a header line) were counted by the shape and read by ``row=``,
``slurp=true`` and a search's ``row=`` as rows, where a table aligned by spaces (``wc``, ``df --total``) already
leaves its footer out. Real fixtures (fixtures/tools/, fixtures/README.md); a table whose other rows say ``total``
too (subtotals) keeps its last line a row."""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
# fixture: (its real rows, the footer's line and words, the search of its footer's word)
_CASES = {
    "du-c-python3.tsv": (6, 7, "1128 total", "total"),
    "size-t-libz.txt": (3, 5, "322536 3888 24 326448 4fb30 (TOTALS)", "TOTALS"),
}


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


@pytest.mark.parametrize("name", sorted(_CASES))
def test_a_last_line_of_totals_is_no_row_of_the_shape_nor_of_the_reads(tools, scratch_scope, name):
    count, line, words, word = _CASES[name]
    data = (_TOOLS / name).read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    assert f', {count} rows, then a footer, no row (line {line}: "{words}", line={line} reads it)' in stub.shape
    last = data.decode().splitlines()[-2].split("\t")
    reply = tools.call("read_handle", {"handle": stub.handle, "row": count - 1, "rows": 5})
    assert reply["rows"][-1] == last and len(reply["rows"]) == 2 and not reply["more"]
    with pytest.raises(InvalidArgument, match=rf"row {count + 1} is past the last row \({count}\)"):
        tools.call("read_handle", {"handle": stub.handle, "row": count + 1})
    found = tools.call("read_handle", {"handle": stub.handle, "match": word})
    assert found["windows"][0]["line"] == line and "row" not in found["windows"][0]
    assert " ".join(tools.call("read_handle", {"handle": stub.handle, "line": line})["data"].split()) == words
    slurped = tools.call("read_handle", {"handle": stub.handle, "jq": "length", "slurp": True})
    assert slurped["results"] == [count]


def test_a_search_of_a_row_still_names_it(tools, scratch_scope):
    stub = scratch_scope.spill((_TOOLS / "du-c-python3.tsv").read_bytes(), source_tool="bash")
    found = tools.call("read_handle", {"handle": stub.handle, "match": "python3.11/json\n"})
    assert found["windows"][0]["row"] == 6


@pytest.mark.parametrize("text", [
    "5\ta/x\n7\ttotal\n3\tb/y\n9\ttotal\n",  # (subtotals: every "total" line a row)
    "name,size\nx,1\ny,2\nTotal,3\n",  # (not exactly "total")
    "5\ttotal\n",  # (no row before it)
    'name,size\n"x\ny",1\ntotal,1\n',  # (a quoted cell: a line may be no record)
])
def test_no_footer_where_it_is_not_unmistakable(text):
    from scratchfs.api.table_footer import csv_footer  # (a module of this fix: the reads' tests fail before it)

    assert csv_footer(text, "," if "," in text else "\t") is None


def test_a_footer_whose_first_cell_says_so():
    from scratchfs.api.table_footer import csv_footer

    assert csv_footer("a,1\nb,2\ntotal,3\n\n", ",") == (2, "total,3")


def test_a_last_row_naming_a_file_total_is_a_row(tools, scratch_scope):
    """A headerless TSV whose last row's last cell is ``total`` but whose other cells are no sums (a file named
    ``total`` among others) keeps it as a row, as an aligned table's (``aligned.is_total``)."""
    data = b"".join(b"%d\t/home/me/%s\t%s\n" % row for row in
                    ((4, b"a", b"notes"), (8, b"b", b"plan"), (12, b"c", b"draft"), (3, b"d", b"total")))
    stub = scratch_scope.spill(data, source_tool="bash")
    assert "footer" not in stub.shape, stub.shape
    assert tools.call("read_handle", {"handle": stub.handle, "row": 4})["rows"][0] == ["3", "/home/me/d", "total"]
