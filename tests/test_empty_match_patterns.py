"""Patterns that match empty text (``x*``, ``(?:)``, ``\\b``, ``(?=a)``, ``(?:ab)*?``): a search reports their non-empty
matches only, as ``re.finditer`` gives them, and runs the engine only where a non-empty match can begin
(scratchfs.engine.pattern_finder.first_bytes). Each empty match used to cost a trip through Python: "(?:)" and
"q*" over a large text ran into the 5 s time limit (PatternTimeout 5 MB into 64 MiB) instead of saying "no matches"."""

from __future__ import annotations

import re
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchfs import BadPattern, PatternTooLong, ScratchStore
from scratchfs.api.contract import ScratchTools
from scratchfs.engine.pattern_syntax import parse
from scratchfs.engine.search import PatternMatcher

from .reference import regex_spans, windows
from .test_patterns import as_tuples, run_search, word_lines

_NULLABLE = [r"a*", r"b*?", r"(?:ab)*", r"(?:a|)", r"(?:|b)", r"x?", r"\b", r"(?=a)", r"(?<=b)", r"[ab]{0,2}",
             r"(a)?", r"(?:a\n)*", r"\s*", r"(?i:A)*", r"(?>a*)", r"(b)?(?(1)a|)", r"^", r"$", r"(?:)"]
_ANY = [r"a", r"b", r"\n", r" ", r"x\d", r"."]
_ATOMIC = re.compile(r"\(\?>|[*+?}]\+")
"""An atomic group or a possessive quantifier: Python 3.11's ``re`` syntax, not 3.10's."""


@st.composite
def nullable_patterns(draw):
    return "".join(draw(st.lists(st.sampled_from(_NULLABLE + _ANY[:1]), min_size=1, max_size=4)))


@given(pattern=nullable_patterns(), data=st.text(alphabet="ab \nAx1", max_size=3000).map(str.encode),
       start=st.integers(0, 3000), ignore_case=st.booleans())
def test_matches_of_patterns_that_match_empty_text_equal_re_finditers_non_empty_ones(tmp_path_factory, pattern,
                                                                                     data, start, ignore_case):
    start = min(start, len(data))
    if sys.version_info < (3, 11) and _ATOMIC.search(pattern):  # (pattern= is the running Python's re syntax: 3.10's
        with pytest.raises(BadPattern, match=r"does not compile: (unknown extension \?>|multiple repeat) at .*: Python "
                                             r"3\.11's syntax; this is 3\.10\): write "):
            PatternMatcher(pattern, ignore_case, reach=64)  # has no atomic group or possessive quantifier: refused)
        return
    ref = regex_spans(data, pattern, start, ignore_case)
    try:
        got = run_search(tmp_path_factory.mktemp("e"), data, PatternMatcher(pattern, ignore_case, reach=64), start,
                         8, 400, budget=1 << 20)
    except PatternTooLong as exc:
        error = exc
    else:
        error = None
    if error is not None:  # only a match longer than the reach bound may stop the search
        assert any(end - begin > 64 for begin, end in ref if begin <= error.resume_offset)
        return
    assert as_tuples(got) == windows(data, ref, 8, 400, budget=1 << 20)


@pytest.mark.parametrize(("pattern", "starts"), [("x*", b"x"), ("(?:)", b""), (r"\b", b""), ("(?=a)", b""),
                                                 ("(?:ab)*", b"a"), ("(?i)k*", b"Kk"), (r"\d*|y*", b"0123456789y"),
                                                 ("(?:x|)z?", b"xz"), (r"(a)?\1", b"a"),
                                                 (r"(b)?(?(1)a|)", b"b"), (r"(b?)(?(1)a|)", b"ab"),
                                                 (r"(?=(a))\1?", None)])
def test_first_bytes_of_patterns_that_match_empty_text(pattern, starts):
    from scratchfs.engine.pattern_finder import first_bytes

    found = first_bytes(parse(pattern, False))
    assert (None if found is None else bytes(sorted(found))) == starts


@pytest.mark.alone
@pytest.mark.parametrize("pattern", ["(?:)", r"\b", "(?=needle)", r"\B", "q*", "(?:qz)*", "Q?"])
def test_a_pattern_matching_only_empty_text_here_answers_at_once_on_a_large_text(tmp_path, pattern):
    text = word_lines((b"alpha", b"beta", b"needle", b"x" * 30, b"ERROR"))
    with ScratchStore(tmp_path / "root") as store:
        scope = store.scope("run", "agent")
        handle = scope.spill(text, source_tool="t").handle  # 17 MB
        tools = ScratchTools(scope)
        began = time.perf_counter()
        reply = tools.call("read_handle", {"handle": handle, "pattern": pattern})
        counted = tools.call("read_handle", {"handle": handle, "pattern": pattern, "count": True})
        took = time.perf_counter() - began
    assert reply["windows"] == [] and reply["next_call"] is None
    empty_only = pattern in ("(?:)", r"\b", "(?=needle)", r"\B")  # (its note: where it matches, empty_places)
    assert ("matches only empty strings" if empty_only else "matches empty text") in reply["note"]
    assert ("matches only empty strings" in counted["note"]) == empty_only
    assert counted["matches"] == 0 and counted["next_call"] is None
    assert took < 4.0  # (PatternTimeout at 5 s, or a count cut at its time bound, before)


_BODY_PARTS = [r"e", r"q", r"e?", r"q*", r"(?:e|)", r"[eq]", r"\n", r"x?", r"(?=q)", r"\b", r"(?:qe)+", r"e{0,2}",
               r"(?:(?:e|)*q|)"]


@st.composite
def starred_groups(draw):
    """Patterns built of starred (optional, counted) groups whose body can match empty text or not -- ``(?:eq)*``,
    ``(?:e?q)*?``, ``(?:x?(?=q))+`` -- in sequences and alternatives: each matches empty text at every place."""
    def group() -> str:
        body = "".join(draw(st.lists(st.sampled_from(_BODY_PARTS), min_size=1, max_size=3)))
        return f"(?:{body}){draw(st.sampled_from(['*', '*?', '?', '{0,2}', '+', '*+']))}"
    pieces = [group() for _ in range(draw(st.integers(1, 3)))]
    pattern = "".join(pieces) if draw(st.booleans()) else "|".join(pieces)
    return pattern if not draw(st.booleans()) else f"(?:{pattern})*"


@settings(max_examples=1000)
@given(pattern=starred_groups(), data=st.text(alphabet="eqx \n1", max_size=2000).map(str.encode),
       start=st.integers(0, 2000), ignore_case=st.booleans())
def test_starred_groups_that_match_empty_text_find_re_finditers_non_empty_matches(tmp_path_factory, pattern, data,
                                                                                   start, ignore_case):
    """The search of such a pattern runs it only where its finder
    (:func:`~scratchfs.engine.pattern_finder.nonempty_core`) finds a non-empty match can begin: the matches are
    ``re.finditer``'s non-empty ones all the same."""
    test_matches_of_patterns_that_match_empty_text_equal_re_finditers_non_empty_ones.hypothesis.inner_test(
        tmp_path_factory, pattern, data, start, ignore_case)


@pytest.mark.parametrize(("pattern", "finder"), [
    ("(?:eq)*", b"(?:eq){1,}"), ("a*b?", b"(?:(?:a){1,}(?:b){0,1}|(?:b){1,1})"),
    (r"(?:e?q?)*", b"(?:(?:e){1,1}(?:q){0,1}|(?:q){1,1})(?:(?:e){0,1}(?:q){0,1}){0,}"), (r"(?=a)b*", b"(?=a)(?:b){1,}"),
    (r"(?:a|)*b", b"(?:(?:a)(?:(?:a|)){0,}b|b)"), (r"(a)?\1", b"(?:(?P<g1>a)){1,1}(?P=g1)"), (r"\b", None),
    # (before: the body's first non-empty iteration alone, then q: "eeq" was found at its second byte)
    (r"(?:(?:e|)*q|)", b"(?:(?:(?:e)(?:(?:e|)){0,}q|q))"),
    # anchors and lookarounds before the first byte kept (before: passed over, and ^\w+,\d+ was found at each byte
    # of a line's first word), but not one that captures a group
    (r"^\w+,\d+", b"^(?:[0-9A-Z_a-z]){1,}\\x2c(?:[0-9]){1,}"), (r"\b(?:ab)*", b"\\b(?:ab){1,}"),
    (r"(?<!x)a?b", b"(?:(?<!x)(?:a){1,1}b|(?<!x)b)"), (r"(?=(a))?a?b", b"(?:(?:a){1,1}b|b)")])
def test_the_finder_of_a_pattern_that_matches_empty_text(pattern, finder):
    from scratchfs.engine.pattern_finder import nonempty_core

    assert nonempty_core(parse(pattern, False), 64) == finder


@pytest.mark.alone
@pytest.mark.parametrize("pattern", ["(?:eq)*", "(?:eqx|)*", r"(?:e\d)*", "(?:ee?q)*?", "(?:x*eq)*"])
def test_a_starred_group_whose_body_starts_with_a_common_byte_answers_in_time(tmp_path, pattern):
    """``(?:eq)*`` over text full of "e" (none followed by "q"): the engine ran at each "e" (each a byte a
    non-empty match can begin with), a trip through Python each, and ran into the 5 s time limit 1 MB into 20 MB
    (PatternTimeout); it now runs only where its finder finds "eq"."""
    text = word_lines((b"alpha", b"beta", b"needle", b"eerie", b"e" * 30, b"ERROR", b"queue"))
    with ScratchStore(tmp_path / "root") as store:
        scope = store.scope("run", "agent")
        handle = scope.spill(text, source_tool="t").handle  # 20 MB, 58% of it "e"
        tools = ScratchTools(scope)
        began = time.perf_counter()
        reply = tools.call("read_handle", {"handle": handle, "pattern": pattern})
        took = time.perf_counter() - began
    assert reply["windows"] == [] and reply["next_call"] is None
    assert took < 4.0, took  # (PatternTimeout at 5 s before)


@pytest.mark.parametrize("pattern", [r"(?:(?:e|)*q|)", r"(?:(?:e?)+q|x)?", r"(?:(?:e|)*q)*"])
def test_a_repeat_whose_body_matches_empty_text_is_found_with_all_its_iterations(tmp_path, pattern):
    """The finder of a repeat whose body can match empty text took its first non-empty iteration alone, then what
    follows the repeat: "eeq" was found at its second "e", and the match at its first was missed."""
    data = b"xx eeq ab eeeeq q eq"
    got = run_search(tmp_path, data, PatternMatcher(pattern, False, reach=64), 0, 8, 400, budget=1 << 20)
    assert as_tuples(got) == windows(data, regex_spans(data, pattern, 0, False), 8, 400, budget=1 << 20)


def test_a_pattern_anchored_at_line_starts_is_tried_about_once_a_line(monkeypatch):
    """``^\\w+,\\d+`` over the packages CSV fixture: its finder passed the ``^`` over and found each suffix of a line's
    first word (``sslcertificatechecker,1``, ``slcertificatechecker,1``, ...), and the engine was asked at each: 57,811
    calls for 4,487 lines, each sent with the buffer to a worker process once a call outran its slice under load (the
    5 s limit met at byte 450,564; ``python bench/regex_prefilters.py``). The finder keeps the ``^`` now."""
    from scratchfs.engine.pattern_worker import Engine

    from .conftest import FIXTURES

    calls = []
    call = Engine._call
    monkeypatch.setattr(Engine, "_call", lambda self, *args: calls.append(args[0]) or call(self, *args))
    data = bytearray((FIXTURES / "query-packages-by-month.csv").read_bytes())
    matcher = PatternMatcher(r"^\w+,\d+", False, timeout=60.0)
    spans, pos = [], 0
    while (span := matcher.find(data, pos, len(data), True, 0)) is not None:
        spans.append(span)
        pos = span[1]
    assert spans == regex_spans(bytes(data), r"^\w+,\d+")
    assert len(calls) <= data.count(b"\n")  # (2,541 for 1,270 matches)
