"""Searches bounded to a byte range (``offset=`` and ``end=``): a tar or zip member's bytes are searched alone, as a
range read of it (``offset=O, end=E``) reads them. A search with ``end=`` was refused (``a search (match=, pattern=)
takes none``), so a model could not search inside one member of an archive whose ``view="members"`` listing names
``end=`` in every member's read. The matches are those of ``re.finditer(content, offset, end)`` -- wholly inside the
bytes, ``$`` and lookahead seeing ``end`` as the content's end, as ``endpos`` has it --, the context stops at ``end``
and at ``offset`` (it reached before ``offset``: a tar member's header showed in its first window), ``next_call``
carries ``end``, and a miss says where the search looked."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument
from scratchfs.api.contract import ScratchTools, window_hits
from scratchfs.foundation.limits import MAX_MATCHES
from tests.archives import call_args, tar_of
from tests.reference import find_loop, line_of, regex_spans, windows


def _every_match(tools: ScratchTools, args: dict) -> list[tuple[int, int, int]]:
    """``(offset, length, line)`` of every match of a search, following its next_call to the end."""
    found = []
    for _ in range(10_000):
        reply = tools.call("read_handle", args)
        for window in reply["windows"]:
            found += [(h["offset"], h["length"], h["line"]) for h in window_hits(window)]
        if reply["next_call"] is None:
            return found
        args = call_args(reply["next_call"])
    raise AssertionError("the search did not end")


TEXT = st.lists(st.sampled_from([b"ab", b"a", b"b", b"\n", b"x", b"ba\n", b"aab"]), max_size=600).map(b"".join)
PATTERNS = ["ab", "a+b?", "b$", "^a", "a(?=b)", "b\\n?", "(?<=a)b", "x|ab\\nb",
            # (at the bound: word edges, \Z, negative lookaround, a line's end, lazy spans across lines)
            "a\\b", "\\bb", "\\Bb", "b\\Z", "a(?!b)", "(?<!a)b", "[^\\n]*$", "(?s)a.*?b", "x?$"]


def _spilled(store, data: bytes, cut: tuple[float, float]) -> tuple[bytes, int, int, object, str]:
    """``data`` (``b"ab"`` for none) spilled into ``store``'s scope ``r/a``, with the window ``cut`` picks in it:
    ``(data, offset, end, scope, handle)``, ``offset < end <= len(data)``."""
    data = data or b"ab"
    offset = int(cut[0] * (len(data) - 1))
    end = offset + 1 + int(cut[1] * (len(data) - offset - 1))
    scope = store.scope("r", "a")
    return data, offset, end, scope, scope.spill(data, source_tool="t").handle


@given(data=TEXT, pattern=st.sampled_from(PATTERNS), cut=st.tuples(st.floats(0, 1), st.floats(0, 1)),
       context=st.integers(0, 12))
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_bounded_pattern_search_finds_what_finditer_finds_between_pos_and_endpos(small_frames_store, data, pattern,
                                                                                  cut, context):
    data, offset, end, scope, handle = _spilled(small_frames_store, data, cut)
    found = scope.search(handle, pattern=pattern, offset=offset, end=end, context=context, max_matches=1000)
    spans = regex_spans(data[:end], pattern, offset)
    assert [(h.offset, h.offset + h.length) for w in found.windows for h in w.matches] == spans
    # the windows: the bytes [offset, end) alone, as the range read offset=, end= shows them (context stopped at
    # both ends; it reached before offset)
    expected, left_out = windows(data[offset:end], [(s - offset, e - offset) for s, e in spans], context, 1000)
    assert [(w.match_offset, w.offset, w.data) for w in found.windows] == [(m + offset, o + offset, d)
                                                                          for m, o, d, _ in expected]
    assert left_out is None and found.next_offset is None
    assert [h.line for w in found.windows for h in w.matches] == [line_of(data, s) for s, _ in spans]
    counted = scope.search(handle, pattern=pattern, offset=offset, end=end, context=0, max_matches=1000)
    assert sum(len(w.matches) for w in counted.windows) == len(spans)
    last = scope.search(handle, pattern=pattern, offset=offset, end=end, before=end, context=context, max_matches=2)
    assert [(h.offset, h.offset + h.length) for w in last.windows for h in w.matches] == spans[-2:]
    assert all(offset <= w.offset and w.offset + len(w.data) <= end for w in last.windows)
    lines = scope.search(handle, pattern=pattern, offset=offset, end=end, context="line", max_matches=1000)
    for window in lines.windows:  # a line's window: from the line's start or offset, to its end or end
        start = max(offset, data.rfind(b"\n", 0, window.match_offset) + 1)
        assert window.offset == start and window.offset + len(window.data) <= end


@given(data=TEXT, needle=st.sampled_from([b"ab", b"a", b"aa", b"ba\n"]), cut=st.tuples(st.floats(0, 1),
                                                                                        st.floats(0, 1)))
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_bounded_substring_searches_counts_and_last_matches_agree_with_a_find_loop(small_frames_store, data,
                                                                                   needle, cut):
    data, offset, end, scope, handle = _spilled(small_frames_store, data, cut)
    tools = ScratchTools(scope)
    spans = find_loop(data[:end], needle, offset)
    args = {"handle": handle, "match": needle.decode(), "offset": offset, "end": end, "context": 3, "max_matches": 2}
    assert [(s, s + n) for s, n, _ in _every_match(tools, args)] == spans
    counted = tools.call("read_handle", {"handle": handle, "match": needle.decode(), "offset": offset, "end": end,
                                         "count": True})
    assert (counted["matches"], counted["end"], counted["next_offset"]) == (len(spans), end, None)
    assert "remaining" not in counted  # (whole: next_offset null says it, as a finished search's reply)
    last = tools.call("read_handle", {**args, "before": end, "max_matches": 1})
    shown = [(h.get("match_offset", h["offset"])) for h in last["windows"]]
    assert shown == ([spans[-1][0]] if spans else [])


def test_a_search_inside_a_tar_member_stays_inside_it(scratch_scope):
    """The member's ``read`` bounds gave a search of that member alone: every match of b.txt, none of a.txt's nor of
    the headers', its next_call inside the member, and a miss that names the bytes it searched."""
    a = b"".join(b"a.txt error %d\n" % i for i in range(600))
    b = b"".join(b"b.txt error %d\n" % i for i in range(600))
    raw = tar_of([("a.txt", a), ("b.txt", b), ("c.txt", a)])
    handle = scratch_scope.spill(raw, source_tool="tar").handle
    tools = ScratchTools(scratch_scope)
    members = tools.call("read_handle", {"handle": handle, "view": "members"})["members"]
    read = call_args(members[1]["read"])
    start, end = read["offset"], read["end"]
    assert raw[start:end] == b
    found = _every_match(tools, {"handle": handle, "pattern": r"\w\.txt error \d+$", "offset": start, "end": end,
                                 "context": 0, "max_matches": 50})
    assert [raw[o:o + n] for o, n, _ in found] == re.findall(rb"\w\.txt error \d+$", b, re.M)
    first = tools.call("read_handle", {"handle": handle, "match": "error", "offset": start, "end": end})
    assert first["end"] == end and f"end={end})" in first["next_call"] and first["remaining"] < end - start
    assert first["windows"][0]["offset"] == start  # (its context before: the member's bytes, not its tar header)
    assert first["windows"][0]["data"].startswith("b.txt error 0\n") and first["windows"][0]["encoding"] == "text"
    miss = tools.call("read_handle", {"handle": handle, "match": "a.txt", "offset": start, "end": end})
    assert miss["windows"] == [] and miss["next_call"] is None
    assert f"no match in bytes {start}-{end}" in miss["note"], miss
    assert tools.call("read_handle", {"handle": handle, "match": "a.txt", "offset": start})["windows"]  # (there)
    last = tools.call("read_handle", {"handle": handle, "match": "a.txt", "offset": start, "end": end, "before": end})
    assert last["windows"] == [] and f"without end= and with before={len(raw)} searches on" in last["note"], last
    follow_on = tools.call("read_handle", {"handle": handle, "match": "a.txt", "offset": start, "before": len(raw)})
    assert follow_on["windows"]  # (what that call finds: the advice the miss gives is one that looks on)
    lines = tools.call("read_handle", {"handle": handle, "pattern": "error 599$", "offset": start, "end": end,
                                       "context": "line"})  # (the member's last line: its end is the bound's)
    assert [w["data"] for w in lines["windows"]] == ["b.txt error 599"] and lines["next_call"] is None


def test_a_context_window_stops_at_the_bound(scratch_scope):
    data = b"x" * 100 + b"needle" + b"y" * 100
    handle = scratch_scope.spill(data * 50, source_tool="t").handle
    found = scratch_scope.search(handle, match="needle", offset=0, end=110, context=50)
    assert [(w.offset, w.data) for w in found.windows] == [(50, data[50:110])]
    # and at offset=: the context before it was shown (the member's header, a tar's), the context after end not
    found = scratch_scope.search(handle, match="needle", offset=80, end=130, context=50)
    assert [(w.offset, w.data) for w in found.windows] == [(80, data[80:130])]
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "match": "needle", "offset": 80,
                                                             "end": 130, "context": 50})
    assert reply["windows"][0]["cut"] == "both"  # (context short on both sides, said alike)
    assert scratch_scope.search(handle, match="needle", offset=0, end=105).windows == []  # (it crosses the bound)


def test_a_bounded_search_of_a_text_view_is_refused_saying_what_works(scratch_scope):
    page = b"<html><body>" + b"<p>caf&eacute; au lait</p>\n" * 600 + b"</body></html>"
    handle = scratch_scope.spill(page, source_tool="browser.get").handle
    with pytest.raises(InvalidArgument, match='search the stored bytes from offset= to end=') as caught:
        ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "match": "café", "view": "text",
                                                         "end": 100})
    assert "view=\"text\"" in str(caught.value)
    stored, viewed = caught.value.calls  # (the two searches that work, as calls since misfit2)
    assert dict(stored.arguments) == {"handle": handle, "match": "café", "end": 100}
    assert dict(viewed.arguments) == {"handle": handle, "match": "café", "view": "text"}


def test_scope_read_handle_bounds_a_range_and_lines_too(scratch_scope):
    data = b"".join(b"line %d\n" % i for i in range(2000))
    handle = scratch_scope.spill(data, source_tool="t").handle
    sl = scratch_scope.read_handle(handle, offset=10, length=4096, end=30)
    assert (sl.data, sl.next_offset, sl.remaining) == (data[10:30], None, 0)
    ls = scratch_scope.read_handle(handle, line=1, lines=10, end=20)
    assert ls.data == data[:20]


def test_the_cli_and_the_tool_schema_take_a_bounded_search(tmp_path, monkeypatch):
    """``--end`` beside ``--match`` was refused (exit 2, "a search takes none"); it searches the member alone, and
    the tool's schema says that ``end`` bounds a search."""
    from click.testing import CliRunner

    from scratchfs import ScratchStore
    from scratchfs.api.tools import TOOL_SPECS
    from scratchfs.cli import main

    root = tmp_path / "root"
    raw = tar_of([("a.txt", b"alpha here\n" * 900), ("b.txt", b"beta here\n" * 900)])
    with ScratchStore(root) as store:
        handle = store.scope("r", "a").spill(raw, source_tool="tar").handle
    monkeypatch.setenv("SCRATCHFS_ROOT", str(root))
    result = CliRunner().invoke(main, ["read-handle", handle, "--run", "r", "--agent", "a", "--match", "here",
                                       "--offset", "512", "--end", str(512 + 9900), "--count"])
    assert result.exit_code == 0, result.output
    counted = json.loads(result.stdout)
    assert (counted["matches"], counted["end"]) == (900, 10_412)
    assert "search" in TOOL_SPECS["read_handle"].input_schema["properties"]["end"]["description"]


@given(unit=TEXT.filter(bool), pattern=st.sampled_from([*PATTERNS, "a"]), cut=st.tuples(st.floats(0, 1),
                                                                                          st.floats(0, 1)))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_bounded_search_across_frames_agrees_with_finditer(scratch_store_factory, unit, pattern, cut):
    """Content of many 4 KiB frames: the bound cuts a frame, and lines are counted back from it. (The time limit is
    raised: ``(?s)a.*?b`` over 20,000 ``a`` takes 1.5 s of CPU in ``re`` itself, run three times here, and under a
    loaded machine's wall clock the 5 s limit cut it -- a check of answers, not of time.)"""
    data = (unit * (20_000 // len(unit) + 1))[:20_000]
    offset = int(cut[0] * 15_000)
    end = offset + 1 + int(cut[1] * (len(data) - offset - 1))
    scope = scratch_store_factory("slow", frame_bytes=4096, pattern_timeout=120).scope("r", "a")
    handle = scope.spill(data, source_tool="t").handle
    spans = regex_spans(data[:end], pattern, offset)
    found = scope.search(handle, pattern=pattern, offset=offset, end=end, context=5, max_matches=MAX_MATCHES)
    hits = [h for w in found.windows for h in w.matches]
    assert [(h.offset, h.offset + h.length) for h in hits] == spans[:len(hits)]
    assert [h.line for h in hits] == [line_of(data, h.offset) for h in hits]
    assert found.first_left == (spans[len(hits)][0] if len(hits) < len(spans) else None)
    if found.first_left is None or not found.windows:
        assert found.next_offset == found.first_left
    else:  # (the next page starts up to the context's reach before it, past what this page showed: cf43064)
        shown_to = found.windows[-1].offset + len(found.windows[-1].data)
        assert min(found.first_left, max(shown_to, found.first_left - found.reach)) == found.next_offset
    assert all(w.offset + len(w.data) <= end for w in found.windows)
    counted = ScratchTools(scope).call("read_handle", {"handle": handle, "pattern": pattern, "offset": offset,
                                                       "end": end, "count": True})
    assert counted["matches"] == len(spans)


@pytest.mark.parametrize("pattern", ["(a+)+b", "a[\\s\\S]*b"])
def test_a_pattern_error_of_a_bounded_search_names_its_end_too(scratch_store_factory, pattern):
    """A bounded search stopped by its pattern (the time limit; a match past the reach bound) advised 'search on past
    them with offset=N' alone: a model following it searched on past the member's end. Its refusal now names end=
    too, for a search, a count and the last matches alike."""
    store = scratch_store_factory("quick", pattern_timeout=0.2)
    scope = store.scope("r", "a")
    data = b"ok line\n" * 100 + b"a" * 40_000 + b"!\n" + b"ok line\n" * 5000 + b"b"
    handle = scope.spill(data, source_tool="t").handle
    end = len(data) - 100
    tools = ScratchTools(scope)
    for extra in ({}, {"count": True}, {"before": end}):
        with pytest.raises(InvalidArgument, match="offset=") as caught:
            tools.call("read_handle", {"handle": handle, "pattern": pattern, "offset": 10, "end": end, **extra})
        assert f"with end={end}, as this search" in str(caught.value), (extra, str(caught.value))
    if pattern == "(a+)+b":  # (unbounded: no word of it)
        with pytest.raises(InvalidArgument) as caught:
            tools.call("read_handle", {"handle": handle, "pattern": pattern, "offset": 10})
        assert "end=" not in str(caught.value)


def test_a_bounded_search_from_past_the_content_names_before_end(scratch_scope):
    """before= past the content's size beside end= was told 'before=<size> gives the last matches', which is past
    end= too and refused in turn; it names before=<end>, what works."""
    data = b"".join(b"line %d\n" % i for i in range(3000))
    handle = scratch_scope.spill(data, source_tool="t").handle
    tools = ScratchTools(scratch_scope)
    with pytest.raises(InvalidArgument) as caught:
        tools.call("read_handle", {"handle": handle, "match": "line", "end": 500, "before": len(data) + 10})
    assert "before=end" in str(caught.value) and f"before={len(data)}" not in str(caught.value)
    last = tools.call("read_handle", {"handle": handle, "match": "line", "end": 500, "before": 500, "max_matches": 1})
    assert [w["match_offset"] for w in last["windows"]] == [data.rindex(b"line", 0, 500)]


def _shown(windows: list[tuple[int, int]]) -> set[int]:
    return {at for offset, length in windows for at in range(offset, offset + length)}


@given(data=st.lists(st.sampled_from([b"xxxxxxx", b"ab", b"\n", b"yy", b"a"]), max_size=300).map(b"".join),
       needle=st.sampled_from([b"ab", b"a", b"b\n"]), cut=st.tuples(st.floats(0, 1), st.floats(0, 1)),
       context=st.integers(1, 12))
@example(data=b"x" * 50 + b"ab" + b"x" * 50 + b"ab" + b"x" * 50, needle=b"ab", cut=(0.0, 1.0), context=10)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_pages_of_a_bounded_search_show_the_context_one_page_shows(small_frames_store, data, needle, cut, context):
    """A bounded search shows no byte before its offset, so a next page from the first match not shown showed none of
    the context before it: the next page starts up to ``context`` bytes before that match, after the bytes shown
    (its next_offset). Pages of one match show every byte one page of all of them shows, and only those."""
    data, offset, end, scope, handle = _spilled(small_frames_store, data, cut)
    tools = ScratchTools(scope)
    args = {"handle": handle, "match": needle.decode(), "offset": offset, "end": end, "context": context}
    whole = tools.call("read_handle", {**args, "max_matches": 1000})
    paged: list[tuple[int, int]] = []
    found: list[int] = []
    args["max_matches"] = 1
    for _ in range(1000):
        reply = tools.call("read_handle", args)
        for window in reply["windows"]:
            assert window["data"].encode() == data[window["offset"]:window["offset"] + window["length"]]
            paged.append((window["offset"], window["length"]))
            found += [h["offset"] for h in window_hits(window)]
        if reply["next_call"] is None:
            break
        args = call_args(reply["next_call"])
    assert found == [s for s, _ in find_loop(data[:end], needle, offset)]
    assert _shown(paged) == _shown([(w["offset"], w["length"]) for w in whole["windows"]])
    assert all(offset <= at < end for at in _shown(paged))
