"""Pattern searches equal re.finditer over the whole original bytes, across frame and buffer edges."""

from __future__ import annotations

import functools
import random
import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchfs import InvalidArgument, PatternTimeout, PatternTooLong, ScratchStore
from scratchfs.api.counting import count_matches
from scratchfs.engine.search import LiteralMatcher, PatternMatcher, Sink, search

from .reference import find_loop, line_of, regex_spans, windows
from .seekable_file import seekable_reader

# small pieces so that \\b, ^, $ and lookarounds meet buffer and frame edges often
_atoms = [r"a", r"b", r"ab", r"\b", r"^", r"$", r"(?<=a)", r"(?<!b)", r"(?=b)", r"(?!a)", r"a+", r"[ab]{1,3}",
          r"\n", r"\r", r" ", r".", r"(?:ab|ba)", r"b?", r"\w", r"\s", r"x\d"]


@st.composite
def patterns(draw):
    return "".join(draw(st.lists(st.sampled_from(_atoms), min_size=1, max_size=5)))


@st.composite
def contents(draw):
    return draw(st.text(alphabet="ab \n\rx1", max_size=6000)).encode()


def run_search(tmp_path, data: bytes, matcher, start: int, context: int, max_matches: int, budget: int = 65536,
               sink_class=Sink):
    with seekable_reader(tmp_path, data) as (reader, line_of_frame):
        return search(reader, matcher, start, context, max_matches, budget, line_of_frame, sink_class)


@functools.cache
def word_lines(words: tuple[bytes, ...], lines: int = 200_000, seed: int = 7) -> bytes:
    """``lines`` lines of 1 to 20 of ``words`` each, joined by spaces (``random.Random(seed)``'s choices): the large
    texts of the tests of a search's time (17-23 MB). Made once per process (2.3 s each under load, in tests marked
    ``alone``, which hold the other worker meanwhile: 16 of them made it again each)."""
    rnd = random.Random(seed)
    return b"".join(b" ".join(rnd.choice(words) for _ in range(rnd.randint(1, 20))) + b"\n" for _ in range(lines))


def as_tuples(result):
    return [(w.match_offset, w.offset, w.data, tuple(h.offset for h in w.matches)) for w in result.windows], \
        result.next_offset


def stopped_by_reach(got, ref: list[tuple[int, int]], reach: int) -> bool:
    """Whether the reach bound stopped the search ``got`` after its windows (``SearchResult.stopped``, a page that
    says so), checking that page: its matches are every one of the reference's before where it stopped, its next
    offset is that place, and the reference has a match longer than the reach."""
    if not isinstance(got.stopped, PatternTooLong):
        return False
    at = got.stopped.resume_offset
    shown = [(hit.offset, hit.offset + hit.length) for window in got.windows for hit in window.matches]
    assert got.next_offset == at and shown == [span for span in ref if span[0] < at]
    assert any(end - begin > reach for begin, end in ref if begin >= at)
    return True


@given(pattern=patterns(), data=contents(), start=st.integers(0, 6000), context=st.integers(0, 40),
       max_matches=st.integers(1, 400), ignore_case=st.booleans())
def test_pattern_windows_equal_re_finditer_with_a_small_reach(tmp_path_factory, pattern, data, start, context,
                                                               max_matches, ignore_case):
    start = min(start, len(data))
    reach = 64
    matcher = PatternMatcher(pattern, ignore_case, reach=reach)
    ref = regex_spans(data, pattern, start, ignore_case)
    try:
        got = run_search(tmp_path_factory.mktemp("p"), data, matcher, start, context, max_matches, budget=4096)
    except PatternTooLong as exc:
        error = exc
    else:
        error = None
    if error is not None:  # only a match longer than the reach bound may stop the search
        assert any(end - begin > reach for begin, end in ref if begin <= error.resume_offset)
        return
    if stopped_by_reach(got, ref, reach):  # (or the page of the matches before it)
        return
    assert as_tuples(got) == windows(data, ref, context, max_matches, budget=4096)
    for window in got.windows:
        for hit in window.matches:
            assert hit.line == line_of(data, hit.offset)
            assert (hit.offset, hit.offset + hit.length) in ref


@given(needle=st.sampled_from([b"a", b"ab", b"\n", b"b a", b"x1"]), data=contents(), start=st.integers(0, 6000),
       context=st.integers(0, 40))
def test_literal_matcher_agrees_with_an_escaped_pattern(tmp_path_factory, needle, data, start, context):
    start = min(start, len(data))
    folder = tmp_path_factory.mktemp("l")
    literal = run_search(folder, data, LiteralMatcher(needle), start, context, 50)
    pattern = run_search(folder, data, PatternMatcher(re.escape(needle.decode())), start, context, 50)
    assert as_tuples(literal) == as_tuples(pattern)


FIXTURE_PATTERNS = [
    ("workspace-grep-stdlib-defs.txt", r"def __\w+__\(self"),
    ("workspace-grep-stdlib-defs.txt", r"^\./[\w/-]*test\w*\.py:\d+:\s*def \w+"),
    ("workspace-grep-stdlib-defs.txt", r"\):\n\./\w+\.py"),
    ("workspace-grep-stdlib-defs.txt", r"\d{4,}:"),
    ("workspace-grep-stdlib-defs.txt", r"(?:class|def) (?:[A-Z]\w*)?Error\b"),
    ("query-packages-by-month.csv", r',"[^"\n]*(?i:python)[^"\n]*"\r?$'),
    ("query-packages-by-month.csv", r"^\w+,\d+\.\d+\.\d+,2026-1[01],\"\w+\s+\S"),
    ("browser-rust-book.html", r"<h[1-3][^>]*>"),
    ("api-ec2-service-model.json", r'"shape":"(\w+)Request"'),
]


@pytest.mark.parametrize(("name", "pattern"), FIXTURE_PATTERNS)
def test_patterns_on_fixtures_through_the_store(small_frames_store, fixture_data, name, pattern):
    data = fixture_data[name]
    scope = small_frames_store.scope("r", "a")
    handle = scope.spill(data, source_tool="t").handle
    ref = regex_spans(data, pattern)
    assert ref, "the pattern should match the fixture"
    found, offset = [], 0
    while offset is not None:
        got = scope.read_handle(handle, offset, pattern=pattern, context=20, max_matches=50)
        for window in got.windows:
            assert window.data == data[window.offset : window.offset + len(window.data)]
            found += [(h.offset, h.offset + h.length) for h in window.matches]
        offset = got.next_offset
    assert found == ref


def test_ignore_case_is_ascii_and_works_for_match_text(scope):
    data = b"Error ERROR error \xc3\x89RROR"
    handle = scope.spill(data, source_tool="t").handle
    got = scope.read_handle(handle, pattern="error", ignore_case=True, context=0)
    assert [h.offset for w in got.windows for h in w.matches] == [0, 6, 12]
    by_match = scope.read_handle(handle, match="eRRor", ignore_case=True, context=0)
    assert by_match.match_count == 3
    assert by_match.next_call is None


def test_prefilter_is_chosen_for_required_literals():
    assert PatternMatcher(r"ERROR.*timeout").literal == b"ERROR"
    assert PatternMatcher(r"\w{1,5}Exception: ").literal == b"Exception: "
    assert PatternMatcher(r"\w{1,5}Exception: ").prefix_width == 5
    assert PatternMatcher(r"\w+Error").literal is None  # the literal may start arbitrarily far in
    assert PatternMatcher(r"foo|bar").literal is None
    assert PatternMatcher(r"(?i)abc").literal is None


def test_a_line_bound_prefilter_tries_each_line_once_and_only_lines_holding_every_literal(scope, fixture_data,
                                                                                          monkeypatch):
    """newuser9: the required literal of ``(?:class|def) [A-Z]\\w*Error\\b`` within reach of a match's start is its
    space; the engine was asked for an anchored match at each of the 6 bytes a match could start at before every
    space -- 260,000 calls and 4 s over 2.5 MB of grep output (the count cut at its time bound), where ``re`` takes
    0.04 s. Now one call for each line holding the space and "Error" after it (again after a match in it)."""
    from scratchfs.engine import pattern_worker

    data = fixture_data["workspace-grep-stdlib-defs.txt"]
    pattern = r"(?:class|def) [A-Z]\w*Error\b"
    calls = []
    real = pattern_worker.Engine._call
    monkeypatch.setattr(pattern_worker.Engine, "_call", lambda self, *args: calls.append(args[0]) or real(self, *args))
    handle = scope.spill(data, source_tool="grep").handle
    got = count_matches(scope, handle, None, pattern, 0)
    assert (got.matches, got.next_offset) == (len(regex_spans(data, pattern)), None)
    with_error = sum(1 for line in data.split(b"\n") if b"Error" in line)
    assert 0 < len(calls) <= 2 * with_error  # (a line with two matches is tried again after the first)


# (no `alone` mark: 5 s is many times the 0.3 s limit; backtracking not stopped runs for ages)
def test_catastrophic_backtracking_is_stopped_with_a_resume_offset(tmp_path):
    with ScratchStore(tmp_path, pattern_timeout=0.3) as store:
        scope = store.scope("r", "a")
        data = b"x" * 1000 + b"\n" + b"a" * 40 + b"b\n"
        handle = scope.spill(data, source_tool="t").handle
        began = time.monotonic()
        with pytest.raises(PatternTimeout) as caught:
            scope.read_handle(handle, pattern=r"(a|aa)+$")
        assert time.monotonic() - began < 5
        assert 0 <= caught.value.resume_offset <= len(data)
        assert f"offset={caught.value.resume_offset}" in str(caught.value)
        assert isinstance(caught.value, InvalidArgument)
        # following the message gets past the trouble instead of meeting it again (new-user trial: it looped)
        [on] = caught.value.calls  # (the search from past them, as a call: advice3)
        past = dict(on.arguments)["offset"]
        assert f"search on past them: {on}" in str(caught.value)
        assert caught.value.resume_offset < past <= len(data)
        rest = scope.read_handle(handle, pattern=r"(a|aa)+$", offset=past)
        assert rest.next_offset is None and all(h.offset >= past for w in rest.windows for h in w.matches)


def test_a_pattern_error_of_a_4096_byte_pattern_keeps_its_offsets_within_the_tool_error_text(tmp_path):
    """A tool error's text is cut at 2 KiB: the pattern is named shortened, so the offsets after it survive (the
    whole repr of a 4,096-byte pattern left a model neither the resume offset nor the offset to search on from)."""
    from scratchfs.api.contract import ScratchTools, error_text
    from scratchfs.foundation.limits import MAX_NEEDLE_BYTES, MIN_REPLY_BYTES

    with ScratchStore(tmp_path, pattern_timeout=0.3) as store:
        scope = store.scope("r", "a")
        tools = ScratchTools(scope)
        handle = scope.spill(b"x" * 1000 + b"\n" + b"a" * 40 + b"b\n", source_tool="t").handle
        slow = r"(a|aa)+$|"
        with pytest.raises(PatternTimeout) as caught:
            tools.call("read_handle", {"handle": handle, "pattern": slow + "z" * (MAX_NEEDLE_BYTES - len(slow))})
        text = error_text(caught.value)
        assert len(text.encode()) <= MIN_REPLY_BYTES and not text.endswith("...")
        assert f"offset={caught.value.resume_offset}" in text
        assert re.search(r"search on past them with offset=\d+", text)
        handle = scope.spill(b"BEGIN\n" + b"x\n" * 200_000 + b"END\n", source_tool="t").handle
        long = r"BEGIN[\s\S]*END|"
        with pytest.raises(PatternTooLong) as caught:
            tools.call("read_handle", {"handle": handle, "pattern": long + "z" * (MAX_NEEDLE_BYTES - len(long))})
        text = error_text(caught.value)
        assert len(text.encode()) <= MIN_REPLY_BYTES and f"offset={caught.value.resume_offset + 1}" in text


def test_a_time_out_skips_only_the_lines_it_was_deciding(tmp_path):
    """A line-bound pattern with no literal is decided a piece of lines at a time (PIECE_BYTES): its time-out names
    the piece holding the runaway line, and following the message loses only that piece's matches (the buffer's
    lines, 70-130 KB, before); every match outside the skipped bytes is found, as ``regex.finditer`` finds it."""
    import regex

    from scratchfs.engine.patterns import PIECE_BYTES

    before = b"".join(b"ok %d\n" % i for i in range(6000))
    bad = b"a" * 30_000 + b"!\n"
    data = before + bad + b"".join(b"ok %d\n" % i for i in range(6000, 12000))
    pattern = r"(a|aa)+$|^ok \d+$"
    with ScratchStore(tmp_path, pattern_timeout=0.5) as store:
        scope = store.scope("r", "a")
        handle = scope.spill(data, source_tool="t").handle
        found, skipped, offset = [], [], 0
        while offset is not None:
            try:
                got = scope.read_handle(handle, pattern=pattern, offset=offset, context=0, max_matches=1000)
            except PatternTimeout as exc:
                past = dict(exc.calls[0].arguments)["offset"]  # (the search from past them, as a call: advice3)
                skipped.append((exc.resume_offset, past))
                offset = past
                continue
            found += [(h.offset, h.offset + h.length) for w in got.windows for h in w.matches]
            offset = got.next_offset
    assert len(skipped) == 1
    (start, past), = skipped
    assert start <= len(before) < len(before) + len(bad) <= past <= len(before) + len(bad) + PIECE_BYTES + 16
    lines, at = [], 0  # the matches finditer gives, but for the runaway line's (it would run for ever): each "ok" line
    for line in data.split(b"\n")[:-1]:
        if line.startswith(b"ok"):
            lines.append((at, at + len(line)))
        at += len(line) + 1
    assert regex.findall(pattern.encode(), before + b"b\n", regex.MULTILINE)  # (the pattern does match them)
    expected = [span for span in lines if not start <= span[0] < past]
    assert found == expected and len(found) >= 12000 - PIECE_BYTES // 5


def test_a_match_longer_than_the_reach_bound_is_an_error_not_a_miss(scope):
    # a pattern that spans lines, whose match would run past the buffer: a typed error, never a silent miss
    data = b"BEGIN\n" + b"x\n" * 200_000 + b"END\n" + b"y" * 1000
    handle = scope.spill(data, source_tool="t").handle
    with pytest.raises(PatternTooLong) as caught:
        scope.read_handle(handle, pattern=r"BEGIN[\s\S]*END")
    assert caught.value.resume_offset == 0
    # a long match of a line-bound pattern is found exactly, whatever its length within the line limit
    line = b"BEGIN " + b"x" * 40_000 + b" END\n"
    handle = scope.spill(b"z\n" * 200_000 + line + b"z\n" * 200_000, source_tool="t").handle
    got = scope.read_handle(handle, pattern=r"BEGIN.*END", context=0)
    assert got.windows[0].matches[0].offset == 400_000
    assert got.windows[0].data == line[:-1]


def test_a_line_longer_than_the_line_limit_is_an_error(scope):
    from scratchfs.engine.search import MAX_LINE_BYTES

    data = b"start\n" + b"x" * (MAX_LINE_BYTES + 300_000) + b"\nend\n"
    handle = scope.spill(data, source_tool="t").handle
    with pytest.raises(PatternTooLong, match="longer than"):
        scope.read_handle(handle, pattern=r"x+yz")
    found = scope.read_handle(handle, pattern=r"start")
    assert found.match_count == 1
    assert found.next_offset == 6  # where the long line starts: the next call meets the error
    with pytest.raises(PatternTooLong):
        scope.read_handle(handle, found.next_offset, pattern=r"start")


class DoubleCost(Sink):
    """A budget counted another way: every window byte costs two."""

    def cost(self, lo: int, hi: int) -> int:
        return 2 * (hi - lo)

    def cut(self, lo: int, hi: int) -> int:
        return min(hi, lo + self.budget // 2)


@given(needle=st.sampled_from([b"a", b"ab", b"b a"]), data=contents(), context=st.integers(0, 40),
       budget=st.integers(200, 3000))
def test_the_budget_is_counted_by_the_sinks_cost_alone(tmp_path_factory, needle, data, context, budget):
    folder = tmp_path_factory.mktemp("c")
    doubled = run_search(folder, data, LiteralMatcher(needle), 0, context, 400, 2 * budget, DoubleCost)
    plain = run_search(folder, data, LiteralMatcher(needle), 0, context, 400, budget)
    assert as_tuples(doubled) == as_tuples(plain)
    assert as_tuples(plain) == windows(data, find_loop(data, needle), context, 400, budget=budget)
