"""A table's footer is no row (helper tablefooters1): ``unzip -l``'s closing rule of dashes over its totals
(``3411683  225 files``), ``df --total``'s and ``wc``'s last line of totals were counted by the shape and read by
``row=`` as rows (``[['3411683', '', '', '225 files']]``); psql's ``(N rows)``, DuckDB's ``N rows  M columns`` and
the closing borders of ``sqlite3 -box``/``-table`` were not, and are checked beside them. For each real fixture
(fixtures/tools/, fixtures/README.md): the shape's row count is the real one, the last row read is the last real
row (the line over the footer, split as Python splits it), and a row past it is refused as past the last."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"


def _words(line: str, columns: int) -> list[str]:
    return line.split(None, columns - 1)


def _pipes(line: str, columns: int) -> list[str]:
    cells = [cell.strip() for cell in re.split("[|│]", line.strip().strip("|│"))]
    assert len(cells) == columns
    return cells


# fixture: (its real rows, the last row's line counted from the end, its split, its columns)
_CASES = {
    "unzip-l-python-stdlib.txt": (37, 3, _words, 4),  # (a rule, then "3411683  225 files")
    "df-total.txt": (3, 2, _words, 6),  # ("total  301237740 ...  -")
    "wc-etc-conf.txt": (19, 2, _words, 4),  # (" 1252  4490 35013 total"; no header line)
    "psql-packages.txt": (40, 3, _pipes, 4),  # ("(40 rows)", a blank line)
    "psql-unicode-packages.txt": (25, 3, _pipes, 3),
    "sqlite-table-packages.txt": (30, 2, _pipes, 3),  # (the bottom border)
    "sqlite-box-packages.txt": (30, 2, _pipes, 3),
    "duckdb-packages.txt": (12, 3, _pipes, 3),  # (the bottom border, then "12 rows  3 columns")
}
_FOOTER_LINES = {"unzip-l-python-stdlib.txt": (42, "3411683 225 files"),
                 "df-total.txt": (5, "total 301237740 25665012 117751556 18% -")}


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


@pytest.mark.parametrize("name", sorted(_CASES))
def test_a_tables_footer_is_no_row_of_its_shape_nor_of_its_reads(tools, scratch_scope, name):
    count, back, split, columns = _CASES[name]
    data = (_TOOLS / name).read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    said = re.search(r"(?:, |each of its first )([\d,]+) (?:rows?|lines)", stub.shape)
    assert said is not None, stub.shape
    if "no header line" not in stub.shape:
        assert int(said.group(1).replace(",", "")) == count, stub.shape
    last = split(data.decode().splitlines()[-back], columns)
    reply = tools.call("read_handle", {"handle": stub.handle, "row": count - 1, "rows": 5})
    assert reply["rows"][-1] == last and len(reply["rows"]) == 2 and not reply["more"]
    with pytest.raises(InvalidArgument, match=rf"row {count + 1} is past the last row \({count}\)"):
        tools.call("read_handle", {"handle": stub.handle, "row": count + 1})


@pytest.mark.parametrize("name", sorted(_FOOTER_LINES))
def test_the_shape_names_the_footer_and_its_line_reads_it(tools, scratch_scope, name):
    line, words = _FOOTER_LINES[name]
    data = (_TOOLS / name).read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    assert f'then a footer, no row (line {line}: "{words}", line={line} reads it)' in stub.shape
    reply = tools.call("read_handle", {"handle": stub.handle, "line": line})
    assert " ".join(reply["data"].split()) == words


def test_a_page_read_on_from_a_cursor_stops_at_the_closing_rule(tools, scratch_scope):
    """The page after the last row starts at the closing rule: it is no rule under a header there, nor the totals
    under it a row."""
    data = (_TOOLS / "unzip-l-python-stdlib.txt").read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    first = tools.call("read_handle", {"handle": stub.handle, "row": 1, "rows": 37})
    assert len(first["rows"]) == 37
    pages, reply = [first["rows"]], first
    while reply.get("next_call"):
        cursor = re.search(r'cursor="([^"]+)"', reply["next_call"]).group(1)
        reply = tools.call("read_handle", {"handle": stub.handle, "row": 38, "rows": 5, "cursor": cursor})
        pages.append(reply["rows"])
    assert [row for page in pages for row in page][-1] == ["0", "2025-06-24", "14:37", "asyncio/__pycache__/"]
    assert sum(map(len, pages)) == 37
    slurped = tools.call("read_handle", {"handle": stub.handle, "slurp": True, "jq": "length, .[-1]"})
    assert slurped["results"] == [37, {"Length": 0, "Date": "2025-06-24", "Time": "14:37",
                                     "Name": "asyncio/__pycache__/"}]


@pytest.mark.parametrize(("lines", "start", "seen", "complete", "expected"), [
    (["a", "----", "b", "c", "-----", "3 x"], 2, False, True, (4, 5)),  # (a rule after rows: the line after it)
    (["b", "-----"], 0, True, True, (1, None)),  # (a closing rule, nothing after it)
    (["b", "c", "9 total"], 0, False, True, (2, 2)),  # (a last line of totals)
    (["b", "c", "9 total"], 0, False, False, (3, None)),  # (maybe no last line: the sample may go on)
    (["b", "9 total", "c"], 0, False, True, (3, None)),  # (totals with rows after them: a row)
    (["b", "total 9", "", "more"], 0, False, True, (1, 1)),  # (df --total's, before a blank line)
    (["b", "c", "", "d"], 0, False, True, (2, None)),  # (a blank line)
    (["b", "subtotals here"], 0, False, True, (2, None)),  # (no word "total")
])
def test_rows_end_where_a_rule_after_rows_or_a_last_line_of_totals_is(lines, start, seen, complete, expected):
    from scratchfs.engine.structure.aligned_lines import rows_end  # (here: the reads' tests run without it)

    assert rows_end(lines, start, seen, complete) == expected


_PODS = b"""NAME                    READY   STATUS    RESTARTS   AGE
api-7d9f8-abcde          1/1     Running   0          5d
worker-5c6b7-fghij       1/1     Running   2          5d
redis-0                  1/1     Running   0          12d
total                    1/1     Running   0          3d
"""


@pytest.mark.parametrize(("line", "footer"), [
    ("total          301237740 25665012 117751556  18% -", True),  # (df --total)
    ("total            1.8T   1.2T  500G  71% -", True),  # (df -h --total)
    (" 1252  4490 35013 total", True),  # (wc)
    ("Total:        15Gi       7.8Gi       7.2Gi", True),  # (free -h -t)
    ("  14087    1024     296   15407    3c2f (TOTALS)", True),  # (size -t: the sum in hex)
    ("TOTAL                              4213    187    96%", True),  # (coverage report)
    ("total                    1/1     Running   0          3d", False),  # (a pod named total)
    ("-rw-r--r-- 1 root root 6 2026-12-07 11:15 total", False),  # (a file named total)
    ("total     bash      /home/me/bin/total", False),  # (a command named total)
])
def test_a_line_of_totals_holds_its_word_and_numbers_only(line, footer):
    """A row named ``total`` whose other cells are no numbers (a pod, a file, a command) is a row, not a footer
    (hostile37: the pod table's last row was left out of its rows, its shape and its reads)."""
    from scratchfs.engine.structure.aligned_lines import is_total

    assert is_total(line) is footer


def test_a_last_row_named_total_is_read_as_a_row(tools, scratch_scope):
    stub = scratch_scope.spill(_PODS, source_tool="bash")
    assert ", 4 rows" in stub.shape and "footer" not in stub.shape, stub.shape
    read = tools.call("read_handle", {"handle": stub.handle, "row": 1, "rows": 10})
    assert read["rows"][-1] == ["total", "1/1", "Running", "0", "3d"]
    assert tools.call("read_handle", {"handle": stub.handle, "slurp": True, "jq": "length"})["results"] == [4]


def test_the_shape_of_columns_with_no_header_counts_the_lines_the_reads_give(tools, scratch_scope):
    """``wc FILES``' shape said its first 20 lines stood in 4 columns, where the reads give 19 rows and a footer
    (helper leftovers3): it counts 19 and names the footer with its ``line=``; a line after it leaves it a row."""
    data = (_TOOLS / "wc-etc-conf.txt").read_bytes()
    stub = scratch_scope.spill(data, source_tool="bash")
    assert stub.shape.endswith(', a table of 4 columns aligned by spaces on each of its first 19 lines, no header '
                               'line, then a footer, no row (line 20: "1252 4490 35013 total", line=20 reads it)')
    with pytest.raises(InvalidArgument, match=r"row 20 is past the last row \(19\)"):
        tools.call("read_handle", {"handle": stub.handle, "row": 20})
    more = scratch_scope.spill(data + b"    1     2     3 /etc/x.conf\n", source_tool="bash")
    assert "each of its first 21 lines, no header line" in more.shape and "footer" not in more.shape
    row = tools.call("read_handle", {"handle": more.handle, "row": 20})["rows"][0]
    assert row == ["1252", "4490", "35013", "total"]
