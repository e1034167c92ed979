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


_BROKEN = {  # an HTML page whose words the text view breaks across lines or spaces otherwise, in another case
    "br": b"<html><body><h1>What is<br>Ownership?</h1>" + b"<p>Some words of text.</p>" * 200 + b"</body></html>",
    "blocks": b"<html><body><div>Rules of</div><div>WHAT IS</div><div>OWNERSHIP</div>" + b"<p>text</p>" * 200
              + b"</body></html>",
    "pre": b"<html><body>" + b"<p>Some words of text.</p>" * 200
           + b"<pre>  what   is\n    ownership</pre></body></html>",
}


@pytest.mark.parametrize("page", list(_BROKEN.values()), ids=list(_BROKEN))
@pytest.mark.parametrize("needle", ["What is ownership", "what is\nownership", "WHAT  IS  OWNERSHIP"])
def test_a_miss_whose_words_the_view_breaks_across_lines_names_a_search_that_finds_them(scope, page, needle):
    """The case hint sought the needle ignoring case as ``re.escape`` wrote it: words the view breaks across lines
    (a ``<br>``, a block's end) or spaces otherwise (a ``<pre>``) were no hint, the miss said "no match" alone. The
    hint now seeks its words with any white space between them, and names the call that finds them: the same search
    ignoring case when it does (the needle spaced as the view), else the pattern of its words joined by
    \\s{1,256}."""
    tools = ScratchTools(scope)
    handle = scope.spill(page, source_tool="browser").handle
    reply = tools.read_handle(handle, match=needle, view="text", context="line", budget=4096)
    assert reply["windows"] == [] and "it matches" in reply["note"], reply
    assert reply_size(reply["note"]) <= NOTE_BYTES
    as_viewed = needle == "what is\nownership" and b"pre" not in page  # (the view writes "What is\nOwnership")
    sought = {"match": needle} if as_viewed else {"pattern": r"\s{1,256}".join(needle.split())}
    (call,) = reply["calls"]
    assert call["arguments"] == {"handle": handle, **sought, "view": "text", "ignore_case": True, "context": "line",
                                 "budget": 4096}
    followed = _followed(tools, reply)
    assert followed["windows"], followed
    found = followed["windows"][0]["data"]
    assert " ".join(found.split()).lower().count("what is ownership") == 1, found


@pytest.mark.parametrize(("name", "value"), [("match", "TEXT"), ("pattern", "REGEX")])
def test_the_placeholder_is_told_in_the_same_words_by_a_view_search_and_a_search_of_the_stored_bytes(scope, name,
                                                                                                       value):
    """A text view's miss and a stored content's miss each wrote their own copy of the placeholder's sentence: one
    source (:func:`~scratchfs.api.stub_reads.placeholder_said`) says it for both."""
    from scratchfs.api.stub_reads import placeholder_said

    tools = ScratchTools(scope)
    page = scope.spill(BOOK.replace(b"text", b"words").replace(b"Text", b"Words"), source_tool="browser").handle
    log = scope.spill(b"a log line of no interest\n" * 50, source_tool="shell").handle
    said = placeholder_said(name, value)
    assert said == f'{name}="{value}" is the stub\'s placeholder: write what you look for in its place'
    view = tools.read_handle(page, view="text", **{name: value})
    stored = tools.read_handle(log, **{name: value})
    assert stored["windows"] == [] and stored["note"].startswith(f"{said} (match= a substring, "), stored
    assert view["windows"] == [] and view["note"].endswith(f"; {said}"), view
    assert placeholder_said(name, value.lower()) is None and placeholder_said("jq", "JQ") is None
