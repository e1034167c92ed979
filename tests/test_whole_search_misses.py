"""A search over the whole content that finds nothing says why when the content does -- an HTML page's markup,
terminal output's overstrikes, CRLF line ends under a `$`, Latin-1 or UTF-16 bytes, compressed bytes -- whichever
form it takes: a forward search from the start said so, but a count (`count=true`, which every budget note names)
and the last matches (`before=<size>`, "the last error in this log") answered 0 and nothing more (helper
realworld: `count=true` of `root$` over `ls -laR /etc` with CRLF line ends said 0 lines, silently). Each note's call,
followed, finds what the plain Python answer finds."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools

TOOLS = Path(__file__).resolve().parent.parent / "fixtures" / "tools"
DPKG = (TOOLS / "dpkg-l.txt").read_bytes()  # real `dpkg -l`, ASCII


def cases() -> list[tuple[str, bytes, dict, str]]:
    """(name, content, the search, how its note starts)."""
    latin = DPKG.decode().replace("Name ", "Namé ").encode("latin-1")
    return [
        ("crlf", DPKG.replace(b"\n", b"\r\n"), {"pattern": "utilities$"},
         "no match: the content's lines end in \\r\\n"),
        ("html", (TOOLS / "pydoc-typing.html").read_bytes(), {"match": "-> "}, "no match in the page's HTML source"),
        ("overstrike", (TOOLS / "man-ls-overstrike.txt").read_bytes(), {"match": "NAME"},
         "no match in the stored bytes, where escape sequences"),
        ("latin-1", latin, {"match": "Namé"}, "no match: the stored bytes are not UTF-8"),
        ("utf-16", b"\xff\xfe" + DPKG.decode().encode("utf-16-le"), {"match": "amd64"},
         "no match: the content is UTF-16LE text"),
        ("gzip", gzip.compress(DPKG, mtime=0), {"match": "amd64"}, "no match: the content is gzip-compressed"),
    ]


def follow(tools: ScratchTools, call: str) -> list[int]:
    offsets = []
    while call is not None:
        name, args = parse_call(call)
        reply = tools.call(name, args)
        for window in reply["windows"]:
            hits = window.get("matches") or [{"offset": window.get("match_offset", window["offset"])}]
            offsets += [hit["offset"] for hit in hits]
        call = reply["next_call"]
    return offsets


@pytest.mark.parametrize(("name", "data", "search", "starts"), cases(), ids=[case[0] for case in cases()])
def test_a_count_and_the_last_matches_of_none_say_why_as_a_search_does(scope, name, data, search, starts):
    tools = ScratchTools(scope)
    handle = scope.spill(data, source_tool="shell").handle
    forward = tools.read_handle(handle, **search)
    assert forward["windows"] == [] and forward["note"].startswith(starts)
    counted = tools.read_handle(handle, **search, count=True)
    assert counted["matches"] == 0 and counted["next_call"] is None
    assert counted["note"] == forward["note"]
    last = tools.read_handle(handle, **search, before=len(data))
    assert last["windows"] == [] and last["next_call"] is None
    assert last["note"] == forward["note"]
    for reply in (counted, last):  # (within the smallest budget too)
        small = tools.read_handle(handle, **search, budget=2048, **({"count": True} if reply is counted else
                                                                     {"before": len(data)}))
        assert small["note"] == tools.read_handle(handle, **search, budget=2048)["note"]  # (its call repeats the
        # budget: advice3)
        assert small["calls"] == [{**call, "arguments": {**call["arguments"], "budget": 2048}}  # (its calls as
                                  for call in forward["calls"]]  # data, each with the budget)


def test_the_notes_call_finds_what_python_finds(scope):
    tools = ScratchTools(scope)
    crlf = DPKG.replace(b"\n", b"\r\n")
    handle = scope.spill(crlf, source_tool="shell").handle
    note = tools.read_handle(handle, pattern="utilities$", count=True)["note"]
    want = [m.start() for m in re.finditer(rb"utilities\r?$", crlf, re.M)]
    assert want and follow(tools, note.rsplit(": ", 1)[1]) == want
    utf16 = b"\xff\xfe" + DPKG.decode().encode("utf-16-le")
    handle = scope.spill(utf16, source_tool="shell").handle
    note = tools.read_handle(handle, match="amd64", before=len(utf16))["note"]
    want = [2 + 2 * m.start() for m in re.finditer("amd64", DPKG.decode())]
    assert want and follow(tools, note.rsplit(": ", 1)[1]) == want


def test_no_note_where_it_is_not_a_miss_of_the_whole_content(scope):
    tools = ScratchTools(scope)
    crlf = DPKG.replace(b"\n", b"\r\n")
    handle = scope.spill(crlf, source_tool="shell").handle
    counted = tools.read_handle(handle, pattern="utilities$", count=True, offset=10)  # (not from the start: where
    assert counted["note"].startswith("no match in bytes 10-") and "\\r" not in counted["note"]  # it looked, and
    assert counted["calls"][0]["arguments"] == {"handle": handle, "pattern": "utilities$", "count": True}  # the whole)
    assert tools.read_handle(handle, pattern="utilities$", before=len(crlf) - 10)["note"] == (  # (not to the end:
        f"no match in bytes 0-{len(crlf) - 10} (from offset= to before=)")  # where it looked, no reason)
    found = tools.read_handle(handle, pattern="utilities\r$", count=True)
    assert found["matches"] == crlf.count(b"utilities\r\n") > 0 and "note" not in found
    assert "note" not in tools.read_handle(handle, pattern="no such words", count=True)  # (no reason to give)


def test_the_last_matches_of_none_say_where_they_looked_as_a_forward_search_does(scope):
    """A new user's trial: ``match="purge", before=<size>`` over a dpkg log answered ``"windows": [],
    "next_before": null`` and nothing more, where the same search forward says ``no match in the whole content
    (N bytes)``; from the end it now says so too, and a search before= a byte says the bytes it looked in."""
    tools = ScratchTools(scope)
    handle = scope.spill(DPKG, source_tool="shell").handle
    forward = tools.read_handle(handle, match="no such words")
    assert forward["note"] == f"no match in the whole content ({len(DPKG):,} bytes)"
    assert tools.read_handle(handle, match="no such words", before=len(DPKG))["note"] == forward["note"]
    assert tools.read_handle(handle, pattern="no such words?", offset=5, before=1000)["note"] == (
        "no match in bytes 5-1000 (from offset= to before=)")
    found = tools.read_handle(handle, match="amd64", before=len(DPKG), max_matches=1)
    assert found["windows"] and "note" not in found


def test_a_page_that_holds_the_text_in_another_case_names_that_match_not_the_text_view(scope):
    """An HTML page whose source holds the words in another case ("What is Ownership?" for "What is ownership"):
    the note named the search of the page's text view, as case-sensitive, which missed too and said nothing more
    (helper newuser12: two dead ends on the Rust book); it names the same search ignoring case, which finds what
    Python finds -- a count and the last matches say the same. Markup that splits the text still names the view."""
    tools = ScratchTools(scope)
    page = (Path(__file__).resolve().parent.parent / "fixtures" / "browser-rust-book.html").read_bytes()
    handle = scope.spill(page, source_tool="browser.get").handle
    forward = tools.read_handle(handle, match="What is ownership")
    assert forward["windows"] == [] and "view=" not in forward["note"]
    assert forward["note"].startswith(f"no match in the whole content ({len(page):,} bytes); ignoring case it")
    call = forward["calls"][0]
    assert call["arguments"] == {"handle": handle, "match": "What is ownership", "ignore_case": True}
    want = [m.start() for m in re.finditer(rb"what is ownership", page, re.I)]
    assert len(want) == 2 and follow(tools, forward["note"].rsplit(": ", 1)[1]) == want
    for other in ({"count": True}, {"before": len(page)}):
        reply = tools.read_handle(handle, match="What is ownership", **other)
        assert "; ignoring case it matches" in reply["note"] and reply["calls"] == forward["calls"]
    split = tools.read_handle(handle, match="Press S or / to search")  # (its words are split by markup alone)
    assert split["note"].startswith("no match in the page's HTML source") and 'view="text"' in split["note"]
    assert tools.read_handle(handle, match="Press S or / to search", view="text")["windows"]
