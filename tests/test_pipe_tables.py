"""Tables drawn with pipes -- a Markdown table (``sqlite3 -markdown``, or as a model or an MCP tool writes one),
``psql``'s output, a table in ``+---+`` borders (``sqlite3 -table``, ``psql`` with ``\\pset border 2``), real ones in
fixtures/tools/ (fixtures/README.md) -- are told at spill time (content type ``text``, a shape naming the form, the
columns and the rows) and read back by ``row=``, ``rows=``, ``columns=`` and ``slurp=true`` as the cells a plain
Python split at the pipes gives; text holding pipes here and there is not taken for one."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_pipes import PIPE_SHAPES, is_piped
from scratchfs.cli import main
from scratchfs.engine.structure.pipe_lines import BOX, MARKDOWN, PSQL
from tests.test_structure_reads import follow

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
_APP_JS = Path(__file__).resolve().parent.parent / "scratchfs" / "web" / "static" / "app.js"


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _shape(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n")).text


def _plain(data: bytes, header: int, last: int) -> list[list[str]]:
    """The plain Python answer: lines ``header + 3`` to ``last`` (from 1) cut at every pipe, the pieces opening and
    closing a line with a pipe dropped, each cell stripped; a box's borders are no rows."""
    rows = []
    for line in data.decode().split("\n")[header + 1 : last]:
        if line.startswith("+"):
            continue
        pieces = line.split("|")
        pieces = pieces[1:-1] if line.startswith("|") else pieces
        rows.append([piece.strip() for piece in pieces])
    return rows


# fixture: (form, header line from 1, last row line, names)
_REAL = {
    "psql-packages.txt": (PSQL, 1, 42, ["name", "version", "month", "summary"]),
    "psql-echo-query.txt": (PSQL, 2, 15, ["name", "version", "month"]),
    "sqlite-markdown-packages.md": (MARKDOWN, 1, 42, ["name", "version", "month", "summary"]),
    "sqlite-table-packages.txt": (BOX, 2, 34, ["name", "version", "month"]),
    "psql-border2-two-queries.txt": (BOX, 3, 9, ["name", "version"]),
}


@pytest.mark.parametrize("name", sorted(_REAL))
def test_a_real_table_drawn_with_pipes_is_told_and_read_as_python_splits_it(tools, scratch_scope, name):
    form, header, last, names = _REAL[name]
    data = (_TOOLS / name).read_bytes()
    want = _plain(data, header, last)
    stub = scratch_scope.spill(data, source_tool="sql")
    assert stub.content_type == "text" and is_piped("text", stub.shape), stub.shape
    before = header - 1 - (form == BOX)
    lead = f", the header is line {header}, after {before} line{'s' * (before != 1)}" if before else ""
    assert stub.shape.startswith(f"{PIPE_SHAPES[form]}{lead}") and (
        f" {len(names)} columns ({', '.join(names)}), {len(want)} rows") in stub.shape, stub.shape
    named = re.search(r"Next: read_handle\(handle=\"\w+\", row=(\d+), rows=20\)", stub.note)  # (leading the note)
    assert "shows all of it" in stub.note or named is not None, stub.note
    if named is not None:
        first = int(named.group(1))
        reply = tools.call("read_handle", {"handle": stub.handle, "row": first, "rows": 1})
        assert first > 1 and reply["rows"] == want[first - 1 : first]
        covered = int(re.search(r"the preview shows bytes 0-(\d+)", stub.note).group(1))
        ends = [len(line) + 1 for line in data.split(b"\n")]
        ends = [sum(ends[: at + 1]) for at in range(len(ends))]  # (each line's end, its newline past it)
        assert ends[header + first - 1] <= covered + 1 < ends[header + first]  # (row N's line: index header + N)
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 7}, 4096)
    assert all(page["header"] == names for page in pages)
    assert [row for page in pages for row in page["rows"]] == want
    assert pages[0]["note"].startswith(("a Markdown table", "a psql table", "a table in +---+ borders"))
    counted = tools.call("read_handle", {"handle": stub.handle, "jq": "length", "slurp": True})
    assert counted["results"] == [len(want)]


def test_columns_and_slurp_pick_cells_of_a_psql_table(tools, scratch_scope):
    data = (_TOOLS / "psql-packages.txt").read_bytes()
    want = _plain(data, 1, 42)
    handle = scratch_scope.spill(data, source_tool="psql").handle
    pages = follow(tools, {"handle": handle, "row": 3, "rows": 100, "columns": ["version", 0]}, 2048)
    assert [r for p in pages for r in p["rows"]] == [[row[1], row[0]] for row in want[2:]]
    reply = tools.call("read_handle", {"handle": handle, "jq": 'map(select(.name | startswith("aio"))) | '
                                       'map(.version)', "slurp": True})
    assert reply["results"] == [[row[1] for row in want if row[0].startswith("aio")]] and reply["results"][0]


def test_values_holding_a_pipe_or_a_line_end_as_sqlite_and_psql_print_them(tools, scratch_scope):
    """Neither tool escapes a pipe in a value: a row of more cells than the header is cut at the header's pipes'
    positions (every column padded to its widest value); a value holding a line end runs over two lines, each a
    row, and psql's footer, counting otherwise, is said in the shape."""
    markdown = scratch_scope.spill((_TOOLS / "sqlite-markdown-pipe-newline.md").read_bytes(), source_tool="sqlite3")
    assert markdown.shape == "Markdown table, 3 columns (column1, column2, column3), 4 rows"
    (page,) = follow(tools, {"handle": markdown.handle, "row": 1, "rows": 10}, 8192)
    assert page["rows"] == [["1", "a|b", "plain"], ["2", "two", "x"], ["", "lines", ""], ["3", "`x | y`", ""]]
    psql = scratch_scope.spill((_TOOLS / "psql-pipe-newline.txt").read_bytes(), source_tool="psql")
    assert psql.shape == ("psql table, 3 columns (id, value, note), 4 rows (psql's footer says 3: values holding "
                          "line ends run over more lines, each read as a row)")
    (page,) = follow(tools, {"handle": psql.handle, "row": 1, "rows": 10}, 8192)
    assert page["rows"] == [["1", "a|b", "plain"], ["2", "two    +", "x"], ["", "lines", ""], ["3", "C:\\ dir", ""]]


def test_a_markdown_table_as_gfm_writes_it(tools, scratch_scope):
    """GFM: pipes at a line's start and end optional, a delimiter row with colons, ``\\|`` a pipe in a cell (inside
    backticks too), cells trimmed, a short row filled with empty cells; a row of more cells than the header whose
    pipes do not stand under the header's is given whole (GFM would drop the cells past the header's); text after
    the table, a line with no pipe, ends the rows."""
    data = (b"Here are the orders:\n\nid | item | total\n:--|:---:|--:\n1 | `a \\| b` | 3.50\n| 2 | pen\\|cil |\n"
            b"3|x|y|z\nThat is all.\n")
    stub = scratch_scope.spill(data, source_tool="model")
    assert stub.shape == ("Markdown table, the header is line 3, after 2 lines (line=1, lines=2 reads them); 3 "
                          "columns (id, item, total), 3 rows (the table ends at line 7; the lines after it are no "
                          "rows)")
    (page,) = follow(tools, {"handle": stub.handle, "row": 1, "rows": 10}, 8192)
    assert page["header"] == ["id", "item", "total"]
    assert page["rows"] == [["1", "`a | b`", "3.50"], ["2", "pen|cil", ""], {"unsplit": "3|x|y|z"}]
    assert "1 row given whole as {\"unsplit\": line}: more cells" in page["note"]
    with pytest.raises(InvalidArgument, match="past the last row"):
        tools.call("read_handle", {"handle": stub.handle, "row": 4})


def test_several_tables_the_first_is_read_and_the_shape_names_the_next(tools, scratch_scope):
    data = (_TOOLS / "psql-border2-two-queries.txt").read_bytes()
    stub = scratch_scope.spill(data, source_tool="psql")
    assert stub.shape.endswith("5 rows (the table ends at line 10; the lines after it are no rows: another table's "
                               "header is at line 14, which rows reads do not reach)"), stub.shape
    assert data.split(b"\n")[13].startswith(b"|  month  | packages |")
    with pytest.raises(InvalidArgument, match="past the last row"):
        tools.call("read_handle", {"handle": stub.handle, "row": 6})
    lines = tools.call("read_handle", {"handle": stub.handle, "line": 14, "lines": 1})  # (the way to the next one)
    assert "month" in str(lines)


# mysql -t of two statements: one box right under the other, no line between (the MySQL manual's batch output;
# the same layout sqlite3 -table prints for two queries)
_TWO_BOXES = (b"+----+-------+\n| id | name  |\n+----+-------+\n|  1 | alpha |\n|  2 | beta  |\n|  3 | gamma |\n"
              b"+----+-------+\n+-------+-----+\n| total | max |\n+-------+-----+\n|     3 |   9 |\n+-------+-----+\n")


def test_a_box_right_under_another_is_no_rows_of_the_first(tools, scratch_scope):
    """A border right under a border is one table's bottom over the next one's top: the second table's header and
    rows are never read as rows of the first -- by the shape's count, a rows read, a read paged a row at a time
    (its cursor at the bottom border) and slurp alike."""
    stub = scratch_scope.spill(_TWO_BOXES * 300, source_tool="mysql")
    assert stub.shape.startswith("table in +---+ borders, 2 columns (id, name), 3 rows (the table ends at line 7;"), \
        stub.shape
    assert "another table's header is at line 9" in stub.shape
    want = [["1", "alpha"], ["2", "beta"], ["3", "gamma"]]
    assert tools.call("read_handle", {"handle": stub.handle, "row": 1, "rows": 50})["rows"] == want
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 1}, 4096)
    assert [row for page in pages for row in page["rows"]] == want
    slurped = tools.call("read_handle", {"handle": stub.handle, "jq": "map(.name)", "slurp": True})
    assert "gamma" in json.dumps(slurped) and "total" not in json.dumps(slurped)


def test_a_grid_with_a_double_rule_and_borders_between_rows(tools, scratch_scope):
    """``tabulate``'s ``grid`` format: ``+====+`` under the header, a border between every two rows (never two in a
    row): every row read, the borders none."""
    rows = [[str(i), f"n{i}"] for i in range(1, 401)]
    data = b"+-----+------+\n| id  | n    |\n+=====+======+\n" + b"".join(
        b"| %-3s | %-4s |\n+-----+------+\n" % (i.encode(), n.encode()) for i, n in rows)
    stub = scratch_scope.spill(data, source_tool="tabulate")
    assert stub.shape == "table in +---+ borders, 2 columns (id, n), 400 rows", stub.shape
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 150}, 8192)
    assert [row for page in pages for row in page["rows"]] == rows


def test_the_command_line_reads_its_rows_and_columns(tmp_path, monkeypatch):
    monkeypatch.setenv("SCRATCHFS_ROOT", str(tmp_path / "root"))
    monkeypatch.setenv("SCRATCHFS_RUN_ID", "run-1")
    monkeypatch.setenv("SCRATCHFS_AGENT_ID", "agent-1")
    runner = CliRunner()
    path = _TOOLS / "sqlite-markdown-packages.md"
    handle = json.loads(runner.invoke(main, ["spill", str(path), "--tool", "sqlite3"]).stdout)["handle"]
    reply = json.loads(runner.invoke(main, ["read-handle", handle, "--row", "39", "--rows", "5", "--column", "version",
                                            "--column", "name"]).stdout)
    want = _plain(path.read_bytes(), 1, 42)
    assert reply["header"] == ["version", "name"] and reply["rows"] == [[row[1], row[0]] for row in want[38:]]


def test_jq_alone_on_such_a_table_names_the_row_and_slurp_reads(tools, scratch_scope):
    handle = scratch_scope.spill((_TOOLS / "sqlite-table-packages.txt").read_bytes(), source_tool="sqlite3").handle
    with pytest.raises(InvalidArgument, match=r"a table in \+---\+ borders") as refused:
        tools.call("read_handle", {"handle": handle, "jq": ".[0]"})
    said = str(refused.value)
    assert f'read_handle(handle="{handle}", row=1)' in said
    assert f'read_handle(handle="{handle}", jq=".[0]", slurp=True)' in said  # (the call it names runs:)
    first = tools.call("read_handle", {"handle": handle, "jq": ".[0]", "slurp": True})["results"]
    want = _plain((_TOOLS / "sqlite-table-packages.txt").read_bytes(), 2, 34)[0]
    assert [first[0][name] for name in ("name", "version", "month")] == want


_NEGATIVES = {
    "shell pipelines": b"$ cat a.txt | grep foo | sort\n$ ls | wc -l\n---\ndone | ok\n",
    "a log with pipes": b"2026-12-03 10:00:00 | INFO | started\n2026-12-03 10:00:01 | WARN | slow\n"
                        b"2026-12-03 10:00:02 | INFO | done\n",
    "pipe-separated values": b"id|name|total\n1|a|2\n2|b|3\n",
    "a setext heading under a pipe": b"a | b\n-----\ntext\n",
    "a rule of another count": b"| a | b | c |\n|---|---|\n| 1 | 2 | 3 |\n",
    "prose": b"The quick brown fox | jumped.\nOver the lazy dog.\n",
    "a psql rule under no header": b"----+----\n 1 | 2\n",
    "a box with no top border": b"| a | b |\n+---+---+\n| 1 | 2 |\n",
}


@pytest.mark.parametrize("name", sorted(_NEGATIVES))
def test_text_holding_pipes_is_not_taken_for_a_table(name):
    assert not is_piped("text", _shape(_NEGATIVES[name]))


def test_no_other_real_output_is_taken_for_one():
    """Of all the real tool outputs in fixtures/tools/ (``git log --graph``'s ``|\\``, ``docker compose logs``'
    ``web-1 |``, ``dpkg -l``'s ``||/``, ...), only the tables drawn with pipes are told as such."""
    mine = {*_REAL, "psql-pipe-newline.txt", "sqlite-markdown-pipe-newline.md", *(  # (in box-drawing lines:
        path.name for path in _TOOLS.glob("*") if path.name.startswith(("sqlite-box-", "duckdb-", "psql-unicode-")))}
    assert len(mine) == len(_REAL) + 2 + 10  # tests/test_box_line_tables.py)
    told = {path.name for path in _TOOLS.iterdir() if path.is_file() and is_piped(
        describe(data := path.read_bytes(), len(data), data.count(b"\n")).content_type, _shape(data))}
    assert told == mine


def test_the_web_inspector_shows_the_table_pane_for_each_form():
    listed = re.search(r"const TABLE_SHAPES = \[([^\]]*)\];", _APP_JS.read_text())
    assert listed is not None and all(f'"{start}"' in listed.group(1) for start in PIPE_SHAPES.values())


_CELL = st.from_regex(r"[a-z0-9 .`:-]{0,8}", fullmatch=True).map(str.strip)
_ESCAPED = st.from_regex(r"[a-z]{1,3}\\\|[a-z]{1,3}", fullmatch=True)  # (a pipe in a cell, escaped as GFM does)
_NAME = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True)


@st.composite
def _tables(draw):
    """A table as a tool or a model draws it -- Markdown (pipes at the ends or not, colons, escaped pipes, padded
    or not), psql (padded, no pipes at the ends), a box (padded, borders) -- with its names and rows of cells."""
    form = draw(st.sampled_from([MARKDOWN, PSQL, BOX]))
    width = draw(st.integers(2, 6))
    names = draw(st.lists(_NAME, min_size=width, max_size=width, unique=True))
    cell = st.one_of(_CELL, _ESCAPED) if form == MARKDOWN else _CELL
    rows = draw(st.lists(st.lists(cell, min_size=width, max_size=width), max_size=25))
    padded = form != MARKDOWN or draw(st.booleans())
    sizes = [max(len(name), *(len(row[i]) for row in rows), 3) for i, name in enumerate(names)] if padded else None

    def line(cells: list[str]) -> str:
        shown = [cell.ljust(sizes[i]) if sizes else cell for i, cell in enumerate(cells)]
        if form == PSQL:
            return " " + " | ".join(shown).rstrip()
        ends = form == BOX or not cells[0] or not cells[-1] or draw(st.booleans())  # (GFM: a line's first pipe
        # opens it, so that a first cell left empty needs one before it)
        inner = " | ".join(shown) if padded or draw(st.booleans()) else "|".join(shown)
        return f"| {inner} |" if ends else inner

    if form == PSQL:
        rule = "+".join("-" * (size + 2) for size in sizes)
        lines = [line(names), rule, *map(line, rows), f"({len(rows)} row{'s' * (len(rows) != 1)})"]
    elif form == BOX:
        border = "+" + "+".join("-" * (size + 2) for size in sizes) + "+"
        lines = [border, line(names), border, *map(line, rows), border]
    else:
        marks = [draw(st.sampled_from(["---", ":--", "--:", ":-:", "-"])) for _ in names]
        lines = [line(names), "|" + "|".join(marks) + "|" if draw(st.booleans()) else " | ".join(marks),
                 *map(line, rows)]
    return form, names, rows, "\n".join(lines) + "\n"


def _gfm_split(line: str, width: int) -> list[str]:
    """A plain Python split of a Markdown row as GFM reads it: the pipes opening and closing it dropped, cut at
    each pipe not after a backslash, cells stripped, ``\\|`` a pipe, empty cells added up to ``width``."""
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    cells = [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", body)]
    return cells + [""] * (width - len(cells))


# (30 examples by default, 80 before: their cases are drawn anew each run; SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_tables())
def test_a_drawn_table_reads_back_as_python_splits_its_lines(tools, scratch_scope, table):
    form, names, rows, text = table
    data = text.encode()
    stub = scratch_scope.spill(data, source_tool="t")
    assert stub.shape.startswith(PIPE_SHAPES[form]) and f", {len(rows)} row" in stub.shape, (stub.shape, text)
    lines = text.split("\n")
    body = lines[2:2 + len(rows)] if form != BOX else lines[3:3 + len(rows)]
    plain = [_gfm_split(line, len(names)) if form == MARKDOWN else _plain_cells(line, form) for line in body]
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 10}, 65536)
    assert pages[0]["header"] == names
    assert [r for p in pages for r in p["rows"]] == plain == [[cell.replace("\\|", "|") for cell in row]
                                                              for row in rows]


def _plain_cells(line: str, form: str) -> list[str]:
    pieces = line.split("|")
    return [piece.strip() for piece in (pieces[1:-1] if form == BOX else pieces)]


def test_a_psql_or_mysql_table_whose_names_hold_wide_characters(tools, scratch_scope):
    """psql and mysql pad a cell by the terminal columns its text takes (a CJK character two), so a header's pipes
    stand where its rule's ``+`` do in columns, not in characters: such a table is told and read all the same."""
    psql = " 名前 | id \n------+----\n a    |  1\n b    |  2\n(2 rows)\n"
    box = ("+------+--------+\n| 名前 | 数量   |\n+------+--------+\n| a    |      1 |\n| b    |      2 |\n"
           "+------+--------+\n2 rows in set (0.00 sec)\n")
    for data, form in ((psql, PSQL), (box, BOX)):
        stub = scratch_scope.spill(data.encode(), source_tool="t")
        assert stub.shape.startswith(PIPE_SHAPES[form]) and "2 columns" in stub.shape and "2 rows" in stub.shape
        (page,) = follow(tools, {"handle": stub.handle, "row": 1, "rows": 10}, 8192)
        assert page["header"] == (["名前", "id"] if form == PSQL else ["名前", "数量"])
        assert page["rows"] == [["a", "1"], ["b", "2"]]


def test_a_table_whose_lines_no_longer_make_one_is_refused_in_words(tools, scratch_scope, monkeypatch):
    """The refusal of a rows read when the first lines make no table (though the shape says so) names it as a
    noun after "no": "make no Markdown table", never "make no a Markdown table"."""
    from scratchfs.api import structured

    monkeypatch.setattr(structured, "source_layout", lambda *args, **kwargs: None)
    markdown = scratch_scope.spill(b"| a | b |\n|---|---|\n| 1 | 2 |\n", source_tool="t").handle
    boxed = scratch_scope.spill(b"+---+---+\n| a | b |\n+---+---+\n| 1 | 2 |\n+---+---+\n", source_tool="t").handle
    for handle, noun in ((markdown, "Markdown table"), (boxed, "table in +---+ borders")):
        with pytest.raises(InvalidArgument) as caught:
            tools.call("read_handle", {"handle": handle, "row": 1})
        assert str(caught.value) == (f"{handle}'s first lines make no {noun}, though its shape says so; read its "
                                     "lines instead")


@pytest.mark.parametrize("table", [" id | name\n----+------\n  1 | a\n  2 | b\n(2 rows)\n",
                                   "| id | name |\n|----|------|\n| 1 | a |\n| 2 | b |\n",
                                   "+----+------+\n| id | name |\n+----+------+\n| 1  | a    |\n| 2  | b    |\n"
                                   "+----+------+\n"])
def test_a_table_after_a_byte_order_mark(tools, scratch_scope, table):
    """A UTF-8 byte order mark before the first line (a file saved so on Windows) is no part of it, as a CSV's is
    not: the table is told and read as without one."""
    stub = scratch_scope.spill(b"\xef\xbb\xbf" + table.encode(), source_tool="t")
    assert is_piped(stub.content_type, stub.shape) and "2 columns (id, name), 2 rows" in stub.shape
    (page,) = follow(tools, {"handle": stub.handle, "row": 1, "rows": 10}, 8192)
    assert page["header"] == ["id", "name"] and page["rows"] == [["1", "a"], ["2", "b"]]
