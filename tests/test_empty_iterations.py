"""Repeats whose body can match empty text and captures a group a backreference or conditional names
(``(a?^()|a)*\\2``): Python's ``re`` ends such a repeat at its first optional iteration that matched empty text,
``regex`` (the engine) may go on after it with more iterations, the empty one's group set for them -- so the search
reported a match at every line of ``"a\\na"`` repeated where ``re.finditer`` finds none (helper brief regex1,
``tests/bug_re.py``). Such a pattern is now refused (InvalidArgument, with advice) before it runs; every other
pattern of the family -- repeats of fixed count, bodies that cannot match empty, groups no reference names -- is
searched exactly as ``re.finditer``'s non-empty matches."""

from __future__ import annotations

import os
import re

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from scratchfs import InvalidArgument, PatternMatchesEmpty, PatternTimeout, PatternTooLong
from scratchfs.engine.search import PatternMatcher

from .reference import regex_spans, windows
from .test_backref_finders import EMPTY_ITERATIONS, _within, grammar_patterns
from .test_patterns import as_tuples, run_search, stopped_by_reach

_REFUSAL = EMPTY_ITERATIONS
_ALTERNATIVES = ["", "a", "b", "a?", "^", "$", "\\n", "()", "(a?)", "a?^()", "$()", "(b?)", "(?:a|)", "(^)"]
_QUANTIFIERS = ["*", "+", "?", "*?", "+?", "??", "{0,2}", "{1,3}", "{2}", "{3}", "{1}"]
_TAILS = ["\\{n}", "\\{n}?", "(?({n})a|b)", "(?({n})\\n)", "x?", "a\\{n}", "\\{n}$", "(?:\\{n}|b)"]


@st.composite
def empty_iteration_patterns(draw):
    """A repeated group of alternatives (empty ones, anchors, groups that capture empty text) then a backreference
    or conditional naming one of its groups, with optional text around them."""
    arms = draw(st.lists(st.sampled_from(_ALTERNATIVES), min_size=1, max_size=3))
    body = "(" + "|".join(arms) + ")"
    groups = 1 + sum(arm.count("(") - arm.count("(?") for arm in arms)
    tail = draw(st.sampled_from(_TAILS)).format(n=draw(st.integers(1, groups)))
    before = draw(st.sampled_from(["", "^", "a", "\\n"]))
    return before + body + draw(st.sampled_from(_QUANTIFIERS)) + tail + draw(st.sampled_from(["", "b", "$"]))


_ZERO_WIDTH = ["()", "(^)", "($)", "(\\b)", "(?=(a))", "(?!(b))", "(?<=(a))", "^", "(?=a)", "((?=(b)))", "(()(^))",
               "(?=(a)|(b))", "(?(1)()|())", "(?(1)|())"]
_GREEDY = ["*", "+", "?", "{0,2}", "{1,3}", "{2,}"]
_TWO_TAILS = ["(?({n})(?({m})a|b)|b)", "\\{n}\\{m}", "(?({n})a|\\{m})"]


@st.composite
def zero_width_repeat_patterns(draw):
    """A repeat of a body that matches empty text only (groups of anchors, lookarounds, empty groups; one way or
    several: alternatives, conditionals) then a backreference or conditional naming its groups: searched when
    greedy with a body of one way (every iteration the same), refused otherwise (regex1's refusal, narrowed)."""
    arms = draw(st.lists(st.lists(st.sampled_from(_ZERO_WIDTH), min_size=1, max_size=3).map("".join), min_size=1,
                         max_size=2))
    head = draw(st.sampled_from(["", "a", "^", "()"])) + "(?:" + "|".join(arms) + ")" + draw(st.sampled_from(_GREEDY))
    try:
        groups = re.compile(head).groups
    except re.error:
        groups = 0
    assume(groups > 0)
    n, m = draw(st.integers(1, groups)), draw(st.integers(1, groups))
    tail = draw(st.sampled_from(_TAILS + _TWO_TAILS)).format(n=n, m=m)
    return head + tail + draw(st.sampled_from(["", "b", "$", "|a"]))


def _search_or_refusal(tmp_path_factory, pattern: str, data: bytes, ignore_case: bool):
    """The search's windows, ``"refused"``, or ``None`` when the reach bound or time limit stopped it (or a refusal of
    another kind)."""
    try:
        matcher = PatternMatcher(pattern, ignore_case, timeout=5.0, reach=64)
    except PatternMatchesEmpty:  # (a reference to a group captured in a lookaround: tests/test_backref_finders.py)
        return None
    except InvalidArgument as exc:
        if _REFUSAL in str(exc):
            return "refused"
        raise
    try:
        got = run_search(tmp_path_factory.mktemp("e"), data, matcher, 0, 4, 400, budget=1 << 20)
    except (PatternTooLong, PatternTimeout):
        return None
    try:
        with _within(2.0):  # (re has no time limit: (a(a??))*b never ends over "a" * 8192)
            ref = regex_spans(data, pattern, 0, ignore_case)
    except TimeoutError:
        return None
    return None if stopped_by_reach(got, ref, 64) else as_tuples(got)


@settings(max_examples=int(os.environ.get("FINDER_EXAMPLES", "1500")) // 10, deadline=None)
@given(pattern=st.one_of(empty_iteration_patterns(), grammar_patterns(), zero_width_repeat_patterns()),
       piece=st.text(alphabet="ab\nx", min_size=1, max_size=12).map(str.encode), times=st.integers(1, 300),
       ignore_case=st.booleans())
@example(pattern=r"(a?^()|a)*\2", piece=b"a\na", times=206, ignore_case=False)  # (matches at 0, 2, 5, ... before)
@example(pattern=r"(?:^()|a)*\1", piece=b"ac", times=3, ignore_case=False)
@example(pattern=r"()??((?(1)b\1|))?|a", piece=b"b", times=1, ignore_case=False)  # (a lazy optional iteration)
@example(pattern=r"(?:x?^()|a)*(?<=a)\1", piece=b"ac\n", times=5, ignore_case=False)
@example(pattern=r"(?:()|())*(?(1)(?(2)a|b)|b)", piece=b"ab\n", times=3, ignore_case=False)  # (regex: (0, 1))
@example(pattern=r"(?:\b(?=(a)|(b))|(?=(a)))*(?(1)(?(3)a|b)|b)", piece=b"abbb", times=4, ignore_case=False)
def test_repeats_of_bodies_that_match_empty_are_searched_as_re_or_refused(tmp_path_factory, pattern, piece, times,
                                                                         ignore_case):
    """Exactly ``re.finditer``'s non-empty matches, or refused -- and refused only when a repeat with optional
    iterations and a body that can match empty captures a group a reference names."""
    try:
        re.compile(pattern)
    except re.error:
        return
    data = (piece * times)[:8192]
    got = _search_or_refusal(tmp_path_factory, pattern, data, ignore_case)
    if got == "refused":
        assert re.search(r"\\\d|\(\?\(\d", pattern) and re.search(r"[*+?}]", pattern), pattern
        return
    if got is not None:
        assert got == windows(data, regex_spans(data, pattern, 0, ignore_case), 4, 400, budget=1 << 20), pattern
    else:
        assume(False)


@pytest.mark.parametrize("pattern", [r"(a?^()|a)*\2", r"(?:^()|a)*\1", r"(a|())+?x\2", r"(()|a){0,3}(?(2)b)",
                                     r"(?:(?=(a))|b)*\1", r"((a?))*\2", r"x(?:$()|a)?\1",
                                     r"(?:^()|a){1,2}\1", r"()??((?(1)b\1|))?|a"])
def test_a_repeat_of_a_body_that_matches_empty_and_captures_a_named_group_is_refused(pattern):
    with pytest.raises(InvalidArgument) as caught:
        PatternMatcher(pattern, False)
    assert _REFUSAL in str(caught.value) and "a+ rather than a*" in str(caught.value)


@pytest.mark.parametrize("pattern", [r"(?:^()|a){2}\1", r"(a)*\1", r"(a|b)+\1", r"(a?^()|a)*", r"(?:|a)*b",
                                     r"()(?:a|)*\1", r"(a?)\1"])
def test_other_repeats_are_searched_exactly(tmp_path_factory, pattern):
    """A fixed count (no optional iteration), a body that cannot match empty, groups no reference names in a body
    that can, a named group outside the repeat: searched, as re.finditer."""
    data = (b"a\naa\nbac\nxb" * 50)[:600]
    got = _search_or_refusal(tmp_path_factory, pattern, data, False)
    assert got == windows(data, regex_spans(data, pattern, 0, False), 4, 400, budget=1 << 20)


ANSWERED = [r"()*\1a", r"(^)*\1a", r"((?=(a)))*\2", r"()*(?(1)a|b)", r"(\b)*(?(1)a|b)", r"(?:(?=(a))\b)*a\1",
            r"(?:()(^))+\1\2a", r"a(?:(?<=(a))){0,2}(?(1)b|x)", r"(()(^)){2,}(?(3)a|b)"]
"""Repeats regex1 refused though the search answers them as ``re`` does: greedy, of a body that matches empty text
only and in one way (no alternative, conditional, backreference or optional repeat in it), whose every iteration
captures the same groups at the same place."""

STILL_REFUSED = [(r"(?:()|())*(?(1)(?(2)a|b)|b)", b"ab"), (r"(?:(?(2)()|()))*(?(1)a|b)", b"ab"),
                 (r"()??((?(1)b\1|))?|a", b"b"), (r"(a?^()|a)*\2", b"a\na" * 4),
                 (r"(?:\b(?=(a)|(b))|(?=(a)))*(?(1)(?(3)a|b)|b)", b"abbb")]
"""Repeats of a body that can match empty text where ``regex`` and ``re`` disagree over the text given: two ways to
match empty text (alternatives, a conditional: more empty iterations reach groups ``re`` never sets together), a
lazy optional iteration, a body that matches non-empty text too."""


@pytest.mark.parametrize("pattern", ANSWERED)
def test_a_greedy_repeat_of_one_way_to_match_empty_text_is_searched_as_re(tmp_path_factory, pattern):
    """Refused before (every repeat of a body that can match empty text and captures a named group was); now
    searched, exactly as re.finditer's non-empty matches."""
    data = (b"a\naab\nbab\nxb a" * 40)[:600]
    got = _search_or_refusal(tmp_path_factory, pattern, data, False)
    assert got == windows(data, regex_spans(data, pattern, 0, False), 4, 400, budget=1 << 20)
    assert got[0], pattern  # (some match: the answer is not the empty one)


@pytest.mark.parametrize(("pattern", "text"), STILL_REFUSED)
def test_a_repeat_the_engines_decide_otherwise_is_still_refused_naming_its_group(pattern, text):
    import regex

    from scratchfs.engine.pattern_worker import FLAGS
    from scratchfs.foundation.limits import MIN_REPLY_BYTES

    assert ([m.span() for m in re.finditer(pattern.encode(), text, re.M)] !=  # (the refusal is needed)
            [m.span() for m in regex.finditer(pattern.encode(), text, FLAGS)])
    with pytest.raises(InvalidArgument) as caught:
        PatternMatcher(pattern, False)
    said = str(caught.value)
    group = re.search(r"captures group (\d+) there", said)
    assert _REFUSAL in said and group and f"capture group {group[1]} outside the repeat" in said
    assert int(group[1]) in _named(pattern) and len(said.encode()) <= MIN_REPLY_BYTES // 4


def _named(pattern: str) -> set[int]:
    """The groups a backreference or conditional of ``pattern`` names."""
    return {int(n) for n in re.findall(r"\\(\d)|\(\?\((\d)\)", pattern) for n in n if n}
