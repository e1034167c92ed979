"""A line holding more matches than ``max_matches`` (``context="line"``) is shown once, with every match its window's
bytes show: before, each page took ``max_matches`` of its matches and showed the same ``{line, data}`` window, so the
model paid for the line once a page (``a fn fn fn fn fn end``, max_matches=2: three pages, the same line on each),
forward and from the end. Now the window takes the matches its bytes show past ``max_matches`` (it costs no byte
more), its reply's note says how many it holds, and the next page goes on past them. Each test here failed before."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from scratchfs.adapter import parse_call
from scratchfs.api.contract import ScratchTools, window_hits
from scratchfs.api.views import reply_size

from .test_line_context import literal_spans, pattern_spans

REPRO = b"intro line\n" + b"a fn fn fn fn fn end\n" + b"tail\n" * 3000


def _follow(tools: ScratchTools, arguments: dict) -> list[dict]:
    """Every page of a read, following each reply's ``next_call`` as a model does, until one names none."""
    pages = [tools.call("read_handle", arguments)]
    while pages[-1]["next_call"] is not None:
        assert len(pages) < 2000, "the search did not end"
        verb, arguments = parse_call(pages[-1]["next_call"])
        pages.append(tools.call(verb, arguments))
    return pages


def _found(data: bytes, pages: list[dict], spans: list[tuple[int, int]]) -> Counter:
    """How many times the pages show each match (by its start): a window with offsets its listed matches; a whole
    line's (``{line, data}``, checked to be that line) every match in that line."""
    lines = data.split(b"\n")
    starts = [0]
    for part in lines[:-1]:
        starts.append(starts[-1] + len(part) + 1)
    shown: Counter = Counter()
    for page in pages:
        for window in page["windows"]:
            if "offset" in window:
                shown.update(m["offset"] for m in window_hits(window))
                continue
            assert window.keys() - {"row"} == {"line", "data"}, window  # (a row too when the text reads as a table)
            text = lines[window["line"] - 1]
            assert window["data"] == text.decode("utf-8", "replace")
            lo = starts[window["line"] - 1]
            shown.update(s for s, _ in spans if lo <= s < lo + len(text))
    return shown


def test_a_line_over_max_matches_is_shown_once_forward(scratch_scope):
    """The reproducer: one page, the line once, its 5 matches said; nothing left to read."""
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(REPRO, source_tool="t").handle
    pages = _follow(tools, {"handle": handle, "match": "fn", "context": "line", "max_matches": 2})
    assert [page["windows"] for page in pages] == [[{"line": 2, "data": "a fn fn fn fn fn end"}]]
    assert pages[0]["next_call"] is None
    assert "holds 5 matches, past max_matches=2" in pages[0]["note"]


def test_a_line_over_max_matches_is_shown_once_from_the_end(scratch_scope):
    """From the end (``before=``): the line once, with all 5 matches; the page before it shows no line again."""
    data = b"intro line\n" + b"a fn fn fn fn fn end\n" + b"tail\n" * 3
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="t").handle
    pages = _follow(tools, {"handle": handle, "match": "fn", "context": "line", "max_matches": 2,
                            "before": len(data)})
    windows = [w for page in pages for w in page["windows"]]
    assert windows == [{"line": 2, "data": "a fn fn fn fn fn end"}]
    assert _found(data, pages, literal_spans(data, b"fn")) == Counter(s for s, _ in literal_spans(data, b"fn"))


_tokens = st.sampled_from([b"fn", b"fn ", b" ", b"a", b"f", b"n", b"\xc3\xa9", b"ffn", b"fnfn"])
_runs = st.builds(lambda n, c: c * n, st.sampled_from([300, 900, 1100, 2100]), st.sampled_from([b"x", b"\xc3\xa9"]))
_lines = st.builds(b"".join, st.lists(st.one_of(_tokens, _tokens, _tokens, _runs), max_size=12))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_lines, min_size=1, max_size=20), end=st.sampled_from([b"", b"\n"]),
       needle=st.sampled_from([("match", "fn"), ("pattern", "fn"), ("pattern", "f+n"), ("pattern", r"\bfn\b")]),
       most=st.sampled_from([1, 2, 3, 1000]), budget=st.one_of(st.none(), st.integers(2048, 16384)),
       from_end=st.booleans())
def test_following_next_call_finds_every_match_once(scratch_scope, lines, end, needle, most, budget, from_end):
    """Followed forward or from the end, as the model gets them, the pages show exactly the matches ``str.find`` /
    ``re.finditer`` find, each once -- a whole line's window counting every match in its line, so a line shown
    whole on two pages, or whole after a page listed some of its matches, counts them twice -- each page within
    its budget as the model's text (:func:`~scratchfs.api.views.reply_size`)."""
    data = b"\n".join(lines) + end
    kind, text = needle
    spans = literal_spans(data, text.encode()) if kind == "match" else pattern_spans(data, text.encode())
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="t").handle
    arguments = {"handle": handle, kind: text, "context": "line", "max_matches": most,
                 **({} if budget is None else {"budget": budget}), **({"before": len(data)} if from_end else {})}
    pages = _follow(tools, arguments)
    assert all(reply_size(page) <= (budget or 8192) for page in pages)
    assert _found(data, pages, spans) == Counter(s for s, _ in spans)
    per_line = Counter(data.count(b"\n", 0, s) for s, _ in spans)
    event(f"a line over max_matches: {any(n > most for n in per_line.values())}")
