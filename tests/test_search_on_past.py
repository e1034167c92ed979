"""A search stopped by its time limit or its reach bound names the search past the trouble as a call whose offset is
the engine's own number (``skip_offset``), carried as data: ``searched_on`` found it by reading the words of the
error back with a regular expression (``search on past them with offset=40001``), so a change of words lost the
call, and a count's refusal named no call at all. Following the calls from offset 0 covers the content: each
search goes on where the one before it ended, and finds exactly what ``re.finditer`` finds from there."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import PatternTimeout, PatternTooLong
from scratchfs.api.counting import count_matches
from scratchfs.engine.pattern_worker import Engine
from scratchfs.engine.search import PatternMatcher, search
from scratchfs.engine.structure.terminal_match import RenderedMatcher

from .reference import regex_spans
from .seekable_file import seekable_reader

POISON = b"!"
"""A byte the engine runs away on in these tests: any call of the regex engine over bytes holding it times out,
as a catastrophic backtracking line does (deterministic, where a real one depends on the machine's load)."""


@pytest.fixture
def runaway(monkeypatch):
    """The engine times out on any bytes holding :data:`POISON`; returns the errors the engine (the matcher) raised,
    as ``(resume_offset, skip_offset, the offset its words name)``."""
    real_call, real_find = Engine._call, PatternMatcher.find
    raised: list[tuple[int, int | None, int | None]] = []

    def call(self, operation, buf, args):
        lo, hi = args[0], args[1]
        if operation == "match":  # (an anchored match runs away on its own line: the bytes it backtracks over)
            hi = min(hi, buf.find(b"\n", lo, hi) + 1 or hi)
        if POISON in buf[lo:hi]:
            raise TimeoutError
        return real_call(self, operation, buf, args)

    def find(self, *args):
        try:
            return real_find(self, *args)
        except (PatternTimeout, PatternTooLong) as exc:
            said = re.search(r"with offset=(\d+)", str(exc))  # (the words, read here only to check they agree)
            raised.append((exc.resume_offset, getattr(exc, "skip_offset", None), said and int(said[1])))
            raise

    monkeypatch.setattr(Engine, "_call", call)
    monkeypatch.setattr(PatternMatcher, "find", find)
    return raised


def follow(scope, handle: str, data: bytes, pattern: str, most: int, raised: list) -> tuple[list, list]:
    """Follow a search's pages and refusals from offset 0 to the end, checking each step: a page shows exactly the
    matches ``re.finditer`` finds from its offset before its ``next_offset``, and its ``next_call`` goes on from
    there; a refusal's one call goes on from the engine's ``skip_offset``, no match starting before its
    ``resume_offset``. Returns ``(the matches shown, the byte ranges skipped)``."""
    shown, skipped, offset = [], [], 0
    while offset is not None:
        ref = regex_spans(data, pattern, offset)
        before = len(raised)
        try:
            got = scope.search(handle, pattern=pattern, offset=offset, context=0, max_matches=most)
        except (PatternTimeout, PatternTooLong) as caught:
            got = caught
        if isinstance(got, (PatternTimeout, PatternTooLong)):
            exc = got
            [call] = exc.calls
            arguments = dict(call.arguments)
            assert arguments == {"handle": handle, "pattern": pattern, "offset": exc.skip_offset, "context": 0,
                                 **({} if most == 20 else {"max_matches": most})}
            assert len(raised) > before and raised[-1][1:] == (exc.skip_offset, exc.skip_offset)  # the engine's
            assert offset <= exc.resume_offset < exc.skip_offset <= len(data)
            assert not [span for span in ref if span[0] < exc.resume_offset]
            skipped.append((exc.resume_offset, exc.skip_offset))
            offset = exc.skip_offset
            continue
        page = [(hit.offset, hit.offset + hit.length) for window in got.windows for hit in window.matches]
        end = got.next_offset
        assert page == [span for span in ref if end is None or span[0] < end]
        if end is not None:
            assert end > offset and f"offset={end}," in got.next_call
        shown += page
        offset = end
    assert shown == sorted(set(shown))  # (no match shown twice)
    return shown, skipped


LINES = ["ok 1", "no 22", "ok 333 x", "!", "ok 4!", "zz", "", "x" * 300 + "!"]
LINE_PATTERNS = [r"ok \d+", r"\d+", r"^\w+ \d+$", r"[a-z]+ \d", r"\d|!"]
CROSSING_PATTERNS = [r"(?:ok|no) \d+\n", r"\d\n\w"]


@settings(max_examples=40)
@given(lines=st.lists(st.sampled_from(LINES), min_size=1, max_size=3000),
       pattern=st.sampled_from(LINE_PATTERNS + CROSSING_PATTERNS), most=st.integers(1, 400))
def test_following_a_time_out_s_call_covers_the_content_without_a_gap_or_a_repeat(small_frames_store, runaway,
                                                                                 lines, pattern, most):
    data = "\n".join(lines).encode()
    scope = small_frames_store.scope("r", "a")
    handle = scope.spill(data, source_tool="t").handle
    shown, skipped = follow(scope, handle, data, pattern, most, runaway)
    if PatternMatcher(pattern).mode == "lines":  # (skips end at a line end: the rest is finditer's from 0)
        assert shown == [span for span in regex_spans(data, pattern)
                         if not any(start <= span[0] < past for start, past in skipped)]
    if POISON not in data:
        assert not skipped and shown == regex_spans(data, pattern)


@settings(max_examples=12)
@given(blocks=st.lists(st.tuples(st.integers(0, 40), st.sampled_from([0, 100, 17_000, 40_000])), min_size=1,
                       max_size=6), most=st.integers(1, 50))
def test_following_a_reach_bound_s_call_covers_the_content_without_a_gap_or_a_repeat(small_frames_store, runaway,
                                                                                    blocks, most):
    parts = []
    for count, (oks, filler) in enumerate(blocks):
        parts.append(b"".join(b"ok %d\n" % (count * 100 + i) for i in range(oks)))
        if filler:
            parts.append(b"BEGIN\n" + b"x\n" * (filler // 2) + b"END\n")
    data = b"".join(parts)
    if not data:
        return
    pattern = r"BEGIN[\s\S]*?END|ok \d+"
    scope = small_frames_store.scope("r", "a")
    handle = scope.spill(data, source_tool="t").handle
    shown, skipped = follow(scope, handle, data, pattern, most, runaway)
    long = [span for span in regex_spans(data, pattern) if span[1] - span[0] > 16 * 1024]
    assert {start for start, _ in skipped} <= {start for start, _ in long}  # (one the buffer holds whole is found)
    assert all(past == start + 1 for start, past in skipped)
    assert shown == [span for span in regex_spans(data, pattern) if span[0] not in dict(skipped)]


def test_a_count_stopped_by_the_time_limit_names_the_count_past_it_as_a_call(scope, runaway):
    data = b"ok 1\n" * 100 + b"!\n" + b"ok 2\n" * 8000
    handle = scope.spill(data, source_tool="t").handle
    with pytest.raises(PatternTimeout) as caught:
        count_matches(scope, handle, None, r"\d|!", 500, budget=4096)
    [call] = caught.value.calls  # (it named "search on past them with offset=N": words, and a search, not a count)
    past = caught.value.skip_offset
    assert dict(call.arguments) == {"handle": handle, "pattern": r"\d|!", "count": True, "offset": past,
                                    "budget": 4096}
    assert f"search on past them: {call}, their matches unsearched" in str(caught.value)
    rest = count_matches(scope, handle, None, r"\d|!", past, budget=4096)
    assert 502 <= past < len(data) and rest.matches == len(regex_spans(data, r"\d|!", past)) > 0


def test_a_terminal_view_s_time_out_names_the_needle_and_the_offset_past_it(tmp_path, runaway):
    data = b"\x1b[31mred\x1b[m line\n" * 50 + b"red !\n" + b"\x1b[31mred\x1b[m line\n" * 50
    with seekable_reader(tmp_path, data) as (reader, line_of_frame), pytest.raises(PatternTimeout) as caught:
        search(reader, RenderedMatcher("red", False, 5.0), 0, 0, 20, 4096, line_of_frame)
    error = caught.value
    assert str(error).startswith("match='red' with view=\"text\" ran past its time limit of 5 s")
    assert error.resume_offset <= data.index(b"!") < error.skip_offset
    assert str(error).endswith(f"search on past them with offset={error.skip_offset}, their matches unsearched")


def test_a_bounded_search_s_refusal_names_the_search_past_it_within_its_bound(scratch_store_factory):
    """A search with ``end=`` (a tar member's) stopped by the reach bound named the search past it without ``end=``,
    while its words said "(with end=N, as this search ...)": the call searched on past the member's end."""
    store = scratch_store_factory("small", frame_bytes=4096)
    scope = store.scope("r", "a")
    data = b"ok\n" * 10 + b"BEGIN\n" + b"x\n" * 20000 + b"END\n" + b"tail ok\n" * 40000
    handle = scope.spill(data, source_tool="t").handle
    end = len(data) - 8 * 100
    pattern = r"BEGIN[\s\S]*?END|ok"
    with pytest.raises(PatternTooLong) as caught:
        scope.search(handle, pattern=pattern, offset=30, end=end)
    [call] = caught.value.calls
    assert dict(call.arguments) == {"handle": handle, "pattern": pattern, "offset": 31, "end": end}
    assert f"resume after it: {call} (with end={end}, as this search" in str(caught.value)
    shown, offset = [], 31
    while offset is not None:
        got = scope.read_handle(**dict(call.arguments) | {"offset": offset, "max_matches": 400})
        shown += [hit.offset for window in got.windows for hit in window.matches]
        offset = got.next_offset
    assert shown == [start for start, stop in regex_spans(data[:end], pattern, 31)]  # (none past the bound)


def test_a_search_from_the_end_s_refusal_names_the_last_matches_past_its_trouble(scope, runaway):
    """A search for the last matches (``before=``) stopped by the time limit named a forward search from past the
    trouble, without ``before=``: the first matches after it, not the last ones asked for."""
    data = b"".join(b"ok %d\n" % i for i in range(5000)) + b"ok 4!\n" + b"".join(
        b"ok %d\n" % i for i in range(5000, 5002)) + b"zz\n" * 20000  # (2 after it, 3 asked: read back into it)
    handle = scope.spill(data, source_tool="t").handle
    with pytest.raises(PatternTimeout) as caught:
        scope.search(handle, pattern=r"ok \d+", before=len(data), max_matches=3, context=0)
    [call] = caught.value.calls
    past = caught.value.skip_offset
    assert dict(call.arguments) == {"handle": handle, "pattern": r"ok \d+", "offset": past, "before": len(data),
                                    "context": 0, "max_matches": 3}
    got = scope.read_handle(**dict(call.arguments))
    assert [hit.offset for w in got.windows for hit in w.matches] == [
        start for start, _ in regex_spans(data, r"ok \d+", past)][-3:]
