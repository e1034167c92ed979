"""Rows reads of text whose shape says its lines stand in columns aligned by spaces with no header line (``ls -l``
without ``total``, ``ps`` through ``tail -n +2``, ``find -ls``): ``row=``/``rows=``/``columns=`` (by number) and
``slurp=true`` read it, each line split as the plain Python ``line.split(None, columns - 1)`` splits it, its columns
those the shape counted; one whose cells hold spaces (``Up 2 hours``) is refused naming, as calls (data:
:class:`~scratchfs.foundation.calls.Call`), the reads that work: its lines, and a pattern over its columns."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from scratchfs import ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.foundation.errors import InvalidArgument

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
FIXTURES = ["ls-l-no-total.txt", "ps-eo-no-header.txt", "find-ls-usr.txt"]


@pytest.fixture
def scope(tmp_path):
    with ScratchStore(root=tmp_path) as store:
        yield store.scope("run", "agent")


def _columns(shape: str) -> int:
    return int(re.search(r"a table of (\d+) columns aligned by spaces on each of its first", shape).group(1))


def _pages(tools: ScratchTools, call: dict) -> list:
    rows = []
    while call is not None:
        reply = tools.read_handle(**call)
        rows += reply["rows"]
        call = None if reply["next_call"] is None else {"handle": call["handle"], "row": reply["first"] + len(
            reply["rows"]), "rows": call["rows"], "columns": call.get("columns"), "cursor": re.search(
            r'cursor="([^"]+)"', reply["next_call"]).group(1)}
    return rows


@pytest.mark.parametrize("name", FIXTURES)
def test_the_rows_of_a_headerless_table_are_its_lines_split_as_python_splits_them(scope, name):
    data = (TOOLS / name).read_bytes()
    stub = scope.spill(data, source_tool="shell")
    count = _columns(stub.shape)
    want = [line.split(None, count - 1) for line in data.decode().splitlines()]
    assert all(len(cells) == count for cells in want)
    tools = ScratchTools(scope)
    first = tools.read_handle(stub.handle, row=1, rows=5)
    assert first["rows"] == want[:5] and "header" not in first and "no header line" in first["note"]
    assert _pages(tools, {"handle": stub.handle, "row": 1, "rows": 40}) == want
    last = count - 1
    assert _pages(tools, {"handle": stub.handle, "row": 2, "rows": 50, "columns": [last, 0]}) == [
        [cells[last], cells[0]] for cells in want[1:]]
    for part, cut in ((".[:20]", want[:20]), (".[-20:]", want[-20:]), ("length", len(want))):
        slurped = tools.read_handle(stub.handle, jq=f"map(map(tostring)) | {part}", slurp=True)["results"]
        assert slurped == [cut]  # (number columns are numbers, as a CSV's with no header: their text the same)
    records, partial = scope.structure.table(stub.handle, 1 << 20)  # (the web inspector's table: the same rows)
    assert records == [list(map(str, range(count))), *want] and not partial
    with pytest.raises(InvalidArgument, match="number"):  # (no names: columns by number, as a CSV with no header)
        tools.read_handle(stub.handle, row=1, columns=["root"])


def test_ls_l_s_total_line_is_no_row_of_any_read(scope):
    """``ls -l /usr/bin`` (its ``total`` line first, symlinks' ``a -> b`` in the last column): row 1 is line 2 for the
    rows read, its note, slurp=true, the web inspector's table and the stub's next rows read."""
    data = (TOOLS / "ls-l-total.txt").read_bytes()
    stub = scope.spill(data, source_tool="shell")
    count = _columns(stub.shape)
    want = [line.split(None, count - 1) for line in data.decode().splitlines()[1:]]
    assert count == 9 and all(len(cells) == count for cells in want) and want[0][-1] == "FileCheck-14 -> " \
        "../lib/llvm-14/bin/FileCheck"
    tools = ScratchTools(scope)
    first = tools.read_handle(stub.handle, row=1, rows=5)
    assert first["rows"] == want[:5] and "its line 2 is row 1 (line 1, ls -l's total, is no row)" in first["note"]
    assert _pages(tools, {"handle": stub.handle, "row": 1, "rows": 25}) == want
    assert tools.read_handle(stub.handle, jq="length", slurp=True)["results"] == [len(want)]
    records, partial = scope.structure.table(stub.handle, 1 << 20)
    assert records == [list(map(str, range(count))), *want] and not partial
    shown = stub.preview.count("\n")  # (the preview's whole lines: the total line and rows 1 to shown - 1)
    row = int(re.search(r"row=(\d+), rows=20\)", stub.note).group(1))
    assert row == shown and tools.read_handle(stub.handle, row=row, rows=1)["rows"] == [want[row - 1]]


def test_a_headerless_table_whose_cells_hold_spaces_is_refused_naming_the_reads_that_work(scope):
    rows = [("web-1", "Up 2 hours", "8080"), ("db-12", "Up 10 minutes", "5432"), ("cache", "Up 3 days", "6379"),
            ("queue-7", "Up 45 seconds", "5672"), ("api", "Up 1 hour", "9000"), ("worker", "Up 12 minutes", "7000")]
    text = "".join(f"{a:<10}{b:<16}{c}\n" for a, b, c in rows) * 100
    stub = scope.spill(text.encode(), source_tool="docker")
    assert _columns(stub.shape) == 4
    tools = ScratchTools(scope)
    for read in ({"row": 1, "rows": 5}, {"jq": "length", "slurp": True}):
        with pytest.raises(InvalidArgument) as caught:
            tools.read_handle(stub.handle, **read)
        error = caught.value
        assert "not a table" not in str(error) and "some cell of its first lines holds a space" in str(error)
        lines, search = error.advice.calls
        assert dict(lines.arguments) == {"handle": stub.handle, "line": 1}  # (lines=50: the default)
        # the advised search, its VALUE a third cell: the lines whose third word is it
        pattern = dict(search.arguments)["pattern"].replace("VALUE", "2")
        found = scope.read_handle(stub.handle, pattern=pattern, max_matches=1000)
        lines_found = sorted({match.line for window in found.windows for match in window.matches})
        assert lines_found == [n for n, line in enumerate(text.splitlines(), 1) if line.split()[2] == "2"]
        assert lines_found and dict(search.arguments)["context"] == "line"


_CELL = st.from_regex(r"[a-z][a-z0-9_/.-]{0,11}", fullmatch=True)


@st.composite
def _headerless(draw):
    """A table as a tool that sizes each column to its widest value prints it, with no header line: 5 to 45 rows
    (the reads' pages are 30: one page or two; 80 rows made each example's cells up to 640 draws, 0.6 s of data
    generation under load, the test 28 s) of 3 to 8 columns, words left-aligned or numbers right-aligned, 2 spaces
    or more between columns, the last column ragged and its cells of one word or several (a command and its
    arguments)."""
    columns, count = draw(st.integers(3, 8)), draw(st.integers(5, 45))
    numeric = [draw(st.booleans()) for _ in range(columns - 1)]
    cells = [[str(draw(st.integers(0, 99999))) if numeric[c] else draw(_CELL) for c in range(columns - 1)]
             + [" ".join(draw(st.lists(_CELL, min_size=1, max_size=3)))] for _ in range(count)]
    widths = [max(len(row[c]) for row in cells) for c in range(columns - 1)]
    gap = " " * draw(st.integers(2, 3))
    lines = [gap.join([*(cell.rjust(widths[c]) if numeric[c] else cell.ljust(widths[c])
                         for c, cell in enumerate(row[:-1])), row[-1]]) for row in cells]
    return columns, lines


# (25 examples by default, 60 before: their cases are drawn anew each run; SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(table=_headerless())
def test_every_headerless_table_s_rows_are_its_lines_split_as_python_splits_them(scope, table):
    columns, lines = table
    stub = scope.spill(("\n".join(lines) + "\n").encode(), source_tool="shell")
    assume(f"a table of {columns} columns aligned by spaces" in (stub.shape or ""))
    tools = ScratchTools(scope)
    assert _pages(tools, {"handle": stub.handle, "row": 1, "rows": 30}) == [
        line.split(None, columns - 1) for line in lines]


@pytest.mark.parametrize("name", FIXTURES)
def test_the_stub_of_a_headerless_table_names_the_rows_read_from_the_first_row_not_shown(scope, name):
    # the note named no row= read though rows reads work on it (misfit2, item 3): as a table's stub does, it names
    # the rows from the first line the preview does not show whole (row 1 is the first line: no header)
    data = (TOOLS / name).read_bytes()
    stub = scope.spill(data, source_tool="shell")
    called = re.search(r'read_handle\(handle="(h_\w+)", row=(\d+), rows=(\d+)\)', stub.note)
    assert called, stub.note
    row, rows = int(called.group(2)), int(called.group(3))
    lines = data.decode().splitlines(keepends=True)
    shown = stub.preview.encode()
    whole = 0  # the lines the preview shows whole
    while whole < len(lines) and shown.startswith("".join(lines[: whole + 1]).encode()):
        whole += 1
    assert row == whole + 1, (row, whole)
    reply = ScratchTools(scope).read_handle(called.group(1), row=row, rows=rows)
    count = _columns(stub.shape)
    assert reply["first"] == row
    want = [line.split(None, count - 1) for line in data.decode().splitlines()]
    assert reply["rows"] == want[row - 1 : row - 1 + rows]


def test_the_stub_of_a_headerless_table_whose_cells_hold_spaces_names_no_rows_read(scope):
    rows = [("web-1", "Up 2 hours", "8080"), ("db-12", "Up 10 minutes", "5432"), ("cache", "Up 3 days", "6379"),
            ("queue-7", "Up 45 seconds", "5672"), ("api", "Up 1 hour", "9000"), ("worker", "Up 12 minutes", "7000")]
    stub = scope.spill("".join(f"{a:<10}{b:<16}{c}\n" for a, b, c in rows).encode() * 100, source_tool="docker")
    assert _columns(stub.shape) == 4 and "row=" not in stub.note  # (a rows read of it is refused)


def test_the_columns_of_a_headless_table_are_told_once_for_its_pages(scope, monkeypatch):
    """Each page of a row= read told the table's columns again from its first 8 KiB (~0.2 ms a page; review revL):
    they are kept per entry, as an aligned table's layout is, and the pages read what they read before."""
    from scratchfs.api import structured

    told = []
    runs_starts = structured.runs_starts
    monkeypatch.setattr(structured, "runs_starts", lambda data: told.append(1) or runs_starts(data))
    tools = ScratchTools(scope)
    handle = scope.spill((TOOLS / "find-ls-usr.txt").read_bytes(), source_tool="find").handle
    first = tools.call("read_handle", {"handle": handle, "row": 1, "rows": 5})
    second = tools.call("read_handle", {"handle": handle, "row": 6, "rows": 5})
    again = tools.call("read_handle", {"handle": handle, "row": 1, "rows": 5})
    assert len(told) == 1 and again == first and second["first"] == 6, (len(told), second)


def test_jq_without_slurp_over_headless_columns_names_the_slurp_read_that_answers(scope):
    """modeltask3: ``openssl ciphers -v ALL`` (fixtures/tools/openssl-ciphers-v.txt), text in 6 columns aligned by
    spaces with no header line, whose rows a ``row=`` read splits: a jq filter over a row's cells written without
    slurp was refused as 'holds text ... read it by lines ... or by search', the slurp read that answers it never
    named (a headed table's refusal names it). It names it now, as a call that runs, and its cells by number."""
    import json

    from scratchfs.mcp.server import ScopeResolver, run_scratch_tool

    store = scope.store
    handle = scope.spill((TOOLS / "openssl-ciphers-v.txt").read_bytes(), source_tool="openssl").handle
    filter = 'select(.[2]=="Kx=RSA" and .[5]=="Mac=SHA1") | .[0]'
    result = run_scratch_tool(ScopeResolver(store, scope.run_id, scope.agent_id), "read_handle",
                              {"handle": handle, "jq": filter}, None)
    assert result.is_error
    text = result.content[0].text
    assert "holds text in 6 columns aligned by spaces with no header line" in text, text
    assert "by number from 0" in text and "rows with the header" not in text, text
    named = ScratchTools(scope).call("read_handle", {"handle": handle, "jq": f".[] | {filter}", "slurp": True})
    assert f'jq={json.dumps(".[] | " + filter)}, slurp=True)' in text, text
    assert named["results"] == ["AES256-SHA", "CAMELLIA256-SHA", "AES128-SHA", "CAMELLIA128-SHA"], named


def test_jq_over_headless_columns_whose_cells_hold_spaces_names_no_slurp_read(scope):
    """The same refusal for text in columns whose cells hold spaces (a rows read would cut them: refused) names no
    slurp read, which would be refused in turn: its lines and searches."""
    rows = [("web-1", "Up 2 hours", "8080"), ("db-12", "Up 10 minutes", "5432"), ("cache", "Up 3 days", "6379"),
            ("queue-7", "Up 45 seconds", "5672"), ("api", "Up 1 hour", "9000"), ("worker", "Up 12 minutes", "7000")]
    stub = scope.spill("".join(f"{a:<10}{b:<16}{c}\n" for a, b, c in rows).encode() * 100, source_tool="docker")
    assert _columns(stub.shape) == 4
    handle = stub.handle
    with pytest.raises(InvalidArgument) as caught:
        ScratchTools(scope).call("read_handle", {"handle": handle, "jq": ".[0]"})
    assert "slurp=True" not in str(caught.value) and "by lines" in str(caught.value), caught.value
