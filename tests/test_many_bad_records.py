"""structnotes1 (hostile31's finding 2): in lines where every other one is plain text (a log mixing JSON and plain
lines) a records page ends at its first bad record after its first record, so 1,000 lines took 500 calls (~500 KB).
A records page never shows records out of their numbering, so it still ends there, but when 1 in 4 or more of the
lines after that record are no JSON either its note names a read that gets the rest in few calls (``slurp=true``
over JSON lines, a search for the lines that start JSON over text), as a call and in ``calls``. Each test here
failed before its fix."""

from __future__ import annotations

import ast
import json

import pytest

from scratchfs.api.contract import ScratchTools


def _mixed(lead: int, pairs: int = 500) -> bytes:
    lines = [json.dumps({"n": -i}) for i in range(lead)]
    for i in range(pairs):
        lines += [json.dumps({"n": i, "msg": f"event {i}"}), f"2026-12-07 10:00:{i % 60:02d} INFO plain line {i}"]
    return ("\n".join(lines) + "\n").encode()


def _next(page: dict) -> dict:
    node = ast.parse(page["next_call"], mode="eval").body
    return {k.arg: ast.literal_eval(k.value) for k in node.keywords}


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


@pytest.mark.parametrize(("lead", "kind", "most_calls"), [(0, "text", 10), (20, "jsonl", 4)])
def test_a_page_ending_among_many_bad_records_names_a_read_of_the_rest(tools, lead, kind, most_calls):
    stub = tools.scope.spill(_mixed(lead), source_tool="t").to_dict()
    assert stub["content_type"] == kind
    page = tools.read_handle(handle=stub["handle"], record=lead + 1, records=50)
    assert len(page["records"]) == 1 and "so pages of records end often: read_handle(" in page["note"]
    call = page["calls"][-1]["arguments"]
    assert "end often" not in tools.call("read_handle", _next(page))["note"]  # (a read's first page says it)
    named = page["note"].split("so pages of records end often: ", 1)[1].rsplit(" gives the ", 1)[0]
    assert _next({"next_call": named}) == {k: v for k, v in call.items() if v is not None}  # (the call as written)
    pages = [tools.call("read_handle", call)]
    while pages[-1].get("next_call"):
        pages.append(tools.call("read_handle", _next(pages[-1])))
    assert len(pages) <= most_calls
    if kind == "jsonl":
        got = [value["n"] for p in pages for value in p["results"]]
        assert got == [-i for i in range(lead)] + list(range(500))
    else:
        windows = [window for p in pages for window in p["windows"]]  # (a line that does not fit: the next page's)
        assert [window["line"] for window in windows] == list(range(1, 1000, 2))
        assert [json.loads(window["data"])["n"] for window in windows] == list(range(500))


def test_a_lone_bad_record_names_no_other_read(tools):
    lines = [json.dumps({"n": i}) for i in range(1000)]
    lines[30] = "WARNING: a plain line"
    stub = tools.scope.spill(("\n".join(lines) + "\n").encode(), source_tool="t").to_dict()
    page = tools.read_handle(handle=stub["handle"], record=1, records=50)
    assert len(page["records"]) == 30 and "passed over: the page ends before it" in page["note"]
    assert "end often" not in page["note"] and len(page["calls"]) == 1


@pytest.mark.parametrize("plain", ["[INFO] step {i} done", "[2026-12-07 10:00:{s:02d}] step {i}", "[ERROR] {i}"])
def test_the_search_named_among_bracketed_log_lines_gives_the_records_alone(tools, plain):
    """hostile32: a log whose plain lines start with '[' ([INFO], a [timestamp]) mixed with JSON lines: the search
    named (lines that start a JSON object or array) matched every plain line too -- 1,000 windows for 500 records,
    17 pages for 10. Its pattern asks for what a JSON array's first item starts with after the '['."""
    lines = []
    for i in range(500):
        lines += [json.dumps({"n": i, "msg": f"event {i}"}), plain.format(i=i, s=i % 60)]
    handle = tools.scope.spill(("\n".join(lines) + "\n").encode(), source_tool="t").to_dict()["handle"]
    page = tools.read_handle(handle=handle, record=1, records=50)
    call = page["calls"][-1]["arguments"]
    assert "pattern" in call, page
    pages = [tools.call("read_handle", call)]
    while pages[-1].get("next_call"):
        pages.append(tools.call("read_handle", _next(pages[-1])))
    windows = [window for p in pages for window in p["windows"]]
    assert [window["line"] for window in windows] == list(range(1, 1000, 2))
    assert [json.loads(window["data"])["n"] for window in windows] == list(range(500)) and len(pages) <= 10
