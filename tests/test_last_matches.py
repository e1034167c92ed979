"""A search from the end (``before=``) gives exactly the tail of what a forward search gives: the last matches of
``list(re.finditer(...))[-k:]`` (of the ``str.find`` loop for ``match=``), in file order, with the same windows, and a
next_call that walks back through every earlier match."""

from __future__ import annotations

import json
import re
import time

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument, PatternTooLong
from scratchfs.adapter import parse_call, tool_definitions
from scratchfs.api.contract import ScratchTools
from scratchfs.api.search_window import window_hits
from scratchfs.api.views import reply_size
from scratchfs.cli.app import main
from scratchfs.engine.last_matches import MAX_STEPS_BACK, last_matches
from scratchfs.engine.line_windows import LineSink
from scratchfs.engine.search import LiteralMatcher, PatternMatcher, Sink

from .reference import find_loop, line_of, regex_spans, windows
from .seekable_file import seekable_reader

_atoms = [r"a", r"b", r"ab", r"\b", r"^", r"$", r"(?<=a)", r"(?<!b)", r"(?=b)", r"(?!a)", r"a+", r"[ab]{1,3}",
          r"\r", r" ", r".", r"(?:ab|ba)", r"b?", r"\w", r"x\d", r"(?<=\n)", r"\r?$", r"\n", r"\s", r"[^\n]"]


@st.composite
def patterns(draw):
    return "".join(draw(st.lists(st.sampled_from(_atoms), min_size=1, max_size=5)))


@st.composite
def contents(draw):  # CRLF and lone \r, often no final newline; a unit repeated, so that most cases span frames
    pieces = st.sampled_from([b"a", b"b", b" ", b"\n", b"\r\n", b"\r", b"x1", b"ab", b"a" * 37, b"ab" * 20, b"\n\n"])
    unit = b"".join(draw(st.lists(pieces, max_size=40)))
    tail = b"".join(draw(st.lists(pieces, max_size=40)))
    return unit * draw(st.integers(1, max(1, 12000 // max(1, len(unit))))) + tail


def run_last(tmp_path, data: bytes, matcher, start: int, before: int, context, max_matches: int,
             budget: int = 65536, piece: int = 64):
    with seekable_reader(tmp_path, data) as (reader, line_of_frame):
        sink = LineSink if context == "line" else Sink
        return last_matches(reader, matcher, start, before, 0 if context == "line" else context, max_matches, budget,
                            line_of_frame, sink, time.monotonic() + 60, first_piece=piece)


def as_tuples(windows_):
    return [(w.match_offset, w.offset, w.data, tuple(h.offset for h in w.matches)) for w in windows_]


def check_tail(data, got, ref, before, context, max_matches, budget=65536):
    """``got`` holds the last of ``ref``'s matches starting before ``before`` -- all of its last ``max_matches`` when
    the budget allows -- with the forward search's windows, and names the next call's ``before``."""
    spans = [s for s in ref if s[0] < before]
    hits = [(h.offset, h.offset + h.length) for w in got.windows for h in w.matches]
    if not spans:
        assert hits == [] and got.next_before is None
        return
    assert hits == spans[len(spans) - len(hits):]  # a tail, in file order
    shown = len(got.windows[0].matches) - 1 if context == "line" else 0  # (a first window of lines takes the
    # matches its bytes show past max_matches: leftovers6)
    assert 1 <= len(hits) <= max_matches + shown
    if len(hits) < len(spans):
        assert got.next_before == hits[0][0]
    else:  # (bytes before them may be left unsearched: the next call finds none)
        assert got.next_before in (None, hits[0][0])
        assert got.next_before is None or len(hits) >= max_matches
    cut = len(hits) == 1 and got.windows[0].length == budget  # a lone match too long for the budget: cut to it
    if context != "line" and not cut:
        assert as_tuples(got.windows) == windows(data, hits, context, len(hits), budget)[0]
    for window in got.windows:
        for hit in window.matches:
            assert hit.line == line_of(data, hit.offset)


@settings(max_examples=300, deadline=None)
@given(pattern=patterns(), data=contents(), start=st.integers(0, 12000), before=st.integers(0, 12000),
       context=st.one_of(st.integers(0, 30), st.just("line")), max_matches=st.integers(1, 30),
       ignore_case=st.booleans())
def test_the_last_pattern_matches_are_the_tail_of_re_finditer(tmp_path_factory, pattern, data, start, before,
                                                               context, max_matches, ignore_case):
    before = min(before, len(data))
    start = min(start, before)
    matcher = PatternMatcher(pattern, ignore_case, reach=64)
    ref = regex_spans(data, pattern, start, ignore_case)
    try:
        got = run_last(tmp_path_factory.mktemp("p"), data, matcher, start, before, context, max_matches)
    except PatternTooLong as exc:
        error = exc
    else:
        error = None
    if error is not None:  # only a match longer than the reach bound may stop the search
        assert any(end - begin > 64 for begin, end in ref if begin <= error.resume_offset + 64)
        return
    assert got.resume is None
    check_tail(data, got, ref, before, context, max_matches)


@settings(max_examples=300, deadline=None)
@given(needle=st.sampled_from([b"a", b"ab", b"aa", b"aba", b"\r\n", b"a\na", b"b a", b"x1", b"\n\n"]),
       data=contents(), start=st.integers(0, 12000), before=st.integers(0, 12000),
       context=st.one_of(st.integers(0, 30), st.just("line")), max_matches=st.integers(1, 30),
       budget=st.sampled_from([40, 200, 65536]))
def test_the_last_substring_matches_are_the_tail_of_the_find_loop(tmp_path_factory, needle, data, start, before,
                                                                   context, max_matches, budget):
    before = min(before, len(data))
    start = min(start, before)
    if context == "line":
        budget = 65536
    got = run_last(tmp_path_factory.mktemp("l"), data, LiteralMatcher(needle), start, before, context, max_matches,
                   budget)
    check_tail(data, got, find_loop(data, needle, start), before, context, max_matches, budget)
    # backward unless the needle overlaps itself more than MAX_STEPS_BACK times in a row there (12,000 newlines and
    # b"\n\n": no sync point, searched forward as documented -- an example hypothesis found at random in a full run)
    period = next(p for p in range(1, len(needle) + 1) if needle[p:] == needle[:-p])
    assert got.backward or (period < len(needle) and needle[:period] * MAX_STEPS_BACK in data)


@pytest.mark.parametrize("piece", [16, 64, 100, 1000])
@pytest.mark.parametrize(("pattern", "needle"), [(r"a+", b"aa"), (r"(?<=a)a{3}", b"aaa"), (r"a+$", b"a" * 29)])
def test_pieces_start_where_no_match_can_straddle(tmp_path, piece, pattern, needle):
    """A piece that started inside a run of a (a match of a+, an occurrence of aa) split a match in two."""
    data = b"a" * 29 + b"\n" + b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n" * 400
    for matcher, ref in [(PatternMatcher(pattern, reach=64), regex_spans(data, pattern)),
                         (LiteralMatcher(needle), find_loop(data, needle))]:
        for max_matches in (1, 7, 30):
            got = run_last(tmp_path, data, matcher, 0, len(data) - 31, 3, max_matches, piece=piece)
            check_tail(data, got, ref, len(data) - 31, 3, max_matches)
            assert len([h for w in got.windows for h in w.matches]) == max_matches


def test_a_pattern_within_lines_is_read_from_the_end_and_one_that_spans_lines_forward(tmp_path):
    data = b"".join(b"%d ok\n" % i if i % 50 else b"%d error: x\r\n" % i for i in range(5000))
    got = run_last(tmp_path, data, PatternMatcher(r"(?<=\d )error: \w\r?$"), 0, len(data), 5, 3, piece=1024)
    assert got.backward and got.next_before is not None
    assert [h.offset for w in got.windows for h in w.matches] == [s for s, _ in regex_spans(
        data, r"(?<=\d )error: \w\r?$")][-3:]
    spans_lines = run_last(tmp_path, data, PatternMatcher(r"error: x\r\n\d"), 0, len(data), 5, 3)
    assert not spans_lines.backward
    assert [h.offset for w in spans_lines.windows for h in w.matches] == [s for s, _ in regex_spans(
        data, r"error: x\r\n\d")][-3:]


def test_a_forward_search_out_of_time_says_where_it_got(tmp_path):
    data = b"error: x\n" * 20000
    got = run_last(tmp_path, data, PatternMatcher(r"x\nerror"), 0, len(data), 5, 3)
    assert got.windows and got.resume is None
    with seekable_reader(tmp_path, data) as (reader, _):
        late = last_matches(reader, PatternMatcher(r"x\nerror"), 0, len(data), 5, 3, 65536, lambda f: 1, Sink,
                            time.monotonic() - 1)
    assert late.windows == [] and late.resume is not None and 0 < late.resume < len(data)
    assert late.next_before == len(data)


@pytest.mark.parametrize("budget", [2048, 8192])
@pytest.mark.parametrize("mode", [{"match": "error"}, {"pattern": r"^\d+ \w+: error\b"},
                                  {"match": "ERROR", "ignore_case": True}, {"pattern": r"error y*\r\n\d"}])
def test_following_next_call_backward_gives_every_match_once(small_frames_store, mode, budget):
    lines = [b"%d info: fine" % i if i % 7 else b"%d warn: error %s" % (i, b"y" * (i % 300)) for i in range(3000)]
    data = b"\r\n".join(lines) + b"\nerror"  # CRLF, then a last line with no newline
    scope = small_frames_store.scope("r", "a")
    handle = scope.spill(data, source_tool="t").handle
    tools = ScratchTools(scope)
    call = {"handle": handle, **mode, "before": len(data), "max_matches": 30, "budget": budget, "context": 40}
    seen: list[list[int]] = []
    while True:
        reply = tools.call("read_handle", call)
        assert reply_size(reply) <= budget
        seen.insert(0, [h["offset"] for w in reply["windows"] for h in window_hits(w)])
        assert reply.get("more", False) == (reply["next_call"] is not None)
        if reply["next_call"] is None:
            break
        assert reply["next_before"] == seen[0][0]
        _, call = parse_call(reply["next_call"])
    flags = re.M | (re.I if mode.get("ignore_case") else 0)
    pattern = mode.get("pattern") or re.escape(mode["match"])
    expected = [m.start() for m in re.finditer(pattern.encode(), data, flags)]
    assert [offset for page in seen for offset in page] == expected
    assert len(seen) > 2


def test_the_reply_when_nothing_matches_and_the_refusals(scratch_scope):
    handle = scratch_scope.spill(b"no such thing here\n" * 1000, source_tool="t").handle
    reply = ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "match": "error", "before": 19000})
    assert reply["windows"] == [] and reply["next_before"] is None and reply["next_call"] is None
    assert "more" not in reply and "remaining" not in reply  # (done: next_before null says it)
    for bad, words in [({"before": 19001}, "before=19000 gives the last matches"),
                       ({"before": 5, "offset": 6}, "offset 6 is after before=5"),
                       ({"before": 10, "count": True}, "count cannot be combined with before"),
                       ({"before": 10, "view": "text"}, 'not view="text"')]:
        with pytest.raises(InvalidArgument, match=re.escape(words)):
            ScratchTools(scratch_scope).call("read_handle", {"handle": handle, "match": "thing", **bad})
    with pytest.raises(InvalidArgument, match="before= apply to searches"):
        scratch_scope.read_handle(handle, before=10)


def test_every_face_takes_before(tmp_path):
    data = b"".join(b"line %d error: %d\n" % (i, i) for i in range(2000))
    source = tmp_path / "log.txt"
    source.write_bytes(data)
    root = str(tmp_path / "root")
    runner = CliRunner()
    spilled = runner.invoke(main, ["spill", "--root", root, "--run", "r", "--agent", "a", str(source)])
    handle = json.loads(spilled.stdout)["handle"]
    out = runner.invoke(main, ["read-handle", handle, "--root", root, "--run", "r", "--agent", "a", "--match",
                               "error:", "--before", str(len(data)), "--max-matches", "2", "--context", "line"])
    assert out.exit_code == 0, out.output
    reply = json.loads(out.stdout)  # (stderr: the next page as a command)
    assert [w["data"] for w in reply["windows"]] == ["line 1998 error: 1998", "line 1999 error: 1999"]
    assert reply["next_before"] == data.index(b"error: 1998")
    schema = {t["name"]: t for t in tool_definitions()}["read_handle"]["input_schema"]["properties"]
    assert schema["before"]["type"] == "integer" and schema["before"]["minimum"] == 0


@pytest.mark.alone  # (a 0.05 s pattern_timeout: its 80% stop leaves the engine 10 ms, which a loaded box can pass)
def test_a_pattern_spanning_lines_out_of_time_says_so_and_its_next_calls_reach_the_last_match(scratch_store_factory):
    """The forward search of a pattern that can match a line end, stopped by the time bound, shows no window (not the
    last matches of the bytes it got through, which are not the last of all) and searches on from where it got."""
    store = scratch_store_factory("quick", pattern_timeout=0.05)
    scope = store.scope("r", "a")
    data = b"".join(b"%d error: x\nline %d\n" % (i, i) for i in range(300000))
    handle = scope.spill(data, source_tool="t").handle
    tools = ScratchTools(scope)
    reply = tools.read_handle(handle, pattern=r"x\nline \d+5$", before=len(data), max_matches=2)
    assert reply["windows"] == [] and reply["next_before"] == len(data)
    _, call = parse_call(reply["next_call"])
    got = call["offset"]
    assert 0 < got < len(data) and call["before"] == len(data)
    assert reply["note"].endswith(f"bytes 0-{got} searched in the time bound (0.04 s), no match shown; next_call "
                                  f"searches on from {got} (the matches before it: offset=0, before={got})")
    for _ in range(500):
        if reply["windows"]:
            break
        reply = tools.call("read_handle", parse_call(reply["next_call"])[1])
    last = [m.start() for m in re.finditer(rb"x\nline \d+5$", data, re.M)][-1]
    assert window_hits(reply["windows"][-1])[-1]["offset"] == last


@pytest.mark.parametrize("context", ["line", 900])
def test_a_last_window_over_the_budget_keeps_its_last_match_and_the_chain_its_order(scratch_scope, context):
    """A window larger than the whole budget (a long line of many matches): a search from the end keeps its last
    match (a forward one keeps its first), and the chain of next_calls still gives every match once, in order."""
    data = b"".join(b"%d " % i + (b"x" * 40 + b"error ") * 60 + b"\n" for i in range(6))
    handle = scratch_scope.spill(data, source_tool="t").handle
    tools = ScratchTools(scratch_scope)
    call = {"handle": handle, "match": "error", "before": len(data), "context": context, "budget": 2048}
    pages: list[list[int]] = []
    while call is not None:
        reply = tools.call("read_handle", call)
        assert reply_size(reply) <= 2048
        pages.insert(0, [h["offset"] for w in reply["windows"] for h in window_hits(w)])
        call = None if reply["next_call"] is None else parse_call(reply["next_call"])[1]
    assert pages[-1][-1] == data.rindex(b"error")
    assert [offset for page in pages for offset in page] == [m.start() for m in re.finditer(b"error", data)]


def test_a_needle_overlapping_itself_past_the_bound_is_searched_forward_with_the_same_answer(tmp_path):
    """The example hypothesis found: 12,000 newlines, needle b"\\n\\n", the last matches before byte 4,160."""
    data = b"\n" * 12000
    got = run_last(tmp_path, data, LiteralMatcher(b"\n\n"), 0, 4160, 0, 1, 65536)
    check_tail(data, got, find_loop(data, b"\n\n", 0), 4160, 0, 1, 65536)
    assert not got.backward
