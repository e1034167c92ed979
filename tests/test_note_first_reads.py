"""The first call a stub's note names is the read that fits its content (helper replies9, from newuser10's session
through ``scratchfs mcp``): a CSV/TSV with a header names its rows read first -- a line read splits a row whose quoted
field holds line ends, and the note offered ``line=22`` before ``row=1`` --, and terminal or coloured output names
its text view first, from where the preview stops (``raw_offset=``), where a raw byte read came first (each ESC 6
bytes of JSON) and ``view="text"`` fourth, from byte 0."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from scratchfs.api.contract import ScratchTools

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _first_call(note: str) -> str:
    return re.search(r"Next: (read_handle\(.*?\))(?: \||\.$)", note).group(1)


def _multi_line_csv() -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["id", "desc", "n"])
    for i in range(400):
        writer.writerow([i, f"line one of {i}\nline two of {i}\nthree", i * 3])
    return out.getvalue()


def test_a_csv_with_multi_line_fields_names_its_rows_read_first(scratch_scope):
    text = _multi_line_csv()
    stub = scratch_scope.spill(text, source_tool="sql")
    assert stub.content_type == "csv"
    first = _first_call(stub.note)
    row = int(re.search(r"row=(\d+), rows=20\)$", first).group(1))
    page = ScratchTools(scratch_scope).read_handle(stub.handle, row=row, rows=20)
    rows = list(csv.reader(io.StringIO(text)))[1:]
    assert [list(r) for r in page["rows"]] == rows[row - 1 : row + 19]  # (whole rows, line ends in their fields)
    assert ", line=" in stub.note  # (the line read is still named, after it)


def test_the_real_csv_fixture_names_its_rows_read_first(scratch_scope):
    stub = scratch_scope.spill((FIXTURES / "query-packages-by-month.csv").read_bytes(), source_tool="bq")
    assert re.search(r"row=\d+, rows=20\)$", _first_call(stub.note))


def test_a_headless_table_keeps_its_order(scratch_scope):
    text = "".join(f"{i},{i * 2},{i % 7}\n" for i in range(2000))  # (no header: the rows read after the line read)
    stub = scratch_scope.spill(text, source_tool="sqlite3")
    assert "no header" in stub.shape and "offset=" in _first_call(stub.note)


def _text_view_first(scratch_scope, name: str, tool: str, shape: str):
    """The stub of fixture ``tools/name`` (its shape starting ``shape``), whose note names the text view first from
    where its preview stops, and that byte."""
    stub = scratch_scope.spill((FIXTURES / "tools" / name).read_bytes(), source_tool=tool)
    assert stub.shape.startswith(shape)
    covered = int(re.search(r"the preview shows bytes 0-(\d+)", stub.note).group(1))
    assert _first_call(stub.note) == f'read_handle(handle="{stub.handle}", view="text", raw_offset={covered})'
    return stub, covered


def test_terminal_output_names_its_text_view_first_from_where_the_preview_stops(scratch_scope):
    stub, covered = _text_view_first(scratch_scope, "ls-l-color.txt", "ls", "terminal output")
    page = ScratchTools(scratch_scope).read_handle(stub.handle, view="text", raw_offset=covered)
    whole = ScratchTools(scratch_scope).read_handle(stub.handle, view="text", budget=65536)["text"]
    assert page["text"] and whole.startswith(stub.preview + page["text"])  # (it goes on where the preview stops)


def test_coloured_output_names_its_text_view_first(scratch_scope):
    stub, covered = _text_view_first(scratch_scope, "grep-color-klog.txt", "grep", "coloured")
    page = ScratchTools(scratch_scope).read_handle(stub.handle, view="text", raw_offset=covered)
    assert "\x1b" not in page["text"] and page["text"].startswith("I1205 ")  # (the line the preview cut, whole)
    assert stub.note.count('view="text"') == 1  # (named once: not again, from byte 0, after the others)


def test_an_html_page_names_its_text_view_first_from_its_start(scratch_scope):
    """An HTML page's note named a raw read of its markup first and its text view third (after offset= and line=,
    the model reading meta and link tags): the text view comes first now, once, from where the preview -- the
    view's first bytes (``tests/test_html_preview.py``) -- stops, and running it gives the page's text on."""
    data = (FIXTURES / "tools" / "pydoc-typing.html").read_bytes()  # (no main landmark: the view from its start)
    stub = scratch_scope.spill(data, source_tool="browser.get")
    assert stub.content_type == "html"
    covered = len(stub.preview.encode())
    assert _first_call(stub.note) == f'read_handle(handle="{stub.handle}", view="text", offset={covered})'
    assert stub.note.count('view="text"') == 3 and f'read_handle(handle="{stub.handle}") |' not in stub.note  # (its
    # search of its text after it, and no raw read: modelfollow1)
    page = ScratchTools(scratch_scope).read_handle(stub.handle, view="text", offset=covered)
    assert page["offset"] == covered and "Generic" in stub.preview + page["text"][:2000]
    assert "<" not in page["text"][:200]
