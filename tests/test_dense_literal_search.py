"""A pattern that crosses lines and whose required literal is near every match start but also nearly everywhere
(``(?:class|def) [A-Z]\\w*Error\\b[^\\n]*\\n\\./``: its literal, the space, up to 5 bytes after a match's start) was
decided by an anchored engine call at each of the 6 bytes before every space: 1.3 million calls and 3.5 s (cut at
its time limit) over 2.6 MB of grep output, where ``re`` takes 0.02 s (open10). Where the literal is dense
(``patterns.DENSE_SHARE``) one search from the first byte in its reach decides the next match: 0.09 s. Exact: the
matches are ``re``'s, with the dense way and the anchored way each forced."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchfs.api.counting import count_matches
from scratchfs.engine import pattern_worker, patterns
from scratchfs.engine.search import PatternMatcher

from .reference import regex_spans
from .test_patterns import run_search

_PATTERN = r"(?:class|def) [A-Z]\w*Error\b[^\n]*\n\./"


def test_a_dense_literal_takes_a_search_a_match_not_a_call_a_byte(scope, fixture_data, monkeypatch):
    data = fixture_data["workspace-grep-stdlib-defs.txt"] * 5  # (2.6 MB)
    calls = []
    real = pattern_worker.Engine._call
    monkeypatch.setattr(pattern_worker.Engine, "_call", lambda self, *args: calls.append(args[0]) or real(self, *args))
    handle = scope.spill(data, source_tool="grep").handle
    got = count_matches(scope, handle, None, _PATTERN, 0)
    want = regex_spans(data, _PATTERN)
    assert (got.matches, got.next_offset) == (len(want), None) and len(want) == 175
    assert len(calls) <= 4 * len(want) + 200, len(calls)  # (a search a match, its check, one a frame: 1.3 million)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(head=st.sampled_from(["", "a", "[ab]{0,3}", "(?:b|ab)", r"\w?"]), literal=st.sampled_from(["ab", " ", "x1"]),
       tail=st.sampled_from([r"\n", r"[^x]*\n", r"\s+a", r"[\s\S]{0,9}b", r"\n^a"]),
       data=st.text(alphabet="ab \n\rx1", max_size=3000).map(str.encode), share=st.sampled_from([0, 10**9]))
def test_the_dense_way_and_the_anchored_way_find_re_s_matches(tmp_path_factory, monkeypatch, head, literal, tail,
                                                              data, share):
    monkeypatch.setattr(patterns, "DENSE_WINDOW", 64)
    monkeypatch.setattr(patterns, "DENSE_SHARE", share)  # (0: never dense; 10**9: dense wherever one occurs)
    pattern = f"{head}{literal}{tail}"
    matcher = PatternMatcher(pattern, reach=1 << 14)
    assert matcher.literal is not None and matcher.mode != "lines", pattern
    got = run_search(tmp_path_factory.mktemp("d"), data, matcher, 0, 0, 10_000, budget=1 << 24)
    assert [(h.offset, h.offset + h.length) for w in got.windows for h in w.matches] == regex_spans(data, pattern)
