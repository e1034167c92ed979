"""A ``next_call`` holds only what is needed to go on: beside its ``cursor`` no position but the one it goes on at.
A new user's ``view="text"`` read from ``offset=6322`` gave ``next_call`` ``read_handle(..., offset=6322,
view="text", cursor="7879...")``: the cursor went on at 7879 and the stale offset misled (the view's cursor was
bound to the offset its read started at, which next_call therefore repeated; a terminal view's to its ``raw_offset``
too). Now a view's cursor is bound to no start, its next_call names none, and an ``offset=`` or ``raw_offset=``
given beside a cursor is refused, never obeyed nor ignored in silence. Every structure read is followed to its end,
each next_call checked: a row or record read names the row or record it goes on at (its cursor's), and no other
read a position."""

from __future__ import annotations

import itertools
import json

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.engine.structure.paging import cursor_position
from scratchfs.foundation.errors import InvalidArgument
from tests.test_budgets import call_args

_TERMINAL = b"".join(b"step %d \x1b[32mok\x1b[0m\r" % i + b"done %d\n" % i for i in range(2000))
_JSONL = b"".join(json.dumps({"id": i, "name": f"item {i}"}).encode() + b"\n" for i in range(1500))
_CSV = b"id,name\n" + b"".join(b"%d,row %d\n" % (i, i) for i in range(2000))
_JSON = json.dumps({"items": [{"id": i, "tags": ["a", "b"]} for i in range(400)]}).encode()


@pytest.fixture
def tools(scratch_scope):
    return ScratchTools(scratch_scope)


def _pages(tools: ScratchTools, args: dict, budget: int = 2048) -> list[dict]:
    """Every reply of a read, by its next_call as written; checks that each next_call holds no stale position."""
    replies, call = [], {**args, "budget": budget}
    while call is not None:
        reply = tools.call("read_handle", call)
        replies.append(reply)
        if reply["next_call"] is None:
            return replies
        _, call = call_args(reply["next_call"])
        assert not {"offset", "raw_offset", "line"} & call.keys(), reply["next_call"]
        place = {"row", "record"} & call.keys()
        for name in place:  # a row or record read names where its cursor goes on
            assert call[name] == cursor_position(call["cursor"]), reply["next_call"]
        if not place:
            assert call.keys() - {"handle", "cursor", "budget"} == args.keys() - {"handle", "offset", "raw_offset",
                                                                                  "row", "record"}
        assert len(replies) < 2000
    return replies


@pytest.mark.parametrize("start", [{}, {"offset": 6322}])
def test_an_html_views_next_call_names_no_offset(tools, scratch_scope, fixture_data, start):
    handle = scratch_scope.spill(fixture_data["browser-rust-book.html"], source_tool="browser").handle
    pages = _pages(tools, {"handle": handle, "view": "text", **start}, budget=8192)
    assert pages[0]["offset"] == start.get("offset", 0) and len(pages) > 2 and not pages[-1]["more"]
    for page, after in itertools.pairwise(pages):  # each page starts where the one before ended
        assert after["offset"] == page["offset"] + len(page["text"].encode())


@pytest.mark.parametrize("start", [{}, {"offset": 500}, {"raw_offset": 9000}])
def test_a_terminal_views_next_call_names_no_offset(tools, scratch_scope, start):
    handle = scratch_scope.spill(_TERMINAL, source_tool="t").handle
    pages = _pages(tools, {"handle": handle, "view": "text", **start})
    assert len(pages) > 2 and not pages[-1]["more"]
    for page, after in itertools.pairwise(pages):
        assert after["offset"] == page["offset"] + len(page["text"].encode())


@pytest.mark.parametrize(("data", "args"), [
    (_CSV, {"row": 5, "rows": 40}), (_JSONL, {"record": 3, "records": 30}),
    (_JSONL, {"record": 1, "records": 30, "jq": ".name"}), (_JSON, {"jq": ".items[]"}),
    (_CSV, {"jq": "map(.name)", "slurp": True}),
])
def test_every_structure_reads_next_call_holds_only_what_goes_on(tools, scratch_scope, data, args):
    handle = scratch_scope.spill(data, source_tool="t").handle
    assert len(_pages(tools, {"handle": handle, **args}, budget=2048)) > 1


@pytest.mark.parametrize("kind", ["html", "terminal"])
def test_a_position_beside_a_views_cursor_is_refused(tools, scratch_scope, fixture_data, kind):
    data = fixture_data["browser-rust-book.html"] if kind == "html" else _TERMINAL
    handle = scratch_scope.spill(data, source_tool="t").handle
    first = tools.call("read_handle", {"handle": handle, "view": "text", "budget": 2048})
    _, call = call_args(first["next_call"])
    again = tools.call("read_handle", {**call, "budget": 2048})
    assert again["offset"] == first["offset"] + len(first["text"].encode())
    for position in ({"offset": 100}, {"raw_offset": 100}):
        with pytest.raises(InvalidArgument, match="beside a cursor"):
            tools.call("read_handle", {**call, **position, "budget": 2048})
