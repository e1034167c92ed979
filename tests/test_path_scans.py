"""Patterns whose required bytes hide behind optional groups, conditionals, branches or lazy quantifiers
(``(?:(e)|x)?(?(1)\\d|)``, ``(?:ee?q)*?``): their finder is scanned for the rarest byte each way through it needs
(scratchfs.engine.pattern_scan.PathScan), and no match is missed -- every non-empty match of ``re.finditer``
begins at a place the scan gives, and a search with the scan forced on finds ``re.finditer``'s non-empty matches.
Before, the finder's scan (ClassScan) read a finder's leading classes only, stopped at the first branch or optional
item, and ``regex`` ran such a finder at every common byte: 1.5 s and 0.85 s of CPU over 20 MB."""

from __future__ import annotations

import os
from unittest.mock import patch

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument
from scratchfs.engine.pattern_scan import MAX_OFFSET, PathScan, scan_paths
from scratchfs.engine.pattern_worker import FLAGS
from scratchfs.engine.search import PatternMatcher

from .reference import regex_spans
from .test_backref_finders import _within as within
from .test_backref_finders import test_leading_class_scans_find_re_finditers_non_empty_matches as scanned_search
from .test_patterns import word_lines

_ATOMS = ["e", "q", "x", "\\d", "[eq]", ".", " ", "\\n", "e?", "q??", "x*?", "\\d{0,2}", "(?:eq|x)", "e{2,3}"]
_OPTIONAL = ["?", "??", "*?", "{0,2}", "*", "+?", "{0}"]
_ALPHABET = "eeeeq x1\n"


@st.composite
def hidden_required(draw):
    """Patterns that can match empty text or begin with an optional item, whose required bytes come after optional
    groups, lazy repeats, branches and conditionals on groups captured (or not) before them."""
    closed: list[int] = []
    opened = [0]

    def seq(depth: int, least: int = 1) -> str:
        return "".join(piece(depth) for _ in range(draw(st.integers(least, 3))))

    def piece(depth: int) -> str:
        kinds = ["atom", "atom", "anchor"] + ["optional", "branch", "capture"] * (depth < 2)
        kinds += ["cond", "cond", "ref"] * bool(closed)
        kind = draw(st.sampled_from(kinds))
        if kind == "atom":
            return draw(st.sampled_from(_ATOMS))
        if kind == "anchor":
            return draw(st.sampled_from(["^", "\\b", "(?<=e)", "(?!q)", "$"]))
        if kind == "optional":
            return f"(?:{seq(depth + 1)}){draw(st.sampled_from(_OPTIONAL))}"
        if kind == "branch":
            return f"(?:{seq(depth + 1, 0)}|{seq(depth + 1, 0)})"
        if kind == "capture":
            opened[0] += 1
            number = opened[0]
            inner = seq(depth + 1)
            closed.append(number)
            return f"({inner}){draw(st.sampled_from(['', '?', '??']))}"
        if kind == "ref":
            return f"\\{draw(st.sampled_from(closed))}" + draw(st.sampled_from(["", "?"]))
        group = draw(st.sampled_from(closed))
        return f"(?({group}){seq(depth + 1, 0)}|{seq(depth + 1, 0)})"

    pattern = seq(0)
    return draw(st.sampled_from([f"(?:{pattern})*?", f"(?:{pattern})?", f"(?:{pattern})*", pattern]))


def _scanned_matcher(pattern: str, ignore_case: bool, data: bytearray) -> PatternMatcher | None:
    """A matcher whose finder's scan is used on ``data`` whatever it finds, or ``None`` (refused, no scan)."""
    try:
        matcher = PatternMatcher(pattern, ignore_case, timeout=5.0, reach=64)
    except InvalidArgument:  # (no finder, or a repeat re decides otherwise: tests/test_empty_iterations.py)
        return None
    if matcher.scan is None or not matcher.scan.ways:
        return None
    with patch.object(PathScan, "worth", return_value=True):
        assert matcher.scan.used(data, 0)
    return matcher


@settings(max_examples=int(os.environ.get("FINDER_EXAMPLES", "1500")), deadline=None)
@given(pattern=hidden_required(), piece=st.text(alphabet=_ALPHABET, min_size=1, max_size=50).map(str.encode),
       ignore_case=st.booleans())
@example(pattern=r"(?:(e)|x)?(?(1)\d|)", piece=b"ee1 x e\n", ignore_case=False)
@example(pattern=r"(?:ee?q)*?", piece=b"eeq eq e q\n", ignore_case=False)
@example(pattern=r"(?:(?:e)?(x)??(?(1)q|\d))*?", piece=b"e1 xq ex ee1\n", ignore_case=False)
def test_every_match_begins_at_a_place_the_scan_gives(pattern, piece, ignore_case):
    """From any place at or before a non-empty match of ``re.finditer``, the scan gives a place at or before the
    match's start (no match starts between: it is exact to search only there)."""
    data = bytearray((piece * (4096 // len(piece) + 2))[:4200])
    matcher = _scanned_matcher(pattern, ignore_case, data)
    if matcher is None:
        return
    try:
        with within(2.0):  # (re has no time limit: a pattern that backtracks without end over the text is not this
            spans = regex_spans(bytes(data), pattern, 0, ignore_case)  # test's)
    except TimeoutError:
        assume(False)
    for start, _end in spans:
        for pos in (start, max(0, start - 1), max(0, start - 5)):
            place = matcher.scan.next(data, pos, start + 1)
            assert place is not None and pos <= place <= start, (pattern, start, pos, place)


@settings(max_examples=int(os.environ.get("FINDER_EXAMPLES", "1500")) // 10, deadline=None)
@given(pattern=hidden_required(), piece=st.text(alphabet=_ALPHABET, min_size=1, max_size=60).map(str.encode),
       times=st.integers(80, 300), ignore_case=st.booleans())
def test_scanned_searches_of_hidden_required_bytes_find_re_finditers_non_empty_matches(tmp_path_factory, pattern,
                                                                                      piece, times, ignore_case):
    """The search itself, its finder's scan used whatever it finds (tests/test_backref_finders.py's check)."""
    scanned_search.hypothesis.inner_test(tmp_path_factory, pattern, piece, times, ignore_case, True)


def test_the_ways_read_past_optional_items_branches_and_conditionals():
    """``(?:(e)|x)?(?(1)\\d|)``'s finder: an "e" then a digit (its group captured, the first arm), or an "x" (not
    captured, the empty arm); ``(?:ee?q)*?``'s: "e", an optional "e", then "q"; an optional group: a way without it
    and one with it."""
    def ways(pattern: str) -> list[list[tuple[bytes | None, int, int | None]]]:
        finder = PatternMatcher(pattern, False).finder.compiled.pattern
        return [[(None if c is None else bytes(sorted(c)), low, high) for c, low, high in way]
                for way in scan_paths(finder)]

    assert ways(r"(?:(e)|x)?(?(1)\d|)") == [[(b"e", 1, 1), (b"0123456789", 1, 1)], [(b"x", 1, 1)]]
    assert ways(r"(?:ee?q)*?") == [[(b"e", 1, 1), (b"e", 0, 1), (b"q", 1, 1), (None, 0, None)]]
    assert ways(r"(?:(a)|b)?(?(1)z|y)") == [[(b"a", 1, 1), (b"z", 1, 1)], [(b"b", 1, 1), (b"y", 1, 1)],
                                           [(b"y", 1, 1)]]
    assert ways(r"(?:e(?:xy){0}q)*") == [[(b"e", 1, 1), (b"q", 1, 1), (None, 0, None)]]  # (before: a way through
    # "xy" once, then a run of -2 bytes)
    assert ways(r"(?:e(x)?q)*") == [[(b"e", 1, 1), (b"q", 1, 1), (None, 0, None)],
                                    [(b"e", 1, 1), (b"x", 1, 1), (b"q", 1, 1), (None, 0, None)]]


def test_a_way_is_read_no_further_than_its_bound():
    """Every byte the scan checks lies within the bound of a match's start (the search's reach: a match starting
    before a buffer's limit has that many bytes after it in the buffer)."""
    finder = PatternMatcher(r"(?:a{3}b{0,200}c)*", False).finder.compiled.pattern
    for bound in (8, 64, MAX_OFFSET):
        for way in scan_paths(finder, bound):
            assert sum(most if most is not None else fewest for _, fewest, most in way) <= bound


def test_the_two_patterns_found_near_their_time_limits_are_scanned_on_the_tests_text():
    """On the 20 MB text of their time tests (58% "e", no digit, no "x", no "eq"), the scan is chosen: its places
    are few; before, ``regex`` ran each finder at every "e" (``python bench/regex_prefilters.py``)."""
    text = bytearray(word_lines((b"alpha", b"beta", b"needle", b"eerie", b"e" * 30, b"ERROR", b"queue"), lines=4000))
    for pattern in (r"(?:(e)|x)?(?(1)\d|)", r"(?:ee?q)*?"):
        matcher = PatternMatcher(pattern, False)
        assert matcher.scan.used(text, 0), pattern
        assert matcher.scan.next(text, 0, len(text)) is None, pattern


def test_a_scan_of_a_common_byte_is_not_used_where_the_finder_runs_out_of_time():
    """A finder that runs past 0.1 s over the sample is outrun by a scan of a rare byte ("q", 1.5% of this text),
    not by one of a byte 58% of it ("e": an engine call at each; ``(?:e(x)?)*?(?(1)q|\\d)`` ran into its time limit
    with 21,745 calls over 2 MB, where its finder alone, 16 calls, did not)."""
    class Slow:
        flags = FLAGS

        def finditer(self, *args, **kwargs):
            raise TimeoutError

    text = bytearray(word_lines((b"alpha", b"beta", b"needle", b"eerie", b"e" * 30, b"ERROR", b"queue"), lines=400))
    assert not PathScan([((frozenset(b"e"), 1, 1),)], Slow()).used(text, 0)
    assert PathScan([((frozenset(b"q"), 1, 1),)], Slow()).used(text, 0)


def test_a_scan_stops_at_the_searchs_time_limit():
    """The scan runs under the search's deadline (its checks of a long way's variable runs may backtrack): past it,
    TimeoutError, which the matcher turns into PatternTimeout."""
    text = bytearray(b"eerie alpha beta queue\n" * 1000)
    matcher = PatternMatcher(r"(?:ee?q)*?", False)
    assert matcher.scan.used(text, 0)
    assert matcher.scan.next(text, 0, len(text), 1.0) is None
    with pytest.raises(TimeoutError):
        matcher.scan.next(text, 0, len(text), 0.0)
