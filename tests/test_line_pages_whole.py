"""Pages of a ``context="line"`` search cut by their budget show each line whole: a page that already shows a whole
window leaves a line that does not fit whole to the next page (its ``next_offset`` that line's first match; from the
end, its ``next_before`` the first match shown), which shows it whole -- or cut, alone, when even alone it does not
fit. Before, the page showed that line cut to fit and the next page went on past its matches, so the rest of the line
was never shown: 12 of 100 JSON lines of a search for records (``^\\s*[{\\[]``) came back unparseable. Each test
here failed before the fix. Nor does the search itself end a page among a line's matches (``max_matches`` or its
budget, forward; from the end, the matches its budget holds counted back): the page ends before that line, which the
next page shows whole, or, alone, takes the line's first matches too when they fit -- before, the line came on two
pages, each with some of its matches, its bytes twice. A line whose matches are over ``max_matches`` or a page comes
in pieces: each alone on its page, or the first on a page holding the line's last matches (from the end: the last on
a page holding its first ones)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from scratchfs.api.contract import ScratchTools, window_hits
from scratchfs.api.views import reply_size

from .test_line_context import pattern_spans, reference_windows

SLACK = 1024  # (a page's own fields, its note and next_call, beside its windows: well under this)


def _pages(tools: ScratchTools, args: dict, full: bool = True) -> list[dict]:
    """Every page of a search, following next_offset (from the end: next_before), in the content's order; ``full``:
    a whole line's window with its offsets and matches (``full_windows``, the web's), else as the model gets it,
    ``{line, data}``."""
    pages = []
    for _ in range(2000):
        pages.append(tools.call("read_handle", args, full_windows=full))
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
    for full in (True, False):  # (the web's windows, with offsets, and the model's, {line, data})
        pages = _pages(tools, {**args, "before": len(data)} if from_end else args, full)
        windows = [w for page in pages for w in page["windows"]]
        assert all(reply_size(page) <= 2048 for page in pages)
        assert [w["line"] for w in windows] == list(range(1, 200, 2))
        assert [json.loads(w["data"])["i"] for w in windows if "cut" not in w] == list(range(0, 200, 2))
        assert full or all(w.keys() == {"line", "data"} for w in windows)


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


# (40 examples by default, 100 before: their cases are drawn anew each run; SCRATCHFS_STRESS=1 runs 2,000)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=_texts(), budget=st.one_of(st.integers(2 * 1024, 4 * 1024), st.integers(2 * 1024, 16 * 1024)),
       from_end=st.booleans(), pattern=st.sampled_from([r"^\s*[{\[]", r"^ *[{\[]", r"ab", r"b\b", r"[{\[]", r"\[$"]),
       most=st.sampled_from([2, 3, 1000]))
def test_every_line_window_is_shown_whole_unless_alone_it_is_over_a_page(scratch_scope, data, budget, from_end,
                                                                        pattern, most):
    """Followed forward or from the end, the pages show every match of Python ``re`` (MULTILINE) once, each in a
    window that is the reference window of its matches (:func:`~tests.test_line_context.reference_windows`: the
    lines holding them, bounded at 1 KiB a side), whole -- unless that window is alone on its page and the lines
    holding it, as JSON, are over what a page holds (the budget less a page's own fields) -- and each line once: a
    window shows some of its line's matches only when they are over ``max_matches`` or, as JSON with its matches
    listed, a page, and alone on its page or at its edge (see the module docstring)."""
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="t").handle
    args = {"handle": handle, "pattern": pattern, "context": "line", "max_matches": most, "budget": budget}
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
            if own["matches"] != whole["matches"]:  # (a line's matches in pieces: only one over a page)
                split += 1
                assert len(whole["matches"]) > most or _alone_size(data, whole, spans) > budget - SLACK
                at, last = page["windows"].index(window), len(page["windows"]) - 1
                assert (at == last == 0 or (at == 0 and own["matches"][-1] == whole["matches"][-1])
                        or (at == last and own["matches"][0] == whole["matches"][0])), (window, whole)
            if _whole(window, own):
                continue
            cut += 1
            size = reply_size(data[whole["lo"] : whole["hi"]].decode("utf-8", "replace"))
            assert size > budget - SLACK and len(page["windows"]) == 1, (window, whole, budget)
    _check_model_pages(tools, args, data, spans, budget, from_end)
    event(f"windows cut to fit alone: {cut > 0}")
    event(f"a line over max_matches or a page in pieces: {split > 0}")
    event(f"pages: {min(len(pages), 5)}{'+' if len(pages) >= 5 else ''}")


def _check_model_pages(tools: ScratchTools, args: dict, data: bytes, spans: list[tuple[int, int]], budget: int,
                       from_end: bool) -> None:
    """The same search's pages as the model gets them: each within the budget, each whole line's window (``{line,
    data}``) the text of the reference window starting at that line, the cut ones with their offsets (checked as
    the web's above), and the lines shown those of every reference window."""
    refs = reference_windows(data, spans)
    whole = {ref["line"]: ref for ref in refs if not (ref["before"] or ref["after"])}
    pages = _pages(tools, {**args, "before": len(data)} if from_end else args, full=False)
    for page in pages:
        assert reply_size(page) <= budget
        for window in page["windows"]:
            if "offset" not in window:
                ref = whole[window["line"]]
                assert window.keys() - {"row"} == {"line", "data"}  # (a row too when the text reads as a table)
                assert window["data"] == data[ref["lo"] : ref["hi"]].decode("utf-8", "replace")
    assert {w["line"] for page in pages for w in page["windows"]} == {ref["line"] for ref in refs}


def _alone_size(data: bytes, ref: dict, spans: list[tuple[int, int]]) -> int:
    """Bytes of JSON the reference window ``ref`` takes whole in a reply: its text and its matches listed."""
    ends = dict(spans)
    listed = [{"offset": s, "length": ends[s] - s, "line": data.count(b"\n", 0, s) + 1} for s in ref["matches"]]
    return reply_size({"data": data[ref["lo"] : ref["hi"]].decode("utf-8", "replace"), "matches": listed})


def _whole(window: dict, ref: dict) -> bool:
    """Whether ``window`` is ``ref``, the reference window of its matches, whole: those matches, its bytes (a side the
    bound cut may leave out up to 3 bytes of a character cut there) and the ``cut`` it says."""
    lo, hi = window["offset"], window["offset"] + window["length"]
    said = {"both": (True, True), "before": (True, False), "after": (False, True)}.get(window.get("cut"),
                                                                                     (False, False))
    return ([m["offset"] for m in window_hits(window)] == ref["matches"] and said == (ref["before"], ref["after"])
            and (ref["lo"] <= lo <= ref["lo"] + 3 if ref["before"] else lo == ref["lo"])
            and (ref["hi"] - 3 <= hi <= ref["hi"] if ref["after"] else hi == ref["hi"]))


def _shown(pages: list[dict]) -> list[tuple[int, list[int]]]:
    """Each window of ``pages`` as ``(offset, [its matches' offsets])``, in the content's order."""
    return [(w["offset"], [m["offset"] for m in window_hits(w)]) for page in pages for w in page["windows"]]


@pytest.mark.parametrize(("data", "from_end", "want"), [
    (b"{\n{[\n", False, [[(0, [0])], [(2, [2, 3])]]),  # (max_matches=2 stopped among line 2's matches)
    (b"{[\n{\n", True, [[(0, [0, 1])], [(3, [3])]]),  # (from the end: the last 2 started among line 1's)
])
def test_a_line_max_matches_ends_among_its_matches_goes_whole_to_the_next_page(scratch_scope, data, from_end, want):
    """max_matches=2 ends the search between two matches of one line: the page ends before that line (forward, its
    next_offset the line's first match; from the end, its next_before the first match after it), which the next page
    shows whole with both its matches -- before, the line came on both pages, a match each."""
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="t").handle
    args = {"handle": handle, "pattern": r"[{\[]", "context": "line", "max_matches": 2}
    pages = _pages(tools, {**args, "before": len(data)} if from_end else args)
    assert [_shown([page]) for page in pages] == want
    first = pages[-1] if from_end else pages[0]  # (the page asked first, 1 match of 2: max_matches, not the budget,
    assert "note" not in first, first  # ended it, and a page max_matches ends says nothing of it)


def test_a_two_byte_line_the_budget_ends_among_its_matches_from_the_end_is_shown_once(scratch_scope):
    """Hypothesis's case, made plain: from the end, 2,048 bytes a reply (2,053 bytes of windows), the windows of a
    long line's match (2,049 bytes, cut both sides) and of ``{[`` fit but not B's after them, so the engine counted
    3 matches it holds -- begun at ``[``: the line ``{[`` came on the last page with ``[`` and on the one before with
    ``{``. Now the last page is B and C, the line ``{[`` whole on the page before (the long line's cut window alone
    on its own)."""
    lines = [b"x" * 1500 + b"{" + b"x" * 1500, b"{[", b"{" + b"b" * 599, b"{" + b"c" * 599]
    data = b"\n".join(lines) + b"\n"
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="t").handle
    args = {"handle": handle, "pattern": r"[{\[]", "context": "line", "max_matches": 200, "budget": 2048,
            "before": len(data)}
    pages = [[matches for _, matches in _shown([page])] for page in _pages(tools, args)]
    assert pages == [[[1500]], [[3002, 3003]], [[3005], [3606]]]


def test_a_last_line_alone_on_its_page_from_the_end_takes_its_first_matches_when_they_fit(scratch_scope):
    """From the end, the budget held the long line's window (2,049 bytes) alone, so the engine counted 1 match it
    holds -- the last line's second ``{``: that line came on two pages, a match each, alone on both, though whole it
    is 2 bytes. Now its page shows it whole."""
    data = b"x" * 1500 + b"{" + b"x" * 1500 + b"\n{" + b"y" * 10 + b"\n{{\n"
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="t").handle
    args = {"handle": handle, "pattern": r"[{\[]", "context": "line", "max_matches": 200, "budget": 2048,
            "before": len(data)}
    pages = [[matches for _, matches in _shown([page])] for page in _pages(tools, args)]
    assert pages == [[[1500]], [[3002]], [[3014, 3015]]]


def test_lines_of_several_matches_before_the_end_from_the_end_are_each_once(scratch_scope):
    """Hypothesis's case, run 2,000 examples (``SCRATCHFS_STRESS=1``): the last page's count began at the second
    ``{`` of the first ``{{{`` line; its look for where that line's window starts (a search of the matches before it)
    must take them exactly, not end at a line as a page does, or it finds none and the line stays cut."""
    lines = [b"{"] * 4 + [b"{" + "é".encode() * 966, b'ab [' + b'"' * 1058, b" b", b"", b"{", b"{{{", b"{{{"]
    data = b"\n".join(lines)
    tools = ScratchTools(scratch_scope)
    handle = scratch_scope.spill(data, source_tool="t").handle
    args = {"handle": handle, "pattern": r"[{\[]", "context": "line", "max_matches": 1000, "budget": 2048,
            "before": len(data)}
    pages = [[matches for _, matches in _shown([page])] for page in _pages(tools, args)]
    assert pages == [[[0], [2], [4], [6], [8]], [[1945]], [[3009], [3011, 3012, 3013]], [[3015, 3016, 3017]]]
