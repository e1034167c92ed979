"""A UTF-8 byte order mark (``EF BB BF``: Excel's "CSV UTF-8" export, PowerShell's ``Out-File -Encoding utf8``) stands
before a content's first line, so ``^`` never matches at that line's first character: ``pattern="^name"`` over such a
CSV, whose shape and rows name its first column ``name``, found nothing and said only "no match" (helper encodings1,
a BOM + CRLF CSV of ``dpkg-query``). Now a pattern holding ``^`` that finds nothing in content starting with a BOM
says so, and names the same search with each ``^`` written ``^(?:\\xef\\xbb\\xbf)?`` (with CRLF line ends, each ``$``
rewritten as well), which finds what ``re`` finds in the text without its mark."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools

CSV = Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "dpkg-query-bom-crlf.csv"  # (real, BOM + CRLF)


def lines_found(tools: ScratchTools, call: str) -> list[int]:
    name, args = parse_call(call)
    reply = tools.call(name, args)
    assert reply["next_call"] is None
    return [window["line"] for window in reply["windows"]]


@pytest.mark.parametrize("pattern", ["^name", "^name,version", "^(?:name|adduser),", "^name,.*r$", "^a(?:dd|pt)"])
def test_a_caret_miss_over_a_bom_names_the_search_that_finds_the_first_line(scope, pattern):
    data = CSV.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    stub = scope.spill(data, source_tool="shell").to_dict()
    assert stub["content_type"] == "csv" and "(name, version," in stub["shape"]  # (the shape names it "name")
    tools = ScratchTools(scope)
    text = data[3:].decode().replace("\r\n", "\n")  # (the text as re reads it: no mark, LF line ends)
    expected = sorted({text.count("\n", 0, m.start()) + 1 for m in re.finditer(pattern, text, re.M)})
    first = tools.call("read_handle", {"handle": stub["handle"], "pattern": pattern, "context": "line"})
    if first["windows"]:  # (a pattern that also matches later lines is no miss: its first line is not told)
        assert first["windows"][0]["line"] == min(line for line in expected if line > 1)
        return
    note = first["note"]
    assert "byte order mark" in note and "^(?:\\\\xef\\\\xbb\\\\xbf)?" in note, note
    assert lines_found(tools, note[note.index("read_handle("):]) == expected
    assert 1 in expected


def test_the_rewrite_is_exact_or_none():
    from scratchfs.engine.pattern_crlf import bom_line_starts  # (here: the test of the miss runs without it)

    assert bom_line_starts("^name", False) == "^(?:\\xef\\xbb\\xbf)?name"
    assert bom_line_starts("[^a]b", False) is None  # (no anchor: a class's ^)
    assert bom_line_starts("a\\^b", False) is None
    assert bom_line_starts("(?<=^)a", False) is None  # (a lookbehind must keep its width: no rewrite)


def test_no_bom_no_such_note(scope):
    data = CSV.read_bytes()[3:]
    stub = scope.spill(data, source_tool="shell").to_dict()
    reply = ScratchTools(scope).call("read_handle", {"handle": stub["handle"], "pattern": "^zzz"})
    assert "byte order mark" not in reply.get("note", "")


@pytest.mark.parametrize(("line_end", "crlf"), [(b"\n", False), (b"\r\n", True)])
def test_whether_lines_end_in_crlf_is_told_from_the_content_not_from_the_pattern(scope, line_end, crlf):
    """helper leftovers8: a pattern that already held ``\\r?$`` (the CRLF rewrite of ``$``) over a BOM + LF CSV was
    told "its lines end in CRLF", read off the rewritten pattern; now that clause follows the content's bytes."""
    data = CSV.read_bytes().replace(b"\r\n", line_end)
    stub = scope.spill(data, source_tool="shell").to_dict()
    tools = ScratchTools(scope)
    pattern = "^name,version,size,maintainer\\r?$"
    note = tools.call("read_handle", {"handle": stub["handle"], "pattern": pattern, "context": "line"})["note"]
    assert "byte order mark" in note and ("CRLF" in note) is crlf, note
    assert lines_found(tools, note[note.index("read_handle("):]) == [1]
