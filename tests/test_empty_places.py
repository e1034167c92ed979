"""A search or count of a pattern that matches only empty strings (:mod:`scratchfs.api.empty_places`):
``read_handle(h, pattern="(?=foo)")`` over text holding foo said "no match in the whole content", where
``re.finditer`` finds an empty match before each foo. It now says the pattern matches only empty strings, at how
many places of the bytes searched and the first one's offset, and names the call that shows them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scratchfs.api.contract import ScratchTools


@pytest.fixture
def text_tools(scratch_scope, fixture_data):
    data = fixture_data["workspace-grep-stdlib-defs.txt"][: 256 * 1024]
    return ScratchTools(scratch_scope), scratch_scope.spill(data).handle, data


def _places(pattern: str, data: bytes, start: int = 0, stop: int | None = None) -> list[int]:
    stop = len(data) if stop is None else stop
    return [m.start() for m in re.finditer(pattern.encode(), data, re.M) if start <= m.start() < stop]


@pytest.mark.parametrize("pattern", ["(?=def )", r"\b(?=class\b)", r"(?<=:)(?=\d)", "(?=def )|(?=class )",
                                     "(?i)(?=DEF )", "^", "$", r"\b"])
def test_a_search_and_a_count_say_where_an_empty_only_pattern_matches(text_tools, pattern):
    tools, handle, data = text_tools
    places = _places(pattern, data)
    assert places  # (the content holds them: the search's "no match" was wrong)
    said = f"at {len(places):,} places in the whole content ({len(data):,} bytes), the first at byte {places[0]}"
    for extra in ({}, {"count": True}):
        reply = tools.call("read_handle", {"handle": handle, "pattern": pattern, **extra})
        assert reply.get("matches", 0) == 0 and not reply.get("windows")
        assert "no match" not in reply["note"] and "matches only empty strings" in reply["note"], reply
        assert said in reply["note"], reply
        (call,) = reply["calls"]  # (the same search or count with a consuming part: it shows each place)
        shown = tools.call(call["tool"], call["arguments"])
        if extra:
            assert shown["matches"] == len(places) - (places[-1] == len(data))  # (no byte after the last: none)
        else:
            assert shown["windows"] and shown["windows"][0]["offset"] <= places[0]


def test_the_places_are_counted_within_the_search_s_bounds(text_tools):
    tools, handle, data = text_tools
    start, end = 10_000, 30_000
    places = _places("(?=def )", data, start, end)
    for extra in ({}, {"count": True}):
        reply = tools.call("read_handle", {"handle": handle, "pattern": "(?=def )", "offset": start, "end": end,
                                           **extra})
        assert f"at {len(places):,} places in bytes {start}-{end}, the first at byte {places[0]}" in reply["note"]
        assert reply["calls"][0]["arguments"]["offset"] == start and reply["calls"][0]["arguments"]["end"] == end


def test_no_place_is_said_so_and_other_patterns_keep_their_notes(text_tools):
    tools, handle, _ = text_tools
    none = tools.call("read_handle", {"handle": handle, "pattern": "(?=zzzq)"})
    assert "matches only empty strings" in none["note"] and "at no place in the whole content" in none["note"]
    assert "calls" not in none
    starred = tools.call("read_handle", {"handle": handle, "pattern": "(?:zzq)*"})  # (non-empty text too)
    assert "matches only empty strings" not in starred["note"] and "matches empty text" in starred["note"]
    found = tools.call("read_handle", {"handle": handle, "pattern": "(?=def )def"})
    assert found["windows"] and "note" not in found


@pytest.mark.parametrize("how", [{"before": -1}, {"before": 30_000, "offset": 1_000}, {"encoding": "latin-1"},
                                 {"encoding": "cp1252", "count": True}, {"encoding": "latin-1", "before": -1}])
def test_a_search_from_the_end_and_in_a_single_byte_encoding_say_so_too(text_tools, how):
    """``before=`` and ``encoding=`` said "no match" (or, counting, nothing) of a pattern matching only empty
    strings: they now say where it matches, and their call (before= and encoding= kept) shows the places."""
    tools, handle, data = text_tools
    how = {**how, "before": len(data)} if how.get("before") == -1 else how
    start, stop = how.get("offset", 0), how.get("before", len(data))
    places = _places("(?=def )", data, start, stop)
    reply = tools.call("read_handle", {"handle": handle, "pattern": "(?=def )", **how})
    assert "matches only empty strings" in reply["note"] and "no match" not in reply["note"], reply
    where = f"the whole content ({len(data):,} bytes)" if (start, stop) == (0, len(data)) else f"bytes {start}-{stop}"
    assert f"at {len(places):,} places in {where}, the first at byte {places[0]}" in reply["note"], reply
    (call,) = reply["calls"]
    assert {name: call["arguments"].get(name) for name in how} == how  # (the same search, with a consuming part)
    shown = tools.call(call["tool"], call["arguments"])
    if how.get("count"):
        assert shown["matches"] == len(places)
    else:
        assert shown["windows"] and all(start <= w["offset"] < stop for w in shown["windows"])


def test_a_text_view_search_says_where_in_the_view_it_matches(scratch_scope):
    """``view="text"`` said "no match in the whole text view": it now counts the places in the view's text."""
    tools = ScratchTools(scratch_scope)
    page = (Path(__file__).parent.parent / "fixtures" / "tools" / "pydoc-json-decoder.html").read_bytes()
    handle = scratch_scope.spill(page, source_tool="curl").handle
    text = scratch_scope.structure.text_view(handle)[0].encode()
    places = _places(r"(?=\bdecode\b)", text)
    assert places
    reply = tools.call("read_handle", {"handle": handle, "pattern": r"(?=\bdecode\b)", "view": "text"})
    assert "matches only empty strings" in reply["note"] and "no match" not in reply["note"], reply
    assert (f"at {len(places):,} places in the whole text view ({len(text):,} bytes), the first at byte "
            f"{places[0]}") in reply["note"], reply
    (call,) = reply["calls"]
    shown = tools.call(call["tool"], call["arguments"])
    assert call["arguments"]["view"] == "text" and shown["windows"][0]["offset"] <= places[0] + 200, shown
