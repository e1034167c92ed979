"""Tables drawn with Unicode box-drawing lines -- ``sqlite3 -box``, DuckDB's CLI (a line of types under the names,
``·`` rows for the rows it left out, a footer counting them), ``psql``'s unicode linestyle (with ``\\pset border 2``,
double lines) -- real ones in fixtures/tools/ (fixtures/README.md): told at spill time as one more form of the tables
drawn with pipes, and read back by ``row=``, ``columns=`` and ``slurp=true`` as the cells a plain Python split at the
vertical lines gives, values holding non-ASCII text (3-byte box characters beside 2-byte ``é``) read at the right byte
offsets by cursors, ``row=N`` and the stub's note alike."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools
from scratchfs.api.shape import describe
from scratchfs.api.shape_pipes import PIPE_SHAPES, is_piped
from scratchfs.engine.structure.pipe_lines import DUCKDB, LINED, PSQL_LINED, find_pipes, pipes_near
from tests.test_structure_reads import follow

_TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
_VERTICAL = re.compile("[│┃║]")


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _shape(data: bytes) -> str:
    return describe(data, len(data), data.count(b"\n")).text


def _plain(text: str, header: int, form: str) -> list[list[str]]:
    """The plain Python answer: the lines under line ``header`` (from 1) and its rule (DuckDB's: its types line and
    its rule) cut at every vertical line, the pieces opening and closing a framed line dropped, each cell stripped,
    up to the first line that is neither a row (a vertical first) nor a rule ``├──┼──┤`` (a psql table's: one with
    no vertical); DuckDB's rows of ``·`` left out; a row of more cells than the header's (a value holding a
    vertical) cut where the header's verticals stand."""
    rows, names = [], text.split("\n")[header - 1]
    cuts = [at for at, char in enumerate(names) if _VERTICAL.match(char)]
    for line in text.split("\n")[header + 1 + (form == DUCKDB) :]:
        if cuts and len(_VERTICAL.findall(line)) > len(cuts):
            line = "".join("│" if at in cuts else char for at, char in enumerate(line.replace("│", "\0")))
        if form == PSQL_LINED:
            if not _VERTICAL.search(line):
                break
            rows.append([piece.strip() for piece in _VERTICAL.split(line)])
            continue
        if line.startswith(("├", "╟", "╠")) and "┴" not in line:
            continue
        if not line.startswith(("│", "║", "┃")):
            break
        cells = [piece.strip().replace("\0", "│") for piece in _VERTICAL.split(line)[1:-1]]
        if not all(cell == "·" for cell in cells):
            rows.append(cells)
    return rows


# fixture: (form, header line from 1, names, how the shape goes on after the names)
_REAL = {
    "sqlite-box-packages.txt": (LINED, 2, ["name", "version", "month"], "30 rows"),
    "sqlite-box-unicode-values.txt": (LINED, 2, ["column1", "column2", "column3"], "4 rows"),
    "psql-unicode-packages.txt": (PSQL_LINED, 2, ["name", "version", "month"], "25 rows"),
    "psql-unicode-border2-values.txt": (LINED, 4, ["id", "name", "note"], "3 rows (psql's footer says 2"),
    "psql-unicode-double.txt": (LINED, 6, ["name", "version", "month"], "8 rows"),
    "duckdb-packages.txt": (DUCKDB, 2, ["name varchar", "version varchar", "month varchar"], "12 rows"),
    "duckdb-packages-elided.txt": (DUCKDB, 2, ["name varchar", "version varchar", "month varchar", "n int64"],
                                   "40 rows (of 4,486: DuckDB left out 4,446 where its · rows stand, after row 20)"),
    "duckdb-old-footer-by-hand.txt": (DUCKDB, 2, ["dt_year_month varchar", "msr_count_pssngr double"],
                                      "5 rows (of 160: DuckDB left out 155 where its · rows stand, after row 3)"),
    "duckdb-empty.txt": (DUCKDB, 2, ["id int32", "name varchar"], "0 rows"),
}


@pytest.mark.parametrize("name", sorted(_REAL))
def test_a_real_table_in_box_lines_is_told_and_read_as_python_splits_it(tools, scratch_scope, name):
    form, header, listed, after = _REAL[name]
    data = (_TOOLS / name).read_bytes()
    want = _plain(data.decode(), header, form)
    names = [item.split(" ")[0] for item in listed]
    stub = scratch_scope.spill(data, source_tool="sql")
    assert stub.content_type == "text" and is_piped("text", stub.shape), stub.shape
    assert stub.shape.startswith(PIPE_SHAPES[form]) and (
        f" {len(names)} columns ({', '.join(listed)}), {after}") in stub.shape, stub.shape
    assert re.search(rf", {len(want)} rows?\b", stub.shape), (stub.shape, len(want))
    named = re.search(r"Next: read_handle\(handle=\"\w+\", row=(\d+), rows=20\)", stub.note)
    assert "shows all of it" in stub.note or named is not None or not want, stub.note
    if named is not None:  # (the first row its preview does not show whole: byte offsets of 3-byte box lines)
        first = int(named.group(1))
        reply = tools.call("read_handle", {"handle": stub.handle, "row": first, "rows": 1})
        assert first > 1 and reply["rows"] == want[first - 1 : first]
        covered = int(re.search(r"the preview shows bytes 0-(\d+)", stub.note).group(1))
        lines = data.split(b"\n")
        lead = "\n" * (2 + (form == DUCKDB))  # (row N's line, past borders and DuckDB's types)
        at = next(i for i in range(header, len(lines)) if _plain(lead + lines[i].decode(), 1, form) == want[
            first - 1 : first])
        start = sum(len(line) + 1 for line in lines[:at])  # (bytes: 3 a box character)
        assert start <= covered + 1 < start + len(lines[at]) + 1, (start, covered)
    if not want:
        return
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 7}, 4096)
    assert all(page["header"] == names for page in pages)
    assert [row for page in pages for row in page["rows"]] == want
    assert pages[0]["note"].startswith(("a table in box-drawing lines", "a DuckDB table", "a psql table in box"))
    counted = tools.call("read_handle", {"handle": stub.handle, "jq": "length", "slurp": True})
    assert counted["results"] == [len(want)]


def test_non_ascii_values_are_read_at_their_byte_offsets(tools, scratch_scope):
    """Box characters are 3 bytes in UTF-8, ``é`` and ``ï`` 2: a read paged a row at a time (each cursor a byte
    offset), ``row=N`` and ``columns=`` give the cells a split of the decoded lines gives; a pipe in a value is text
    (sqlite3 -box prints it as it is), a vertical line in one is cut at the header's verticals' positions."""
    data = (_TOOLS / "sqlite-box-unicode-values.txt").read_bytes()
    handle = scratch_scope.spill(data, source_tool="sqlite3").handle
    want = [["1", "café", "naïve | x"], ["2", "two", "日本語"], ["", "lines", ""], ["3", "", "a│b"]]
    pages = follow(tools, {"handle": handle, "row": 1, "rows": 1}, 2048)
    assert [row for page in pages for row in page["rows"]] == want and len(pages) == 4
    assert tools.call("read_handle", {"handle": handle, "row": 3, "rows": 2})["rows"] == want[2:]
    reply = tools.call("read_handle", {"handle": handle, "row": 1, "rows": 9, "columns": ["column3", 1]})
    assert reply["rows"] == [[row[2], row[1]] for row in want]
    rows = [["1", "café", "naïve"]] + [[str(i), "é" * (i % 7), "ï│ü" if i % 5 == 0 else "x" * (i % 9)]
                                       for i in range(2, 300)]
    width = [max(len(r[c]) for r in rows) + 2 for c in range(3)]
    lines = ["┌" + "┬".join("─" * w for w in width) + "┐", "│" + "│".join(f" {n:<{w - 2}} " for n, w in zip(
        ["id", "a", "b"], width, strict=True)) + "│", "├" + "┼".join("─" * w for w in width) + "┤"]
    lines += ["│" + "│".join(f" {c:<{w - 2}} " for c, w in zip(row, width, strict=True)) + "│" for row in rows]
    lines.append("└" + "┴".join("─" * w for w in width) + "┘")
    big = scratch_scope.spill(("\n".join(lines) + "\n").encode(), source_tool="sqlite3")
    assert big.shape == "table in box-drawing lines, 3 columns (id, a, b), 299 rows", big.shape
    pages = follow(tools, {"handle": big.handle, "row": 1, "rows": 13}, 2048)
    assert [row for page in pages for row in page["rows"]] == rows
    assert tools.call("read_handle", {"handle": big.handle, "row": 250, "rows": 1})["rows"] == [rows[249]]
    named = re.search(r"row=(\d+), rows=20\)", big.note)
    assert named is not None and tools.call("read_handle", {"handle": big.handle, "row": int(named.group(1)),
                                                             "rows": 1})["rows"] == [rows[int(named.group(1)) - 1]]


def test_duckdb_names_its_types_and_what_it_left_out(tools, scratch_scope):
    """DuckDB's types line is no row (its types are said in the shape, by name), nor its ``·`` rows; its footer,
    counting the rows it left out and the columns its ``…`` column stands for, is said in the shape."""
    stub = scratch_scope.spill((_TOOLS / "duckdb-columns-elided.txt").read_bytes(), source_tool="duckdb")
    assert stub.shape.endswith("name varchar), 1 row (DuckDB's footer says 13 columns, 9 shown: its column named "
                               "… stands for those left out)"), stub.shape
    assert "a4 int32, \"…\" …, a9 int32" in stub.shape
    (page,) = follow(tools, {"handle": stub.handle, "row": 1, "rows": 5}, 4096)
    assert page["rows"] == [["1", "2", "3", "4", "…", "9", "10", "11", "12", "x"]]
    assert "the types line under the names" in page["note"]
    elided = scratch_scope.spill((_TOOLS / "duckdb-packages-elided.txt").read_bytes(), source_tool="duckdb")
    reply = tools.call("read_handle", {"handle": elided.handle, "row": 20, "rows": 2, "columns": ["name"]})
    assert reply["rows"] == [["21cmfast"], ["croniter"]]  # (the rows on either side of its · rows)
    slurped = tools.call("read_handle", {"handle": elided.handle, "jq": "map(.n) | add", "slurp": True})
    want = _plain((_TOOLS / "duckdb-packages-elided.txt").read_text(), 2, DUCKDB)
    assert slurped["results"] == [sum(int(row[3]) for row in want)]  # (a column of numbers as numbers)


def test_tables_one_under_another_end_at_the_bottom_border(tools, scratch_scope):
    """A box drawn with lines ends at its bottom border: a second table right under it (sqlite3 -box of two
    statements) is no rows of the first, and the shape names its header's line."""
    one = "┌────┬───────┐\n│ id │ name  │\n├────┼───────┤\n│ 1  │ alpha │\n│ 2  │ béta  │\n└────┴───────┘\n"
    two = "┌───────┬─────┐\n│ total │ max │\n├───────┼─────┤\n│ 2     │ 9   │\n└───────┴─────┘\n"
    stub = scratch_scope.spill((one + two).encode(), source_tool="sqlite3")
    assert stub.shape == ("table in box-drawing lines, 2 columns (id, name), 2 rows (the table ends at line 6; the "
                          "lines after it are no rows: another table's header is at line 8, which rows reads do not "
                          "reach)"), stub.shape
    assert tools.call("read_handle", {"handle": stub.handle, "row": 1, "rows": 9})["rows"] == [["1", "alpha"],
                                                                                              ["2", "béta"]]
    slurped = tools.call("read_handle", {"handle": stub.handle, "jq": "map(.name)", "slurp": True})
    assert slurped["results"] == [["alpha", "béta"]]


_NEGATIVES = {
    "tree": "~/project\n├── src\n│   ├── a.py\n│   └── b.py\n└── README.md\n\n1 directory, 3 files\n",
    "pip's progress bar": "Downloading x.whl (1.2 MB)\n   ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 1.2/1.2 MB 3 MB/s\n",
    "a panel of one column": "╭──────────────╮\n│ Hello │ there │\n│ done         │\n╰──────────────╯\n",
    "a box with no top": "│ a │ b │\n├───┼───┤\n│ 1 │ 2 │\n└───┴───┘\n",
    "a top of another count": "┌───┬───┬───┐\n│ a │ b │\n├───┼───┤\n│ 1 │ 2 │\n└───┴───┘\n",
    "a psql rule of another count": " a │ b │ c\n───┼───\n 1 │ 2 │ 3\n",
}


@pytest.mark.parametrize("name", sorted(_NEGATIVES))
def test_text_drawn_with_box_lines_is_not_taken_for_a_table(name):
    assert not is_piped("text", _shape(_NEGATIVES[name].encode()))


def test_the_first_test_finds_a_vertical_box_line():
    """The first test passes text whose first lines hold a vertical box line (light, heavy or double), no pipe."""
    assert pipes_near("x\n│ a │ b │\n", 100) and pipes_near("é\n ┃ a", 100) and not pipes_near("ascii\n" * 9, 60)
    assert find_pipes(["┌───┬───┐", "│ a │ b │", "├───┼───┤", "│ 1 │ 2 │"]).form == LINED


_CELL = st.text(st.sampled_from("abcé日 |.-"), max_size=6).map(str.strip)
_NAME = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True)


@st.composite
def _tables(draw):
    """A table drawn with box lines as sqlite3 -box, DuckDB (its types line, maybe ``·`` rows) or psql's unicode
    linestyle (light, heavy or double) draws it, with its names and rows of cells (non-ASCII, pipes and all)."""
    form = draw(st.sampled_from([LINED, DUCKDB, PSQL_LINED]))
    width = draw(st.integers(2, 5))
    names = draw(st.lists(_NAME, min_size=width, max_size=width, unique=True))
    rows = draw(st.lists(st.lists(_CELL, min_size=width, max_size=width), max_size=25))
    types = [draw(st.sampled_from(["varchar", "int64", "decimal(18,3)", "timestamp with time zone"])) for _ in names]
    sizes = [max(len(name), len(kind) if form == DUCKDB else 0, *(len(row[i]) for row in rows), 1)
             for i, (name, kind) in enumerate(zip(names, types, strict=True))]
    bar, line_char = draw(st.sampled_from([("│", "─"), ("┃", "━"), ("║", "═")]))

    def line(cells: list[str]) -> str:
        inner = f" {bar} ".join(cell.ljust(sizes[i]) for i, cell in enumerate(cells))
        return f" {inner}".rstrip() if form == PSQL_LINED else f"{bar} {inner} {bar}"

    rules = [line_char * (size + 2) for size in sizes]
    if form == PSQL_LINED:
        lines = [line(names), "┼".join(rules), *map(line, rows), f"({len(rows)} rows)"]
    else:
        shown = [*rows[: len(rows) // 2], ["·"] * width, *rows[len(rows) // 2 :]] if form == DUCKDB and draw(
            st.booleans()) else rows
        lines = ["┌" + "┬".join(rules) + "┐", line(names), *([line(types)] if form == DUCKDB else []),
                 "├" + "┼".join(rules) + "┤", *map(line, shown), "└" + "┴".join(rules) + "┘"]
    return form, names, rows, "\n".join(lines) + "\n"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_tables())
def test_a_table_in_box_lines_reads_back_as_python_splits_its_lines(tools, scratch_scope, table):
    form, names, rows, text = table
    stub = scratch_scope.spill(text.encode(), source_tool="t")
    assert stub.shape.startswith(PIPE_SHAPES[form]) and f", {len(rows)} row" in stub.shape, (stub.shape, text)
    pages = follow(tools, {"handle": stub.handle, "row": 1, "rows": 4}, 65536)
    assert pages[0]["header"] == names
    assert [r for p in pages for r in p["rows"]] == _plain(text, 1 + (form != PSQL_LINED), form) == rows


def test_the_stub_and_the_web_inspector_know_the_new_forms(tools, scratch_scope):
    handle = scratch_scope.spill((_TOOLS / "duckdb-packages.txt").read_bytes(), source_tool="duckdb").handle
    reply = tools.call("read_handle", {"handle": handle, "jq": "map(.version)", "slurp": True})
    assert reply["results"][0][:2] == ["0.11.0", "0.13.0"]
    app = (Path(__file__).resolve().parent.parent / "scratchfs" / "web" / "static" / "app.js").read_text()
    listed = re.search(r"const TABLE_SHAPES = \[([^\]]*)\];", app)
    assert listed is not None and all(f'"{start}"' in listed.group(1) for start in PIPE_SHAPES.values())
    assert json.dumps(PIPE_SHAPES[DUCKDB]) in listed.group(1)
