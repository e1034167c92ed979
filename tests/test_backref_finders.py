"""Patterns with backreferences and conditionals that can match empty text (``(a?)\\1``, ``(b)?(?(1)a|)``): each
gets a finder (scratchfs.engine.pattern_finder.nonempty_core) -- a backreference before the first byte consumed
holds empty text, after it what its group holds or empty text, a conditional either arm -- or, when a backreference
names a group captured inside a lookaround, is refused before it runs (PatternMatchesEmpty). Before, any
backreference or conditional among a pattern's leading items that can match empty left it with no finder: the engine
was tried at every byte a match can begin with, and "(b)?(?(1)a|)" ran into its 5 s time limit over 64 MB."""

from __future__ import annotations

import os
import re
import signal
import time
from contextlib import contextmanager, nullcontext
from unittest.mock import patch

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument, PatternMatchesEmpty, PatternTimeout, PatternTooLong, ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.pattern_finder import nonempty_core
from scratchfs.engine.pattern_scan import PathScan
from scratchfs.engine.pattern_syntax import MAX_NESTING, MAX_PATTERN_BYTES, parse
from scratchfs.engine.search import PatternMatcher

from .reference import regex_spans, windows

try:
    from re import _constants as _sre
    from re import _parser as _sre_parse  # Python 3.11+
except ImportError:  # Python 3.10
    import sre_constants as _sre  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]
from .test_patterns import as_tuples, run_search, stopped_by_reach, word_lines

EMPTY_ITERATIONS = "repeats a part that can match empty text"  # the refusal of tests/test_empty_iterations.py
_QUANTIFIERS = ["", "", "", "?", "*", "+", "??", "*?", "{0,2}"]


def _nesting(items) -> int:
    """How deep ``items`` (the stdlib parser's tree of a pattern) nests groups, repeats, alternations, lookarounds
    and conditionals: what the engine's parser bounds by ``MAX_NESTING``, counted here independently of it."""
    deepest = 0
    for op, av in items:
        if op is _sre.SUBPATTERN:
            inner = [av[3]]
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT) or op is getattr(_sre, "POSSESSIVE_REPEAT", None):
            inner = [av[2]]
        elif op is _sre.BRANCH:
            inner = av[1]
        elif op in (_sre.ASSERT, _sre.ASSERT_NOT):
            inner = [av[1]]
        elif op is _sre.GROUPREF_EXISTS:
            inner = [arm for arm in av[1:] if arm is not None]
        else:
            continue
        deepest = max(deepest, 1 + max(_nesting(arm) for arm in inner))
    return deepest


def _expected_refusal(pattern: str, exc: InvalidArgument) -> None:
    """A generated pattern the engine refuses is one of three kinds (none this module's to search): a repeat that
    ``re`` decides otherwise than the engine (tests/test_empty_iterations.py), a pattern past ``MAX_PATTERN_BYTES``
    (the recursive strategies can build 22 KB ones), refused for its length, or one nesting past ``MAX_NESTING``
    (they built one 104 deep), refused for its depth."""
    refusal = str(exc)
    size = len(pattern.encode("utf-8", "surrogatepass"))
    if size > MAX_PATTERN_BYTES:
        assert refusal == f"pattern is {size} bytes, longer than the limit of {MAX_PATTERN_BYTES}", refusal
    elif refusal == f"pattern nests groups more than {MAX_NESTING} deep":
        assert _nesting(_sre_parse.parse(pattern)) >= MAX_NESTING, pattern
    else:
        assert EMPTY_ITERATIONS in refusal, pattern


@st.composite
def grammar_patterns(draw):
    """Patterns of a small grammar: bytes, classes, anchors, groups (capturing, not, inside lookarounds),
    backreferences and conditionals naming groups closed before them, alternation, ``?``/``*``/``+``/``{0,2}``."""
    closed: list[int] = []
    opened = [0]

    def expr(depth: int) -> str:
        return "|".join(seq(depth) for _ in range(draw(st.integers(1, 2 if depth < 2 else 1))))

    def seq(depth: int) -> str:
        return "".join(piece(depth) for _ in range(draw(st.integers(0 if depth else 1, 3))))

    def piece(depth: int) -> str:
        kinds = ["a", "b", "[ab]", ".", "\\n", "^", "$", "\\b"] + ["ref", "cond"] * bool(closed)
        kinds += ["group", "plain", "ahead"] * (depth < 2)
        kind = draw(st.sampled_from(kinds))
        if kind == "ref":
            return f"\\{draw(st.sampled_from(closed))}" + draw(st.sampled_from(_QUANTIFIERS))
        if kind == "cond":
            group = draw(st.sampled_from(closed))
            return f"(?({group}){seq(depth + 1)}|{seq(depth + 1)})"
        if kind in ("group", "plain", "ahead"):
            number = None
            if kind == "group":
                opened[0] += 1
                number = opened[0]
            inner = expr(depth + 1)
            if number is not None:
                closed.append(number)
            opening = {"group": "(", "plain": "(?:", "ahead": "(?="}[kind]
            quantifier = "" if kind == "ahead" else draw(st.sampled_from(_QUANTIFIERS))
            return opening + inner + ")" + quantifier
        return kind + (draw(st.sampled_from(_QUANTIFIERS)) if kind not in ("^", "$", "\\b") else "")

    return expr(0)


def _looked_around(pattern: str) -> bool:
    """Whether a group of ``pattern`` is captured inside a lookahead (a crude reading of this grammar's output)."""
    return "(?=" in pattern and "(" in pattern[pattern.index("(?=") + 3:]


@settings(max_examples=int(os.environ.get("FINDER_EXAMPLES", "1500")), deadline=None)
@given(pattern=grammar_patterns(), data=st.text(alphabet="ab\nx", max_size=400).map(str.encode),
       start=st.integers(0, 400), ignore_case=st.booleans())
def test_grammar_patterns_find_re_finditers_non_empty_matches(tmp_path_factory, pattern, data, start, ignore_case):
    """Every pattern of the grammar is searched exactly (re.finditer's non-empty matches) or, having no finder, is
    refused before it runs."""
    try:
        re.compile(pattern)
    except re.error:  # (a grammar pattern re refuses, e.g. a lookbehind of varying width: not this test's)
        return
    start = min(start, len(data))
    try:
        matcher = PatternMatcher(pattern, ignore_case, reach=64)
    except PatternMatchesEmpty:
        assert _looked_around(pattern), pattern
        return
    except InvalidArgument as exc:  # (a repeat re decides otherwise than the engine: tests/test_empty_iterations.py)
        _expected_refusal(pattern, exc)
        return
    ref = regex_spans(data, pattern, start, ignore_case)
    try:
        got = run_search(tmp_path_factory.mktemp("g"), data, matcher, start, 4, 400, budget=1 << 20)
    except PatternTooLong as exc:
        error = exc
    else:
        error = None
    if error is not None:  # only a match longer than the reach bound may stop the search
        assert any(end - begin > 64 for begin, end in ref if begin <= error.resume_offset)
        return
    assert as_tuples(got) == windows(data, ref, 4, 400, budget=1 << 20), pattern


@pytest.mark.parametrize(("pattern", "finder"), [
    (r"(b)?(?(1)a|)", b"(?:(?P<g1>b)){1,1}(?(g1)a|)"), (r"(a)?\1", b"(?:(?P<g1>a)){1,1}(?P=g1)"),
    (r"(a?)\1", b"(?P<g1>(?:a){1,1})(?:(?P=g1)|)"),
    (r"(x?)(?(1)y)", b"(?:(?P<g1>(?:x){1,1})(?:y|)|(?:y))"),
    (r"(a?)(?:x\1)?", b"(?:(?P<g1>(?:a){1,1})(?:x(?:(?P=g1)|)){0,1}|(?:x(?:(?P=g1)|)){1,1})"),
    (r"()x?\1", b"(?:x){1,1}"),
    (r"(?i)(a?)\1", b"(?P<g1>(?:[Aa]){1,1})(?:(?i:(?P=g1))|)")])
def test_the_finder_of_a_pattern_with_backreferences(pattern, finder):
    """A backreference or conditional naming a group that cannot match empty text is written as it is (where the finder
    passed the group over it holds nothing); one naming a group that can matches what its group holds, or empty text
    where the finder passed the group over (``(?:x(?:(?P=g1)|)){1,1}`` above: the group held empty text there), or
    either arm; one to a group the finder never captures is written as empty text (``()x?\\1``)."""
    assert nonempty_core(parse(pattern, False), 64) == finder


@pytest.mark.parametrize("pattern", [r"(?=(a))\1?", r"(?:(?=(ab))x?\1)*", r"(?<=(a))(?(1)a|)?"])
def test_a_pattern_with_no_finder_is_refused_with_advice(pattern):
    with pytest.raises(PatternMatchesEmpty) as caught:
        PatternMatcher(pattern, False)
    assert isinstance(caught.value, InvalidArgument)
    assert "cannot match empty text" in str(caught.value) and "(a)?\\1" in str(caught.value)


@pytest.mark.alone
@pytest.mark.parametrize("pattern", [r"(b)?(?(1)a|)", r"(e)?(?(1)q|)", r"(e?)\1q?", r"(?:(e)|x)?(?(1)\d|)"])
def test_a_pattern_with_a_backreference_or_conditional_that_matches_empty_text_answers_in_time(tmp_path, pattern):
    """Over 20 MB of words (58% of the bytes "e"): PatternTimeout at 5 s before; the engine now runs only where the
    finder finds."""
    text = word_lines((b"alpha", b"beta", b"needle", b"eerie", b"e" * 30, b"ERROR", b"queue"))
    with ScratchStore(tmp_path / "root") as store:
        scope = store.scope("run", "agent")
        handle = scope.spill(text, source_tool="t").handle
        tools = ScratchTools(scope)
        began = time.perf_counter()
        reply = tools.call("read_handle", {"handle": handle, "pattern": pattern, "max_matches": 3})
        took = time.perf_counter() - began
    assert reply["windows"] or reply["next_call"] is None, reply
    assert took < 4.0, took


def got_next(got) -> int | None:
    return as_tuples(got)[1]


@contextmanager
def _within(seconds: float):
    """Raise TimeoutError in the block after ``seconds`` (SIGALRM: Python's ``re`` checks for signals as it
    backtracks, so a reference match that would run without end is stopped)."""
    def alarm(_signum, _frame):
        raise TimeoutError

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@settings(max_examples=int(os.environ.get("FINDER_EXAMPLES", "1500")) // 10, deadline=None)
@given(pattern=grammar_patterns(), piece=st.text(alphabet="ab\nx", min_size=1, max_size=60).map(str.encode),
       times=st.integers(80, 300), ignore_case=st.booleans(), scanned=st.booleans())
@example(pattern=r"aaa+|\n??", piece=b"aa\n" + b"a" * 14, times=241, ignore_case=False, scanned=False)  # (a match
@example(pattern=r"a*|\n", piece=b"a" * 16 + b"\n", times=241, ignore_case=False, scanned=False)  # found as the
# first non-empty one was checked as an anchored match, which is empty there: "may be longer than the reach bound"
# for a 1-byte match)
@example(pattern=r"(aaa|\n)*a", piece=b"a" * 35 + b"\naaaa", times=300, ignore_case=False, scanned=False)  # (its
# third match is 8,155 bytes: the page of the first two stops before it, SearchResult.stopped, where this test wanted
# all or an error)
def test_leading_class_scans_find_re_finditers_non_empty_matches(tmp_path_factory, pattern, piece, times,
                                                                 ignore_case, scanned):
    """Over more than 4 KiB (where the scan of the bytes a finder's ways need is decided:
    scratchfs.engine.pattern_scan.PathScan; ``scanned``: used whenever the finder has one, however many places it
    finds) the search is exact; a pattern that backtracks without end over the repeated text (``(a(a??))*b`` over
    8 KiB of "a") is not this test's (PatternTimeout at 1 s). The matcher is made after the reference ran: its time
    limit runs from when it is made, and a reference taking most of a second under load left the search too little
    of it (a page cut at the limit after its first matches, for "(a()a)*|(?(2)\n|)b": short, and taken for a fault
    of the worker process)."""
    try:
        re.compile(pattern)
        PatternMatcher(pattern, ignore_case, timeout=1.0, reach=64)
    except (re.error, PatternMatchesEmpty):
        return
    except InvalidArgument as exc:  # (see tests/test_empty_iterations.py)
        _expected_refusal(pattern, exc)
        return
    data = (piece * times)[:8192]
    try:
        with _within(2.0):  # (the reference itself: re has no time limit, and (a(a??))*b never ends over "a" * 8192)
            ref = regex_spans(data, pattern, 0, ignore_case)
    except TimeoutError:
        assume(False)
    matcher = PatternMatcher(pattern, ignore_case, timeout=1.0, reach=64)
    try:
        with patch.object(PathScan, "worth", return_value=True) if scanned else nullcontext():
            got = run_search(tmp_path_factory.mktemp("s"), data, matcher, 0, 4, 400, budget=1 << 20)
    except (PatternTooLong, PatternTimeout) as exc:
        error = exc
    else:
        error = None
    if isinstance(error, PatternTooLong):
        assert any(end - begin > 64 for begin, end in ref if begin <= error.resume_offset)
    if error is None and stopped_by_reach(got, ref, 64):  # (the page of the matches before a match past the reach)
        return
    if error is None and not isinstance(got.stopped, PatternTimeout):  # (a search that ran to its end, however
        # long it took: exact; before, a clock read after it -- past the deadline under load -- took it for one the
        # time limit stopped, whose page has a next offset: a failure of a search that was right)
        assert as_tuples(got) == windows(data, ref, 4, 400, budget=1 << 20), pattern
    elif error is None:  # the search ran into its time limit (a loaded machine) after some matches, as its result
        # says (SearchResult.stopped): the page ends there, as documented -- its matches the reference's first ones,
        # its next offset before the next one
        shown = [m for window in as_tuples(got)[0] for m in window[3]]
        assert shown == [begin for begin, _ in ref[: len(shown)]], pattern
        assert got_next(got) is not None and got_next(got) <= ref[len(shown)][0], pattern


def test_a_search_that_ran_to_its_end_is_checked_exactly_whatever_the_clock_says(tmp_path_factory, monkeypatch):
    """The property above tells a search the time limit stopped by its result (``SearchResult.stopped``), not by a
    clock read after it: under load that read fell past the matcher's 1 s deadline after a search that had found
    every match, and the page, complete, was held to a stopped one's next offset (a failure of a right search). The
    clock here reads an hour on after the search: the check is the exact one, and passes."""
    import types

    clock = time.monotonic
    monkeypatch.setattr(__import__(__name__, fromlist=["time"]), "time", types.SimpleNamespace(
        monotonic=lambda: clock() + 3600, perf_counter=time.perf_counter))
    inner = test_leading_class_scans_find_re_finditers_non_empty_matches.hypothesis.inner_test
    inner(tmp_path_factory, r"[ab]c", b"xxabcx\n", 300, False, False)


@pytest.mark.parametrize(("pattern", "scans"), [
    (r"(?:e\d)*", b"[0-9](?<=e[0-9])"), (r"(e)?(?(1)q|)", b"q(?<=eq)"), (r"(a)?\1", None),
    # a branch and the conditional it decides: "e" then a digit, or "x" (before: no scan, 1.5 s over 20 MB)
    (r"(?:(e)|x)?(?(1)\d|)", b"[0-9x](?:(?<=e[0-9])|(?<=x))"),
    (r"(?:(a)|b)?(?(1)z|y)", b"[y-z](?:(?<=az)|(?<=by)|(?<=y))"),
    # an optional byte, then the rare one: "q" one or two bytes in (before: a scan of "e", never used, 0.85 s)
    (r"(?:ee?q)*?", b"q(?<=ee{0,1}q)"),
    # an optional group: a way without it, and one with it
    (r"(?:e(x)?q)*", b"[qx](?:(?<=eq)|(?<=ex)(?=q))")])
def test_a_finder_is_scanned_for_the_rarest_byte_each_way_through_it_needs(pattern, scans):
    """``(?:e\\d)*`` over text with many "e" and no digit: its finder ``(?:e[0-9]){1,}`` tried at each "e" (1.85 s
    over 64 MB, ``python bench/empty_finders.py``); the scan of ``[0-9]`` after an "e" takes 0.12 s. The scan reads
    past optional items, branches and conditionals (scratchfs.engine.pattern_scan; ``python bench/regex_prefilters.py``
    times them). ``(a)?\\1``: the byte its backreference matches is not known, and a scan of "a" would find many
    more places than its finder ``aa`` (none here): not used."""
    matcher = PatternMatcher(pattern, False)
    text = bytearray(b"eerie alpha beta queue\n" * 1000)
    assert matcher.scan.used(text, 0) == (scans is not None)
    if scans is not None:
        assert matcher.scan.chosen.scan.pattern == scans


def _matcher_in(where: str, pattern: str, ignore_case: bool) -> PatternMatcher:
    """A matcher whose every engine call runs in the calling thread (``where="thread"``) or in a worker process
    (``"worker"``: as a call that outran its slice moves there, and stays while calls are slow -- a slice of 0 never
    brings it back), with a time limit no example here reaches."""
    matcher = PatternMatcher(pattern, ignore_case, timeout=60.0, reach=64)
    for engine in (matcher.engine, matcher.finder):
        if engine is not None:
            engine.remote = where == "worker"
            engine.slice = 0.0 if where == "worker" else 60.0
    return matcher


@settings(max_examples=int(os.environ.get("FINDER_EXAMPLES", "1500")) // 30, deadline=None)
@given(pattern=st.one_of(st.just(r"(a()a)*|(?(2)\n|)b"), grammar_patterns()),
       piece=st.text(alphabet="ab\nx", min_size=1, max_size=40).map(str.encode), times=st.integers(1, 60),
       start=st.integers(0, 200), context=st.sampled_from([0, 4, 40]), max_matches=st.integers(1, 50),
       ignore_case=st.booleans())
def test_a_page_searched_in_a_worker_process_holds_the_matches_of_a_page_searched_in_the_thread(
        tmp_path_factory, pattern, piece, times, start, context, max_matches, ignore_case):
    """The worker process runs the very operations the thread runs, on a copy of the buffer: its pages -- windows,
    matches, next offset, or the error -- are the thread's (a page ending after its first match, seen under load for
    the first pattern here, was the search's time limit: see the test above)."""
    try:
        re.compile(pattern)
        _matcher_in("thread", pattern, ignore_case)
    except (re.error, PatternMatchesEmpty):
        return
    except InvalidArgument as exc:  # (see tests/test_empty_iterations.py)
        _expected_refusal(pattern, exc)
        return
    data = (piece * times)[:2048]
    start = min(start, len(data))
    pages = {}
    for where in ("thread", "worker"):
        matcher = _matcher_in(where, pattern, ignore_case)
        try:
            got = run_search(tmp_path_factory.mktemp("w"), data, matcher, start, context, max_matches, budget=4096)
        except (PatternTooLong, PatternTimeout) as exc:
            pages[where] = (type(exc).__name__, exc.resume_offset)
        else:
            pages[where] = as_tuples(got)
    assert pages["worker"] == pages["thread"], pattern
