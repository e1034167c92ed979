"""A search of a text view that finds nothing says, when the same search ignoring case finds something, what it
finds and the call that finds it -- as a search of the stored bytes says (tests/test_whole_search_misses.py). newuser12
searched the Rust book (1.8 MiB: over the 1 MiB a source search is searched again for a hint) for
``match="What is ownership"``: the source's miss named the text view's search, whose miss said "no match in the
whole text view" and no more, though the view holds "What is Ownership?". The slice in fixtures/ shows the same miss
(its view holds the heading too); two copies of it make a page over 1 MiB."""

from __future__ import annotations

from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools
from scratchfs.api.miss_hints import NOTE_BYTES
from scratchfs.api.views import reply_size

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
BOOK = (FIXTURES / "browser-rust-book.html").read_bytes()  # 524,273 bytes of the Rust book's print page
MAN = (FIXTURES / "tools" / "man-ls-overstrike.txt").read_bytes()  # man ls, bold as backspace overstrikes


def _followed(tools: ScratchTools, reply: dict) -> dict:
    (call,) = reply["calls"]
    assert call["tool"] == "read_handle"
    return tools.read_handle(**call["arguments"])


@pytest.mark.parametrize("page", [BOOK, BOOK + BOOK], ids=["slice", "over-1-MiB"])
def test_a_miss_in_an_html_pages_text_view_names_the_search_ignoring_case(scope, page):
    tools = ScratchTools(scope)
    handle = scope.spill(page, source_tool="browser").handle
    if len(page) > 1 << 20:  # (the source's miss names the view's search: the first step newuser12 took)
        source = tools.read_handle(handle, match="What is ownership")
        assert source["calls"][0]["arguments"] == {"handle": handle, "match": "What is ownership", "view": "text"}
    reply = tools.read_handle(handle, match="What is ownership", view="text", budget=4096)
    assert reply["windows"] == []
    assert reply["note"].startswith("no match in the whole text view (")
    assert '; ignoring case it matches "What is Ownership" (line ' in reply["note"], reply["note"]
    assert reply_size(reply["note"]) <= NOTE_BYTES
    assert reply["calls"][0]["arguments"] == {"handle": handle, "match": "What is ownership", "view": "text",
                                              "ignore_case": True, "budget": 4096}
    followed = _followed(tools, reply)
    assert followed["windows"] and "What is Ownership?" in followed["windows"][0]["data"]


def test_a_pattern_missed_in_the_view_is_hinted_too(scope):
    tools = ScratchTools(scope)
    handle = scope.spill(BOOK, source_tool="browser").handle
    reply = tools.read_handle(handle, pattern=r"what is owner\w+", view="text", context="line")
    assert "ignoring case it matches" in reply["note"]
    assert reply["calls"][0]["arguments"] == {"handle": handle, "pattern": r"what is owner\w+", "view": "text",
                                              "ignore_case": True, "context": "line"}
    assert _followed(tools, reply)["windows"]


def test_a_miss_in_terminal_outputs_view_names_the_search_ignoring_case(scope):
    tools = ScratchTools(scope)
    handle = scope.spill(MAN, source_tool="shell").handle
    reply = tools.read_handle(handle, match="list directory contents", view="text")  # (its NAME line's words)
    assert reply["windows"], reply  # (as written: found across the overstrikes)
    reply = tools.read_handle(handle, match="LIST DIRECTORY", view="text")
    assert reply["windows"] == [] and "ignoring case it matches" in reply["note"], reply
    followed = _followed(tools, reply)
    assert followed["windows"] and "list directory" in followed["windows"][0]["data"]


def test_no_hint_when_ignoring_case_finds_nothing_either_or_the_search_ignored_case(scope):
    tools = ScratchTools(scope)
    handle = scope.spill(BOOK, source_tool="browser").handle
    for search in ({"match": "zebra crossing quux"}, {"match": "what is OWNERSHIP!", "ignore_case": True}):
        reply = tools.read_handle(handle, view="text", **search)
        assert reply["note"].startswith("no match in the whole text view (") and "calls" not in reply, reply


def test_the_stubs_placeholder_missed_in_the_view_is_said_to_be_one_not_hinted(scope):
    """``match="TEXT"`` (a stub's placeholder) ignoring case matches "text" in most pages: the miss says it is the
    placeholder, as a search of the stored bytes does, and names no spelling."""
    tools = ScratchTools(scope)
    handle = scope.spill(BOOK, source_tool="browser").handle
    reply = tools.read_handle(handle, match="TEXT", view="text")
    assert reply["note"].endswith('; match="TEXT" is the stub\'s placeholder: write what you look for in its place')
    assert "calls" not in reply and "ignoring case" not in reply["note"]
