"""Pages of a ``context="line"`` search cut by their budget show each line whole: a page that already shows a whole
window leaves a line that does not fit whole to the next page (its ``next_offset`` that line's first match; from the
end, its ``next_before`` the first match shown), which shows it whole -- or cut, alone, when even alone it does not
fit. Before, the page showed that line cut to fit and the next page went on past its matches, so the rest of the line
was never shown: 12 of 100 JSON lines of a search for records (``^\\s*[{\\[]``) came back unparseable. Each test
here failed before the fix. (A line of several matches may still come in two windows, each whole with some of its
matches, where the search itself ended a page among them: its matches are each shown once, its bytes twice.)"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools, window_hits
from scratchfs.api.views import reply_size

from .test_line_context import pattern_spans, reference_windows

SLACK = 1024  # (a page's own fields, its note and next_call, beside its windows: well under this)


def _pages(tools: ScratchTools, args: dict) -> list[dict]:
    """Every page of a search, following next_offset (from the end: next_before), in the content's order."""
    pages = []
    for _ in range(2000):
        pages.append(tools.call("read_handle", args))
        if not pages[-1].get("more"):
            return pages[::-1] if "before" in args else pages
        args = {**args, "before": pages[-1]["next_before"]} if "before" in args else {
            **args, "offset": pages[-1]["next_offset"]}
    raise AssertionError("the search did not end")


def _records(count: int = 200) -> bytes:
    """JSON lines of 70-470 bytes, the even ones, between text lines (no closing brace)."""
    lines = [f'{{"i": {i}, "pad": "' + "x" * (50 + (i * 37) % 400) + '"}' if i % 2 == 0 else
             f'text "i": {i}, "pad": "' + "x" * (50 + (i * 37) % 400) + '"' for i in range(count)]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize(("pattern", "from_end"), [(r"^\s*[{\[]", False), (r"^\s*[{\[]", True), (r"\}$", False),
                                                   (r"\}$", True)])
def test_json_records_found_by_lines_in_a_small_budget_are_each_whole(scratch_scope, pattern, from_end):
    """The reproducer: 100 JSON lines among text lines, 2,048 bytes a reply, sought by their first byte or their
    last: every window is a whole record that parses, each once, forward and from the end (forward, 12 were cut
    after their first byte; from the end, sought by their last, the same lines were cut before it)."""
    data = _records()
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="t").handle
    args = {"handle": handle, "pattern": pattern, "context": "line", "max_matches": 200, "budget": 2048}
    pages = _pages(tools, {**args, "before": len(data)} if from_end else args)
    windows = [w for page in pages for w in page["windows"]]
    assert all(reply_size(page) <= 2048 for page in pages)
    assert [w["line"] for w in windows] == list(range(1, 200, 2))
    assert [json.loads(w["data"])["i"] for w in windows if "cut" not in w] == list(range(0, 200, 2))


_starts = st.sampled_from([b"", b"{", b"[", b"  {", b"\t[", b"text ", b"ab ", b" b"])
_pieces = st.sampled_from([b"{", b"[", b" ", b"ab", b"b", b'"k": 1, ', b"\xc3\xa9", b"\n"])
_runs = st.builds(lambda n, c: c * n, st.one_of(st.integers(1, 2500), st.sampled_from([40, 300, 700, 1100, 2100])),
                  st.sampled_from([b"x", b"\xc3\xa9", b'"']))
_lines = st.builds(lambda start, body: start + b"".join(body), _starts,
                   st.lists(st.one_of(_pieces, _runs), min_size=1, max_size=4))


@st.composite
def _texts(draw) -> bytes:
    """Lines of no bytes to a few KB (past the bound of 1 KiB a side, past a small budget), most of them starting
    with a bracket, some holding ``ab`` runs and brackets within, some empty."""
    return b"\n".join(draw(st.lists(_lines, min_size=10, max_size=80))) + draw(st.sampled_from([b"", b"\n"]))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_texts(), budget=st.one_of(st.integers(2 * 1024, 4 * 1024), st.integers(2 * 1024, 16 * 1024)),
       from_end=st.booleans(), pattern=st.sampled_from([r"^\s*[{\[]", r"^ *[{\[]", r"ab", r"b\b", r"[{\[]", r"\[$"]))
def test_every_line_window_is_shown_whole_unless_alone_it_is_over_a_page(scratch_scope, data, budget, from_end,
                                                                        pattern):
    """Followed forward or from the end, the pages show every match of Python ``re`` (MULTILINE) once, each in a
    window that is the reference window of its matches (:func:`~tests.test_line_context.reference_windows`: the
    lines holding them, bounded at 1 KiB a side), whole -- unless that window is alone on its page and the lines
    holding it, as JSON, are over what a page holds (the budget less a page's own fields)."""
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="t").handle
    args = {"handle": handle, "pattern": pattern, "context": "line", "max_matches": 1000, "budget": budget}
    pages = _pages(tools, {**args, "before": len(data)} if from_end else args)
    spans = pattern_spans(data, pattern.encode())
    assert [m["offset"] for page in pages for w in page["windows"] for m in window_hits(w)] == [s for s, _ in spans]
    refs = {s: ref for ref in reference_windows(data, spans) for s in ref["matches"]}  # (each match's whole window)
    cut = split = 0
    for page in pages:
        assert reply_size(page) <= budget
        for window in page["windows"]:
            hits = [(m["offset"], m["offset"] + m["length"]) for m in window_hits(window)]
            (own,) = reference_windows(data, hits)
            whole = refs[hits[0][0]]
            split += own["matches"] != whole["matches"]  # (a line of several matches the search's page ended in)
            if _whole(window, own):
                continue
            cut += 1
            size = reply_size(data[whole["lo"] : whole["hi"]].decode("utf-8", "replace"))
            assert size > budget - SLACK and len(page["windows"]) == 1, (window, whole, budget)
    event(f"windows cut to fit alone: {cut > 0}")
    event(f"a line's matches in two windows: {split > 0}")
    event(f"pages: {min(len(pages), 5)}{'+' if len(pages) >= 5 else ''}")


def _whole(window: dict, ref: dict) -> bool:
    """Whether ``window`` is ``ref``, the reference window of its matches, whole: those matches, its bytes (a side the
    bound cut may leave out up to 3 bytes of a character cut there) and the ``cut`` it says."""
    lo, hi = window["offset"], window["offset"] + window["length"]
    said = {"both": (True, True), "before": (True, False), "after": (False, True)}.get(window.get("cut"),
                                                                                     (False, False))
    return ([m["offset"] for m in window_hits(window)] == ref["matches"] and said == (ref["before"], ref["after"])
            and (ref["lo"] <= lo <= ref["lo"] + 3 if ref["before"] else lo == ref["lo"])
            and (ref["hi"] - 3 <= hi <= ref["hi"] if ref["after"] else hi == ref["hi"]))
