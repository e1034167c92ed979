"""Replies that spent bytes for nothing (helper replies4, 2026-12-05, from a new user's trial over MCP): a
``read_handle(row=1)`` of ``strace`` output gave 4.7 KB of its lines split at commas; an empty argument
(``match=""``, ``jq=""``, ``key=""`` ...) was refused as ``match: '' should be non-empty``, naming nothing to do."""

from __future__ import annotations

from pathlib import Path

import hypothesis
import pytest
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools, error_text
from scratchfs.api.table_reads import table_like
from scratchfs.api.tools import check_arguments
from scratchfs.engine.structure.paging import BytesSource
from scratchfs.foundation.errors import InvalidArgument

STRACE = (Path(__file__).resolve().parent.parent / "fixtures" / "tools" / "strace-f-ls-usr.txt").read_bytes()


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def test_rows_of_strace_output_are_refused_cheaply_naming_the_line_read_of_the_same_lines(tools, scratch_scope):
    """``strace -f ls /usr`` (fixtures/tools/strace-f-ls-usr.txt): its lines hold 1 to 6 cells parted by commas,
    more than its first line's 4 here and there; row=1 read them as a table, 4,731 bytes of cells."""
    stub = scratch_scope.spill(STRACE, source_tool="strace")
    assert stub.content_type == "text"
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": stub.handle, "row": 3, "rows": 20, "budget": 6000})
    text = error_text(refused.value)
    assert "not a table" in text and len(text.encode()) < 400
    call = {"tool": "read_handle", "arguments": {"handle": stub.handle, "line": 3, "lines": 20, "budget": 6000}}
    assert [c.to_json() for c in refused.value.calls] == [call]
    page = tools.call(call["tool"], call["arguments"])  # the call named works: the lines asked for, as lines
    assert page["data"] == b"".join(STRACE.splitlines(keepends=True)[2:22]).decode()


@pytest.mark.parametrize("data", [
    b"".join(b"%d,name%d,%d.5\n" % (i, i, i) for i in range(400)),  # no header line, numbers: still rows
    b"id,name,note,extra\n" + b"".join(b"%d,n%d\n" % (i, i) if i % 3 else b"%d,n%d,x,y\n" % (i, i)
                                       for i in range(400)),  # ragged: short rows
])
def test_a_table_the_sniffer_may_miss_still_reads_as_rows(tools, scratch_scope, data):
    stub = scratch_scope.spill(data, source_tool="t")
    page = tools.call("read_handle", {"handle": stub.handle, "row": 1, "rows": 2})
    assert len(page["rows"]) == 2 and "data" not in page


@pytest.mark.parametrize(("given", "works"), [
    ({"match": ""}, {}),
    ({"pattern": "", "context": "line", "max_matches": 3, "ignore_case": True}, {}),  # its settings go with it
    ({"match": "", "count": True}, {}),
    ({"match": "", "pattern": "b"}, {"pattern": "b"}),  # the other needle searches
    ({"match": "", "line": 3}, {"line": 3}),
    ({"jq": ""}, {"jq": "."}),
    ({"jq": "", "record": 2}, {"jq": ".", "record": 2}),
    ({"select": ""}, {"view": "text"}),
    ({"jq": " \n"}, {"jq": "."}),  # white space alone: the schema passed it, the read refused it naming no call
    ({"select": "  "}, {"view": "text"}),
    ({"cursor": "", "row": 2}, {"row": 2}),
    ({"row": 1, "columns": []}, {"row": 1}),
    ({"view": ""}, {}),
    ({"encoding": "", "line": 2}, {"line": 2}),
    ({"match": "", "budget": 3000}, {"budget": 3000}),
])
def test_an_empty_argument_is_refused_with_the_call_that_works(tools, scratch_scope, given, works):
    """Before: ``read_handle: match: '' should be non-empty`` (jsonschema's words), naming nothing to do."""
    handle = scratch_scope.spill(b"a,b\n1,2\n" * 2000, source_tool="t").handle
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": handle, **given})
    text = error_text(refused.value)
    empty = next(name for name, value in given.items() if value in ("", []) or str(value).isspace())
    assert text.startswith(f"invalid argument: read_handle: {empty} is empty: ") and "should be" not in text
    call = {"tool": "read_handle", "arguments": {"handle": handle, **works}}
    assert [c.to_json() for c in refused.value.calls] == [call] and len(text.encode()) < 400
    assert text.endswith(str(refused.value.calls[0]))  # the call, as the model reads it
    assert check_arguments(call["tool"], call["arguments"]) == call["arguments"]  # a call the tool takes
    with pytest.raises(InvalidArgument) as direct:  # the Python method, not through call(): refused the same way
        tools.read_handle(handle, **given)  # (match="" read a byte range there: helper replies5)
    assert error_text(direct.value) == text and direct.value.calls == refused.value.calls


@pytest.mark.parametrize(("tool", "given"), [("scratch_read", {"key": ""}), ("scratch_delete", {"key": ""}),
                                             ("scratch_write", {"key": "", "value": "plan"}),
                                             ("scratch_read", {"key": "", "offset": 5}),
                                             ("read_handle", {"handle": ""}),
                                             ("read_handle", {"match": "", "handle": ""})])
def test_an_empty_key_or_handle_is_refused_naming_the_list_of_keys(tools, tool, given):
    tools.call("scratch_write", {"key": "notes", "value": "x"})
    with pytest.raises(InvalidArgument) as refused:
        tools.call(tool, given)
    text = error_text(refused.value)
    what = "handle" if "handle" in given else "key"
    assert text.startswith(f"invalid argument: {tool}: {what} is empty: ") and "too strange" not in text
    assert [c.to_json() for c in refused.value.calls] == [{"tool": "scratch_list", "arguments": {}}]
    assert tools.call("scratch_list")["entries"][0]["key"] == "notes"  # the call named works


def test_other_faults_are_told_before_an_empty_argument(tools, scratch_scope):
    handle = scratch_scope.spill(b"x\n" * 5000, source_tool="t").handle
    with pytest.raises(InvalidArgument, match="length: 0 is less than the minimum"):
        tools.call("read_handle", {"handle": handle, "match": "", "length": 0})
    with pytest.raises(InvalidArgument, match="not a handle"):  # (a bad handle is not echoed in a call)
        tools.call("read_handle", {"handle": "h_nope", "match": ""})
    with pytest.raises(InvalidArgument, match="unknown argument"):
        tools.call("read_handle", {"handle": handle, "match": "", "grep": "x"})


def test_the_empty_refusals_call_of_long_arguments_is_written_in_words(tools, scratch_scope):
    handle = scratch_scope.spill(b"x\n" * 5000, source_tool="t").handle
    with pytest.raises(InvalidArgument) as refused:
        tools.call("read_handle", {"handle": handle, "pattern": "", "match": "y" * 900})
    text = error_text(refused.value)
    assert text.endswith("the same call without pattern") and len(text.encode()) < 400
    assert refused.value.calls[0].to_json()["arguments"]["match"] == "y" * 900  # whole as data


def test_the_python_api_names_the_call_that_works_too(tools, scratch_scope):
    """Past the tools' check (the Python API): an empty key, a jq filter or selector of white space alone."""
    handle = scratch_scope.spill(b'{"a": 1}' + b" " * 9000, source_tool="t").handle
    with pytest.raises(InvalidArgument) as refused:
        scratch_scope.scratch_read("")
    assert str(refused.value).startswith("key is empty") and str(refused.value).endswith("scratch_list()")
    for given, call in (({"jq": "  "}, {"jq": "."}), ({"select": "\t"}, {"view": "text"})):
        with pytest.raises(InvalidArgument) as refused:
            tools.read_handle(handle, **given)
        assert [c.to_json() for c in refused.value.calls] == [
            {"tool": "read_handle", "arguments": {"handle": handle, **call}}]
    assert tools.read_handle(handle, jq=".")["results"] == [{"a": 1}]


@hypothesis.given(st.integers(2, 8), st.lists(st.integers(2, 8), min_size=2, max_size=49), st.booleans())
def test_table_like_is_rows_of_two_cells_or_more_none_wider_than_the_first_line(width, widths, wider):
    """Against the plain rule: 4 in 5 records of 2 to ``width`` cells (a ragged table's short rows included)."""
    widths = [w if wider else min(w, width) for w in widths]
    data = ",".join(f"h{i}" for i in range(width)) + "\n" + "".join(
        ",".join(f"c{j}" for j in range(w)) + "\n" for w in widths)
    fitting = sum(2 <= w <= width for w in widths)
    assert table_like(BytesSource(data.encode())) is (fitting * 5 >= len(widths) * 4)


@pytest.mark.parametrize(("given", "works"), [({"match": ""}, {}), ({"pattern": "", "offset": 5}, {"offset": 5}),
                                              ({"match": b"", "context": "line"}, {})])
def test_an_empty_needle_through_the_python_api_names_the_read_without_a_search(scratch_scope, given, works):
    """Scope.read_handle(match="") said 'match must not be empty', naming nothing."""
    handle = scratch_scope.spill(b"x\n" * 6000, source_tool="t").handle
    with pytest.raises(InvalidArgument) as refused:
        scratch_scope.read_handle(handle, **given)
    assert str(refused.value).startswith(f"{next(iter(given))} is empty: ")
    assert [c.to_json() for c in refused.value.calls] == [
        {"tool": "read_handle", "arguments": {"handle": handle, **works}}]
